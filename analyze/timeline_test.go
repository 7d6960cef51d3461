package analyze

import (
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
