package ledger

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func mustWriter(t *testing.T) (*Writer, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sub", "ledger.db")
	w, err := OpenWriter(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, path
}

// appender returns a function that appends one event to w and fails the
// test on an error.
func appender(t *testing.T, w *Writer) func(Event) Event {
	return func(e Event) Event {
		t.Helper()
		out, err := w.Append(e)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
}

func scanAll(t *testing.T, path string, f Filter) []Record {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []Record
	if err := r.Scan(f, func(rec Record) error { out = append(out, rec); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestAppendPairAndRead(t *testing.T) {
	w, path := mustWriter(t)
	t0 := time.Date(2026, 11, 30, 20, 39, 7, 0, time.UTC)
	app := appender(t, w)
	app(Event{TS: t0, Kind: KindSessionStart, SessionID: "s1"})
	a := app(Event{TS: t0, Kind: KindIssued, SessionID: "s1", CallID: "c1", ToolName: "terminal", ArgsJSON: `{"command":"ls"}`})
	b := app(Event{TS: t0.Add(time.Second), Kind: KindIssued, SessionID: "s1", ToolName: "write_file", ArgsJSON: `{"path":"x"}`})
	c := app(Event{TS: t0.Add(2 * time.Second), Kind: KindIssued, SessionID: "s1", ToolName: "write_file", ArgsJSON: `{"path":"y"}`})
	// by call id
	o := app(Event{TS: t0.Add(3 * time.Second), Kind: KindConfirmed, SessionID: "s1", CallID: "c1", ToolName: "terminal"})
	if o.IssuedID != a.ID {
		t.Fatalf("paired by call id to %d, want %d", o.IssuedID, a.ID)
	}
	// fallback: oldest open write_file
	o2 := app(Event{TS: t0.Add(4 * time.Second), Kind: KindError, ErrorType: "tool_error", SessionID: "s1", ToolName: "write_file"})
	if o2.IssuedID != b.ID {
		t.Fatalf("fallback paired to %d, want %d", o2.IssuedID, b.ID)
	}
	// ghost report, then late confirmation revives c: one call, not two
	app(Event{TS: t0.Add(5 * time.Minute), Kind: KindGhostReported, IssuedID: c.ID, SessionID: "s1", ToolName: "write_file"})
	o3 := app(Event{TS: t0.Add(6 * time.Minute), Kind: KindConfirmed, SessionID: "s1", ToolName: "write_file"})
	if o3.IssuedID != c.ID {
		t.Fatalf("late confirmation paired to %d, want %d", o3.IssuedID, c.ID)
	}
	recs := scanAll(t, path, Filter{})
	var calls []*Call
	for _, r := range recs {
		if r.Call != nil {
			calls = append(calls, r.Call)
		}
	}
	if len(recs) != 4 || len(calls) != 3 {
		t.Fatalf("got %d records / %d calls, want 4 / 3", len(recs), len(calls))
	}
	if calls[0].Status != StatusConfirmed || calls[1].Status != StatusError || calls[1].ErrorType != "tool_error" {
		t.Fatalf("statuses: %+v %+v", calls[0], calls[1])
	}
	if calls[2].Status != StatusConfirmed || calls[2].GhostReportedAt.IsZero() {
		t.Fatalf("revived call: %+v", calls[2])
	}
	if !calls[0].TS.Equal(t0) {
		t.Fatalf("ts round trip: %v", calls[0].TS)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("ledger mode %v, want 0600", st.Mode().Perm())
	}
}

func TestLegacyView(t *testing.T) {
	w, path := mustWriter(t)
	w.Append(Event{Kind: KindIssued, SessionID: "s", ToolName: "terminal", ArgsJSON: "{}"})
	w.Append(Event{Kind: KindIssued, SessionID: "s", ToolName: "patch", ArgsJSON: "{}"})
	w.Append(Event{Kind: KindError, SessionID: "s", ToolName: "patch"})
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rows, err := r.db.Query(`SELECT tool_name, status FROM ledger ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var a, b string
		rows.Scan(&a, &b)
		got = append(got, a+"="+b)
	}
	want := []string{"terminal=PENDING", "patch=ERROR:tool_error"}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("view: %v, want %v", got, want)
	}
}

func TestResultHashStripsOnlyExecuteCode(t *testing.T) {
	a := `{"output":"hi","duration_seconds":1.2,"kernel":{"execution_count":3,"id":"k"}}`
	b := `{"kernel":{"id":"k","execution_count":4},"output":"hi","duration_seconds":9.9}`
	if ResultHash("execute_code", a) != ResultHash("execute_code", b) {
		t.Fatal("execute_code results differing only in volatile fields must hash alike")
	}
	if ResultHash("terminal", a) == ResultHash("terminal", b) {
		t.Fatal("other tools keep duration_seconds and execution_count")
	}
	if ResultHashUnfixed(a) == ResultHashUnfixed(b) {
		t.Fatal("the unfixed hash must see the volatile fields")
	}
	if ResultHash("terminal", "plain text") != sha256Hex("plain text") {
		t.Fatal("non-JSON results hash as raw text")
	}
}

func TestCanonicalJSONMatchesPython(t *testing.T) {
	// Like Python's sorted, compact, ensure_ascii=False dumps, except that
	// numbers keep their literal text (Python would print 2.50 as 2.5).
	got, ok := CanonicalJSON(`{"b": [1, 2.50, "é<\n"], "a": null}`)
	want := `{"a":null,"b":[1,2.50,"é<\n"]}`
	if !ok || got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if _, ok := CanonicalJSON(`{"a":1} trailing`); ok {
		t.Fatal("trailing garbage accepted")
	}
}

func TestTruncateCountsCodePoints(t *testing.T) {
	s, cut := Truncate("ééééé", 3)
	if s != "ééé" || !cut {
		t.Fatalf("got %q %v", s, cut)
	}
	if s, cut := Truncate("abc", 3); s != "abc" || cut {
		t.Fatalf("got %q %v", s, cut)
	}
}

func TestWriterRefusesForeignDatabaseUnchanged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "foreign.db")
	w, err := OpenWriter(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Turn it into someone else's database in rollback-journal mode.
	if _, err := w.db.Exec(`PRAGMA journal_mode=DELETE; PRAGMA user_version=0; DROP VIEW ledger; DROP TABLE events; DROP TABLE meta; CREATE TABLE notes(x)`); err != nil {
		t.Fatal(err)
	}
	w.Close()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenWriter(path, WriterOptions{}); err == nil {
		t.Fatal("writer accepted a foreign database")
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Fatal("refusing a foreign database changed its bytes")
	}
}

// TestParseTimeCanonicalAgreesWithTimeParse checks the fast path for the
// canonical timestamp shape against time.Parse, valid and invalid dates.
func TestParseTimeCanonicalAgreesWithTimeParse(t *testing.T) {
	for _, s := range []string{
		"2026-11-30T20:39:07.000Z", "2024-02-29T23:59:59.999Z", "2023-02-29T00:00:00.000Z",
		"2026-04-31T00:00:00.000Z", "2026-13-01T00:00:00.000Z", "2026-00-10T00:00:00.000Z",
		"2026-01-01T24:00:00.000Z", "2026-01-01T23:60:00.000Z", "2026-01-01T23:59:60.000Z",
		"2026-01-01T23:59:59.0a0Z", "0000-01-01T00:00:00.000Z", "2026-1-01T00:00:00.000Z",
	} {
		want, err := time.Parse(TimeFormat, s)
		got, ok := parseCanonical(s)
		if ok != (err == nil) || ok && !got.Equal(want) {
			t.Errorf("%q: fast path %v %v, time.Parse %v %v", s, got, ok, want, err)
		}
	}
}
