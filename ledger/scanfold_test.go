package ledger

import (
	"reflect"
	"testing"
	"time"
)

// TestScanFoldMatchesCallSelect: the streaming scan's flat join, folded
// in Go, gives exactly the records of callSelect's correlated subqueries
// (the query the writer and capture use), on a ledger with every outcome
// shape: pending, confirmed, error, blocked, ghost then revived, two ghost
// reports out of time order, two outcomes for one call, and events.
func TestScanFoldMatchesCallSelect(t *testing.T) {
	w, path := mustWriter(t)
	t0 := time.Date(2026, 11, 30, 20, 0, 0, 0, time.UTC)
	app := appender(t, w)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	app(Event{TS: at(0), Kind: KindSessionStart, SessionID: "s"})
	pending := app(Event{TS: at(1), Kind: KindIssued, SessionID: "s", CallID: "p", ToolName: "terminal", ArgsJSON: `{"command":"sleep 9"}`})
	ok := app(Event{TS: at(2), Kind: KindIssued, SessionID: "s", CallID: "a", ToolName: "terminal", ArgsJSON: `{"command":"ls"}`})
	failed := app(Event{TS: at(3), Kind: KindIssued, SessionID: "s", CallID: "b", ToolName: "terminal", ArgsJSON: `{"command":"false"}`})
	blocked := app(Event{TS: at(4), Kind: KindIssued, SessionID: "s", CallID: "c", ToolName: "terminal", ArgsJSON: `{"command":"rm -rf /"}`})
	revived := app(Event{TS: at(5), Kind: KindIssued, SessionID: "s", CallID: "d", ToolName: "cronjob", ArgsJSON: `{}`})
	twice := app(Event{TS: at(6), Kind: KindIssued, SessionID: "s", CallID: "e", ToolName: "write_file", ArgsJSON: `{"path":"x"}`})
	app(Event{TS: at(7), Kind: KindConfirmed, SessionID: "s", CallID: "a", ResultDigest: "ok", DurationMS: ptr(int64(12))})
	app(Event{TS: at(8), Kind: KindError, SessionID: "s", CallID: "b", ErrorType: "exit_1"})
	app(Event{TS: at(9), Kind: KindBlocked, SessionID: "s", CallID: "c", PolicyRule: "ASI02-DESTRUCTIVE-DELETE", PolicyAction: "block"})
	app(Event{TS: at(60), Kind: KindGhostReported, IssuedID: revived.ID, SessionID: "s", ToolName: "cronjob"})
	app(Event{TS: at(30), Kind: KindGhostReported, IssuedID: revived.ID, SessionID: "s", ToolName: "cronjob"})
	app(Event{TS: at(90), Kind: KindConfirmed, SessionID: "s", CallID: "d"})
	app(Event{TS: at(91), Kind: KindConfirmed, SessionID: "s", CallID: "e", ResultDigest: "first"})
	app(Event{TS: at(92), Kind: KindError, IssuedID: twice.ID, SessionID: "s", ErrorType: "late"})
	app(Event{TS: at(93), Kind: KindLLMCall, SessionID: "s", TokensIn: ptr(int64(5))})
	w.Close()

	got := scanAll(t, path, Filter{})
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rows, err := r.db.Query(callSelect + ` WHERE i.kind NOT IN ('confirmed','error','blocked','ghost_reported') ORDER BY i.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var want []Record
	for rows.Next() {
		rec, err := r.scanRecord(rows)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, rec)
	}
	if len(got) != len(want) || len(got) != 8 {
		t.Fatalf("scan gave %d records, callSelect %d; want 8", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("record %d: scan %+v %+v, callSelect %+v %+v", i, got[i].Call, got[i].Event, want[i].Call, want[i].Event)
		}
	}
	byID := map[int64]*Call{}
	for _, rec := range got {
		if rec.Call != nil {
			byID[rec.Call.ID] = rec.Call
		}
	}
	if c := byID[pending.ID]; c.Status != StatusPending {
		t.Errorf("pending call: %s", c.Status)
	}
	if c := byID[ok.ID]; c.Status != StatusConfirmed || c.ResultDigest != "ok" {
		t.Errorf("confirmed call: %s %q", c.Status, c.ResultDigest)
	}
	if c := byID[failed.ID]; c.Status != StatusError || c.ErrorType != "exit_1" {
		t.Errorf("failed call: %s %q", c.Status, c.ErrorType)
	}
	if c := byID[blocked.ID]; c.Status != StatusBlocked {
		t.Errorf("blocked call: %s", c.Status)
	}
	if c := byID[revived.ID]; c.Status != StatusConfirmed || !c.GhostReportedAt.Equal(at(30)) {
		t.Errorf("revived call: %s, ghost reported %v, want confirmed and %v", c.Status, c.GhostReportedAt, at(30))
	}
	if c := byID[twice.ID]; c.Status != StatusConfirmed || c.ResultDigest != "first" {
		t.Errorf("call with two outcomes: %s %q, want the first", c.Status, c.ResultDigest)
	}
}

func ptr[T any](v T) *T { return &v }
