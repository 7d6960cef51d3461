package analyze

import (
	"testing"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// TestStagesKeepOrderAndReraisePanics checks the audit pipeline's stages:
// every item reaches every stage in order, a stage's writes reach the
// stage it feeds, and a panic in a stage surfaces in the caller once all
// stages have stopped (the reader is never left blocked).
func TestStagesKeepOrderAndReraisePanics(t *testing.T) {
	var seenA, seenB []int64
	b := newStage(func(it *auditItem) { seenB = append(seenB, it.rec.Call.ID+int64(it.sum[0])) }, nil)
	a := newStage(func(it *auditItem) {
		seenA = append(seenA, it.rec.Call.ID)
		it.sum[0] = 2 // visible to b, which runs after a on this batch
	}, b)
	for i := 0; i < 10; i++ {
		batch := make([]auditItem, 0, 3)
		for j := 0; j < 3; j++ {
			batch = append(batch, auditItem{rec: ledger.Record{Call: &ledger.Call{ID: int64(3*i + j)}}})
		}
		a.send(batch)
	}
	waitStages(a, b)
	if len(seenA) != 30 || len(seenB) != 30 {
		t.Fatalf("stage a saw %d items, b %d; want 30 each", len(seenA), len(seenB))
	}
	for i := range seenA {
		if seenA[i] != int64(i) || seenB[i] != int64(i)+2 {
			t.Fatalf("item %d: a saw %d, b saw %d", i, seenA[i], seenB[i])
		}
	}

	p := newStage(func(it *auditItem) { panic("boom") }, nil)
	other := newStage(func(it *auditItem) {}, nil)
	for i := 0; i < 20; i++ { // more batches than the channel holds
		p.send([]auditItem{{}})
		other.send([]auditItem{{}})
	}
	defer func() {
		if r := recover(); r != "boom" {
			t.Fatalf("recovered %v, want the stage's panic", r)
		}
	}()
	waitStages(p, other)
	t.Fatal("waitStages returned after a stage panicked")
}
