package ledger

import (
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// Fuzz targets for the two ways a hostile file reaches the reader: bytes
// that claim to be a ledger, and a well-formed table full of odd values.
// Their seed corpora (testdata/fuzz/) run as ordinary tests; run them for
// real with e.g.
//
//	go test -run '^$' -fuzz '^FuzzOpenLedger$' -fuzztime 5m -fuzzminimizetime 3s ./ledger
//
// (A short minimize time matters: minimizing a 100 KB database at the
// default 60 s per input looks like a hang.) With LEDGER_FUZZ_WATCHDOG=DIR,
// FuzzOpenLedger saves any input that takes over 3 s, with every
// goroutine's stack, into DIR: the reader must never hang on a file.

// seedLedgerBytes is a small, valid ledger to mutate: the fuzzer finds far
// more from a real B-tree than from random bytes.
func seedLedgerBytes(f *testing.F, mode string) []byte {
	f.Helper()
	dir := f.TempDir()
	path := filepath.Join(dir, "seed.db")
	w, err := OpenWriter(path, WriterOptions{})
	if err != nil {
		f.Fatal(err)
	}
	t0 := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	for i := 0; i < 4; i++ {
		is, err := w.Append(Event{TS: t0.Add(time.Duration(i) * time.Second), Kind: KindIssued, SessionID: "s", ToolName: "terminal", ArgsJSON: `{"command":"rm -rf /tmp/x"}`})
		if err != nil {
			f.Fatal(err)
		}
		if i%2 == 0 {
			w.Append(Event{TS: is.TS.Add(time.Second), Kind: KindConfirmed, SessionID: "s", ToolName: "terminal", IssuedID: is.ID, DurationMS: Int64(5)})
		}
	}
	w.Close()
	if mode != "" {
		db, err := sql.Open("sqlite3", path)
		if err != nil {
			f.Fatal(err)
		}
		if _, err := db.Exec(`PRAGMA journal_mode = ` + mode); err != nil {
			f.Fatal(err)
		}
		db.Close()
	}
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// readAll is the analysis path on one file; it enforces the reader's
// contract on whatever comes back.
func readAll(t *testing.T, path string) {
	r, err := Open(path)
	if err != nil {
		checkFileError(t, path, err)
		return
	}
	defer r.Close()
	err = r.Scan(Filter{}, func(rec Record) error {
		checkRecord(t, rec)
		return nil
	})
	if err != nil {
		checkFileError(t, path, err)
	}
	if r.Format() == FormatNative {
		if _, err := Verify(path, nil); err != nil {
			checkFileError(t, path, err)
		}
	}
}

func checkFileError(t *testing.T, path string, err error) {
	var le *Error
	if !errors.As(err, &le) {
		t.Fatalf("error %T %q is not a *ledger.Error", err, err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, path+": ") || strings.ContainsAny(msg, "\n\r") {
		t.Fatalf("error %q: want one line starting with the path", msg)
	}
}

func checkRecord(t *testing.T, rec Record) {
	if (rec.Call == nil) == (rec.Event == nil) {
		t.Fatalf("record with call=%v event=%v: exactly one must be set", rec.Call, rec.Event)
	}
	var texts []string
	var args string
	if c := rec.Call; c != nil {
		texts = []string{c.Source, c.SessionID, c.TurnID, c.CallID, c.Tool, c.Args, c.Cwd, c.ErrorType, c.ResultDigest, c.PolicyRule, c.PolicyAction}
		args = c.Args
		if c.Status != StatusPending && c.Status != StatusConfirmed && c.Status != StatusError && c.Status != StatusBlocked {
			t.Fatalf("call %d: status %q", c.ID, c.Status)
		}
	} else {
		e := rec.Event
		texts = []string{e.Source, e.SessionID, e.TurnID, e.CallID, e.ToolName, e.ArgsJSON, e.Cwd, e.ErrorType, e.ResultDigest}
		args = e.ArgsJSON
	}
	for _, s := range texts {
		if !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8 reached the caller: %q", s)
		}
	}
	if n := utf8.RuneCountInString(args); n > MaxArgsChars {
		t.Fatalf("arguments of %d characters reached the caller", n)
	}
}

func FuzzOpenLedger(f *testing.F) {
	valid := seedLedgerBytes(f, "")
	rollback := seedLedgerBytes(f, "DELETE")
	f.Add(valid)
	f.Add(rollback)
	f.Add([]byte{})
	f.Add([]byte("SQLite format 3\x00"))
	f.Add(valid[:100])
	f.Add(valid[:len(valid)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "l.db")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if wd := os.Getenv("LEDGER_FUZZ_WATCHDOG"); wd != "" {
			done := make(chan struct{})
			defer close(done)
			go func() {
				select {
				case <-done:
				case <-time.After(3 * time.Second):
					os.WriteFile(filepath.Join(wd, fmt.Sprintf("slow-%x", sha256.Sum256(data))), data, 0o600)
					buf := make([]byte, 1<<20)
					n := runtime.Stack(buf, true)
					os.WriteFile(filepath.Join(wd, fmt.Sprintf("stack-%x", sha256.Sum256(data))), buf[:n], 0o600)
				}
			}()
		}
		readAll(t, path)
	})
}

// cell turns fuzz input into a value of the storage class kind picks, so
// every column sees text, blobs, integers, reals and NULLs.
func cell(kind byte, s string) any {
	switch kind % 5 {
	case 0:
		return s
	case 1:
		return []byte(s)
	case 2:
		var n int64
		for _, c := range []byte(s) {
			n = n*31 + int64(c)
		}
		return n
	case 3:
		return float64(len(s)) / 3
	default:
		return nil
	}
}

func FuzzForeignLedger(f *testing.F) {
	f.Add("2026-11-30T09:00:00Z", "terminal", "CONFIRMED", `{"command":"ls"}`, "s1", "12", []byte{0, 0, 0, 0, 0, 0})
	f.Add("2026-11-30 09:00:00", "write_file", "ERROR:timeout", "{\"content\":\"\xff\xfe\"}", "", "x", []byte{1, 1, 1, 1, 1, 1})
	f.Add("1796029200", "mcp__x__y", "GHOST_REPORTED", "\x00", "s\x00", "", []byte{2, 3, 4, 2, 3, 4})
	f.Add("", "", "", "", "", "", []byte{4, 4, 4, 4, 4, 4})
	f.Add("garbage", "Bash", "error:", strings.Repeat("a", 5000), "s", "-1", []byte{0, 1, 2, 3, 4, 0})
	f.Fuzz(func(t *testing.T, ts, tool, status, args, session, dur string, kinds []byte) {
		for len(kinds) < 6 {
			kinds = append(kinds, 0)
		}
		path := filepath.Join(t.TempDir(), "agent.db")
		db, err := sql.Open("sqlite3", path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = db.Exec(`CREATE TABLE ledger(id INTEGER PRIMARY KEY, ts TEXT, session_id TEXT, tool_name TEXT, status TEXT,
			args_json TEXT, duration_ms INTEGER, tool_call_id TEXT, result_digest TEXT, updated_at TEXT)`)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ {
			if _, err := db.Exec(`INSERT INTO ledger(ts, session_id, tool_name, status, args_json, duration_ms, tool_call_id, result_digest, updated_at)
				VALUES (?,?,?,?,?,?,?,?,?)`,
				cell(kinds[0]+byte(i), ts), cell(kinds[1], session), cell(kinds[2], tool), cell(kinds[3], status),
				cell(kinds[4], args), cell(kinds[5], dur), cell(kinds[0], args), cell(kinds[1], status), cell(kinds[2], ts)); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		// A well-formed table never fails the scan, whatever it holds.
		r, err := Open(path)
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		defer r.Close()
		n := 0
		if err := r.Scan(Filter{}, func(rec Record) error { checkRecord(t, rec); n++; return nil }); err != nil {
			t.Fatalf("scan: %v", err)
		}
		if n != 2 {
			t.Fatalf("%d records from 2 rows", n)
		}
	})
}

// FuzzForeignEvents does the same for our own events table written by a
// foreign (non-hashing, careless) writer.
func FuzzForeignEvents(f *testing.F) {
	f.Add("2026-11-30T09:00:00.000Z", "issued", "terminal", `{"command":"ls"}`, "12", "confirmed", []byte{0, 0, 0, 0, 0, 0})
	f.Add("2026-11-30T09:00:00+02:00", "llm_call", "", "\xff", "slow", "error", []byte{1, 2, 3, 4, 0, 1})
	f.Add("", "", "", "", "", "", []byte{4, 4, 4, 4, 4, 4})
	f.Fuzz(func(t *testing.T, ts, kind, tool, args, num, okind string, kinds []byte) {
		for len(kinds) < 6 {
			kinds = append(kinds, 0)
		}
		path := filepath.Join(t.TempDir(), "ledger.db")
		w, err := OpenWriter(path, WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		db, err := sql.Open("sqlite3", path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = db.Exec(`INSERT INTO events(id, ts, kind, session_id, tool_name, args_json, duration_ms, tokens_in, args_truncated, issued_id)
			VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
			cell(kinds[0], ts), cell(kinds[1], kind), cell(kinds[2], "s"), cell(kinds[3], tool), cell(kinds[4], args),
			cell(kinds[5], num), cell(kinds[0]+1, num), cell(kinds[1]+2, num))
		if err == nil {
			_, err = db.Exec(`INSERT INTO events(id, ts, kind, session_id, tool_name, issued_id, duration_ms, result_digest) VALUES (2, ?, ?, 's', ?, 1, ?, ?)`,
				cell(kinds[2]+1, ts), cell(kinds[3], okind), cell(kinds[4], tool), cell(kinds[5]+3, num), cell(kinds[0]+4, args))
		}
		db.Close()
		if err != nil {
			// NOT NULL columns refuse a NULL: not a file the reader can see.
			return
		}
		readAll(t, path)
		r, err := Open(path)
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		defer r.Close()
		if err := r.Scan(Filter{}, func(rec Record) error { checkRecord(t, rec); return nil }); err != nil {
			t.Fatalf("scan of a well-formed events table: %v", err)
		}
	})
}
