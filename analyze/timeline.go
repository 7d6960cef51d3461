package analyze

import (
	"sort"
	"time"
)

// TimeBucket is one bar of the activity histogram: the calls issued in
// [Start, Start+Width) and how many of them ended in an error.
type TimeBucket struct {
	Start  time.Time `json:"start"`
	Width  Duration  `json:"width"`
	Calls  int       `json:"calls"`
	Errors int       `json:"errors"`
}

// timelineWidths are the bucket widths a timeline may use, finest first;
// Buckets picks the finest one that keeps the chart readable.
var timelineWidths = []time.Duration{
	time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour,
	3 * time.Hour, 6 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour,
}

// MaxTimelineBuckets bounds the histogram so a chart stays legible.
const MaxTimelineBuckets = 96

// TimelineBuilder accumulates call timestamps in one streaming pass
// (per-minute counts, so memory is bounded by the window, not the number
// of calls) and folds them into at most MaxTimelineBuckets buckets.
type TimelineBuilder struct {
	calls, errors map[int64]int // keyed by Unix minute
}

// NewTimelineBuilder returns an empty builder.
func NewTimelineBuilder() *TimelineBuilder {
	return &TimelineBuilder{calls: map[int64]int{}, errors: map[int64]int{}}
}

// Add records one call issued at ts.
func (b *TimelineBuilder) Add(ts time.Time, isError bool) {
	if ts.IsZero() {
		return
	}
	m := ts.Unix() / 60
	b.calls[m]++
	if isError {
		b.errors[m]++
	}
}

// Buckets returns the histogram, contiguous (empty buckets included) from
// the first to the last call, aligned to the bucket width in UTC. It
// returns nil when nothing was added.
func (b *TimelineBuilder) Buckets() []TimeBucket {
	if len(b.calls) == 0 {
		return nil
	}
	mins := make([]int64, 0, len(b.calls))
	for m := range b.calls {
		mins = append(mins, m)
	}
	sort.Slice(mins, func(i, j int) bool { return mins[i] < mins[j] })
	first, last := mins[0]*60, mins[len(mins)-1]*60
	width := timelineWidths[len(timelineWidths)-1]
	for _, w := range timelineWidths {
		if (last/int64(w.Seconds()))-(first/int64(w.Seconds()))+1 <= MaxTimelineBuckets {
			width = w
			break
		}
	}
	ws := int64(width.Seconds())
	start := first / ws * ws
	n := int((last/ws*ws-start)/ws) + 1
	out := make([]TimeBucket, n)
	for i := range out {
		out[i] = TimeBucket{Start: time.Unix(start+int64(i)*ws, 0).UTC(), Width: Duration(width)}
	}
	for _, m := range mins {
		i := int((m*60 - start) / ws)
		out[i].Calls += b.calls[m]
		out[i].Errors += b.errors[m]
	}
	return out
}
