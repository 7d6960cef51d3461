package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
	_ "github.com/mattn/go-sqlite3"
)

// runArgs drives the CLI in-process.
func runArgs(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runEnv(&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}, args)
	return out.String(), errb.String(), code
}

// chainFile writes n rows: issued/confirmed pairs.
func chainFile(t *testing.T, n int) (string, []ledger.Event) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ledger.db")
	w, err := ledger.OpenWriter(path, ledger.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	t0 := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	var rows []ledger.Event
	for i := 0; i < n; i++ {
		e := ledger.Event{TS: t0.Add(time.Duration(i) * time.Second), Kind: ledger.KindIssued, SessionID: "s1",
			ToolName: "terminal", CallID: fmt.Sprintf("c%d", i/2), ArgsJSON: `{"command":"ls"}`}
		if i%2 == 1 {
			e.Kind = ledger.KindConfirmed
		}
		got, err := w.Append(e)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, got)
	}
	return path, rows
}

func tamper(t *testing.T, path, stmt string) {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(stmt); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyCLIPrintsHead(t *testing.T) {
	path, rows := chainFile(t, 6)
	out, errOut, code := runArgs(t, "verify", path)
	want := fmt.Sprintf("%s: OK 6 rows (1–6), head 6:%s\n", path, rows[5].Hash)
	if code != 0 || out != want || errOut != "" {
		t.Fatalf("exit %d\nstdout %q\nwant   %q\nstderr %q", code, out, want, errOut)
	}
	// The printed head is accepted back as an anchor.
	if _, _, code := runArgs(t, "verify", "--anchor", fmt.Sprintf("4:%s", rows[3].Hash), path); code != 0 {
		t.Fatalf("anchor rejected: exit %d", code)
	}
}

func TestVerifyCLIReportsBreakAndExits1(t *testing.T) {
	for _, tc := range []struct {
		stmt, want string
	}{
		{`UPDATE events SET args_json='{"command":"rm -rf /"}' WHERE id=3`, "BROKEN at row 3 (edited)"},
		{`DELETE FROM events WHERE id=3`, "BROKEN at row 4 (deleted): row 3 missing"},
		{`INSERT INTO events(id, ts, kind) VALUES (7, '2026-11-30T09:00:00.000Z', 'issued')`, "BROKEN at row 7 (inserted)"},
	} {
		path, _ := chainFile(t, 6)
		tamper(t, path, tc.stmt)
		out, errOut, code := runArgs(t, "verify", path)
		if code != 1 || !strings.Contains(out, tc.want) || !strings.Contains(errOut, "hash chain broken in 1 of 1 ledger(s)") {
			t.Errorf("%s: exit %d\nstdout %q\nstderr %q", tc.stmt, code, out, errOut)
		}
	}
}

func TestVerifyCLIAnchorCatchesTruncatedTail(t *testing.T) {
	path, rows := chainFile(t, 6)
	anchor := fmt.Sprintf("6:%s", rows[5].Hash)
	tamper(t, path, `DELETE FROM events WHERE id > 4`)
	out, _, code := runArgs(t, "verify", "--anchor", anchor, path)
	if code != 1 || !strings.Contains(out, "(expected-head)") {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
}

func TestVerifyCLIJSON(t *testing.T) {
	good, rows := chainFile(t, 4)
	bad, _ := chainFile(t, 4)
	tamper(t, bad, `UPDATE events SET session_id='other' WHERE id=2`)
	out, _, code := runArgs(t, "verify", "--format", "json", good, bad)
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	var got []verifyJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(got) != 2 || !got[0].OK || got[0].Head != "4:"+rows[3].Hash || got[1].OK || got[1].Break == nil || got[1].Break.Row != 2 || got[1].Break.Kind != "edited" {
		t.Fatalf("%+v", got)
	}
}

func TestVerifyCLIInputErrors(t *testing.T) {
	dir := t.TempDir()
	notLedger := filepath.Join(dir, "x.db")
	tamper(t, notLedger, `CREATE TABLE t(x)`)
	path, _ := chainFile(t, 2)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"verify"}, "no ledger given"},
		{[]string{"verify", filepath.Join(dir, "missing.db")}, "missing.db: no such file"},
		{[]string{"verify", notLedger}, "x.db: not a ledger"},
		{[]string{"verify", "--anchor", "nope", path}, "--anchor: want ID:HASH"},
		{[]string{"verify", "--format", "xml", path}, "--format"},
	} {
		_, errOut, code := runArgs(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, errOut)
		}
	}
}
