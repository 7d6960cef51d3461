package analyze

import (
	"math"
	"os"
	"runtime/debug"
	"testing"
)

func TestLimitMemorySetsAndRestores(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" || os.Getenv("GOGC") != "" || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Skip("the process already tunes its collector")
	}
	gcBefore := debug.SetGCPercent(100)
	debug.SetGCPercent(gcBefore)
	done := limitMemory()
	one := debug.SetMemoryLimit(-1)
	if one < memFloor || one == math.MaxInt64 {
		t.Fatalf("limit during one audit = %d, want at least %d and set", one, memFloor)
	}
	if gc := debug.SetGCPercent(memGCPercent); gc != memGCPercent {
		t.Errorf("GC percentage during an audit = %d, want %d", gc, memGCPercent)
	}
	done2 := limitMemory() // a second ledger audited at the same time
	if two := debug.SetMemoryLimit(-1); two < 2*memFloor {
		t.Errorf("limit during two audits = %d, want at least %d", two, 2*memFloor)
	}
	done2()
	if got := debug.SetMemoryLimit(-1); got != one {
		t.Errorf("limit after one of two audits ended = %d, want %d", got, one)
	}
	done()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("limit after the audits = %d, want it unset again", got)
	}
	if gc := debug.SetGCPercent(gcBefore); gc != gcBefore {
		t.Errorf("GC percentage after the audits = %d, want %d restored", gc, gcBefore)
	}

	// A hold keeps the limit after the audits (for merging and
	// rendering) without counting as another ledger.
	release := HoldMemoryLimit()
	held := debug.SetMemoryLimit(-1)
	if held < memFloor || held == math.MaxInt64 {
		t.Fatalf("limit under a hold = %d, want at least %d and set", held, memFloor)
	}
	done = limitMemory()
	if got := debug.SetMemoryLimit(-1); got >= 2*memFloor && got > held {
		t.Errorf("limit with a hold and one audit = %d, want one ledger's (%d)", got, held)
	}
	done()
	if got := debug.SetMemoryLimit(-1); got == math.MaxInt64 {
		t.Error("limit dropped when the audit ended under a hold")
	}
	release()
	release() // idempotent
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("limit after the hold = %d, want it unset again", got)
	}

	// A limit the process chose is left alone.
	debug.SetMemoryLimit(1 << 40)
	defer debug.SetMemoryLimit(math.MaxInt64)
	done = limitMemory()
	recheckMemory()
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("process limit changed to %d during an audit", got)
	}
	done()
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("process limit changed to %d after an audit", got)
	}
}
