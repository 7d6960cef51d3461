package analyze

import (
	"math/rand"
	"testing"
)

// refDetectCycle is detectCycle over the full, untrimmed history (the
// last cycleHistory entries), as the tracker computed it before the ring
// learned to drop entries no cycle can use.
func refDetectCycle(h []histEntry) (period, laps int) {
	n := len(h)
	for p := 2; p <= maxCyclePeriod; p++ {
		if n < p*IdenticalCallThreshold {
			continue
		}
		l := 1
		for {
			base := n - p*(l+1)
			if base < 0 {
				break
			}
			equal := true
			for i := 0; i < p; i++ {
				a, b := h[base+i], h[n-p+i]
				if a.sig != b.sig || a.hash != b.hash {
					equal = false
					break
				}
			}
			if !equal {
				break
			}
			l++
		}
		if l < IdenticalCallThreshold {
			continue
		}
		allRepeatable, constant := true, true
		first := h[n-p]
		for i := 0; i < p; i++ {
			e := h[n-p+i]
			allRepeatable = allRepeatable && e.repeatable
			constant = constant && e.sig == first.sig && e.hash == first.hash
		}
		if allRepeatable || constant {
			continue
		}
		return p, l
	}
	return 0, 0
}

// TestRingTrimmingIsExact feeds random call streams, rich in repeats and
// cycles of every period, to the trimming ring and to the full history,
// and requires the same detection after every call — and that the
// entries a detected cycle spans are still in the ring.
func TestRingTrimmingIsExact(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	sigs := []string{"a", "b", "c", "d", "e"}
	var r ring
	var full []histEntry
	maxLen := 0
	for step := 0; step < 200000; step++ {
		if rng.Intn(400) == 0 { // a pending call clears the history
			r.clear()
			full = full[:0]
			continue
		}
		var e histEntry
		switch mode := (step / 300) % 4; mode {
		case 0: // noise
			e = histEntry{sig: sigs[rng.Intn(len(sigs))], hash: sigs[rng.Intn(2)], repeatable: rng.Intn(5) == 0}
		default: // a cycle of period mode+1, sometimes broken
			p := mode + 1
			e = histEntry{sig: sigs[step%p], hash: "h"}
			if rng.Intn(40) == 0 {
				e.hash = "x"
			}
		}
		r.push(e)
		full = append(full, e)
		if len(full) > cycleHistory {
			full = full[1:]
		}
		gp, gl := r.detectCycle()
		wp, wl := refDetectCycle(full)
		if gp != wp || gl != wl {
			t.Fatalf("step %d: trimmed ring found (%d, %d), full history (%d, %d)", step, gp, gl, wp, wl)
		}
		if gp > 0 && gp*gl > r.len() {
			t.Fatalf("step %d: cycle spans %d calls, ring keeps %d", step, gp*gl, r.len())
		}
		for i := 0; i < r.len(); i++ {
			if *r.at(i) != full[len(full)-r.len()+i] {
				t.Fatalf("step %d: ring entry %d is not the history's", step, i)
			}
		}
		maxLen = max(maxLen, r.len())
	}
	if maxLen < 30 {
		t.Errorf("the stream never built a long cycle (longest kept history %d): the test is not exercising trimming", maxLen)
	}
}
