package samples

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledger-audit/ledger-audit/ledger"
)

func synthFile(t *testing.T, o SynthOptions) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "synth.db")
	if err := Synth(path, o); err != nil {
		t.Fatal(err)
	}
	return path
}

func synthHead(t *testing.T, path string) ledger.VerifyResult {
	t.Helper()
	v, err := ledger.Verify(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !v.OK() {
		t.Fatalf("synthetic chain broken: %v", v.Break)
	}
	return v
}

func TestSynthIsDeterministic(t *testing.T) {
	o := SynthOptions{Calls: 3000, Sessions: 20, Seed: 7}
	a, b := synthHead(t, synthFile(t, o)), synthHead(t, synthFile(t, o))
	if a.HeadHash != b.HeadHash || a.Rows != b.Rows {
		t.Fatalf("same seed, different ledgers: %s/%d vs %s/%d", a.HeadHash, a.Rows, b.HeadHash, b.Rows)
	}
	o.Seed = 8
	if c := synthHead(t, synthFile(t, o)); c.HeadHash == a.HeadHash {
		t.Fatal("different seeds gave the same ledger")
	}
}

// The mix holds everything the audit looks for, in realistic amounts.
func TestSynthMix(t *testing.T) {
	const calls, sessions = 20000, 40
	path := synthFile(t, SynthOptions{Calls: calls, Sessions: sessions, Seed: 1})
	synthHead(t, path)
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := func(q string) int {
		t.Helper()
		var n int
		if err := db.QueryRow(q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	if n := count(`SELECT count(*) FROM events WHERE kind='issued'`); n != calls {
		t.Fatalf("%d issued rows, want %d", n, calls)
	}
	if n := count(`SELECT count(DISTINCT session_id) FROM events WHERE kind='session_start'`); n != sessions {
		t.Fatalf("%d sessions, want %d", n, sessions)
	}
	for _, c := range []struct {
		what     string
		q        string
		min, max int
	}{
		{"llm_call rows", `SELECT count(*) FROM events WHERE kind='llm_call' AND tokens_in > 0`, calls / 4, calls},
		{"errors", `SELECT count(*) FROM events WHERE kind='error'`, calls / 50, calls / 8},
		{"blocked", `SELECT count(*) FROM events WHERE kind='blocked'`, 1, calls / 100},
		{"ghosts (no outcome)", `SELECT count(*) FROM ledger WHERE status IN ('PENDING','GHOST_REPORTED')`, 3, calls / 200},
		{"ghost reports", `SELECT count(*) FROM events WHERE kind='ghost_reported'`, 1, calls / 200},
		{"revived ghosts", `SELECT count(*) FROM events g JOIN events o ON o.issued_id=g.issued_id AND o.kind='confirmed' WHERE g.kind='ghost_reported'`, 1, calls / 200},
		{"truncated args", `SELECT count(*) FROM events WHERE args_truncated=1 AND length(args_json)=4000`, 1, calls / 20},
		{"large args", `SELECT count(*) FROM events WHERE length(args_json) > 2000`, 10, calls / 5},
		{"risky commands", `SELECT count(*) FROM events WHERE kind='issued' AND (args_json LIKE '%rm -rf%' OR args_json LIKE '%| sh%' OR args_json LIKE '%base64 -d%')`, 3, calls / 100},
		{"loop runs (5+ identical calls in a row)", `SELECT count(*) FROM (SELECT session_id, args_json, count(*) n FROM events WHERE kind='issued' GROUP BY session_id, args_json HAVING n >= 5 AND (args_json LIKE '%pytest -x%' OR args_json LIKE '%time.sleep(30)%' OR args_json LIKE '%npm test -- --watch%'))`, 1, 100},
		{"hermes tools", `SELECT count(DISTINCT tool_name) FROM events WHERE kind='issued' AND tool_name IN ('terminal','write_file','patch','execute_code','delegate_task','cronjob')`, 6, 6},
		{"claude code tools", `SELECT count(DISTINCT tool_name) FROM events WHERE kind='issued' AND tool_name IN ('Bash','Write','Edit')`, 3, 3},
		{"mcp tools", `SELECT count(DISTINCT tool_name) FROM events WHERE kind='issued' AND tool_name LIKE 'mcp\_\_%' ESCAPE '\'`, 2, 10},
		{"timestamps out of order", `SELECT count(*) FROM events a JOIN events b ON b.id = a.id + 1 WHERE b.ts < a.ts`, 0, 0},
		{"outcomes not after their call", `SELECT count(*) FROM events o JOIN events i ON i.id=o.issued_id WHERE o.id < i.id OR o.ts < i.ts`, 0, 0},
	} {
		if n := count(c.q); n < c.min || n > c.max {
			t.Errorf("%s: %d, want %d..%d", c.what, n, c.min, c.max)
		}
	}
	// Arguments are JSON, as capture stores them.
	rows, err := db.Query(`SELECT id, args_json FROM events WHERE kind='issued' AND args_truncated=0 LIMIT 2000`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var args string
		rows.Scan(&id, &args)
		if _, ok := ledger.CanonicalJSON(args); !ok {
			t.Fatalf("row %d: args are not JSON: %.200s", id, args)
		}
	}
}

func TestSynthReadsBackAsCalls(t *testing.T) {
	path := synthFile(t, SynthOptions{Calls: 500, Sessions: 3, Seed: 3})
	r, err := ledger.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	calls := 0
	err = r.Scan(ledger.Filter{}, func(rec ledger.Record) error {
		if rec.Call != nil {
			calls++
			if rec.Call.Status == ledger.StatusPending && rec.Call.OutcomeID != 0 {
				t.Errorf("call %d pending with an outcome", rec.Call.ID)
			}
		}
		return nil
	})
	if err != nil || calls != 500 {
		t.Fatalf("%d calls, %v", calls, err)
	}
	if w := r.Warnings(); len(w) > 0 {
		t.Fatalf("warnings on a synthetic ledger: %v", w)
	}
}

func TestSynthRefusesExistingFileAndBadOptions(t *testing.T) {
	path := synthFile(t, SynthOptions{Calls: 10, Sessions: 1, Seed: 1})
	if err := Synth(path, SynthOptions{Calls: 10, Sessions: 1}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("overwrote an existing file: %v", err)
	}
	if err := Synth(filepath.Join(t.TempDir(), "x.db"), SynthOptions{Calls: 10, Sessions: 0}); err == nil {
		t.Fatal("accepted zero sessions")
	}
}
