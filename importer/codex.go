package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
)

type cxLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	// Legacy rollouts (before the {timestamp, type, payload} envelope)
	// open with a bare header {id, timestamp, instructions}.
	ID string `json:"id"`
}

type cxPayload struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Cwd       string          `json:"cwd"`
	TurnID    string          `json:"turn_id"`
	Model     string          `json:"model"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"` // a string, but tool_search_call has an object
	Input     json.RawMessage `json:"input"`
	CallID    string          `json:"call_id"`
	Status    string          `json:"status"`
	Action    *cxShellAction  `json:"action"`
	Output    json.RawMessage `json:"output"`
	Role      string          `json:"role"`
	// event_msg fields
	Info     *cxTokenInfo    `json:"info"`
	ExitCode *int            `json:"exit_code"`
	Success  *bool           `json:"success"`
	Duration json.RawMessage `json:"duration"`
	Stdout   string          `json:"stdout"`
	Stderr   string          `json:"stderr"`
	Aggr     string          `json:"aggregated_output"`
}

type cxShellAction struct {
	Command          []string `json:"command"`
	WorkingDirectory string   `json:"working_directory"`
}

type cxTokenInfo struct {
	Total *cxUsage `json:"total_token_usage"`
	Last  *cxUsage `json:"last_token_usage"`
}

type cxUsage struct {
	InputTokens       int64 `json:"input_tokens"`
	CachedInputTokens int64 `json:"cached_input_tokens"`
	OutputTokens      int64 `json:"output_tokens"`
	TotalTokens       int64 `json:"total_tokens"`
}

// codexItemTypes are the response item kinds a legacy rollout writes bare.
var codexItemTypes = map[string]bool{
	"message": true, "reasoning": true, "function_call": true, "function_call_output": true,
	"local_shell_call": true, "local_shell_call_output": true, "custom_tool_call": true,
	"custom_tool_call_output": true, "web_search_call": true,
}

// codexEnd is what an exec_command_end / patch_apply_end event says about
// a call: the authoritative exit status, which the model-facing output
// only paraphrases.
type codexEnd struct {
	ts       time.Time
	failed   bool
	duration *int64
	text     string
}

// codexReader reads one Codex rollout.
type codexReader struct {
	fallback string // session id from the file name
	mtime    time.Time

	session   string
	turn      string
	model     string
	cwd       string
	lastTS    time.Time
	compacted bool
	lastTotal int64
	events    []ledger.Event
	calls     map[string]int // call_id -> issued index
	outs      map[string]int // call_id -> outcome index
	ends      map[string]codexEnd
	endOrder  []string
}

func newCodexReader() *codexReader {
	return &codexReader{calls: map[string]int{}, outs: map[string]int{}, ends: map[string]codexEnd{}}
}

func (p *codexReader) result() []ledger.Event { return p.events }

func (p *codexReader) emit(e ledger.Event) int {
	if e.TS.IsZero() {
		e.TS = p.lastTS
	}
	p.events = append(p.events, e)
	return len(p.events) - 1
}

func (p *codexReader) line(b []byte) error {
	var ln cxLine
	if err := decodeRecord(b, &ln); err != nil {
		return err
	}
	p.lastTS = tsOr(ln.Timestamp, p.lastTS)
	switch ln.Type {
	case "session_meta", "turn_context", "response_item", "event_msg", "compacted":
		var pl cxPayload
		if len(ln.Payload) > 0 && string(ln.Payload) != "null" {
			if err := json.Unmarshal(ln.Payload, &pl); err != nil {
				return fmt.Errorf("malformed %s payload: %s", ln.Type, shortErr(err))
			}
		}
		switch ln.Type {
		case "session_meta":
			p.sessionMeta(pl.ID, pl.Cwd, pl.Timestamp)
		case "turn_context":
			if pl.TurnID != "" {
				p.turn = pl.TurnID
			}
			if pl.Model != "" {
				p.model = pl.Model
			}
			if pl.Cwd != "" {
				p.cwd = pl.Cwd
			}
		case "response_item":
			p.item(&pl)
		case "event_msg":
			p.event(&pl)
		case "compacted":
			p.compaction()
		}
		return nil
	case "":
		// Legacy rollouts: a bare header, then bare response items.
		if ln.ID != "" && ln.Timestamp != "" {
			p.sessionMeta(ln.ID, "", ln.Timestamp)
			return nil
		}
		var legacy struct {
			RecordType string `json:"record_type"`
		}
		if json.Unmarshal(b, &legacy) == nil && legacy.RecordType != "" {
			return nil
		}
		return errors.New("record without a type")
	}
	if codexItemTypes[ln.Type] {
		var pl cxPayload
		if err := json.Unmarshal(b, &pl); err != nil {
			return fmt.Errorf("malformed %s item: %s", ln.Type, shortErr(err))
		}
		p.item(&pl)
		return nil
	}
	return unknownType(ln.Type)
}

func (p *codexReader) sessionMeta(id, cwd, ts string) {
	if p.session != "" {
		return // forked rollouts repeat their ancestors' meta after their own
	}
	p.session = id
	if cwd != "" {
		p.cwd = cwd
	}
	e := ledger.Event{Kind: ledger.KindSessionStart, Cwd: cwd}
	if t, ok := ledger.ParseTime(ts); ok {
		e.TS = t
	}
	p.emit(e)
}

func (p *codexReader) compaction() {
	if p.compacted {
		return // compacted record and context_compacted event: one compaction
	}
	p.compacted = true
	p.emit(ledger.Event{Kind: ledger.KindCompaction, TurnID: p.turn})
}

func (p *codexReader) item(pl *cxPayload) {
	switch pl.Type {
	case "function_call":
		p.issue(pl.CallID, codexFunction(pl.Name, rawString(pl.Arguments)))
	case "custom_tool_call":
		p.issue(pl.CallID, codexCustom(pl.Name, rawString(pl.Input)))
	case "local_shell_call":
		id := pl.CallID
		if id == "" {
			id = pl.ID
		}
		var argv []string
		var wd string
		if pl.Action != nil {
			argv, wd = pl.Action.Command, pl.Action.WorkingDirectory
		}
		p.issue(id, codexLocalShell(argv, wd))
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		p.output(pl)
	case "compaction", "compaction_summary", "context_compaction":
		p.compaction()
	case "message":
		if pl.Role == "user" || pl.Role == "assistant" {
			p.compacted = false
		}
	}
}

func (p *codexReader) issue(callID string, m mappedCall) {
	p.compacted = false
	if callID == "" {
		// Ids are keys across files and imports: make one that is unique
		// to this session and stable while the file only grows.
		s := p.session
		if s == "" {
			s = p.fallback
		}
		callID = fmt.Sprintf("nocallid:%s:%d", s, len(p.events))
	}
	if _, dup := p.calls[callID]; dup {
		return
	}
	cwd := m.cwd
	if cwd == "" {
		cwd = p.cwd
	}
	p.calls[callID] = p.emit(ledger.Event{
		Kind: ledger.KindIssued, TurnID: p.turn, CallID: callID, ToolName: m.tool, ArgsJSON: m.args, Cwd: cwd,
	})
}

func (p *codexReader) output(pl *cxPayload) {
	p.compacted = false
	if pl.CallID == "" {
		return
	}
	if _, dup := p.outs[pl.CallID]; dup {
		return
	}
	text, success := codexOutputText(pl.Output)
	text, exit, dur := codexShellResult(text)
	e := ledger.Event{Kind: ledger.KindConfirmed, TurnID: p.turn, CallID: pl.CallID}
	if i, ok := p.calls[pl.CallID]; ok {
		issued := p.events[i]
		e.TurnID, e.ToolName = issued.TurnID, issued.ToolName
		if d := p.lastTS.Sub(issued.TS); d >= 0 {
			e.DurationMS = ledger.Int64(d.Milliseconds())
		}
	}
	if dur != nil {
		e.DurationMS = dur
	}
	switch {
	case success != nil && !*success, exit != nil && *exit != 0:
		e.Kind, e.ErrorType = ledger.KindError, "tool_error"
	case strings.HasPrefix(text, "aborted"):
		e.Kind, e.ErrorType = ledger.KindError, "interrupted"
	case strings.HasPrefix(text, "apply_patch verification failed"), strings.HasPrefix(text, "execution error"):
		e.Kind, e.ErrorType = ledger.KindError, "tool_error"
	}
	setResult(&e, text)
	p.outs[pl.CallID] = p.emit(e)
}

func setResult(e *ledger.Event, text string) {
	e.ResultDigest, _ = ledger.Truncate(text, ledger.MaxDigestChars)
	e.ResultHash = ledger.ResultHash(e.ToolName, text)
}

func (p *codexReader) event(pl *cxPayload) {
	switch pl.Type {
	case "token_count":
		p.tokens(pl.Info)
	case "exec_command_end", "patch_apply_end":
		if pl.CallID == "" {
			return
		}
		end := codexEnd{ts: p.lastTS, duration: codexDuration(pl.Duration)}
		if pl.ExitCode != nil && *pl.ExitCode != 0 || pl.Success != nil && !*pl.Success {
			end.failed = true
		}
		end.text = pl.Aggr
		if end.text == "" {
			end.text = pl.Stdout + pl.Stderr
		}
		if _, seen := p.ends[pl.CallID]; !seen {
			p.endOrder = append(p.endOrder, pl.CallID)
		}
		p.ends[pl.CallID] = end
	case "context_compacted":
		p.compaction()
	case "task_started":
		if pl.TurnID != "" {
			p.turn = pl.TurnID
		}
	case "user_message", "agent_message":
		p.compacted = false
	}
}

func (p *codexReader) tokens(info *cxTokenInfo) {
	if info == nil || info.Last == nil {
		return
	}
	// token_count repeats on every rate-limit refresh: only a change in
	// the running total is a new model call.
	if info.Total != nil {
		if info.Total.TotalTokens == p.lastTotal {
			return
		}
		p.lastTotal = info.Total.TotalTokens
	}
	u := info.Last
	p.emit(ledger.Event{
		Kind: ledger.KindLLMCall, TurnID: p.turn,
		ArgsJSON: marshalNoEscape(map[string]string{"model": p.model}),
		TokensIn: ledger.Int64(u.InputTokens), TokensOut: ledger.Int64(u.OutputTokens), TokensCacheRead: ledger.Int64(u.CachedInputTokens),
	})
}

func (p *codexReader) finish() {
	// The end events are authoritative on success; a call that only has
	// one (its model-facing output never written) gets its outcome here.
	for _, id := range p.endOrder {
		end := p.ends[id]
		if i, ok := p.outs[id]; ok {
			e := &p.events[i]
			if end.failed && e.Kind == ledger.KindConfirmed {
				e.Kind, e.ErrorType = ledger.KindError, "tool_error"
			} else if !end.failed && e.Kind == ledger.KindError && e.ErrorType == "tool_error" {
				e.Kind, e.ErrorType = ledger.KindConfirmed, ""
			}
			if end.duration != nil {
				e.DurationMS = end.duration
			}
			continue
		}
		i, ok := p.calls[id]
		if !ok {
			continue
		}
		issued := p.events[i]
		e := ledger.Event{TS: end.ts, Kind: ledger.KindConfirmed, TurnID: issued.TurnID, CallID: id, ToolName: issued.ToolName, DurationMS: end.duration}
		if end.failed {
			e.Kind, e.ErrorType = ledger.KindError, "tool_error"
		}
		setResult(&e, end.text)
		p.outs[id] = p.emit(e)
	}
	session := p.session
	if session == "" {
		session = p.fallback
	}
	for i := range p.events {
		p.events[i].SessionID = session
	}
	backfillTS(p.events, p.mtime)
}

// rawString reads a field that should hold a string; anything else is
// kept as its compact JSON text rather than failing the record.
func rawString(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return rawArgs(string(raw))
}

// codexOutputText reads a function output: a string, a list of content
// items, or {content, success}.
func codexOutputText(raw json.RawMessage) (string, *bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var obj struct {
		Content json.RawMessage `json:"content"`
		Success *bool           `json:"success"`
	}
	if raw[0] == '{' && json.Unmarshal(raw, &obj) == nil {
		t, _ := codexOutputText(obj.Content)
		return t, obj.Success
	}
	var items []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &items) == nil {
		parts := make([]string, 0, len(items))
		for _, it := range items {
			if it.Text != "" {
				parts = append(parts, it.Text)
			} else if it.Type != "" {
				parts = append(parts, "["+it.Type+"]")
			}
		}
		return strings.Join(parts, "\n"), nil
	}
	return rawArgs(string(raw)), nil
}

var exitLine = regexp.MustCompile(`^(?:Exit code:|Process exited with code) (-?\d+)$`)

// codexShellResult separates a shell output from the bookkeeping Codex
// wraps it in. Old rollouts wrap it in JSON {output, metadata: {exit_code,
// duration_seconds}}; newer ones put header lines (Exit code, Wall time,
// Chunk ID, ...) before "Output:". The timings change on every run, so
// hashing them would hide identical results from loop detection, the very
// bug the Hermes execute_code fix was about.
func codexShellResult(text string) (out string, exit *int, dur *int64) {
	if strings.HasPrefix(text, "{") {
		var j struct {
			Output   *string `json:"output"`
			Metadata *struct {
				ExitCode        *int     `json:"exit_code"`
				DurationSeconds *float64 `json:"duration_seconds"`
			} `json:"metadata"`
		}
		if json.Unmarshal([]byte(text), &j) == nil && j.Output != nil {
			if j.Metadata != nil {
				exit = j.Metadata.ExitCode
				if d := j.Metadata.DurationSeconds; d != nil && *d >= 0 && *d < 1e9 {
					dur = ledger.Int64(int64(*d * 1000))
				}
			}
			return *j.Output, exit, dur
		}
		return text, nil, nil
	}
	head, body, ok := strings.Cut(text, "\nOutput:\n")
	if !ok {
		head, ok = strings.CutSuffix(text, "\nOutput:")
	}
	if !ok {
		return text, nil, nil
	}
	known := false
	for _, l := range strings.Split(head, "\n") {
		if m := exitLine.FindStringSubmatch(l); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				exit, known = &n, true
			}
			continue
		}
		for _, p := range []string{"Wall time:", "Chunk ID:", "Original token count:", "Process running with session ID"} {
			if strings.HasPrefix(l, p) {
				known = true
			}
		}
	}
	if !known {
		return text, nil, nil
	}
	return body, exit, nil
}

// codexDuration reads exec_command_end's duration: {secs, nanos} or a
// number of seconds.
func codexDuration(raw json.RawMessage) *int64 {
	if len(raw) == 0 {
		return nil
	}
	var d struct {
		Secs  int64 `json:"secs"`
		Nanos int64 `json:"nanos"`
	}
	if raw[0] == '{' && json.Unmarshal(raw, &d) == nil && d.Secs >= 0 && d.Secs < 1e9 && d.Nanos >= 0 {
		return ledger.Int64(d.Secs*1000 + d.Nanos/1e6)
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil && f >= 0 && f < 1e9 {
		return ledger.Int64(int64(f * 1000))
	}
	return nil
}
