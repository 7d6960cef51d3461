package analyze

import (
	"math/rand"
	"reflect"
	"testing"
	"time"
)

func TestTimelineBuckets(t *testing.T) {
	if NewTimelineBuilder().Buckets() != nil {
		t.Error("empty builder should give no buckets")
	}
	t0 := time.Date(2026, 11, 29, 8, 3, 20, 0, time.UTC)
	cases := []struct {
		span  time.Duration
		width time.Duration
	}{
		{30 * time.Minute, time.Minute},
		{5 * time.Hour, 5 * time.Minute},
		{24 * time.Hour, time.Hour}, // 97 quarter-hours would exceed the bound
		{7 * 24 * time.Hour, 3 * time.Hour},
		{60 * 24 * time.Hour, 24 * time.Hour},
	}
	for _, c := range cases {
		b := NewTimelineBuilder()
		b.Add(t0, false)
		b.Add(t0.Add(c.span/2), true)
		b.Add(t0.Add(c.span/2), false)
		b.Add(t0.Add(c.span), false)
		b.Add(time.Time{}, true) // ignored
		got := b.Buckets()
		if len(got) == 0 || len(got) > MaxTimelineBuckets {
			t.Fatalf("span %v: %d buckets", c.span, len(got))
		}
		if w := time.Duration(got[0].Width); w != c.width {
			t.Errorf("span %v: width %v, want %v", c.span, w, c.width)
		}
		calls, errs := 0, 0
		for i, bk := range got {
			calls += bk.Calls
			errs += bk.Errors
			if i > 0 && !bk.Start.Equal(got[i-1].Start.Add(c.width)) {
				t.Fatalf("span %v: buckets not contiguous at %d", c.span, i)
			}
		}
		if calls != 4 || errs != 1 {
			t.Errorf("span %v: %d calls %d errors, want 4 and 1", c.span, calls, errs)
		}
		if got[0].Start.After(t0) || !got[0].Start.Add(c.width).After(t0) {
			t.Errorf("span %v: first bucket %v does not hold the first call", c.span, got[0].Start)
		}
	}
}

// refTimeline is the per-minute builder the coarsening one replaced.
type refTimeline struct{ calls, errors map[int64]int }

func (b *refTimeline) add(ts time.Time, isErr bool) {
	if ts.IsZero() {
		return
	}
	m := ts.Unix() / 60
	b.calls[m]++
	if isErr {
		b.errors[m]++
	}
}

func (b *refTimeline) buckets() []TimeBucket {
	if len(b.calls) == 0 {
		return nil
	}
	var first, last int64
	i := 0
	for m := range b.calls {
		if i == 0 || m < first {
			first = m
		}
		if i == 0 || m > last {
			last = m
		}
		i++
	}
	first, last = first*60, last*60
	width := timelineWidths[len(timelineWidths)-1]
	for _, w := range timelineWidths {
		if (last/int64(w.Seconds()))-(first/int64(w.Seconds()))+1 <= MaxTimelineBuckets {
			width = w
			break
		}
	}
	ws := int64(width.Seconds())
	start := first / ws * ws
	out := make([]TimeBucket, int((last/ws*ws-start)/ws)+1)
	for i := range out {
		out[i] = TimeBucket{Start: time.Unix(start+int64(i)*ws, 0).UTC(), Width: Duration(width)}
	}
	for m, n := range b.calls {
		out[(m*60-start)/ws].Calls += n
		out[(m*60-start)/ws].Errors += b.errors[m]
	}
	return out
}

// TestTimelineCoarseningIsExact compares the builder, which re-counts at
// coarser widths as the span grows, and the merge of several builders
// (a fleet), with per-minute counting over random streams of every span,
// in and out of order, a few before 1970.
func TestTimelineCoarseningIsExact(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	spans := []time.Duration{10 * time.Minute, 3 * time.Hour, 30 * time.Hour, 9 * 24 * time.Hour, 400 * 24 * time.Hour}
	for round := 0; round < 300; round++ {
		base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.Int63n(int64(1000 * time.Hour))))
		if round%50 == 0 {
			base = time.Unix(-3600*24*3, 0) // straddles the epoch
		}
		ref := &refTimeline{map[int64]int{}, map[int64]int{}}
		merged := NewTimelineBuilder()
		for part := 0; part < 1+round%3; part++ {
			b := NewTimelineBuilder()
			span := spans[rng.Intn(len(spans))]
			for i := 0; i < 1+rng.Intn(400); i++ {
				ts := base.Add(time.Duration(rng.Int63n(int64(span))))
				if i == 0 && rng.Intn(2) == 0 {
					ts = base
				}
				isErr := rng.Intn(7) == 0
				b.Add(ts, isErr)
				ref.add(ts, isErr)
			}
			if part == 0 && round%3 == 0 {
				if !reflect.DeepEqual(b.Buckets(), ref.buckets()) {
					t.Fatalf("round %d: one builder differs from per-minute counting", round)
				}
			}
			merged.merge(b)
		}
		if got, want := merged.Buckets(), ref.buckets(); !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: merged builders differ from per-minute counting:\n got %v\nwant %v", round, got, want)
		}
	}
}
