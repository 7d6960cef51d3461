package samples

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// tape records a sample's events in memory, then writes them in time
// order. Scripting a session is easier as "issue, then confirm N ms later"
// than in the interleaved order the rows end up in; sorting by timestamp
// (stable, so equal times keep script order) gives ids that rise with time
// exactly as a live capture would.
type tape struct {
	events []ledger.Event
	err    error
}

// tapeSession scripts one session of one client on a tape.
type tapeSession struct {
	t      *tape
	source string // hermes | claude-code
	id     string
	cwd    string // Claude Code only: the hook payload's cwd
	turn   string
	clock  time.Time
	ncalls int
}

// tapeTime parses a fixed RFC 3339 timestamp; samples never read the clock.
func tapeTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic("samples: bad fixed time " + s)
	}
	return t.UTC()
}

func (t *tape) session(source, id, cwd string, start time.Time) *tapeSession {
	return &tapeSession{t: t, source: source, id: id, cwd: cwd, clock: start}
}

func (t *tape) add(e ledger.Event) { t.events = append(t.events, e) }

// write appends every event to w in time order.
func (t *tape) write(w *ledger.Writer) error {
	if t.err != nil {
		return t.err
	}
	sort.SliceStable(t.events, func(i, j int) bool { return t.events[i].TS.Before(t.events[j].TS) })
	for _, e := range t.events {
		if _, err := w.Append(e); err != nil {
			return fmt.Errorf("sample event at %s: %w", ledger.FormatTime(e.TS), err)
		}
	}
	return nil
}

// tapeJSON renders v as compact JSON the way an agent writes it: map keys
// sorted (so the text is deterministic) and no HTML escaping, so "&&" in a
// command stays readable in args_json.
func tapeJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// callID derives a stable, client-shaped call id from the session and the
// call's position: Hermes uses OpenAI-style "call_…" ids, Claude Code
// "toolu_01…".
func (s *tapeSession) callID() string {
	s.ncalls++
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", s.id, s.ncalls)))
	h := hex.EncodeToString(sum[:])
	if s.source == "claude-code" {
		return "toolu_01" + h[:22]
	}
	return "call_" + h[:24]
}

// wait moves the session clock forward.
func (s *tapeSession) wait(d time.Duration) { s.clock = s.clock.Add(d) }

// at moves the session clock to t (never backwards).
func (s *tapeSession) at(t time.Time) {
	if t.After(s.clock) {
		s.clock = t
	}
}

func (s *tapeSession) event(kind ledger.Kind) ledger.Event {
	return ledger.Event{TS: s.clock, Kind: kind, Source: s.source, SessionID: s.id, TurnID: s.turn}
}

func (s *tapeSession) start() {
	s.t.add(s.event(ledger.KindSessionStart))
}

func (s *tapeSession) end() {
	s.t.add(s.event(ledger.KindSessionEnd))
}

func (s *tapeSession) compaction() {
	s.t.add(s.event(ledger.KindCompaction))
}

// llm records one main-model call finishing latency after the clock, and
// advances the clock past it.
func (s *tapeSession) llm(tokensIn, cacheRead, tokensOut int64, latency time.Duration) {
	e := s.event(ledger.KindLLMCall)
	e.TokensIn, e.TokensCacheRead, e.TokensOut = ledger.Int64(tokensIn), ledger.Int64(cacheRead), ledger.Int64(tokensOut)
	e.DurationMS = ledger.Int64(latency.Milliseconds())
	s.t.add(e)
	s.wait(latency)
}

// tapeCall is an issued call whose outcome the script decides later.
type tapeCall struct {
	s      *tapeSession
	callID string
	tool   string
	issued time.Time
}

// issue records an issued call at the clock.
func (s *tapeSession) issue(tool string, args any) *tapeCall {
	e := s.event(ledger.KindIssued)
	e.CallID, e.ToolName, e.ArgsJSON = s.callID(), tool, tapeJSON(args)
	if s.source == "claude-code" {
		e.Cwd = s.cwd
	}
	s.t.add(e)
	return &tapeCall{s: s, callID: e.CallID, tool: tool, issued: s.clock}
}

func (p *tapeCall) outcome(kind ledger.Kind, after time.Duration, result any, errType string) {
	e := p.s.event(kind)
	e.TS = p.issued.Add(after)
	e.CallID, e.ToolName, e.ErrorType = p.callID, p.tool, errType
	text, ok := result.(string)
	if !ok {
		text = tapeJSON(result)
	}
	e.ResultDigest, _ = ledger.Truncate(text, ledger.MaxDigestChars)
	e.ResultHash = ledger.ResultHash(p.tool, text)
	e.DurationMS = ledger.Int64(after.Milliseconds())
	p.s.t.add(e)
}

// confirm closes the call successfully after d.
func (p *tapeCall) confirm(d time.Duration, result any) {
	p.outcome(ledger.KindConfirmed, d, result, "")
}

// fail closes the call with an error after d.
func (p *tapeCall) fail(d time.Duration, errType string, result any) {
	p.outcome(ledger.KindError, d, result, errType)
}

// reported records the capture hook telling the agent about this call as
// a ghost at the clock.
func (p *tapeCall) reported() {
	e := p.s.event(ledger.KindGhostReported)
	e.CallID, e.ToolName = p.callID, p.tool
	p.s.t.add(e)
}

// call issues a call at the clock, confirms it after d and moves the clock
// to its end: the common synchronous case.
func (s *tapeSession) call(tool string, args any, d time.Duration, result any) {
	s.issue(tool, args).confirm(d, result)
	s.wait(d)
}

// failCall is call for a call that ends in an error.
func (s *tapeSession) failCall(tool string, args any, d time.Duration, errType string, result any) {
	s.issue(tool, args).fail(d, errType, result)
	s.wait(d)
}
