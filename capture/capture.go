package capture

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// Options tune one Capturer.
type Options struct {
	Client   Client
	AllTools bool // record read-only tools too
	// Now is the clock; nil means time.Now. Tests and selftest inject one.
	Now func() time.Time
	// LockWait bounds the wait for other writers per operation; zero
	// means BusyTimeout.
	LockWait time.Duration
}

// Capturer appends hook events to one ledger.
type Capturer struct {
	opt    Options
	w      *ledger.Writer
	dir    string
	policy *policyState // loaded on the first pre-tool event that needs it
}

// Open opens (creating if needed) the ledger at path for capture.
func Open(path string, opt Options) (*Capturer, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.LockWait <= 0 {
		opt.LockWait = BusyTimeout
	}
	if err := guardForeign(path); err != nil {
		return nil, err
	}
	w, err := openWriter(path, opt.LockWait)
	if err != nil {
		return nil, fmt.Errorf("opening the ledger: %w", err)
	}
	return &Capturer{opt: opt, w: w, dir: filepath.Dir(path)}, nil
}

// Close releases the ledger.
func (c *Capturer) Close() error { return c.w.Close() }

// Handle records one hook event and returns what the hook must print on
// stdout (nil for nothing): ghost context on prompt/session start, a
// refusal for a call blocked in enforce mode.
func (c *Capturer) Handle(h *Hook) ([]byte, error) {
	now := c.opt.Now().UTC()
	ts := h.TS
	if ts.IsZero() {
		ts = now
	}
	source := string(c.opt.Client)
	ev := ledger.Event{TS: ts, Source: source, SessionID: h.SessionID, TurnID: h.TurnID,
		CallID: h.CallID, ToolName: h.Tool, Cwd: h.Cwd}
	switch h.Type {
	case Ignored:
		return nil, nil
	case PreTool:
		return c.preTool(h, ev)
	case PostTool, ToolError, ToolBlocked:
		if !c.records(h.Tool) {
			if ok, err := c.recordedByPolicy(h); !ok || err != nil {
				return nil, err
			}
		}
		ev.Kind = map[Type]ledger.Kind{PostTool: ledger.KindConfirmed, ToolError: ledger.KindError, ToolBlocked: ledger.KindBlocked}[h.Type]
		ev.ResultDigest, _ = ledger.Truncate(h.Result, ledger.MaxDigestChars)
		if h.Type == PostTool {
			ev.ResultHash = ledger.ResultHash(h.Tool, h.Result)
		}
		ev.ErrorType, ev.DurationMS = h.ErrorType, h.DurationMS
		return nil, c.append(ev)
	case Prompt, SessionStart:
		if h.Type == SessionStart {
			ev.Kind = ledger.KindSessionStart
			if err := c.append(ev); err != nil {
				return nil, err
			}
		}
		text, err := c.reportGhosts(h.SessionID, now)
		if err != nil || text == "" {
			return nil, err
		}
		return c.contextOutput(h, text)
	case SessionEnd:
		ev.Kind = ledger.KindSessionEnd
	case Compaction:
		ev.Kind = ledger.KindCompaction
	case LLMCall:
		ev.Kind = ledger.KindLLMCall
		ev.TokensIn, ev.TokensOut, ev.TokensCacheRead, ev.DurationMS = h.TokensIn, h.TokensOut, h.TokensCacheRead, h.DurationMS
	default:
		return nil, errors.New("unhandled hook type")
	}
	return nil, c.append(ev)
}

func (c *Capturer) records(tool string) bool { return c.opt.AllTools || ledger.Mutating(tool) }

// recordedByPolicy reports whether the outcome of a read-only call must be
// recorded because its issued row was (a policy hit records a read-only
// call). Only possible with a policy mode set, so the common path pays
// nothing for it.
func (c *Capturer) recordedByPolicy(h *Hook) (bool, error) {
	if m, _ := ReadMode(c.dir); m == ModeOff {
		return false, nil
	}
	open, err := c.openCalls(h.SessionID)
	if err != nil {
		return false, err
	}
	for _, o := range open {
		if h.CallID != "" && o.CallID == h.CallID || h.CallID == "" && o.Tool == h.Tool {
			return true, nil
		}
	}
	return false, nil
}

// Skips reports, without opening the ledger, whether the hook has nothing
// to record: a read-only tool event with no policy mode set. Most hook
// invocations are reads, so this keeps them at process-startup cost.
func Skips(h *Hook, allTools bool, dir string) bool {
	if h.Type == Ignored {
		return true
	}
	if !h.Type.isTool() || allTools || ledger.Mutating(h.Tool) {
		return false
	}
	m, _ := ReadMode(dir)
	return m == ModeOff
}

func (c *Capturer) preTool(h *Hook, ev ledger.Event) ([]byte, error) {
	ev.Kind, ev.ArgsJSON = ledger.KindIssued, h.Args
	d, err := c.decide(h, ev.TS)
	if err != nil {
		// Fail open: a broken policy never stops the call or its record.
		logErr(c.dir, c.opt.Client, h.Event, err, c.opt.Now())
		d = Decision{}
	}
	if d.Action == "" && !c.records(h.Tool) {
		return nil, nil
	}
	ev.PolicyRule, ev.PolicyAction = d.Rule, d.recorded()
	if d.Refuse {
		blocked := ledger.Event{TS: ev.TS, Kind: ledger.KindBlocked, Source: ev.Source, SessionID: ev.SessionID,
			TurnID: ev.TurnID, CallID: ev.CallID, ToolName: ev.ToolName, Cwd: ev.Cwd,
			ErrorType: "policy_block", ResultDigest: d.Reason, PolicyRule: d.Rule, PolicyAction: d.recorded()}
		if err := c.appendWithOutcome(ev, blocked); err != nil {
			// The refusal stands even if it could not be recorded: the
			// policy said no, and the side log says why the row is missing.
			logErr(c.dir, c.opt.Client, h.Event, err, c.opt.Now())
		}
		return c.denyOutput(h, d)
	}
	return nil, c.append(ev)
}

// contextOutput renders ghost context the client's way.
func (c *Capturer) contextOutput(h *Hook, text string) ([]byte, error) {
	switch c.opt.Client {
	case ClaudeCode:
		return jsonLine(map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": h.Event, "additionalContext": text}})
	default:
		return jsonLine(map[string]any{"context": text})
	}
}

// denyOutput refuses a call the client's own way.
func (c *Capturer) denyOutput(h *Hook, d Decision) ([]byte, error) {
	reason := d.message()
	switch c.opt.Client {
	case ClaudeCode:
		return jsonLine(map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason}})
	case Hermes:
		return jsonLine(map[string]any{"action": "block", "message": reason})
	default:
		return jsonLine(map[string]any{"decision": "block", "reason": reason, "rule": d.Rule})
	}
}

func jsonLine(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
