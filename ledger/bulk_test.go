package ledger

import (
	"testing"
	"time"
)

func TestBulkExtendsTheChain(t *testing.T) {
	w, path := mustWriter(t)
	t0 := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	first, err := w.Append(Event{TS: t0, Kind: KindSessionStart, SessionID: "s"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.Bulk(BulkOptions{Batch: 4}) // several transactions
	if err != nil {
		t.Fatal(err)
	}
	var last Event
	for i := 0; i < 10; i++ {
		e, err := b.Append(Event{TS: t0.Add(time.Duration(i) * time.Second), Kind: KindIssued, SessionID: "s", ToolName: "terminal", ArgsJSON: `{"command":"true"}`})
		if err != nil {
			t.Fatal(err)
		}
		o, err := b.Append(Event{TS: e.TS.Add(time.Second), Kind: KindConfirmed, SessionID: "s", ToolName: "terminal", IssuedID: e.ID})
		if err != nil {
			t.Fatal(err)
		}
		if e.ID != first.ID+1+int64(2*i) || o.ID != e.ID+1 || o.PrevHash != e.Hash {
			t.Fatalf("ids/links: %+v %+v", e, o)
		}
		last = o
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	// A normal append continues where the bulk stopped.
	after, err := w.Append(Event{TS: t0.Add(time.Minute), Kind: KindSessionEnd, SessionID: "s"})
	if err != nil || after.PrevHash != last.Hash {
		t.Fatalf("append after bulk: %+v %v", after, err)
	}
	v := mustVerify(t, path, nil)
	if !v.OK() || v.Rows != 22 {
		t.Fatalf("%+v %v", v, v.Break)
	}
	calls := 0
	for _, r := range scanAll(t, path, Filter{}) {
		if r.Call != nil {
			calls++
			if r.Call.Status != StatusConfirmed {
				t.Fatalf("bulk pair not joined: %+v", r.Call)
			}
		}
	}
	if calls != 10 {
		t.Fatalf("%d calls", calls)
	}
}

func TestBulkNewFile(t *testing.T) {
	w, path := mustWriter(t)
	b, err := w.Bulk(BulkOptions{NewFile: true})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	for i := 0; i < 5; i++ {
		if _, err := b.Append(Event{TS: t0, Kind: KindLLMCall, SessionID: "s", TokensIn: Int64(int64(i))}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Append(Event{Kind: KindLLMCall}); err == nil {
		t.Fatal("accepted an event without a timestamp")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	// The indexes are back and the file is in WAL mode again.
	var mode string
	if err := w.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode %q %v", mode, err)
	}
	for _, ix := range bulkIndexes {
		var n int
		if err := w.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type='index' AND name=?`, ix).Scan(&n); err != nil || n != 1 {
			t.Fatalf("index %s missing after bulk", ix)
		}
	}
	if v := mustVerify(t, path, nil); !v.OK() || v.Rows != 5 {
		t.Fatalf("%+v", v)
	}
	// NewFile is refused once the ledger has rows.
	if _, err := w.Bulk(BulkOptions{NewFile: true}); err == nil {
		t.Fatal("NewFile accepted a non-empty ledger")
	}
}
