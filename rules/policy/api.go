package policy

import (
	"sync"

	"github.com/ledger-audit/ledger-audit/finding"
	"github.com/ledger-audit/ledger-audit/ledger"
)

// These names are what capture, rules/owasp and analyze build on: their
// meanings stay; fields may be added.

// Action is what a rule does when it matches.
type Action string

// Actions.
const (
	ActionBlock Action = "block"
	ActionWarn  Action = "warn"
)

// Hit is one rule matching one call.
type Hit struct {
	Pack     string
	RuleID   string // e.g. "ASI02-DESTRUCTIVE-DELETE"
	Title    string
	Severity finding.Severity
	Category finding.Category
	Action   Action
	Reason   string   // handed back to the agent when enforcing
	Tags     []string // e.g. "destructive", "credential-read", "network-send", "archive", "pipe-to-shell"
	// Matched is the normalised command (or path) that matched, e.g.
	// "rm -r -f /" reached via "bash -c"; Via says how.
	Matched string
	Via     []string
	// Source is the text the matched command came from (the raw command
	// line, or the nested script it was found in).
	Source string
	// Notes flag how the match was made: "evasion-suspect" (unresolved
	// variable in a destructive position), "unparseable" (token fallback),
	// "cross-call" (state from an earlier call in the session).
	Notes []string
	// Remediation for the posture finding built from this hit.
	Remediation string
}

// Engine evaluates calls against a set of packs. It is immutable and safe
// for concurrent use; per-session state lives in a Replay.
type Engine struct {
	packs []*Pack
	once  sync.Once
	index *index
}

// Replay carries cross-call state (exported variables, aliases, files
// written and later executed, downloads) for every session it has seen.
// Feed it calls in ledger order.
type Replay struct {
	engine *Engine
	state  map[string]*sessionState
}

// NewReplay starts an empty replay.
func (e *Engine) NewReplay() *Replay {
	return &Replay{engine: e, state: map[string]*sessionState{}}
}

// Observe evaluates one call in the context of the calls already observed
// for its session and updates that session's state. Calls with no match
// return nil.
func (r *Replay) Observe(c *ledger.Call) []Hit {
	return r.observe(c)
}

// ObserveDecoded is Observe for a caller that has already decoded the
// call's arguments with ledger.DecodeArgs(c.Args): the replay then does
// not decode them again.
func (r *Replay) ObserveDecoded(c *ledger.Call, args ledger.ArgsObject) []Hit {
	return r.evaluate(c, &decoded{m: args}).Hits
}

// decoded carries a caller's decoded arguments into one evaluation.
type decoded struct{ m ledger.ArgsObject }
