package analyze

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// An audit's live heap is its per-session state and the findings (about
// 140 MB at the end of a 1 M-call ledger with 2000 sessions), but with
// the runtime's defaults the process grows to twice that and more before
// the collector catches up and the scavenger hands memory back: 290 to
// 330 MB of peak RSS, varying with the load. While audits run, the Go
// runtime's soft memory limit is therefore lowered to memFloor (224 MiB) per
// ledger being audited, and the GC percentage raised to memGCPercent,
// unless the process has tuned the collector itself (GOMEMLIMIT, GOGC
// or debug.SetMemoryLimit). The limit never drops below
// memHeadroom times the live heap, re-measured as the scan goes: it
// trims the slack, it never makes the collector run continuously on a
// ledger whose state really is larger. The output is unaffected. With
// the audit's pipelined stages allocating at once, 1.8 left 1 M calls at
// 287-299 MB of peak RSS; 1.65 gave 267-277 MB for a few percent more
// collection at the end of the scan (1.5: 221-230 MB, ~10 % slower).
// As the per-session state grew with the shell analysis, 1.65 reached
// 293-310 MB on the same ledger; 1.55 gives 267-270 MB for about 5 %
// more time (measured alternately, three runs each). The floor was 192
// MiB until the live heap shrank again; at 224 MiB the 1 M-call ledger
// takes 106 collections instead of 142 (9.9 against 12.9 CPU-s of
// collection) at 244 MB of peak RSS against 243.
const (
	memFloor       = 224 << 20
	memHeadroom    = 1.55
	memCheckEvery  = 1 << 15 // records between live-heap measurements
	memLimitUnset  = math.MaxInt64
	memLimitEnvVar = "GOMEMLIMIT"
	// memGCPercent replaces GOGC's default of 100 while our limit is in
	// force. Below the limit, an audit's live heap is small (a few tens
	// of MB) next to what it allocates (about 9 KB per call), so the
	// default collects every few tens of MB, about 200 times on 1 M
	// calls; the limit, not the percentage, is what bounds the peak.
	// 400 took 100 k calls from 1.50 to 1.28 s and 2.7 to 2.2 CPU-s at
	// a higher but still bounded RSS (96 -> 209 MB); at 1 M the limit
	// governs either way.
	memGCPercent = 400
	gcEnvVar     = "GOGC"
)

var memCtl struct {
	sync.Mutex
	active int   // ledger audits running under our limit
	holds  int   // HoldMemoryLimit callers not yet released
	prev   int64 // the limit to restore when the last one ends
	owned  bool  // whether we set the current limit
	prevGC int   // the GC percentage to restore, when owned
}

// limitMemory starts an audit under the soft limit and returns the
// function that ends it (restoring the previous limit after the last
// concurrent audit).
func limitMemory() (done func()) { return enterMemoryLimit(1) }

// HoldMemoryLimit keeps the audit's soft memory limit (memFloor, or the
// headroom over the live heap) in force until release is called, also
// between and after the ledger scans: merging, sorting, redacting and
// rendering a large result otherwise run with the runtime's defaults,
// and the process's peak RSS came from that phase. Like
// AuditOptions.TrimMemory, it is for a program that owns its process.
func HoldMemoryLimit() (release func()) { return enterMemoryLimit(0) }

func enterMemoryLimit(ledgers int) func() {
	memCtl.Lock()
	defer memCtl.Unlock()
	if memCtl.active == 0 && memCtl.holds == 0 {
		cur := debug.SetMemoryLimit(-1)
		memCtl.owned = cur == memLimitUnset && os.Getenv(memLimitEnvVar) == "" && os.Getenv(gcEnvVar) == ""
		memCtl.prev = cur
		if memCtl.owned {
			memCtl.prevGC = debug.SetGCPercent(memGCPercent)
		}
	}
	memCtl.active += ledgers
	if ledgers == 0 {
		memCtl.holds++
	}
	applyMemoryLimit()
	var once sync.Once
	return func() {
		once.Do(func() {
			memCtl.Lock()
			defer memCtl.Unlock()
			memCtl.active -= ledgers
			if ledgers == 0 {
				memCtl.holds--
			}
			if !memCtl.owned {
				return
			}
			if memCtl.active == 0 && memCtl.holds == 0 {
				debug.SetMemoryLimit(memCtl.prev)
				debug.SetGCPercent(memCtl.prevGC)
				memCtl.owned = false
				return
			}
			applyMemoryLimit()
		})
	}
}

// applyMemoryLimit sets the limit for the audits running now; memCtl is
// locked.
func applyMemoryLimit() {
	if memCtl.owned {
		debug.SetMemoryLimit(max(int64(max(memCtl.active, 1))*memFloor, headroom()))
	}
}

// recheckMemory raises the limit when the live heap has grown past what
// it leaves room for.
func recheckMemory() {
	memCtl.Lock()
	defer memCtl.Unlock()
	if !memCtl.owned {
		return
	}
	if h := headroom(); h > debug.SetMemoryLimit(-1) {
		debug.SetMemoryLimit(h)
	}
}

// headroom is memHeadroom times the heap live after the last collection.
func headroom() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(float64(s[0].Value.Uint64()) * memHeadroom)
}
