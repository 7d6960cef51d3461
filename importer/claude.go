package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// SourceClaudeCode and SourceCodex are the ledger source values of
// imported events.
const (
	SourceClaudeCode = "import:claude-code"
	SourceCodex      = "import:codex"
)

// claudeBookkeeping are Claude Code record types that carry no tool call:
// recognised (so they prove the file is a transcript), never warned about.
var claudeBookkeeping = map[string]bool{
	"summary": true, "file-history-snapshot": true, "file-history-delta": true, "attachment": true,
	"queue-operation": true, "progress": true, "custom-title": true, "agent-name": true, "ai-title": true,
	"last-prompt": true, "mode": true, "pr-link": true, "tag": true, "worktree-state": true,
}

// continuedMarker opens the summary message older Claude Code versions
// wrote after compacting, before compact_boundary records existed.
const continuedMarker = "This session is being continued from a previous conversation"

type ccRecord struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	UUID             string          `json:"uuid"`
	SessionID        string          `json:"sessionId"`
	Timestamp        string          `json:"timestamp"`
	IsSidechain      bool            `json:"isSidechain"`
	IsMeta           bool            `json:"isMeta"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	AgentID          string          `json:"agentId"`
	Cwd              string          `json:"cwd"`
	Message          json.RawMessage `json:"message"`
	CompactMetadata  json.RawMessage `json:"compactMetadata"`
}

type ccMessage struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
	// Usage is decoded on its own so odd token counts never cost the
	// record its tool calls.
	Usage json.RawMessage `json:"usage"`
}

type ccUsage struct {
	InputTokens         int64 `json:"input_tokens"`
	OutputTokens        int64 `json:"output_tokens"`
	CacheReadTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationTokens int64 `json:"cache_creation_input_tokens"`
}

type ccBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Text      string          `json:"text"`
}

// claudeReader reads one Claude Code transcript file.
type claudeReader struct {
	// session, when set, overrides the records' sessionId: the parent
	// session of a file under <session>/subagents/.
	session string
	// fallback is the session for records without a sessionId (the file
	// name's stem).
	fallback string
	// agent is the sub-agent id from the file name (agent-<id>.jsonl).
	agent string
	// subagent is true for files under a subagents/ directory.
	subagent bool
	// mtime dates events when no record has a timestamp at all.
	mtime time.Time

	lastTS    time.Time
	turn      string
	compacted bool // the last thing seen was a compaction marker
	events    []ledger.Event
	calls     map[string]int // tool_use id -> index of its issued event
	results   map[string]bool
	msgs      map[string]int // assistant message id -> index of its llm_call
	started   map[string]bool
}

func newClaudeReader() *claudeReader {
	return &claudeReader{calls: map[string]int{}, results: map[string]bool{}, msgs: map[string]int{}, started: map[string]bool{}}
}

func (p *claudeReader) result() []ledger.Event { return p.events }

// decodeRecord unmarshals one line into v after the checks every format
// shares, so the skip reasons read the same for both.
func decodeRecord(b []byte, v any) error {
	if !json.Valid(b) {
		return errors.New("not JSON")
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return errors.New("not a JSON object")
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("malformed record: %s", shortErr(err))
	}
	return nil
}

func shortErr(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %q has the wrong type (%s)", te.Field, te.Value)
	}
	s, _ := ledger.Truncate(err.Error(), 120)
	return s
}

func (p *claudeReader) line(b []byte) error {
	var rec ccRecord
	if err := decodeRecord(b, &rec); err != nil {
		return err
	}
	switch {
	case rec.Type == "":
		return errors.New("record without a type")
	case rec.Type == "user" || rec.Type == "assistant" || rec.Type == "system":
	case claudeBookkeeping[rec.Type]:
		return nil
	default:
		return unknownType(rec.Type)
	}
	p.lastTS = tsOr(rec.Timestamp, p.lastTS)
	session := p.sessionOf(&rec)
	if !p.subagent && !p.started[session] && !p.lastTS.IsZero() {
		p.started[session] = true
		p.emit(ledger.Event{Kind: ledger.KindSessionStart, SessionID: session, Cwd: rec.Cwd})
	}
	switch rec.Type {
	case "system":
		if rec.Subtype == "compact_boundary" {
			p.compaction(session, p.turnOf(&rec), rec.CompactMetadata)
		}
		return nil
	case "assistant":
		return p.assistant(&rec, session)
	default:
		return p.user(&rec, session)
	}
}

func (p *claudeReader) sessionOf(rec *ccRecord) string {
	switch {
	case p.session != "":
		return p.session
	case rec.SessionID != "":
		return rec.SessionID
	}
	return p.fallback
}

// turnOf is the turn a record belongs to: the sub-agent's identity for
// sidechain records, else the prompt that opened the current turn.
func (p *claudeReader) turnOf(rec *ccRecord) string {
	if p.subagent || rec.IsSidechain {
		id := rec.AgentID
		if id == "" {
			id = p.agent
		}
		if id == "" {
			id = "sidechain"
		}
		return "subagent:" + id
	}
	return p.turn
}

func (p *claudeReader) emit(e ledger.Event) int {
	if e.TS.IsZero() {
		e.TS = p.lastTS
	}
	p.events = append(p.events, e)
	return len(p.events) - 1
}

func (p *claudeReader) compaction(session, turn string, meta json.RawMessage) {
	if p.compacted {
		return // the summary message that follows a boundary is the same compaction
	}
	p.compacted = true
	e := ledger.Event{Kind: ledger.KindCompaction, SessionID: session, TurnID: turn}
	if len(meta) > 0 && json.Valid(meta) {
		e.ArgsJSON = rawArgs(string(meta))
	}
	p.emit(e)
}

func (p *claudeReader) assistant(rec *ccRecord, session string) error {
	var msg ccMessage
	if len(rec.Message) > 0 {
		if err := json.Unmarshal(rec.Message, &msg); err != nil {
			return fmt.Errorf("malformed assistant message: %s", shortErr(err))
		}
	}
	// Any model output after a compaction marker ends it: a later marker
	// is a new compaction.
	p.compacted = false
	turn := p.turnOf(rec)
	for _, b := range contentBlocks(msg.Content) {
		if b.Type != "tool_use" || b.ID == "" {
			continue
		}
		if _, dup := p.calls[b.ID]; dup {
			continue // a repeated record, not a second call
		}
		args := "{}"
		if len(b.Input) > 0 && string(b.Input) != "null" {
			args = rawArgs(string(b.Input))
		}
		p.calls[b.ID] = p.emit(ledger.Event{
			Kind: ledger.KindIssued, SessionID: session, TurnID: turn, CallID: b.ID,
			ToolName: claudeTool(b.Name), ArgsJSON: args, Cwd: rec.Cwd,
		})
	}
	// Each content block of one API response is its own record carrying
	// the same message id and usage: one llm_call per id, last usage wins.
	var u ccUsage
	if len(msg.Usage) > 0 && json.Unmarshal(msg.Usage, &u) == nil && string(msg.Usage) != "null" && msg.ID != "" && msg.Model != "<synthetic>" {
		in := u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens
		if i, ok := p.msgs[msg.ID]; ok {
			e := &p.events[i]
			e.TokensIn, e.TokensOut, e.TokensCacheRead = ledger.Int64(in), ledger.Int64(u.OutputTokens), ledger.Int64(u.CacheReadTokens)
		} else {
			p.msgs[msg.ID] = p.emit(ledger.Event{
				Kind: ledger.KindLLMCall, SessionID: session, TurnID: turn, CallID: msg.ID,
				ArgsJSON: marshalNoEscape(map[string]string{"model": msg.Model}),
				TokensIn: ledger.Int64(in), TokensOut: ledger.Int64(u.OutputTokens), TokensCacheRead: ledger.Int64(u.CacheReadTokens),
			})
		}
	}
	return nil
}

func (p *claudeReader) user(rec *ccRecord, session string) error {
	var msg ccMessage
	if len(rec.Message) > 0 {
		if err := json.Unmarshal(rec.Message, &msg); err != nil {
			return fmt.Errorf("malformed user message: %s", shortErr(err))
		}
	}
	var prompt string
	if err := json.Unmarshal(msg.Content, &prompt); err == nil {
		if rec.IsCompactSummary || strings.HasPrefix(prompt, continuedMarker) {
			p.compaction(session, p.turnOf(rec), nil)
			return nil
		}
		p.endCompaction(rec)
		p.newTurn(rec)
		return nil
	}
	blocks := contentBlocks(msg.Content)
	if rec.IsCompactSummary || (len(blocks) > 0 && strings.HasPrefix(blocks[0].Text, continuedMarker)) {
		p.compaction(session, p.turnOf(rec), nil)
		return nil
	}
	p.endCompaction(rec)
	results := 0
	for _, b := range blocks {
		if b.Type != "tool_result" || b.ToolUseID == "" {
			continue
		}
		results++
		if p.results[b.ToolUseID] {
			continue
		}
		p.results[b.ToolUseID] = true
		p.outcome(rec, session, b)
	}
	if results == 0 && len(blocks) > 0 {
		p.newTurn(rec)
	}
	return nil
}

// endCompaction notes that the conversation went on after a compaction
// marker. Meta messages (a manual /compact's command output) do not count:
// the summary that follows them is still the same compaction.
func (p *claudeReader) endCompaction(rec *ccRecord) {
	if !rec.IsMeta {
		p.compacted = false
	}
}

// newTurn starts a turn at a real user prompt (not tool results, not the
// harness's meta messages).
func (p *claudeReader) newTurn(rec *ccRecord) {
	if rec.IsMeta || p.subagent || rec.IsSidechain {
		return
	}
	if rec.UUID != "" {
		p.turn = rec.UUID
	}
}

func (p *claudeReader) outcome(rec *ccRecord, session string, b ccBlock) {
	text := resultText(b.Content)
	e := ledger.Event{
		Kind: ledger.KindConfirmed, SessionID: session, TurnID: p.turnOf(rec), CallID: b.ToolUseID,
	}
	if i, ok := p.calls[b.ToolUseID]; ok {
		issued := p.events[i]
		e.SessionID, e.TurnID, e.ToolName = issued.SessionID, issued.TurnID, issued.ToolName
		if d := p.lastTS.Sub(issued.TS); d >= 0 && !issued.TS.IsZero() {
			e.DurationMS = ledger.Int64(d.Milliseconds())
		}
	}
	if b.IsError {
		e.Kind, e.ErrorType = ledger.KindError, claudeErrorType(text)
	}
	e.ResultDigest, _ = ledger.Truncate(text, ledger.MaxDigestChars)
	e.ResultHash = ledger.ResultHash(e.ToolName, text)
	p.emit(e)
}

// claudeErrorType tells a refused or interrupted call from a failed one:
// Claude Code marks all three is_error and says which in the text.
func claudeErrorType(text string) string {
	switch {
	case strings.HasPrefix(text, "The user doesn't want to proceed"), strings.HasPrefix(text, "The user doesn't want to take this action"):
		return "user_rejected"
	case strings.HasPrefix(text, "[Request interrupted by user"):
		return "interrupted"
	}
	return "tool_error"
}

func (p *claudeReader) finish() {
	backfillTS(p.events, p.mtime)
}

// backfillTS dates events read before the first timestamped record with
// the first timestamp that follows (or fallback when there is none).
func backfillTS(events []ledger.Event, fallback time.Time) {
	first := fallback
	for _, e := range events {
		if !e.TS.IsZero() {
			first = e.TS
			break
		}
	}
	for i := range events {
		if events[i].TS.IsZero() {
			events[i].TS = first
		}
	}
}

// contentBlocks reads a message content that is a block array; a plain
// string or anything else gives none.
func contentBlocks(raw json.RawMessage) []ccBlock {
	if len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	var blocks []ccBlock
	if json.Unmarshal(raw, &blocks) == nil {
		return blocks
	}
	// One odd block must not hide the others: decode them one by one.
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	for _, it := range items {
		var b ccBlock
		if json.Unmarshal(it, &b) == nil {
			blocks = append(blocks, b)
		}
	}
	return blocks
}

// resultText flattens a tool_result content (a string, or text and image
// blocks) into the text the digest and hash are taken from.
func resultText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return rawArgs(string(raw))
	}
	parts := make([]string, 0, len(items))
	for _, it := range items {
		var b ccBlock
		if json.Unmarshal(it, &b) == nil {
			switch b.Type {
			case "text":
				parts = append(parts, b.Text)
				continue
			case "image":
				parts = append(parts, "[image]")
				continue
			}
		}
		parts = append(parts, rawArgs(string(it)))
	}
	return strings.Join(parts, "\n")
}
