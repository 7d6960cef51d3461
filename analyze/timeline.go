package analyze

import (
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

// TimelineBuilder accumulates call timestamps in one streaming pass and
// folds them into at most MaxTimelineBuckets buckets. It counts per
// minute while the span seen so far could still be charted by the minute,
// and re-counts at the next width as soon as the span rules the finer
// ones out: every width divides the next and all align at the Unix epoch,
// so the coarse counts fill exactly the buckets the fine ones would have.
// Memory is bounded by about MaxTimelineBuckets counts per width, not by
// the ledger's time span. (Timestamps before 1970, which truncating
// division would align differently, are kept per minute.)
type TimelineBuilder struct {
	calls, errors map[int64]int // keyed by Unix minute / per
	per           int64         // minutes per key: a timelineWidths entry
	neg           map[int64][2]int
	first, last   int64 // Unix minutes of the earliest and latest call
	any           bool
}

// NewTimelineBuilder returns an empty builder.
func NewTimelineBuilder() *TimelineBuilder {
	return &TimelineBuilder{calls: map[int64]int{}, errors: map[int64]int{}, per: 1}
}

// Add records one call issued at ts.
func (b *TimelineBuilder) Add(ts time.Time, isError bool) {
	if ts.IsZero() {
		return
	}
	e := 0
	if isError {
		e = 1
	}
	m := ts.Unix() / 60
	b.span(m)
	b.addMinute(m, 1, e)
}

// span widens the span seen to minute m, coarsening the counts when that
// rules the current width out.
func (b *TimelineBuilder) span(m int64) {
	if b.any && m >= b.first && m <= b.last {
		return
	}
	if !b.any || m < b.first {
		b.first = m
	}
	if !b.any || m > b.last {
		b.last = m
	}
	b.any = true
	if w := int64(b.width() / time.Minute); w > b.per {
		b.coarsen(w)
	}
}

// addMinute counts calls at minute m (within the span).
func (b *TimelineBuilder) addMinute(m int64, calls, errs int) {
	if m < 0 {
		if b.neg == nil {
			b.neg = map[int64][2]int{}
		}
		c := b.neg[m]
		b.neg[m] = [2]int{c[0] + calls, c[1] + errs}
		return
	}
	b.calls[m/b.per] += calls
	if errs > 0 {
		b.errors[m/b.per] += errs
	}
}

// width is the bucket width Buckets would choose for the span so far.
func (b *TimelineBuilder) width() time.Duration {
	first, last := b.first*60, b.last*60
	for _, w := range timelineWidths {
		if (last/int64(w.Seconds()))-(first/int64(w.Seconds()))+1 <= MaxTimelineBuckets {
			return w
		}
	}
	return timelineWidths[len(timelineWidths)-1]
}

// coarsen re-keys the counts at per minutes a key.
func (b *TimelineBuilder) coarsen(per int64) {
	calls, errors := make(map[int64]int, len(b.calls)), make(map[int64]int, len(b.errors))
	for k, n := range b.calls {
		calls[k*b.per/per] += n
	}
	for k, n := range b.errors {
		errors[k*b.per/per] += n
	}
	b.calls, b.errors, b.per = calls, errors, per
}

// merge adds src's counts into b: each of src's keys is the first minute
// of a span b's final width, no finer than src's, holds whole.
func (b *TimelineBuilder) merge(src *TimelineBuilder) {
	if !src.any {
		return
	}
	// The span first: a coarse key's first minute may precede the
	// earliest call, and must not widen the span.
	b.span(src.first)
	b.span(src.last)
	for k, n := range src.calls {
		b.addMinute(k*src.per, n, src.errors[k])
	}
	for m, c := range src.neg {
		b.addMinute(m, c[0], c[1])
	}
}

// Buckets returns the histogram, contiguous (empty buckets included) from
// the first to the last call, aligned to the bucket width in UTC. It
// returns nil when nothing was added.
func (b *TimelineBuilder) Buckets() []TimeBucket {
	if !b.any {
		return nil
	}
	first, last := b.first*60, b.last*60
	width := b.width()
	ws := int64(width.Seconds())
	start := first / ws * ws
	n := int((last/ws*ws-start)/ws) + 1
	out := make([]TimeBucket, n)
	for i := range out {
		out[i] = TimeBucket{Start: time.Unix(start+int64(i)*ws, 0).UTC(), Width: Duration(width)}
	}
	for k, c := range b.calls {
		i := int((k*b.per*60 - start) / ws)
		out[i].Calls += c
		out[i].Errors += b.errors[k]
	}
	for m, c := range b.neg {
		i := int((m*60 - start) / ws)
		out[i].Calls += c[0]
		out[i].Errors += c[1]
	}
	return out
}
