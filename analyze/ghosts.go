package analyze

import (
	"container/heap"
	"sort"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/ledger-audit/ledger-audit/redact"
)

// GhostOptions configure ghost detection.
type GhostOptions struct {
	// Now is the clock grace periods are measured against (--now). Zero
	// means the current time.
	Now time.Time
	// Grace overrides the per-tool grace periods, keyed by exact tool name
	// (--grace tool=duration); see ledger.GraceFor for the defaults.
	Grace map[string]time.Duration
	// HermesHome, when set, enables the offline evidence checks against
	// the agent's home directory (cron/jobs.json, written files).
	HermesHome string
	// Redact masks secrets in the argument excerpts and evidence.
	Redact redact.Redactor
}

// NearCompactionWindow is how close a context compaction must be to a
// call's issue time for the call to be marked NearCompaction: the
// compaction that swallows a turn (Hermes #90985) fires within seconds of
// the tool call it loses, so a few minutes either side is generous.
const NearCompactionWindow = 5 * time.Minute

// argsExcerptRunes bounds the argument excerpt kept in a Ghost.
const argsExcerptRunes = 300

// loopOnlyTools are Hermes tools handled inside the agent loop: they never
// get a post_tool_call, so an open one is normal, not a lost call.
// delegate_task belongs to the same family but is still reported, because
// losing a sub-agent's work is worth a look (it carries a note instead).
var loopOnlyTools = map[string]bool{
	"todo": true, "todo_list": true, "memory": true, "session_search": true,
}

// GhostTracker finds ghosts in a stream of ledger records. Feed it every
// record of one or more ledgers with Observe (ledger by ledger, each in id
// order), then call Ghosts. It keeps only the calls that are still open
// past their grace and one small state per session, so memory is bounded
// by the number of open calls, never by the size of the ledger.
type GhostTracker struct {
	o        GhostOptions
	ledger   string // ledger of the records being observed
	sessions map[sessionKey]*ghostSession
	revived  []Ghost
	home     *hermesHome // lazily loaded evidence sources
}

type sessionKey struct{ ledger, id string }

// ghostSession is what the tracker remembers about one session.
type ghostSession struct {
	last           time.Time // latest activity seen
	lastCompaction time.Time
	open           []*openCall // pending past grace, in id order
	// waiting holds the open calls no later activity has been seen for
	// yet, ordered by the end of their grace: each new activity time pops
	// the ones it proves the session outlived.
	waiting waitHeap
}

// openCall is a pending call already older than its grace at Now.
type openCall struct {
	call       *ledger.Call
	grace      time.Duration
	deadline   time.Time // issue + grace
	next       time.Time // first session activity after deadline (see observeCall)
	compaction time.Time // nearest compaction within the window, if any
}

// NewGhostTracker starts an empty tracker.
func NewGhostTracker(o GhostOptions) *GhostTracker {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	o.Now = o.Now.UTC()
	return &GhostTracker{o: o, sessions: map[sessionKey]*ghostSession{}}
}

// BeginLedger names the ledger whose records follow. Calls carry their
// ledger path themselves; events do not, so a caller feeding several
// ledgers should call this before each one (otherwise events are
// attributed to the ledger of the last call seen).
func (g *GhostTracker) BeginLedger(path string) { g.ledger = path }

func (g *GhostTracker) session(id string) *ghostSession {
	k := sessionKey{g.ledger, id}
	s := g.sessions[k]
	if s == nil {
		s = &ghostSession{}
		g.sessions[k] = s
	}
	return s
}

// Observe feeds one record.
func (g *GhostTracker) Observe(rec ledger.Record) {
	switch {
	case rec.Call != nil:
		c := rec.Call
		if c.Ledger != "" {
			g.ledger = c.Ledger
		}
		s := g.session(c.SessionID)
		if !loopOnlyTools[c.Tool] {
			g.observeCall(s, c)
		}
		// Everything the call shows of the session counts as activity: its
		// issue, its outcome, and a ghost report (written when the next
		// model call started, so the session was alive then).
		s.activity(c.TS)
		s.activity(c.OutcomeTS)
		s.activity(c.GhostReportedAt)
	case rec.Event != nil:
		e := rec.Event
		s := g.session(e.SessionID)
		s.activity(e.TS)
		if e.Kind == ledger.KindCompaction {
			s.compacted(e.TS)
		}
	}
}

func (g *GhostTracker) observeCall(s *ghostSession, c *ledger.Call) {
	grace := ledger.GraceFor(c.Tool, g.o.Grace)
	if !c.Open() {
		if !c.GhostReportedAt.IsZero() {
			g.revived = append(g.revived, g.ghost(c, ClassRevived, grace, time.Time{}, time.Time{}))
		}
		return
	}
	if g.o.Now.Sub(c.TS) <= grace {
		return // still within grace: not (yet) a ghost
	}
	oc := &openCall{call: c, grace: grace, deadline: c.TS.Add(grace)}
	if near(s.lastCompaction, c.TS) {
		oc.compaction = s.lastCompaction
	}
	// Records come in id order, not time order: an earlier row's outcome
	// may already have shown the session alive past this call's grace.
	// That is real later activity, though maybe not the first; a later
	// record with an earlier time still lowers it when it pops the call.
	if s.last.After(oc.deadline) {
		oc.next = s.last
	}
	s.open = append(s.open, oc)
	heap.Push(&s.waiting, oc)
}

// activity records that the session did something at t.
func (s *ghostSession) activity(t time.Time) {
	if t.IsZero() {
		return
	}
	if t.After(s.last) {
		s.last = t
	}
	for len(s.waiting) > 0 && t.After(s.waiting[0].deadline) {
		oc := heap.Pop(&s.waiting).(*openCall)
		if oc.next.IsZero() || t.Before(oc.next) {
			oc.next = t
		}
	}
}

// compacted marks the open calls issued close to a compaction at t. A
// compaction comes before or after the call it swallows, so both the last
// compaction (for calls seen later) and the open calls (for compactions
// seen later) are checked.
func (s *ghostSession) compacted(t time.Time) {
	if t.After(s.lastCompaction) {
		s.lastCompaction = t
	}
	for _, oc := range s.open {
		if near(t, oc.call.TS) && (oc.compaction.IsZero() || absDur(t.Sub(oc.call.TS)) < absDur(oc.compaction.Sub(oc.call.TS))) {
			oc.compaction = t
		}
	}
}

func near(compaction, issued time.Time) bool {
	return !compaction.IsZero() && absDur(compaction.Sub(issued)) <= NearCompactionWindow
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// Ghosts returns what the observed records hold: ghost and stale calls and
// revived false ghosts, sorted by issue time, ledger and row. It may be
// called more than once.
func (g *GhostTracker) Ghosts() []Ghost {
	out := append([]Ghost(nil), g.revived...)
	for _, s := range g.sessions {
		for _, oc := range s.open {
			class := ClassStale
			if !oc.next.IsZero() {
				class = ClassGhost
			}
			gh := g.ghost(oc.call, class, oc.grace, oc.next, oc.compaction)
			gh.Evidence = append(gh.Evidence, g.evidence(oc)...)
			out = append(out, gh)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.IssuedAt.Equal(b.IssuedAt) {
			return a.IssuedAt.Before(b.IssuedAt)
		}
		if a.Ledger != b.Ledger {
			return a.Ledger < b.Ledger
		}
		return a.Row < b.Row
	})
	return out
}

// CountLost reports how many of gs count as lost calls (ghost or stale);
// revived ones are shown but not counted.
func CountLost(gs []Ghost) int {
	n := 0
	for _, g := range gs {
		if g.Class != ClassRevived {
			n++
		}
	}
	return n
}

func (g *GhostTracker) ghost(c *ledger.Call, class GhostClass, grace time.Duration, next, compaction time.Time) Ghost {
	gh := Ghost{
		Ledger:         c.Ledger,
		Row:            c.ID,
		CallID:         c.CallID,
		Session:        c.SessionID,
		Tool:           c.Tool,
		IssuedAt:       c.TS,
		Class:          class,
		Grace:          Duration(grace),
		Age:            Duration(g.o.Now.Sub(c.TS)),
		ReportedAt:     c.GhostReportedAt,
		NextActivity:   next,
		NearCompaction: !compaction.IsZero(),
		Args:           excerpt(g.o.Redact.String(c.Args), argsExcerptRunes),
	}
	if class == ClassRevived {
		gh.ConfirmedAt = c.OutcomeTS
	}
	return gh
}

// excerpt cuts s to at most n runes, marking the cut.
func excerpt(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// waitHeap orders open calls by the end of their grace period.
type waitHeap []*openCall

func (h waitHeap) Len() int { return len(h) }
func (h waitHeap) Less(i, j int) bool {
	if !h[i].deadline.Equal(h[j].deadline) {
		return h[i].deadline.Before(h[j].deadline)
	}
	return h[i].call.ID < h[j].call.ID
}
func (h waitHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *waitHeap) Push(x any)   { *h = append(*h, x.(*openCall)) }
func (h *waitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return x
}
