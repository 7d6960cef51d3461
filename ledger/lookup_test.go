package ledger

import (
	"errors"
	"testing"
	"time"
)

func TestBatchCommitsOrRollsBack(t *testing.T) {
	w, path := mustWriter(t)
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	err := w.Batch(func(b *Batch) error {
		i, err := b.Append(Event{TS: t0, Kind: KindIssued, Source: "import:x", SessionID: "s", CallID: "c1", ToolName: "Bash"})
		if err != nil {
			return err
		}
		// No IssuedID: paired inside the batch, as Writer.Append would.
		o, err := b.Append(Event{TS: t0.Add(time.Second), Kind: KindConfirmed, Source: "import:x", SessionID: "s", CallID: "c1", ToolName: "Bash"})
		if err != nil {
			return err
		}
		if o.IssuedID != i.ID {
			t.Errorf("outcome paired to %d, want %d", o.IssuedID, i.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err = w.Batch(func(b *Batch) error {
		if _, err := b.Append(Event{TS: t0, Kind: KindIssued, Source: "import:x", SessionID: "s", CallID: "c2", ToolName: "Bash"}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	recs := scanAll(t, path, Filter{})
	if len(recs) != 1 || recs[0].Call == nil || recs[0].Call.Status != StatusConfirmed {
		t.Fatalf("records after a rolled-back batch: %+v", recs)
	}
	// The chain stays intact across batches: a later Append links to the
	// last committed row.
	if _, err := w.Append(Event{TS: t0, Kind: KindSessionStart, SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	var keys []EventKey
	if err := w.EventKeys("import:x", func(k EventKey) error { keys = append(keys, k); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 || keys[0].Kind != KindIssued || keys[0].CallID != "c1" || keys[0].ToolName != "Bash" || !keys[0].TS.Equal(t0) || keys[1].Kind != KindConfirmed {
		t.Errorf("keys = %+v", keys)
	}
	stop := errors.New("stop")
	if err := w.EventKeys("import:x", func(EventKey) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("callback error not returned: %v", err)
	}
}
