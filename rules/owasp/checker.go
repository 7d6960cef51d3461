package owasp

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ledger-audit/ledger-audit/finding"
	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/ledger-audit/ledger-audit/rules/policy"
)

// Options bound the aggregate rules. Zero fields take the defaults in
// DefaultOptions, so Options{} is a valid configuration.
type Options struct {
	// OversizeChars: arguments at least this long (or truncated at the
	// ledger's 4000-character cap) are oversized.
	OversizeChars int
	// MassEditFiles distinct files changed within MassEditWindow is a
	// mass edit.
	MassEditFiles  int
	MassEditWindow time.Duration
	// ErrorStreak consecutive failed calls in a session.
	ErrorStreak int
	// RetryStorm: the same failing call (tool and arguments) this many
	// times in a row.
	RetryStorm int
	// CascadeTools distinct tools failing within CascadeWindow.
	CascadeTools  int
	CascadeWindow time.Duration
	// A minute with at least RateFloor calls and RateFactor times the
	// session's median calls per active minute is an unusual rate.
	RateFloor  int
	RateFactor float64
	// FanOut: more delegated agents than this in one turn (or, without
	// turn ids, within FanOutWindow).
	FanOut       int
	FanOutWindow time.Duration
	// AgencyTools / AgencyTargets bound the breadth of one session's
	// mutations (ASI11, community extension).
	AgencyTools   int
	AgencyTargets int
}

// DefaultOptions are the bounds used when a field is zero.
var DefaultOptions = Options{
	OversizeChars:  3600,
	MassEditFiles:  25,
	MassEditWindow: 10 * time.Minute,
	ErrorStreak:    5,
	RetryStorm:     3,
	CascadeTools:   3,
	CascadeWindow:  5 * time.Minute,
	RateFloor:      30,
	RateFactor:     5,
	FanOut:         10,
	FanOutWindow:   10 * time.Minute,
	AgencyTools:    8,
	AgencyTargets:  60,
}

func (o Options) withDefaults() Options {
	d := DefaultOptions
	pick := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	pickD := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	pick(&o.OversizeChars, d.OversizeChars)
	pick(&o.MassEditFiles, d.MassEditFiles)
	pickD(&o.MassEditWindow, d.MassEditWindow)
	pick(&o.ErrorStreak, d.ErrorStreak)
	pick(&o.RetryStorm, d.RetryStorm)
	pick(&o.CascadeTools, d.CascadeTools)
	pickD(&o.CascadeWindow, d.CascadeWindow)
	pick(&o.RateFloor, d.RateFloor)
	if o.RateFactor <= 0 {
		o.RateFactor = d.RateFactor
	}
	pick(&o.FanOut, d.FanOut)
	pickD(&o.FanOutWindow, d.FanOutWindow)
	pick(&o.AgencyTools, d.AgencyTools)
	pick(&o.AgencyTargets, d.AgencyTargets)
	return o
}

// Checker runs this package's rules over a stream of calls. It keeps one
// small, capped state per session (never the calls themselves), so memory
// is bounded by the number of sessions, not the size of the ledger.
// Feed calls in ledger order with Observe, then call Finish once.
type Checker struct {
	o        Options
	sessions map[sessionKey]*session
}

type sessionKey struct{ ledger, id string }

// NewChecker starts a checker with the given bounds.
func NewChecker(o Options) *Checker {
	return &Checker{o: o.withDefaults(), sessions: map[sessionKey]*session{}}
}

func (k *Checker) session(c *ledger.Call) *session {
	key := sessionKey{c.Ledger, c.SessionID}
	s := k.sessions[key]
	if s == nil {
		s = newSession(c.Ledger, c.SessionID)
		k.sessions[key] = s
	}
	return s
}

// Observe checks one call. hits are the policy engine's hits for the same
// call (they carry the tags the chain rules follow); it returns the
// findings this call completes, which may cite earlier calls too.
func (k *Checker) Observe(c *ledger.Call, hits []policy.Hit) []finding.Finding {
	return k.observe(c, hits, "", nil, false, nil, false)
}

// ObserveCanonical is Observe for a caller that has already computed
// the call's canonical arguments: ledger.CanonicalJSON(c.Args), or
// c.Args itself when they are not JSON (what ledger.ArgsHash hashes).
// The retry rule's call signature is then not computed a second time.
func (k *Checker) ObserveCanonical(c *ledger.Call, hits []policy.Hit, canonArgs string) []finding.Finding {
	return k.observe(c, hits, canonArgs, nil, true, nil, false)
}

// ObserveDecoded is Observe for a caller that has decoded the arguments
// once with ledger.DecodeArgs(c.Args) for every analysis and hashed
// their canonical text (sum: the sha256 of ledger.CanonicalJSON(c.Args),
// or of c.Args when it is not JSON, as ledger.ArgsHash hashes).
func (k *Checker) ObserveDecoded(c *ledger.Call, hits []policy.Hit, sum *[32]byte, args ledger.ArgsObject) []finding.Finding {
	return k.observe(c, hits, "", sum, sum != nil, args, true)
}

func (k *Checker) observe(c *ledger.Call, hits []policy.Hit, canon string, sum *[32]byte, hasCanon bool, args ledger.ArgsObject, hasArgs bool) []finding.Finding {
	s := k.session(c)
	v := &view{c: c}
	if hasArgs {
		v.argsVal, v.argsOK = callArgs(args), true
	}
	v.init(s)
	v.canon, v.sum, v.hasCanon = canon, sum, hasCanon
	// The taint chain runs first: a send it claims (a secret leaving) is
	// not reported again as a plain archive exfiltration chain.
	out := k.secretExfil(s, v, hits)
	out = append(out, k.asi02(s, v, hits)...)
	out = append(out, k.asi05(v)...)
	out = append(out, k.asi08(s, v)...)
	out = append(out, k.asi10(s, v, hits)...)
	k.asi11(s, v)
	return out
}

// Finish returns the findings only the whole stream can decide (rates
// against the session baseline, breadth of agency), in session order.
func (k *Checker) Finish() []finding.Finding {
	keys := make([]sessionKey, 0, len(k.sessions))
	for key := range k.sessions {
		keys = append(keys, key)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].ledger != keys[j].ledger {
			return keys[i].ledger < keys[j].ledger
		}
		return keys[i].id < keys[j].id
	})
	var out []finding.Finding
	for _, key := range keys {
		s := k.sessions[key]
		out = append(out, k.finishRate(s)...)
		out = append(out, k.finishAgency(s)...)
	}
	return out
}

// view is one call with what the rules derive from it, computed once.
type view struct {
	c       *ledger.Call
	argsVal callArgs // decoded on first use (a): most rules never look
	argsOK  bool
	// canon is the canonical argument text when the caller supplied it.
	canon    string
	sum      *[32]byte // sha256 of canon, when the caller computed it
	hasCanon bool
	exVal    string // excerptOf, computed on first use (ex)
	exOK     bool
	command  string // shell command, if the tool runs one
	cwd      string // the call's cwd, else the session's last known one
	home     string
	written  string // path written by a file tool, absolute when resolvable
	rawPath  string // the path as the agent wrote it

	s         *session
	factsDone bool
	factsVal  *cmdFacts
	writesVal []string
}

// init derives what every rule needs from the call.
func (v *view) init(s *session) {
	c := v.c
	if c.Cwd != "" && c.Cwd != s.cwd {
		s.cwd = c.Cwd
		if h := homeOf(c.Cwd); h != "" {
			s.home = h
		}
	}
	v.cwd, v.home, v.s = s.cwd, s.home, s
	if runsShell(c.Tool) {
		v.command = commandOf(c, v.a())
	}
	if _, ok := fileWriteTools[c.Tool]; !ok {
		return
	}
	if p := writtenPath(c, v.a()); p != "" {
		v.rawPath = p
		v.written = absPath(p, v.cwd, v.home)
		if v.written == "" {
			v.written = p
		}
	}
}

// a is the call's decoded arguments.
func (v *view) a() callArgs {
	if !v.argsOK {
		v.argsVal, v.argsOK = decodeArgs(v.c), true
	}
	return v.argsVal
}

// ex is the call's evidence excerpt (excerptOf): several rules cite the
// same call.
func (v *view) ex() string {
	if !v.exOK {
		v.exVal, v.exOK = excerptOf(v.c, v.a()), true
	}
	return v.exVal
}

// writes lists the paths the call changes, absolute where the session's
// working directory (and so its home) is known.
func (v *view) writes() []string {
	if v.writesVal != nil {
		return v.writesVal
	}
	v.writesVal = []string{}
	if v.written != "" {
		v.writesVal = append(v.writesVal, v.written)
	}
	if f := v.facts(); f != nil {
		for _, p := range f.writes {
			if a := absPath(p, v.cwd, v.home); a != "" {
				p = a
			}
			v.writesVal = append(v.writesVal, p)
		}
	}
	return v.writesVal
}

// evidence cites a call.
func evidence(c *ledger.Call, ex string) finding.Evidence {
	return finding.Evidence{
		Ledger: c.Ledger, Row: c.ID, CallID: c.CallID, TS: c.TS, Session: c.SessionID,
		Tool: c.Tool, Excerpt: ex, Truncated: c.ArgsTruncated,
	}
}

// mark is a remembered call: enough to cite it later as evidence without
// keeping the call.
type mark struct {
	ev   finding.Evidence
	ts   time.Time
	tool string
	key  string // rule-specific (path, signature)
}

func markOf(c *ledger.Call, ex, key string) mark {
	// Marks outlive their call, per session, for the whole scan: the
	// excerpt and key are copied so they do not keep the call's
	// argument text (up to 4000 bytes, from which they are sliced)
	// alive with them.
	return mark{ev: evidence(c, strings.Clone(ex)), ts: c.TS, tool: c.Tool, key: strings.Clone(key)}
}

// FromHit turns one policy-engine hit into a posture finding with the pack
// rule's id, severity and category: command-based findings exist only as
// pack rules, so the posture score and the policy replay agree.
func FromHit(h policy.Hit, c *ledger.Call) finding.Finding {
	r := HitRule(h)
	msg := h.Reason
	if h.Matched != "" {
		msg = fmt.Sprintf("%s (matched %q", h.Reason, h.Matched)
		if len(h.Via) > 0 {
			msg += fmt.Sprintf(" via %v", h.Via)
		}
		msg += ")"
	}
	if len(h.Notes) > 0 {
		msg += fmt.Sprintf(" [%v]", h.Notes)
	}
	a := decodeArgs(c)
	return finding.New(r, msg, evidence(c, excerptOf(c, a)))
}

// HitRule is the rule metadata a hit carries.
func HitRule(h policy.Hit) finding.Rule {
	return finding.Rule{ID: h.RuleID, Category: h.Category, Severity: h.Severity, Title: h.Title,
		Rationale: h.Reason, Remediation: h.Remediation}
}

// hasTag reports whether any hit carries tag.
func hasTag(hits []policy.Hit, tag string) bool {
	for _, h := range hits {
		for _, t := range h.Tags {
			if t == tag {
				return true
			}
		}
	}
	return false
}
