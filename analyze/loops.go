package analyze

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/ledger-audit/ledger-audit/finding"
	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/ledger-audit/ledger-audit/redact"
)

// Loop kinds.
const (
	LoopIdentical        = "identical"
	LoopKindExactFailure = "exact_failure"
	LoopKindSameTool     = "same_tool_failure"
	LoopKindNoProgress   = "idempotent_no_progress"
	LoopCycle            = "cycle"
	LoopNearDuplicate    = "near_duplicate"
	LoopCapBreach        = "cap_breach"
)

// nearDuplicateMin is the shortest reformulated no-op run reported; it
// also needs at least nearDuplicateDistinct different argument texts
// (fewer is the exact detectors' job).
const (
	nearDuplicateMin      = 5
	nearDuplicateDistinct = 3
	maxSkeletons          = 4
	maxDistinctArgs       = 64
)

// LoopTracker replays Hermes' tool-loop guardrails over a record stream
// and prices every loop it finds. Feed it records in id order with
// Observe (several ledgers one after another are fine: state is keyed by
// ledger and session), then call Report and Findings once at the end.
//
// Memory is bounded per session: counters for the current turn, one open
// streak per detector, a cycle history of at most 64 calls (in practice
// the few a cycle can still use), and running totals of the session's
// model calls; no ledger row is kept once it has been folded in, only
// the short excerpt and hashes an episode cites.
type LoopTracker struct {
	cfg      LoopConfig
	red      redact.Redactor
	ledger   string
	sessions map[sessKey]*loopSession
	loops    []*episode
	calls    int
	unknown  int // calls whose unfixed result hash could not be recomputed
	report   *LoopReport
	findings []finding.Finding
	scratch  []decision
	// sum, when set, is the sha256 of the canonical arguments of the call
	// being observed, computed once by Audit and shared with the posture
	// rules.
	sum      *[32]byte
	hasCanon bool
	// args are the caller's decoded arguments while observePrepared runs.
	args    ledger.ArgsObject
	hasArgs bool
}

type sessKey struct{ ledger, session string }

// NewLoopTracker starts a tracker. With no config it replays Hermes'
// documented defaults.
func NewLoopTracker(cfg ...LoopConfig) *LoopTracker {
	c := DefaultLoopConfig()
	if len(cfg) > 0 {
		c = cfg[0].normalized()
	}
	return &LoopTracker{cfg: c, sessions: map[sessKey]*loopSession{}}
}

// SetRedact turns redaction of argument excerpts on (the default) or off
// (--no-redact).
func (t *LoopTracker) SetRedact(on bool) { t.red = redact.Redactor{Off: !on} }

// BeginLedger names the ledger the following records come from. Calls
// carry their ledger path; events do not, so a caller feeding several
// ledgers should call this before each one.
func (t *LoopTracker) BeginLedger(path string) { t.ledger = path }

// llmTotals are running sums of a session's model calls.
type llmTotals struct {
	calls, aux                int
	in, cacheRead, out, latMS int64
}

func (a llmTotals) sub(b llmTotals) llmTotals {
	return llmTotals{a.calls - b.calls, a.aux - b.aux, a.in - b.in, a.cacheRead - b.cacheRead, a.out - b.out, a.latMS - b.latMS}
}

type loopSession struct {
	key       sessKey
	platform  string
	mainModel string
	turn      string
	seenCall  bool

	cum, beforeLastLLM llmTotals
	lastLLMRow         int64
	lastLLMTS          time.Time
	prevCallRow        int64

	fixed, unfixed *guard

	lastTool, lastArgs, lastArgsSig string

	// per-turn episodes mirroring the fixed guard's counters
	exactEp map[string]*episode
	sameEp  map[string]*episode
	npEp    map[string]*episode
	capEp   map[string]*episode

	// session-level episodes (a loop can outlive a turn)
	identSig, identHash string
	ident               *episode
	identFirst          callPoint // the run's only call while ident is nil
	identPending        bool
	hist                ring
	histPts             []callPoint // the calls of hist, one for one
	cycle               *episode
	near                *nearRun
}

// callPoint is what an episode needs of one call.
type callPoint struct {
	row     int64
	turn    string
	callID  string
	tool    string
	ts, end time.Time // issued; outcome (or issued when pending)
	startTS time.Time // the model call that issued it, else ts
	durMS   int64
	base    llmTotals // session totals before the model call that issued it
	cum     llmTotals // session totals when the call was issued
	argsSig string
	// args is the start of the call's arguments (argsKeep characters,
	// enough for every excerpt), copied so that remembering a call does
	// not keep the whole row's text alive; argsLen is the full length.
	args    string
	argsLen int
	failed  bool
	unknown bool
	decs    []decision // fixed guard
	udecs   []decision // unfixed guard
}

func (t *LoopTracker) session(ledgerPath, id string) *loopSession {
	k := sessKey{ledgerPath, id}
	s := t.sessions[k]
	if s == nil {
		s = &loopSession{key: k, fixed: newGuard(&t.cfg), unfixed: newGuard(&t.cfg)}
		s.resetTurnEpisodes()
		t.sessions[k] = s
	}
	return s
}

func (s *loopSession) resetTurnEpisodes() {
	s.exactEp, s.sameEp, s.npEp, s.capEp = map[string]*episode{}, map[string]*episode{}, map[string]*episode{}, map[string]*episode{}
}

// observeCanonical is Observe for a call whose canonicalArgs the
// caller already has.
func (t *LoopTracker) observeCanonical(rec ledger.Record, canon string) {
	sum := argsDigest(canon)
	t.sum, t.hasCanon = &sum, true
	t.Observe(rec)
	t.sum, t.hasCanon = nil, false
}

// observePrepared is observeCanonical for a caller that has also decoded
// the arguments (ledger.DecodeArgs); the map is only read.
func (t *LoopTracker) observePrepared(rec ledger.Record, sum *[32]byte, args ledger.ArgsObject) {
	t.args, t.hasArgs = args, true
	t.sum, t.hasCanon = sum, true
	t.Observe(rec)
	t.sum, t.hasCanon = nil, false
	t.args, t.hasArgs = nil, false
}

// Observe folds one record into the replay.
func (t *LoopTracker) Observe(rec ledger.Record) {
	if t.report != nil {
		return // finished; Report has been taken
	}
	if rec.Event != nil {
		t.observeEvent(rec.Event)
	}
	if rec.Call != nil {
		if rec.Call.Ledger != "" {
			t.ledger = rec.Call.Ledger
		}
		t.observeCall(rec.Call)
	}
}

func (t *LoopTracker) observeEvent(e *ledger.Event) {
	switch e.Kind {
	case ledger.KindSessionStart:
		// Hermes' on_session_start carries platform and model; the
		// platform decides whether hard stops are on (unattended
		// platforms such as cron or a chat gateway stop by default).
		s := t.session(t.ledger, e.SessionID)
		var a struct{ Platform, Model string }
		if json.Unmarshal([]byte(e.ArgsJSON), &a) == nil {
			if a.Platform != "" {
				s.platform = a.Platform
			}
			if a.Model != "" {
				s.mainModel = a.Model
			}
		}
	case ledger.KindLLMCall:
		// The main model is the session's (from session_start, else the
		// first model seen); calls to any other model, or marked as an
		// auxiliary/approval call, are counted apart: the article prices
		// the main line and the approval model separately.
		s := t.session(t.ledger, e.SessionID)
		var a struct {
			Model, Role, Kind string
			Auxiliary         bool
		}
		json.Unmarshal([]byte(e.ArgsJSON), &a)
		if a.Model == "" {
			a.Model = e.ToolName
		}
		aux := a.Auxiliary || isAuxRole(a.Role) || isAuxRole(a.Kind)
		if !aux && a.Model != "" {
			if s.mainModel == "" {
				s.mainModel = a.Model
			}
			aux = a.Model != s.mainModel
		}
		if aux {
			s.cum.aux++
			return
		}
		s.beforeLastLLM = s.cum
		s.cum.calls++
		s.cum.in += val(e.TokensIn)
		s.cum.cacheRead += val(e.TokensCacheRead)
		s.cum.out += val(e.TokensOut)
		s.cum.latMS += val(e.DurationMS)
		s.lastLLMRow, s.lastLLMTS = e.ID, e.TS
	}
}

func isAuxRole(r string) bool {
	switch r {
	case "auxiliary", "aux", "approval", "approver":
		return true
	}
	return false
}

func val(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// subagentSpawns counts the subagents one delegate_task call starts, as
// Hermes does: len(tasks) for a batch, 1 otherwise, 0 for control actions.
func subagentSpawns(args string) int {
	var a struct {
		Action string          `json:"action"`
		Tasks  json.RawMessage `json:"tasks"`
	}
	if json.Unmarshal([]byte(args), &a) != nil {
		return 1
	}
	switch a.Action {
	case "list", "steer", "stop":
		return 0
	}
	var tasks []json.RawMessage
	if json.Unmarshal(a.Tasks, &tasks) == nil && len(tasks) > 0 {
		return len(tasks)
	}
	return 1
}

// argsSig is a call's signature for the guardrail replay: the tool and
// the sha256 of its canonical arguments (ledger.ArgsHash). Signatures are
// only compared, never shown, and every session keeps a few hundred of
// them in its histories, so the digest is kept as 32 raw bytes rather
// than 64 hex characters.
func argsSig(tool string, sum *[32]byte) string {
	return tool + "\x00" + string(sum[:])
}

func argsSigOf(tool, canon string) string {
	sum := argsDigest(canon)
	return argsSig(tool, &sum)
}

// argsDigest is the sha256 of canonical arguments. The text is hashed in
// place: sha256.Sum256([]byte(s)) copies it first, and that copy was 10 %
// of everything an audit allocates.
func argsDigest(canon string) [32]byte {
	return sha256.Sum256(unsafe.Slice(unsafe.StringData(canon), len(canon)))
}

// compactHash is a one-to-one, shorter form of a result hash, which is
// also only compared: a lowercase sha256 hex digest (what the ledger
// stores) becomes its 32 bytes, anything else is kept whole behind a
// different prefix so the two forms can never be equal. It also stops
// the histories from keeping the ledger rows' own strings alive.
func compactHash(h string) string {
	if h == "" {
		return ""
	}
	if len(h) == 64 && isLowerHex(h) {
		var b [33]byte
		b[0] = 'h'
		hex.Decode(b[1:], []byte(h))
		return string(b[:])
	}
	return "r" + h
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// argsKeep is how much of a call's arguments a callPoint keeps: more
// than the longest excerpt taken from them (200 characters).
const argsKeep = 201

// keptArgs is the first argsKeep characters of args, copied.
func keptArgs(args string) string {
	s, _ := ledger.Truncate(args, argsKeep)
	return strings.Clone(s)
}

func (t *LoopTracker) observeCall(c *ledger.Call) {
	t.calls++
	s := t.session(t.ledger, c.SessionID)
	if s.seenCall && c.TurnID != s.turn {
		t.closeTurn(s)
		s.fixed.reset()
		s.unfixed.reset()
	}
	s.seenCall, s.turn = true, c.TurnID

	hasResult := c.Status != ledger.StatusPending
	failed := c.Status == ledger.StatusError || c.Status == ledger.StatusBlocked
	pt := callPoint{
		row: c.ID, turn: c.TurnID, callID: c.CallID, tool: c.Tool, ts: c.TS, end: c.TS, startTS: c.TS,
		base: s.cum, cum: s.cum, args: keptArgs(c.Args), argsLen: len(c.Args), failed: failed,
	}
	if t.hasCanon {
		pt.argsSig = argsSig(c.Tool, t.sum)
	} else {
		// Loops repeat their arguments: reuse the last signature rather
		// than decode the same JSON again.
		if s.lastArgsSig == "" || c.Tool != s.lastTool || c.Args != s.lastArgs {
			s.lastTool, s.lastArgs, s.lastArgsSig = c.Tool, c.Args, argsSigOf(c.Tool, canonicalArgs(c.Args))
		}
		pt.argsSig = s.lastArgsSig
	}
	if !c.OutcomeTS.IsZero() {
		pt.end = c.OutcomeTS
	}
	if c.DurationMS != nil {
		pt.durMS = *c.DurationMS
	}
	// The model call that issued this tool call belongs to the loop too.
	if s.lastLLMRow > s.prevCallRow {
		pt.base, pt.startTS = s.beforeLastLLM, s.lastLLMTS
	}
	s.prevCallRow = c.ID

	var fixedHash, unfixedHash string
	if hasResult {
		fixedHash = c.ResultHash
		if fixedHash == "" {
			fixedHash = ledger.ResultHash(c.Tool, c.ResultDigest)
		}
		if h, ok := unfixedResultHash(c, fixedHash); ok {
			unfixedHash = h
		} else {
			// Unknown: never equal to anything, so the unfixed replay
			// cannot invent a streak the ledger does not prove.
			pt.unknown = true
			t.unknown++
			unfixedHash = "unknown\x00" + c.Ledger + "\x00" + itoa(int(c.ID))
		}
	}
	fixedHash, unfixedHash = compactHash(fixedHash), compactHash(unfixedHash)
	gc := guardCall{
		tool: c.Tool, sig: pt.argsSig, hasResult: hasResult, failed: failed,
		repeatable: repeatableTool(c.Tool), idempotent: idempotentTool(c.Tool),
	}
	if c.Tool == "delegate_task" {
		gc.spawns = subagentSpawns(c.Args)
	}
	gc.hash = fixedHash
	pt.decs = s.fixed.observe(gc, t.scratch[:0])
	pt.decs = append([]decision(nil), pt.decs...)
	gc.hash = unfixedHash
	pt.udecs = append([]decision(nil), s.unfixed.observe(gc, t.scratch[:0])...)

	t.turnEpisodes(s, &pt, gc)
	t.identical(s, &pt, hasResult, fixedHash)
	t.cycles(s, &pt, hasResult, fixedHash)
	t.nearDuplicates(s, &pt, c)
}

// unfixedResultHash is the pre-fix result hash. Only execute_code results
// were ever stripped, so for every other tool it is the fixed hash. For
// execute_code it is recomputed from the stored digest when the digest is
// provably the whole result: shorter than the digest cap, or re-hashing
// to the stored (fixed) hash.
func unfixedResultHash(c *ledger.Call, fixed string) (string, bool) {
	if c.Tool != "execute_code" {
		return fixed, true
	}
	d := c.ResultDigest
	if utf8.RuneCountInString(d) >= ledger.MaxDigestChars && (c.ResultHash == "" || ledger.ResultHash(c.Tool, d) != c.ResultHash) {
		return "", false
	}
	return ledger.ResultHashUnfixed(d), true
}

// turnEpisodes keeps one episode per guard counter: an episode opens when
// its counter goes to 1, grows with it and closes when Hermes resets it.
func (t *LoopTracker) turnEpisodes(s *loopSession, pt *callPoint, gc guardCall) {
	g := s.fixed
	grow := func(m map[string]*episode, key, kind string, n int) {
		if n == 0 { // not counted: the per-turn table is full
			return
		}
		ep := m[key]
		if n == 1 || ep == nil {
			t.close(ep)
			ep = newEpisode(kind, s, pt)
			m[key] = ep
		}
		ep.add(pt)
	}
	if gc.hasResult {
		if gc.failed {
			grow(s.exactEp, gc.sig, LoopKindExactFailure, g.exact[gc.sig])
			grow(s.sameEp, gc.tool, LoopKindSameTool, g.same[gc.tool])
			t.close(s.npEp[gc.sig])
			delete(s.npEp, gc.sig)
		} else {
			t.close(s.exactEp[gc.sig])
			delete(s.exactEp, gc.sig)
			if progressResetTools[gc.tool] {
				for _, k := range sortedKeys(s.sameEp) {
					t.close(s.sameEp[k])
				}
				clear(s.sameEp)
			} else {
				t.close(s.sameEp[gc.tool])
				delete(s.sameEp, gc.tool)
			}
			if gc.idempotent {
				grow(s.npEp, gc.sig, LoopKindNoProgress, g.noProg[gc.sig].count)
			}
		}
	}
	if gc.tool == "web_search" || (gc.tool == "delegate_task" && gc.spawns > 0) {
		ep := s.capEp[gc.tool]
		if ep == nil {
			ep = newEpisode(LoopCapBreach, s, pt)
			s.capEp[gc.tool] = ep
		}
		ep.add(pt)
	}
}

// identical tracks consecutive calls with the same signature and result
// hash across the whole session (Hermes resets per turn; the report shows
// where its per-turn view would have fired). A run's episode is only
// built when a second identical call arrives: until then the first call
// waits in identFirst, since a one-call run is never a loop and building
// an episode for every call was most of the tracker's allocation.
func (t *LoopTracker) identical(s *loopSession, pt *callPoint, hasResult bool, hash string) {
	if hasResult && (s.ident != nil || s.identPending) && pt.argsSig == s.identSig && hash == s.identHash {
		if s.ident == nil {
			s.ident = newEpisode(LoopIdentical, s, &s.identFirst)
			s.ident.add(&s.identFirst)
			s.identFirst, s.identPending = callPoint{}, false
		}
		s.ident.add(pt)
		return
	}
	t.close(s.ident)
	s.ident = nil
	s.identFirst, s.identPending = callPoint{}, false
	if hasResult {
		s.identSig, s.identHash = pt.argsSig, hash
		s.identFirst, s.identPending = *pt, true
	}
}

// cycles finds repeating 2–4-call batches across the session.
func (t *LoopTracker) cycles(s *loopSession, pt *callPoint, hasResult bool, hash string) {
	if !hasResult {
		t.close(s.cycle)
		s.cycle = nil
		s.hist.clear()
		clear(s.histPts)
		s.histPts = s.histPts[:0]
		return
	}
	s.hist.push(histEntry{pt.argsSig, hash, repeatableTool(pt.tool)})
	// histPts holds the calls of hist, trimmed alike.
	s.histPts = append(s.histPts, *pt)
	if drop := len(s.histPts) - s.hist.len(); drop > 0 {
		// Shift down rather than reslice: the backing array stays the
		// size of what is kept instead of being reallocated as it slides.
		n := copy(s.histPts, s.histPts[drop:])
		clear(s.histPts[n:])
		s.histPts = s.histPts[:n]
	}
	period, laps := s.hist.detectCycle()
	if period == 0 || (s.cycle != nil && s.cycle.period != period) {
		t.close(s.cycle)
		s.cycle = nil
	}
	if period == 0 {
		return
	}
	if s.cycle != nil {
		s.cycle.add(pt)
		return
	}
	n := s.hist.len()
	first := n - period*laps
	ep := newEpisode(LoopCycle, s, &s.histPts[first])
	ep.period = period
	for i := first; i < n; i++ {
		ep.add(&s.histPts[i])
	}
	s.cycle = ep
}

// nearRun is an open run of reformulated no-op calls.
type nearRun struct {
	ep     *episode
	tool   string
	out    string
	skels  []string
	first  string // the first call's code, for evidence
	differ string // a later, different code text
}

func (t *LoopTracker) nearDuplicates(s *loopSession, pt *callPoint, c *ledger.Call) {
	// Only a confirmed call can join a run, and code is only read then:
	// skip decoding the arguments of every other call.
	var code string
	if c.Status == ledger.StatusConfirmed {
		code = codeTextOf(c.Args, t.args, t.hasArgs)
		if c.Tool == "terminal" || c.Tool == "Bash" {
			code = quoteEchoArgs(code)
		}
	}
	var skel, out string
	ok := code != "" && c.Status == ledger.StatusConfirmed && noOpCandidate(c.Tool, code)
	if ok {
		var lits []string
		skel, lits = skeleton(code)
		out, ok = outputKey(c.Tool, c, lits)
	}
	r := s.near
	if ok && r != nil && r.tool == c.Tool && r.out == out {
		known := false
		for _, k := range r.skels {
			known = known || k == skel
		}
		if known || len(r.skels) < maxSkeletons {
			if !known {
				r.skels = append(r.skels, skel)
			}
			if r.differ == "" && code != r.first {
				r.differ = code
			}
			r.ep.add(pt)
			return
		}
	}
	t.closeNear(s)
	if ok {
		s.near = &nearRun{ep: newEpisode(LoopNearDuplicate, s, pt), tool: c.Tool, out: out, skels: []string{skel}, first: code}
		s.near.ep.add(pt)
	}
}

func (t *LoopTracker) closeNear(s *loopSession) {
	if s.near == nil {
		return
	}
	s.near.ep.near = s.near
	t.close(s.near.ep)
	s.near = nil
}

// closeTurn closes the per-turn episodes at a turn boundary.
func (t *LoopTracker) closeTurn(s *loopSession) {
	for _, m := range []map[string]*episode{s.exactEp, s.sameEp, s.npEp, s.capEp} {
		for _, k := range sortedKeys(m) {
			t.close(m[k])
		}
	}
	s.resetTurnEpisodes()
}

func sortedKeys(m map[string]*episode) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// close keeps an episode that qualifies as a loop and drops the rest.
func (t *LoopTracker) close(ep *episode) {
	if ep == nil || ep.closed {
		return
	}
	ep.closed = true
	if t.qualifies(ep) {
		t.loops = append(t.loops, ep)
	}
}

func (t *LoopTracker) qualifies(ep *episode) bool {
	switch ep.kind {
	case LoopIdentical:
		return ep.calls >= IdenticalCallThreshold && !ep.allFailed() && !repeatableTool(ep.first.tool) && !idempotentTool(ep.first.tool)
	case LoopKindExactFailure:
		return ep.calls >= t.cfg.warnAfter(LoopExactFailure)
	case LoopKindSameTool:
		return ep.calls >= t.cfg.warnAfter(LoopSameToolFailure) && ep.distinct() >= 2
	case LoopKindNoProgress:
		return ep.calls >= t.cfg.warnAfter(LoopIdempotentNoProgress)
	case LoopCycle:
		return true
	case LoopNearDuplicate:
		return ep.calls >= nearDuplicateMin && ep.distinct() >= nearDuplicateDistinct
	case LoopCapBreach:
		return ep.capRefusedAt() > 0
	}
	return false
}
