package ledger

import (
	"crypto/sha256"
	"database/sql"
	"os"
	"testing"
	"time"
)

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func metaValue(t *testing.T, path, key string) string {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var v string
	if err := r.db.QueryRow(`SELECT value FROM meta WHERE key=?`, key).Scan(&v); err != nil {
		t.Fatalf("meta %s: %v", key, err)
	}
	return v
}

func TestPruneKeepsAVerifiableChain(t *testing.T) {
	for _, chunk := range []int64{0, 7} { // one transaction, and many
		path, rows := chainLedger(t, 30)
		res, err := Prune(path, PruneOptions{Keep: 12, Chunk: chunk})
		if err != nil {
			t.Fatal(err)
		}
		// Row 18 is a confirmation whose issued row 17 is kept with it.
		if res.Deleted != 18 || res.FirstDeleted != 1 || res.LastDeleted != 18 || res.Kept != 12 {
			t.Fatalf("chunk %d: %+v", chunk, res)
		}
		if res.AnchorID != 18 || res.AnchorHash != rows[17].Hash {
			t.Fatalf("anchor %d %s, want 18 %s", res.AnchorID, res.AnchorHash, rows[17].Hash)
		}
		v := mustVerify(t, path, nil)
		if !v.OK() || v.Rows != 12 || v.FirstID != 19 || v.AnchorID != 18 || v.HeadHash != rows[29].Hash {
			t.Fatalf("after prune: %+v %v", v, v.Break)
		}
		if got := metaValue(t, path, "pruned_rows"); got != "18" {
			t.Fatalf("pruned_rows %q", got)
		}
		// The writer extends the chain from where it was.
		w, err := OpenWriter(path, WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		e, err := w.Append(Event{Kind: KindSessionEnd, SessionID: "s1"})
		w.Close()
		if err != nil || e.ID != 31 || e.PrevHash != rows[29].Hash {
			t.Fatalf("append after prune: %+v %v", e, err)
		}
		if v := mustVerify(t, path, nil); !v.OK() || v.Rows != 13 {
			t.Fatalf("after append: %+v %v", v, v.Break)
		}
	}
}

func TestPruneNeverOrphansAnOutcome(t *testing.T) {
	w, path := mustWriter(t)
	t0 := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	slow, _ := w.Append(Event{TS: t0, Kind: KindIssued, SessionID: "s1", ToolName: "delegate_task", CallID: "slow"})
	for i := 0; i < 20; i++ {
		if _, err := w.Append(Event{TS: t0.Add(time.Duration(i+1) * time.Second), Kind: KindLLMCall, SessionID: "s1"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Append(Event{TS: t0.Add(time.Minute), Kind: KindConfirmed, SessionID: "s1", ToolName: "delegate_task", CallID: "slow"}); err != nil {
		t.Fatal(err)
	}
	w.Close()

	dry, err := Prune(path, PruneOptions{Keep: 5, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Prune(path, PruneOptions{Keep: 5})
	if err != nil {
		t.Fatal(err)
	}
	// The confirmation (row 22) is kept, so its issued row 1 is too: the
	// cut moves all the way back and nothing is deleted.
	if res.Deleted != 0 || res.HeldFor != slow.ID || res.HeldBack != 17 || res.Kept != 22 {
		t.Fatalf("pinned prune: %+v", res)
	}
	if dry.Deleted != res.Deleted || dry.HeldFor != res.HeldFor || dry.HeldBack != res.HeldBack || dry.Kept != res.Kept {
		t.Fatalf("dry run %+v differs from the real run %+v", dry, res)
	}
	var calls []*Call
	for _, r := range scanAll(t, path, Filter{}) {
		if r.Call != nil {
			calls = append(calls, r.Call)
		}
	}
	if len(calls) != 1 || calls[0].Status != StatusConfirmed {
		t.Fatalf("call lost its outcome: %+v", calls)
	}
}

func TestPruneDryRunChangesNothing(t *testing.T) {
	path, _ := chainLedger(t, 30)
	before := fileSum(t, path)
	dry, err := Prune(path, PruneOptions{Keep: 10, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if fileSum(t, path) != before {
		t.Fatal("dry run changed the file")
	}
	res, err := Prune(path, PruneOptions{Keep: 10})
	if err != nil {
		t.Fatal(err)
	}
	if dry.Deleted != res.Deleted || dry.AnchorID != res.AnchorID || dry.AnchorHash != res.AnchorHash || dry.Kept != res.Kept {
		t.Fatalf("dry run %+v, real %+v", dry, res)
	}
}

func TestPruneEverythingThenAppend(t *testing.T) {
	path, rows := chainLedger(t, 9)
	res, err := Prune(path, PruneOptions{Keep: 0, Vacuum: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Deleted != 9 || res.Kept != 0 {
		t.Fatalf("%+v", res)
	}
	v := mustVerify(t, path, nil)
	if !v.OK() || v.Rows != 0 || v.HeadHash != rows[8].Hash {
		t.Fatalf("empty pruned ledger: %+v", v)
	}
	w, err := OpenWriter(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := w.Append(Event{Kind: KindSessionStart, SessionID: "s2"})
	w.Close()
	if err != nil || e.ID != 10 || e.PrevHash != rows[8].Hash {
		t.Fatalf("append after full prune: %+v %v", e, err)
	}
	if v := mustVerify(t, path, nil); !v.OK() || v.Rows != 1 {
		t.Fatalf("%+v %v", v, v.Break)
	}
	// Nothing left to prune is not an error.
	if res, err := Prune(path, PruneOptions{Keep: 5}); err != nil || res.Deleted != 0 {
		t.Fatalf("no-op prune: %+v %v", res, err)
	}
}

func TestPruneRefusesABrokenChain(t *testing.T) {
	path, _ := chainLedger(t, 12)
	rawSQL(t, path, `UPDATE events SET args_json='{}' WHERE id=2`)
	before := fileSum(t, path)
	_, err := Prune(path, PruneOptions{Keep: 3})
	if err == nil {
		t.Fatal("pruned a tampered ledger")
	}
	if _, ok := err.(*Error); !ok {
		t.Fatalf("error %T", err)
	}
	if fileSum(t, path) != before {
		t.Fatal("refused prune changed the file")
	}
	res, err := Prune(path, PruneOptions{Keep: 3, Force: true})
	if err != nil || res.Deleted != 9 {
		t.Fatalf("forced prune: %+v %v", res, err)
	}
	// The tampered row is gone; what remains verifies from the checkpoint.
	if v := mustVerify(t, path, nil); !v.OK() {
		t.Fatalf("%v", v.Break)
	}
}

func TestPruneRejectsNegativeKeep(t *testing.T) {
	path, _ := chainLedger(t, 3)
	if _, err := Prune(path, PruneOptions{Keep: -1}); err == nil {
		t.Fatal("accepted keep -1")
	}
}

// The meta anchor is what lets a Python writer continue the chain too:
// check the exact keys it reads.
func TestPruneAnchorKeys(t *testing.T) {
	path, rows := chainLedger(t, 6)
	if _, err := Prune(path, PruneOptions{Keep: 3}); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", "file:"+escapePath(path)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a, err := chainAnchor(db)
	if err != nil || a.ID != 3 || a.Hash != rows[2].Hash {
		t.Fatalf("anchor %+v %v", a, err)
	}
}

// Capture keeps appending while prune deletes in chunks: every append
// lands (each chunk holds the write lock only briefly) and the chain that
// remains verifies from the checkpoint.
func TestPruneWhileAWriterAppends(t *testing.T) {
	path := faultLedger(t, t.TempDir(), 1500) // ~3500 rows
	w, err := OpenWriter(path, WriterOptions{BusyTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	const appends = 400
	done := make(chan error, 1)
	go func() {
		t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		for i := 0; i < appends; i++ {
			if _, err := w.Append(Event{TS: t0.Add(time.Duration(i) * time.Second), Kind: KindLLMCall, SessionID: "live"}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	res, err := Prune(path, PruneOptions{Keep: 500, Chunk: 100})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("an append failed during prune: %v", err)
	}
	v := mustVerify(t, path, nil)
	if !v.OK() {
		t.Fatalf("chain after a concurrent prune: %v", v.Break)
	}
	live := 0
	for _, r := range scanAll(t, path, Filter{Session: "live"}) {
		if r.Event != nil {
			live++
		}
	}
	if live != appends || res.Deleted == 0 || v.AnchorID != res.AnchorID {
		t.Fatalf("%d of %d appends kept, prune %+v, verify %+v", live, appends, res, v)
	}
}
