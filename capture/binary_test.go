package capture

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// The real binary, built once per test run for the tests that need real
// processes (the concurrency test, the Hermes plugin's policy exec).
var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func ledgerAuditBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "ledger-audit-bin-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "ledger-audit")
		out, err := exec.Command("go", "build", "-o", binPath, "../cmd/ledger-audit").CombinedOutput()
		if err != nil {
			binErr = &buildError{out: string(out), err: err}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

type buildError struct {
	out string
	err error
}

func (b *buildError) Error() string { return "go build: " + b.err.Error() + "\n" + b.out }

// verifyChain recomputes every row's hash with ledger.RowHash and checks
// the prev_hash links, whichever writer (Go or Python) wrote the row.
func verifyChain(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT id, ts, kind, source, session_id, turn_id, call_id, issued_id, tool_name, args_json,
		args_truncated, result_digest, result_hash, error_type, duration_ms, policy_rule, policy_action,
		tokens_in, tokens_out, tokens_cache_read, cwd, prev_hash, hash FROM events ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	prev, n := "", 0
	var lastID int64
	for rows.Next() {
		var e ledger.Event
		var ts string
		var issued, dur, tin, tout, tcache sql.NullInt64
		var trunc int
		if err := rows.Scan(&e.ID, &ts, &e.Kind, &e.Source, &e.SessionID, &e.TurnID, &e.CallID, &issued, &e.ToolName,
			&e.ArgsJSON, &trunc, &e.ResultDigest, &e.ResultHash, &e.ErrorType, &dur, &e.PolicyRule, &e.PolicyAction,
			&tin, &tout, &tcache, &e.Cwd, &e.PrevHash, &e.Hash); err != nil {
			t.Fatal(err)
		}
		var ok bool
		if e.TS, ok = ledger.ParseTime(ts); !ok || ledger.FormatTime(e.TS) != ts {
			t.Fatalf("row %d: ts %q is not in the canonical format", e.ID, ts)
		}
		e.IssuedID, e.ArgsTruncated = issued.Int64, trunc != 0
		e.DurationMS, e.TokensIn, e.TokensOut, e.TokensCacheRead = nullPtr(dur), nullPtr(tin), nullPtr(tout), nullPtr(tcache)
		if e.ID != lastID+1 {
			t.Fatalf("row %d follows row %d: ids must be consecutive", e.ID, lastID)
		}
		if e.PrevHash != prev {
			t.Fatalf("row %d: prev_hash %q, want %q", e.ID, e.PrevHash, prev)
		}
		if got := ledger.RowHash(&e); got != e.Hash {
			t.Fatalf("row %d (%s, source %s): hash %s, recomputed %s", e.ID, e.Kind, e.Source, e.Hash, got)
		}
		prev, lastID = e.Hash, e.ID
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

func nullPtr(v sql.NullInt64) *int64 {
	if !v.Valid {
		return nil
	}
	return &v.Int64
}

// TestOneShotProcessesLeaveReadableLedger runs the real binary the way a
// hook does — one process per event, exiting without closing the ledger
// (ExitAfter) — then lets the Python plugin and a reader use the file: the
// rows left in the WAL are all there and the chain is intact.
func TestOneShotProcessesLeaveReadableLedger(t *testing.T) {
	bin := ledgerAuditBinary(t)
	db := filepath.Join(t.TempDir(), "ledger.db")
	for i := 0; i < 10; i++ {
		ev := "PreToolUse"
		extra := ""
		if i%2 == 1 {
			ev, extra = "PostToolUse", `,"tool_response":{"stdout":"ok"}`
		}
		payload := fmt.Sprintf(`{"session_id":"s","hook_event_name":%q,"tool_name":"Bash","tool_use_id":"t%d","tool_input":{"command":"make %d"}%s}`, ev, i/2, i/2, extra)
		cmd := exec.Command(bin, "capture", "--client", "claude-code", "--db", db)
		cmd.Stdin = strings.NewReader(payload)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
			t.Fatalf("event %d: %v %q", i, err, out)
		}
	}
	if _, err := os.Stat(db + "-wal"); err != nil {
		t.Fatalf("expected the WAL to be left for the next writer: %v", err)
	}
	runPlugin(t, db, nil, "main")
	calls := readCalls(t, db)
	if len(calls) != 5+8 {
		t.Fatalf("%d calls, want 13", len(calls))
	}
	for _, c := range calls[:5] {
		if c.Status != ledger.StatusConfirmed || c.Source != "claude-code" {
			t.Fatalf("one-shot call: %+v", c)
		}
	}
	if n := verifyChain(t, db); n != 10+19 {
		t.Fatalf("chain covers %d rows, want 29", n)
	}
}
