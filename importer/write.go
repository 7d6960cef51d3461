package importer

import (
	"fmt"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// importer writes event groups into one ledger, skipping what its source
// already put there.
type importer struct {
	src        string
	opts       Options
	sum        *Summary
	ledgerPath string

	w        *ledger.Writer
	issued   map[string]int64 // call id -> issued row (this ledger, this source)
	outcomes map[string]bool  // call id with an outcome row
	others   map[string]bool  // identity of non-call events
	sessions map[string]bool
	// dropped are call ids not kept (read-only tool, outside the window):
	// their results are dropped with them.
	dropped map[string]bool
}

// open opens the ledger and loads what the source already wrote. Deferred
// to the first event so an import with nothing to write creates nothing.
func (im *importer) open() error {
	if im.w != nil {
		return nil
	}
	w, err := ledger.OpenWriter(im.ledgerPath, ledger.WriterOptions{BusyTimeout: 10 * time.Second})
	if err != nil {
		return &FileError{im.ledgerPath, "cannot write ledger: " + describeErr(err)}
	}
	im.w = w
	im.issued, im.outcomes, im.others, im.dropped = map[string]int64{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	return w.EventKeys(im.src, func(k ledger.EventKey) error {
		switch {
		case k.Kind == ledger.KindIssued && k.CallID != "":
			if _, ok := im.issued[k.CallID]; !ok {
				im.issued[k.CallID] = k.ID
			}
		case k.Kind.IsOutcome() && k.CallID != "":
			im.outcomes[k.CallID] = true
		default:
			im.others[otherKey(k.Kind, k.SessionID, k.TurnID, k.CallID, k.TS)] = true
		}
		return nil
	})
}

func (im *importer) close() {
	if im.w != nil {
		im.w.Close()
	}
}

// otherKey identifies a non-call event: llm_call by the client's message
// id when it has one, session_start by session, the rest by session,
// turn and time.
func otherKey(kind ledger.Kind, session, turn, callID string, ts time.Time) string {
	switch {
	case callID != "":
		return fmt.Sprintf("%s\x00%s", kind, callID)
	case kind == ledger.KindSessionStart:
		return fmt.Sprintf("%s\x00%s", kind, session)
	}
	return fmt.Sprintf("%s\x00%s\x00%s\x00%s", kind, session, turn, ledger.FormatTime(ts))
}

func (im *importer) inWindow(e *ledger.Event) bool {
	o := im.opts
	if o.Session != "" && e.SessionID != o.Session {
		return false
	}
	if !o.Since.IsZero() && e.TS.Before(o.Since) {
		return false
	}
	return o.Until.IsZero() || e.TS.Before(o.Until)
}

// batchEvents bounds one write transaction. A capture hook writing the
// same ledger waits at most 1.5 s for the lock; a thousand events commit
// in a few tens of milliseconds, so a long import never starves it. A
// failure between batches leaves a partial import that a re-run completes
// (the import is idempotent).
const batchEvents = 1000

// write appends one group of events (time-ordered).
func (im *importer) write(events []ledger.Event) error {
	if len(events) == 0 {
		return nil
	}
	if err := im.open(); err != nil {
		return err
	}
	g := &groupState{pending: map[string]bool{}}
	for start := 0; start < len(events); start += batchEvents {
		end := min(start+batchEvents, len(events))
		if err := im.w.Batch(func(b *ledger.Batch) error { return im.writeBatch(b, g, events[start:end]) }); err != nil {
			return &FileError{im.ledgerPath, "cannot write ledger: " + describeErr(err)}
		}
	}
	s := im.sum
	s.Calls += g.Calls
	s.Confirmed += g.Confirmed
	s.Errors += g.Errors
	s.Pending += len(g.pending)
	s.ReadOnly += g.ReadOnly
	s.Compactions += g.Compactions
	s.LLMCalls += g.LLMCalls
	s.Written += g.Written
	s.Present += g.Present
	return nil
}

// groupState is what one group's batches share: the counts, and the calls
// still waiting for an outcome.
type groupState struct {
	Summary
	pending map[string]bool
}

func (im *importer) writeBatch(b *ledger.Batch, g *groupState, events []ledger.Event) error {
	app := func(e ledger.Event) (ledger.Event, error) {
		out, err := b.Append(e)
		if err == nil {
			g.Written++
			im.sessions[e.SessionID] = true
		}
		return out, err
	}
	for _, e := range events {
		e.Source = im.src
		switch {
		case e.Kind == ledger.KindIssued:
			if !im.opts.AllTools && !ledger.Mutating(e.ToolName) {
				g.ReadOnly++
				im.dropped[e.CallID] = true
				continue
			}
			if !im.inWindow(&e) {
				im.dropped[e.CallID] = true
				continue
			}
			g.Calls++
			g.pending[e.CallID] = true
			if _, ok := im.issued[e.CallID]; ok {
				g.Present++
				im.sessions[e.SessionID] = true
				continue
			}
			out, err := app(e)
			if err != nil {
				return err
			}
			im.issued[e.CallID] = out.ID
		case e.Kind.IsOutcome():
			if im.dropped[e.CallID] {
				continue
			}
			id, ok := im.issued[e.CallID]
			if !ok {
				continue // a result whose call no transcript read so far holds
			}
			if g.pending[e.CallID] {
				delete(g.pending, e.CallID)
				if e.Kind == ledger.KindConfirmed {
					g.Confirmed++
				} else {
					g.Errors++
				}
			}
			if im.outcomes[e.CallID] {
				g.Present++
				im.sessions[e.SessionID] = true
				continue
			}
			e.IssuedID = id
			if _, err := app(e); err != nil {
				return err
			}
			im.outcomes[e.CallID] = true
		default:
			if !im.inWindow(&e) {
				continue
			}
			switch e.Kind {
			case ledger.KindCompaction:
				g.Compactions++
			case ledger.KindLLMCall:
				g.LLMCalls++
			}
			k := otherKey(e.Kind, e.SessionID, e.TurnID, e.CallID, e.TS.UTC().Truncate(time.Millisecond))
			if im.others[k] {
				g.Present++
				im.sessions[e.SessionID] = true
				continue
			}
			if _, err := app(e); err != nil {
				return err
			}
			im.others[k] = true
		}
	}
	return nil
}
