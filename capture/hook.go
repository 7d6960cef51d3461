package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// Client names a hook dialect.
type Client string

// Supported clients.
const (
	ClaudeCode Client = "claude-code"
	Generic    Client = "generic"
	Hermes     Client = "hermes"
)

// Clients lists the supported clients, for flag help and validation.
var Clients = []Client{ClaudeCode, Generic, Hermes}

// ParseClient validates a --client value.
func ParseClient(s string) (Client, error) {
	for _, c := range Clients {
		if string(c) == s {
			return c, nil
		}
	}
	return "", fmt.Errorf("unknown client %q (want claude-code, generic or hermes)", s)
}

// Type is what a hook event means to the ledger, whatever the client
// called it.
type Type int

// Hook types.
const (
	Ignored      Type = iota // an event we do not record (Stop, Notification, ...)
	PreTool                  // a call is about to run: issued
	PostTool                 // it succeeded: confirmed
	ToolError                // it failed: error
	ToolBlocked              // the agent refused it: blocked
	Prompt                   // a new user turn: ghost context
	SessionStart             // a session began: recorded, plus ghost context
	SessionEnd               // a session ended
	Compaction               // the context was compacted
	LLMCall                  // one model call, with token counts
)

// Hook is one normalised hook event.
type Hook struct {
	Type Type
	// Event is the client's own name for it (Claude Code's
	// hook_event_name), echoed back in hookSpecificOutput.
	Event      string
	TS         time.Time // zero: now
	SessionID  string
	TurnID     string
	CallID     string
	Tool       string
	Cwd        string
	Args       string // JSON text
	Result     string // outcome text: JSON or plain
	ErrorType  string
	DurationMS *int64

	TokensIn, TokensOut, TokensCacheRead *int64
}

// Parse decodes one hook payload in the client's dialect. Errors never
// quote the payload: they end up in the side log, which must not hold
// arguments or secrets.
func Parse(c Client, data []byte) (*Hook, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, errors.New("empty hook payload")
	}
	switch c {
	case ClaudeCode:
		return parseClaude(data)
	case Generic:
		return parseGeneric(data)
	case Hermes:
		return parseHermes(data)
	}
	return nil, fmt.Errorf("unknown client %q", c)
}

func decode(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return fmt.Errorf("hook payload is not valid JSON (at byte %d)", se.Offset)
		case errors.As(err, &te):
			return fmt.Errorf("hook payload field %q has the wrong type (%s, want %s)", te.Field, te.Value, te.Type)
		}
		return errors.New("hook payload is not a JSON object")
	}
	return nil
}

// claudePayload is what Claude Code writes to a command hook's stdin.
type claudePayload struct {
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	ToolUseID     string          `json:"tool_use_id"`
	ToolResponse  json.RawMessage `json:"tool_response"`
	Error         json.RawMessage `json:"error"`
	IsInterrupt   bool            `json:"is_interrupt"`
}

func parseClaude(data []byte) (*Hook, error) {
	var p claudePayload
	if err := decode(data, &p); err != nil {
		return nil, err
	}
	h := &Hook{Event: p.HookEventName, SessionID: p.SessionID, CallID: p.ToolUseID,
		Tool: p.ToolName, Cwd: p.Cwd, Args: rawText(p.ToolInput)}
	switch p.HookEventName {
	case "PreToolUse":
		h.Type = PreTool
	case "PostToolUse":
		h.Type = PostTool
		h.Result = resultText(p.ToolResponse)
	case "PostToolUseFailure":
		h.Type, h.ErrorType = ToolError, "tool_error"
		if p.IsInterrupt {
			h.ErrorType = "interrupt"
		}
		h.Result = resultText(p.Error)
	case "UserPromptSubmit":
		h.Type = Prompt
	case "SessionStart":
		h.Type = SessionStart
	case "SessionEnd":
		h.Type = SessionEnd
	case "PreCompact":
		h.Type = Compaction
	case "":
		return nil, errors.New("hook payload has no hook_event_name")
	default:
		h.Type = Ignored
	}
	return h, h.check()
}

// genericPayload is the documented shape for any other agent (see the
// package doc).
type genericPayload struct {
	Event           string          `json:"event"`
	SessionID       string          `json:"session_id"`
	TurnID          string          `json:"turn_id"`
	CallID          string          `json:"call_id"`
	Tool            string          `json:"tool"`
	Args            json.RawMessage `json:"args"`
	Result          json.RawMessage `json:"result"`
	ErrorType       string          `json:"error_type"`
	DurationMS      *int64          `json:"duration_ms"`
	Cwd             string          `json:"cwd"`
	TS              string          `json:"ts"`
	TokensIn        *int64          `json:"tokens_in"`
	TokensOut       *int64          `json:"tokens_out"`
	TokensCacheRead *int64          `json:"tokens_cache_read"`
}

var genericTypes = map[string]Type{
	"pre_tool": PreTool, "post_tool": PostTool, "tool_error": ToolError, "tool_blocked": ToolBlocked,
	"prompt": Prompt, "session_start": SessionStart, "session_end": SessionEnd,
	"compaction": Compaction, "llm_call": LLMCall,
}

func parseGeneric(data []byte) (*Hook, error) {
	var p genericPayload
	if err := decode(data, &p); err != nil {
		return nil, err
	}
	t, ok := genericTypes[p.Event]
	if !ok {
		if p.Event == "" {
			return nil, errors.New(`hook payload has no "event"`)
		}
		return nil, errors.New(`hook payload has an unknown "event" (want pre_tool, post_tool, tool_error, tool_blocked, prompt, session_start, session_end, compaction or llm_call)`)
	}
	h := &Hook{Type: t, Event: p.Event, SessionID: p.SessionID, TurnID: p.TurnID, CallID: p.CallID,
		Tool: p.Tool, Cwd: p.Cwd, Args: rawText(p.Args), ErrorType: p.ErrorType, DurationMS: p.DurationMS,
		TokensIn: p.TokensIn, TokensOut: p.TokensOut, TokensCacheRead: p.TokensCacheRead}
	if t.isOutcome() {
		h.Result = resultText(p.Result)
	}
	if t == ToolError && h.ErrorType == "" {
		h.ErrorType = "tool_error"
	}
	if p.TS != "" {
		ts, ok := ledger.ParseTime(p.TS)
		if !ok {
			return nil, errors.New(`hook payload "ts" is not an RFC 3339 time`)
		}
		h.TS = ts
	}
	return h, h.check()
}

// hermesPayload is the kwargs Hermes passes to a plugin hook, plus "hook".
type hermesPayload struct {
	Hook       string          `json:"hook"`
	ToolName   string          `json:"tool_name"`
	Args       json.RawMessage `json:"args"`
	SessionID  string          `json:"session_id"`
	TaskID     string          `json:"task_id"`
	ToolCallID string          `json:"tool_call_id"`
	TurnID     json.RawMessage `json:"turn_id"`
	Result     json.RawMessage `json:"result"`
	DurationMS *float64        `json:"duration_ms"`
	Status     string          `json:"status"`
	ErrorType  string          `json:"error_type"`
	ErrorMsg   string          `json:"error_message"`
}

func parseHermes(data []byte) (*Hook, error) {
	var p hermesPayload
	if err := decode(data, &p); err != nil {
		return nil, err
	}
	h := &Hook{Event: p.Hook, SessionID: p.SessionID, CallID: p.ToolCallID, Tool: p.ToolName,
		TurnID: resultText(p.TurnID)}
	if h.SessionID == "" {
		// Some Hermes entry points (cron, delegated tasks) only carry task_id.
		h.SessionID = p.TaskID
	}
	// Hermes hands args over as a dict; the plugin stores its canonical
	// JSON (or a string argument as is), so this adapter does too and both
	// writers agree byte for byte.
	raw := rawText(p.Args)
	if c, ok := ledger.CanonicalJSON(raw); ok && !strings.HasPrefix(raw, `"`) {
		h.Args = c
	} else {
		h.Args = resultText(p.Args)
	}
	if p.DurationMS != nil {
		d := int64(*p.DurationMS)
		h.DurationMS = &d
	}
	switch p.Hook {
	case "pre_tool_call":
		h.Type = PreTool
	case "post_tool_call":
		h.Result = resultText(p.Result)
		switch {
		case p.Status == "blocked" || p.ErrorType == "plugin_block":
			h.Type, h.ErrorType = ToolBlocked, "plugin_block"
		case p.Status == "error" || (p.Status == "" && p.ErrorType != ""):
			h.Type, h.ErrorType = ToolError, p.ErrorType
			if h.ErrorType == "" {
				h.ErrorType = "tool_error"
			}
			if h.Result == "" {
				h.Result = p.ErrorMsg
			}
		default:
			h.Type = PostTool
		}
	case "pre_llm_call":
		h.Type = Prompt
	case "on_session_start":
		h.Type = SessionStart
	case "":
		return nil, errors.New(`hook payload has no "hook" naming the Hermes hook`)
	default:
		h.Type = Ignored
	}
	return h, h.check()
}

func (t Type) isOutcome() bool { return t == PostTool || t == ToolError || t == ToolBlocked }

func (t Type) isTool() bool { return t == PreTool || t.isOutcome() }

func (h *Hook) check() error {
	if h.Type == Ignored {
		return nil
	}
	if h.SessionID == "" {
		return errors.New("hook payload has no session id")
	}
	if h.Type.isTool() && h.Tool == "" {
		return errors.New("tool event has no tool name")
	}
	return nil
}

// rawText is a JSON value's text, "" when absent or null.
func rawText(m json.RawMessage) string {
	s := string(bytes.TrimSpace(m))
	if s == "null" {
		return ""
	}
	return s
}

// resultText unwraps a JSON string (Hermes results are JSON text inside a
// string; many tools answer plain text) and keeps any other value's JSON
// text, so ResultHash sees the same thing whichever writer recorded it.
func resultText(m json.RawMessage) string {
	s := rawText(m)
	if strings.HasPrefix(s, `"`) {
		var str string
		if json.Unmarshal(m, &str) == nil {
			return str
		}
	}
	return s
}
