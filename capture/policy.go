package capture

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/ledger-audit/ledger-audit/rules/policy"
)

// Mode is the policy mode set by the policy_mode file next to the ledger.
type Mode string

// Policy modes. With no policy_mode file the engine is not consulted at
// all, which keeps the common hook path free of policy cost.
const (
	ModeOff     Mode = ""
	ModeDryRun  Mode = "dry_run"
	ModeEnforce Mode = "enforce"
)

// Files next to the ledger that configure enforcement.
const (
	ModeFile   = "policy_mode"
	PolicyFile = "policy.yaml"
)

// replayDepth bounds how many earlier calls of the session are replayed
// into the engine to rebuild cross-call state in a one-shot process.
const replayDepth = 200

// ReadMode reads <dir>/policy_mode. A missing file means ModeOff; any other
// content is an error (capture logs it and stays off: fail open).
func ReadMode(dir string) (Mode, error) {
	b, err := os.ReadFile(filepath.Join(dir, ModeFile))
	if errors.Is(err, fs.ErrNotExist) {
		return ModeOff, nil
	}
	if err != nil {
		return ModeOff, err
	}
	switch m := Mode(strings.TrimSpace(string(b))); m {
	case ModeDryRun, ModeEnforce:
		return m, nil
	case "", "off":
		return ModeOff, nil
	}
	return ModeOff, fmt.Errorf("%s: unknown policy mode (want dry_run or enforce)", filepath.Join(dir, ModeFile))
}

// Decision is the policy verdict on one call.
type Decision struct {
	Mode   Mode
	Action policy.Action // "" when no rule matched
	Rule   string
	Reason string
	// Refuse is true when the call must not run: a block hit in enforce mode.
	Refuse bool
}

// recorded is the policy_action column value: what happened in enforce
// mode, what would have happened in dry-run.
func (d Decision) recorded() string {
	if d.Action == "" {
		return ""
	}
	if d.Mode == ModeDryRun {
		return "would_" + string(d.Action)
	}
	return string(d.Action)
}

func (d Decision) message() string {
	if d.Reason == "" {
		return "ledger-audit policy rule " + d.Rule + " refused this call"
	}
	return d.Reason + " (ledger-audit policy rule " + d.Rule + ")"
}

type policyState struct {
	mode   Mode
	engine *policy.Engine
}

// loadPolicy reads the mode and, unless off, builds the engine: the
// user's policy.yaml next to the ledger when present, else the built-in
// default pack.
func (c *Capturer) loadPolicy() (*policyState, error) {
	if c.policy != nil {
		return c.policy, nil
	}
	mode, err := ReadMode(c.dir)
	if err != nil {
		c.policy = &policyState{}
		return nil, err
	}
	st := &policyState{mode: mode}
	if mode != ModeOff {
		st.engine, err = LoadEngine(c.dir)
		if err != nil {
			st.mode = ModeOff
			c.policy = st
			return nil, err
		}
	}
	c.policy = st
	return st, nil
}

// Decide evaluates a pre-tool event against the policy without recording
// anything; the Hermes plugin calls it through `capture --decide`. The
// mode is reported as configured; with ModeOff nothing is evaluated.
func (c *Capturer) Decide(h *Hook) (Decision, error) {
	ts := h.TS
	if ts.IsZero() {
		ts = c.opt.Now().UTC()
	}
	return c.decide(h, ts)
}

func (c *Capturer) decide(h *Hook, ts time.Time) (Decision, error) {
	st, err := c.loadPolicy()
	if err != nil || st.mode == ModeOff {
		return Decision{}, err
	}
	earlier, err := c.recentCalls(h.SessionID, replayDepth)
	if err != nil {
		return Decision{Mode: st.mode}, err
	}
	rp := st.engine.NewReplay()
	for i := range earlier {
		rp.Observe(&earlier[i])
	}
	call := &ledger.Call{Ledger: c.w.Path(), Source: string(c.opt.Client), TS: ts, SessionID: h.SessionID,
		TurnID: h.TurnID, CallID: h.CallID, Tool: h.Tool, Args: h.Args, Cwd: h.Cwd, Status: ledger.StatusPending}
	return verdict(st.mode, rp.Observe(call)), nil
}

// verdict picks the hit that decides: the first block, else the first warn.
func verdict(mode Mode, hits []policy.Hit) Decision {
	d := Decision{Mode: mode}
	for _, h := range hits {
		if h.Action == policy.ActionBlock {
			d.Action, d.Rule, d.Reason = h.Action, h.RuleID, h.Reason
			d.Refuse = mode == ModeEnforce
			return d
		}
		if d.Action == "" {
			d.Action, d.Rule, d.Reason = h.Action, h.RuleID, h.Reason
		}
	}
	return d
}
