package capture

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
)

var t0 = time.Date(2026, 11, 30, 20, 39, 7, 0, time.UTC)

// harness runs hook payloads through Run, exactly as the CLI does, with a
// movable clock.
type harness struct {
	t      *testing.T
	db     string
	client Client
	now    time.Time
	all    bool
}

func newHarness(t *testing.T, c Client) *harness {
	return &harness{t: t, db: filepath.Join(t.TempDir(), "ledger", "ledger.db"), client: c, now: t0}
}

// send runs one payload and returns stdout and the number of failures.
func (h *harness) send(payload string) (string, int) {
	h.t.Helper()
	var out bytes.Buffer
	now := h.now
	failed := Run(Config{Options: Options{Client: h.client, AllTools: h.all, Now: func() time.Time { return now }}, DB: h.db},
		strings.NewReader(payload), &out)
	return out.String(), failed
}

func (h *harness) mustSend(payload string) string {
	h.t.Helper()
	out, failed := h.send(payload)
	if failed != 0 {
		h.t.Fatalf("payload failed: %s\nside log: %s", payload, h.sideLog())
	}
	return out
}

func (h *harness) sideLog() string {
	b, _ := os.ReadFile(filepath.Join(filepath.Dir(h.db), ErrorLog))
	return string(b)
}

func (h *harness) calls() []*ledger.Call {
	h.t.Helper()
	var out []*ledger.Call
	for _, r := range h.records() {
		if r.Call != nil {
			out = append(out, r.Call)
		}
	}
	return out
}

func (h *harness) records() []ledger.Record {
	h.t.Helper()
	r, err := ledger.Open(h.db)
	if err != nil {
		h.t.Fatal(err)
	}
	defer r.Close()
	var out []ledger.Record
	if err := r.Scan(ledger.Filter{}, func(rec ledger.Record) error { out = append(out, rec); return nil }); err != nil {
		h.t.Fatal(err)
	}
	return out
}

func (h *harness) count(where string) int {
	h.t.Helper()
	db, err := sql.Open("sqlite3", "file:"+h.db+"?mode=ro")
	if err != nil {
		h.t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM events WHERE " + where).Scan(&n); err != nil {
		h.t.Fatal(err)
	}
	return n
}

func claude(event, session, tool, id string, extra string) string {
	p := `{"session_id":"` + session + `","transcript_path":"/tmp/t.jsonl","cwd":"/home/u/proj","permission_mode":"default","hook_event_name":"` + event + `"`
	if tool != "" {
		p += `,"tool_name":"` + tool + `"`
	}
	if id != "" {
		p += `,"tool_use_id":"` + id + `"`
	}
	if extra != "" {
		p += "," + extra
	}
	return p + "}"
}

func TestClaudeCodeLifecycle(t *testing.T) {
	h := newHarness(t, ClaudeCode)
	if out := h.mustSend(claude("SessionStart", "s1", "", "", `"source":"startup"`)); out != "" {
		t.Fatalf("fresh session printed context: %s", out)
	}
	bashInput := `{"command":"npm test","description":"run tests"}`
	h.mustSend(claude("PreToolUse", "s1", "Bash", "toolu_1", `"tool_input":`+bashInput))
	h.mustSend(claude("PostToolUse", "s1", "Bash", "toolu_1", `"tool_input":`+bashInput+`,"tool_response":{"stdout":"ok","stderr":"","interrupted":false,"isImage":false}`))
	h.mustSend(claude("PreToolUse", "s1", "Edit", "toolu_2", `"tool_input":{"file_path":"/p/a.go","old_string":"a","new_string":"b"}`))
	h.mustSend(claude("PostToolUseFailure", "s1", "Edit", "toolu_2", `"tool_input":{},"error":"old_string not found"`))
	h.mustSend(claude("PreToolUse", "s1", "Bash", "toolu_3", `"tool_input":{"command":"sleep 100"}`))
	h.mustSend(claude("PostToolUseFailure", "s1", "Bash", "toolu_3", `"tool_input":{},"error":"interrupted","is_interrupt":true`))
	// Read-only tools are not recorded by default.
	h.mustSend(claude("PreToolUse", "s1", "Read", "toolu_4", `"tool_input":{"file_path":"/etc/hosts"}`))
	h.mustSend(claude("PostToolUse", "s1", "Read", "toolu_4", `"tool_input":{},"tool_response":"127.0.0.1"`))
	h.mustSend(claude("PreCompact", "s1", "", "", `"trigger":"auto"`))
	h.mustSend(claude("Notification", "s1", "", "", `"message":"hi"`))

	calls := h.calls()
	if len(calls) != 3 {
		t.Fatalf("got %d calls, want 3 (Read must not be recorded)", len(calls))
	}
	c := calls[0]
	if c.Tool != "Bash" || c.Args != bashInput || c.Status != ledger.StatusConfirmed || c.Cwd != "/home/u/proj" || c.Source != "claude-code" {
		t.Fatalf("call 1: %+v", c)
	}
	wantHash := ledger.ResultHash("Bash", `{"interrupted":false,"isImage":false,"stderr":"","stdout":"ok"}`)
	if c.ResultHash != wantHash {
		t.Fatalf("result hash %s, want hash of canonical response %s", c.ResultHash, wantHash)
	}
	if !strings.Contains(c.ResultDigest, `"stdout":"ok"`) {
		t.Fatalf("digest %q", c.ResultDigest)
	}
	if calls[1].Status != ledger.StatusError || calls[1].ErrorType != "tool_error" || calls[1].ResultDigest != "old_string not found" {
		t.Fatalf("call 2: %+v", calls[1])
	}
	if calls[2].Status != ledger.StatusError || calls[2].ErrorType != "interrupt" {
		t.Fatalf("call 3: %+v", calls[2])
	}
	if n := h.count("kind='compaction'"); n != 1 {
		t.Fatalf("compaction rows: %d", n)
	}
	if n := h.count("kind='session_start'"); n != 1 {
		t.Fatalf("session_start rows: %d", n)
	}
	if log := h.sideLog(); log != "" {
		t.Fatalf("side log not empty: %s", log)
	}
}

func TestClaudeCodeGhostContextOncePerGhostAndSessionScoped(t *testing.T) {
	h := newHarness(t, ClaudeCode)
	h.mustSend(claude("PreToolUse", "s1", "Write", "toolu_w", `"tool_input":{"file_path":"/p/x","content":"token=hunter2secret"}`))
	h.mustSend(claude("PreToolUse", "s1", "Bash", "toolu_b", `"tool_input":{"command":"make"}`))
	h.mustSend(claude("PreToolUse", "s2", "Write", "toolu_o", `"tool_input":{"file_path":"/p/other"}`))

	h.now = t0.Add(time.Minute) // inside the grace period
	if out := h.mustSend(claude("UserPromptSubmit", "s1", "", "", `"prompt":"next"`)); out != "" {
		t.Fatalf("context before grace: %s", out)
	}
	h.now = t0.Add(5 * time.Minute) // Write is past 2 min; Bash (15 min) is not
	out := h.mustSend(claude("UserPromptSubmit", "s1", "", "", `"prompt":"next"`))
	var got struct {
		HSO struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %q", out)
	}
	ctx := got.HSO.AdditionalContext
	if got.HSO.HookEventName != "UserPromptSubmit" || !strings.Contains(ctx, "Write at 2026-11-30T20:39:07Z (call toolu_w), no result after 5m") {
		t.Fatalf("context: %+v", got)
	}
	if strings.Contains(ctx, "Bash") || strings.Contains(ctx, "/p/other") {
		t.Fatalf("context lists a call inside its grace or from another session: %q", ctx)
	}
	if strings.Contains(ctx, "hunter2secret") {
		t.Fatalf("context leaks a secret: %q", ctx)
	}
	// Reported once: the next prompt is silent, the row is there.
	if out := h.mustSend(claude("UserPromptSubmit", "s1", "", "", `"prompt":"again"`)); out != "" {
		t.Fatalf("ghost reported twice: %s", out)
	}
	if n := h.count("kind='ghost_reported'"); n != 1 {
		t.Fatalf("ghost_reported rows: %d, want 1", n)
	}
	// SessionStart (resume) reports the Bash call once it is past 15 min.
	h.now = t0.Add(20 * time.Minute)
	out = h.mustSend(claude("SessionStart", "s1", "", "", `"source":"resume"`))
	if !strings.Contains(out, `"hookEventName":"SessionStart"`) || !strings.Contains(out, "Bash at") || strings.Contains(out, "Write at") {
		t.Fatalf("session start context: %s", out)
	}
	// A late confirmation revives the ghost: one call, not two.
	h.mustSend(claude("PostToolUse", "s1", "Write", "toolu_w", `"tool_input":{},"tool_response":{"success":true}`))
	var write *ledger.Call
	n := 0
	for _, c := range h.calls() {
		if c.Tool == "Write" && c.SessionID == "s1" {
			write = c
			n++
		}
	}
	if n != 1 || write.Status != ledger.StatusConfirmed || write.GhostReportedAt.IsZero() {
		t.Fatalf("revived ghost: n=%d %+v", n, write)
	}
}

func TestAllToolsRecordsReadOnly(t *testing.T) {
	h := newHarness(t, ClaudeCode)
	h.all = true
	h.mustSend(claude("PreToolUse", "s1", "Read", "r1", `"tool_input":{"file_path":"/x"}`))
	h.mustSend(claude("PostToolUse", "s1", "Read", "r1", `"tool_input":{},"tool_response":"content"`))
	calls := h.calls()
	if len(calls) != 1 || calls[0].Status != ledger.StatusConfirmed || calls[0].ResultHash != ledger.ResultHash("Read", "content") {
		t.Fatalf("calls: %+v", calls)
	}
}

func TestGenericShape(t *testing.T) {
	h := newHarness(t, Generic)
	lines := []string{
		`{"event":"session_start","session_id":"g1","ts":"2026-11-30T10:00:00Z"}`,
		`{"event":"pre_tool","session_id":"g1","turn_id":"t1","tool":"terminal","args":{"command":"make build"},"cwd":"/src"}`,
		`{"event":"pre_tool","session_id":"g1","turn_id":"t1","tool":"terminal","args":"make test"}`,
		// no call ids: fallback pairing, oldest open terminal call first
		`{"event":"post_tool","session_id":"g1","tool":"terminal","result":"built","duration_ms":1500}`,
		`{"event":"tool_error","session_id":"g1","tool":"terminal","result":{"exit":2}}`,
		`{"event":"pre_tool","session_id":"g1","call_id":"k","tool":"mcp__github__create_issue","args":{"title":"x"}}`,
		`{"event":"tool_blocked","session_id":"g1","call_id":"k","tool":"mcp__github__create_issue","error_type":"user_denied"}`,
		`{"event":"llm_call","session_id":"g1","tokens_in":1200,"tokens_out":80,"tokens_cache_read":1000,"duration_ms":900}`,
		`{"event":"compaction","session_id":"g1"}`,
		`{"event":"session_end","session_id":"g1"}`,
	}
	for _, l := range lines {
		h.mustSend(l)
	}
	calls := h.calls()
	if len(calls) != 3 {
		t.Fatalf("calls: %d", len(calls))
	}
	if calls[0].Args != `{"command":"make build"}` || calls[0].Status != ledger.StatusConfirmed || *calls[0].DurationMS != 1500 || calls[0].ResultDigest != "built" {
		t.Fatalf("call 1: %+v", calls[0])
	}
	if calls[1].Args != `"make test"` || calls[1].Status != ledger.StatusError || calls[1].ErrorType != "tool_error" {
		t.Fatalf("call 2: %+v", calls[1])
	}
	if calls[2].Status != ledger.StatusBlocked || calls[2].ErrorType != "user_denied" {
		t.Fatalf("call 3: %+v", calls[2])
	}
	var llm *ledger.Event
	for _, r := range h.records() {
		if r.Event != nil && r.Event.Kind == ledger.KindLLMCall {
			llm = r.Event
		}
	}
	if llm == nil || *llm.TokensIn != 1200 || *llm.TokensOut != 80 || *llm.TokensCacheRead != 1000 {
		t.Fatalf("llm_call: %+v", llm)
	}
	if n := h.count("kind IN ('session_start','session_end','compaction')"); n != 3 {
		t.Fatalf("session/compaction rows: %d", n)
	}
	if n := h.count("kind='session_start' AND ts='2026-11-30T10:00:00.000Z'"); n != 1 {
		t.Fatal("explicit ts not kept")
	}
	// Prompt context for generic is {"context": ...}.
	h.now = t0
	h.mustSend(`{"event":"pre_tool","session_id":"g2","tool":"write_file","args":{"path":"/a"},"ts":"2026-11-30T20:30:00Z"}`)
	out := h.mustSend(`{"event":"prompt","session_id":"g2"}`)
	var ctx map[string]string
	if json.Unmarshal([]byte(out), &ctx) != nil || !strings.Contains(ctx["context"], "write_file at 2026-11-30T20:30:00Z, no result after 9m") {
		t.Fatalf("generic context: %q", out)
	}
}

func TestHermesKwargsAdapter(t *testing.T) {
	h := newHarness(t, Hermes)
	h.mustSend(`{"hook":"on_session_start","session_id":"h1","model":"m","platform":"cli"}`)
	h.mustSend(`{"hook":"pre_tool_call","tool_name":"terminal","args":{"timeout":5,"command":"ls"},"session_id":"h1","tool_call_id":"c1","turn_id":3,"telemetry_schema_version":2}`)
	h.mustSend(`{"hook":"post_tool_call","tool_name":"terminal","args":{},"result":"{\"output\":\"x\"}","session_id":"h1","tool_call_id":"c1","duration_ms":12.7,"status":"ok"}`)
	h.mustSend(`{"hook":"pre_tool_call","tool_name":"terminal","args":{"command":"rm -rf /"},"session_id":"h1","tool_call_id":"c2"}`)
	h.mustSend(`{"hook":"post_tool_call","tool_name":"terminal","result":"{\"error\":\"no\"}","session_id":"h1","tool_call_id":"c2","status":"blocked","error_type":"plugin_block"}`)
	h.mustSend(`{"hook":"pre_tool_call","tool_name":"patch","args":{},"session_id":"h1","tool_call_id":"c3"}`)
	h.mustSend(`{"hook":"post_tool_call","tool_name":"patch","session_id":"h1","tool_call_id":"c3","status":"error","error_type":"tool_error","error_message":"no such file"}`)
	h.mustSend(`{"hook":"on_session_end","session_id":"h1"}`)
	calls := h.calls()
	if len(calls) != 3 {
		t.Fatalf("calls: %+v", calls)
	}
	if calls[0].Args != `{"command":"ls","timeout":5}` || calls[0].TurnID != "3" || calls[0].Status != ledger.StatusConfirmed || *calls[0].DurationMS != 12 ||
		calls[0].ResultHash != ledger.ResultHash("terminal", `{"output":"x"}`) {
		t.Fatalf("call 1: %+v", calls[0])
	}
	if calls[1].Status != ledger.StatusBlocked || calls[1].ErrorType != "plugin_block" {
		t.Fatalf("call 2 must be blocked, not an error: %+v", calls[1])
	}
	if calls[2].Status != ledger.StatusError || calls[2].ResultDigest != "no such file" {
		t.Fatalf("call 3: %+v", calls[2])
	}
	if n := h.count("kind='session_end'"); n != 0 {
		t.Fatal("on_session_end fires every turn; it must not be recorded as a session end")
	}
}

func TestDigestAndArgsLimits(t *testing.T) {
	h := newHarness(t, Generic)
	big := strings.Repeat("é", 5000)
	h.mustSend(`{"event":"pre_tool","session_id":"s","call_id":"1","tool":"write_file","args":{"content":"` + big + `"}}`)
	h.mustSend(`{"event":"post_tool","session_id":"s","call_id":"1","tool":"write_file","result":"` + big + `"}`)
	c := h.calls()[0]
	if !c.ArgsTruncated || len([]rune(c.Args)) != ledger.MaxArgsChars {
		t.Fatalf("args: truncated=%v len=%d", c.ArgsTruncated, len([]rune(c.Args)))
	}
	if len([]rune(c.ResultDigest)) != ledger.MaxDigestChars || c.ResultHash != ledger.ResultHash("write_file", big) {
		t.Fatalf("digest len %d; the hash must cover the full result", len([]rune(c.ResultDigest)))
	}
}

func TestFailOpen(t *testing.T) {
	const secret = "sk-live-SECRETVALUE1234567890"
	payload := claude("PreToolUse", "s1", "Bash", "t1", `"tool_input":{"command":"curl -H 'Authorization: Bearer `+secret+`' x"}`)

	t.Run("bad JSON", func(t *testing.T) {
		h := newHarness(t, ClaudeCode)
		out, failed := h.send(`{"session_id":"s1","tool_input":{"command":"` + secret)
		if out != "" || failed != 1 {
			t.Fatalf("out=%q failed=%d", out, failed)
		}
		log := h.sideLog()
		if !strings.Contains(log, "not valid JSON") || strings.Contains(log, secret) {
			t.Fatalf("side log: %q", log)
		}
		if _, err := os.Stat(h.db); err == nil {
			t.Fatal("a bad payload must not create the ledger")
		}
		st, err := os.Stat(filepath.Join(filepath.Dir(h.db), ErrorLog))
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("side log mode: %v %v", st, err)
		}
	})

	t.Run("foreign database", func(t *testing.T) {
		h := newHarness(t, ClaudeCode)
		os.MkdirAll(filepath.Dir(h.db), 0o700)
		db, err := sql.Open("sqlite3", h.db)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`CREATE TABLE notes(x TEXT); INSERT INTO notes VALUES ('keep me')`); err != nil {
			t.Fatal(err)
		}
		db.Close()
		before := fileHash(t, h.db)
		out, failed := h.send(payload)
		if out != "" || failed != 1 {
			t.Fatalf("out=%q failed=%d", out, failed)
		}
		if fileHash(t, h.db) != before {
			t.Fatal("capture changed a foreign database")
		}
		log := h.sideLog()
		if !strings.Contains(log, "not a ledger-audit ledger") || strings.Contains(log, secret) || strings.Contains(log, "curl") {
			t.Fatalf("side log: %q", log)
		}
	})

	t.Run("locked past the busy timeout", func(t *testing.T) {
		h := newHarness(t, ClaudeCode)
		h.mustSend(claude("SessionStart", "s1", "", "", ""))
		db, err := sql.Open("sqlite3", "file:"+h.db+"?_txlock=immediate")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		tx, err := db.Begin() // holds the write lock
		if err != nil {
			t.Fatal(err)
		}
		out, failed := h.send(payload)
		tx.Rollback()
		if out != "" || failed != 1 {
			t.Fatalf("out=%q failed=%d", out, failed)
		}
		if log := h.sideLog(); !strings.Contains(log, "locked") || strings.Contains(log, secret) {
			t.Fatalf("side log: %q", log)
		}
		if n := h.count("1=1"); n != 1 {
			t.Fatalf("rows after a dropped event: %d (existing rows must stay)", n)
		}
	})

	t.Run("unwritable location", func(t *testing.T) {
		dir := t.TempDir()
		blocker := filepath.Join(dir, "file")
		os.WriteFile(blocker, []byte("x"), 0o600)
		var out bytes.Buffer
		failed := Run(Config{Options: Options{Client: ClaudeCode}, DB: filepath.Join(blocker, "ledger.db")}, strings.NewReader(payload), &out)
		if out.Len() != 0 || failed != 1 {
			t.Fatalf("out=%q failed=%d", out.String(), failed)
		}
	})

	t.Run("missing session or tool", func(t *testing.T) {
		h := newHarness(t, Generic)
		for _, p := range []string{`{"event":"pre_tool","tool":"terminal"}`, `{"event":"pre_tool","session_id":"s"}`, `{"event":"nope","session_id":"s"}`, `[]`, ``} {
			if out, failed := h.send(p); out != "" || failed != 1 {
				t.Fatalf("%s: out=%q failed=%d", p, out, failed)
			}
		}
		if n := strings.Count(h.sideLog(), "\n"); n != 5 {
			t.Fatalf("side log lines: %d\n%s", n, h.sideLog())
		}
	})
}

func TestStreamMode(t *testing.T) {
	h := newHarness(t, Generic)
	var in strings.Builder
	for i := 0; i < 50; i++ {
		in.WriteString(`{"event":"pre_tool","session_id":"s","call_id":"c` + itoa(i) + `","tool":"terminal","args":{"i":` + itoa(i) + `}}` + "\n")
		in.WriteString(`{"event":"post_tool","session_id":"s","call_id":"c` + itoa(i) + `","tool":"terminal","result":"ok"}` + "\n")
	}
	in.WriteString("not json\n\n")
	var out bytes.Buffer
	failed := Run(Config{Options: Options{Client: Generic}, DB: h.db, Stream: true}, strings.NewReader(in.String()), &out)
	if failed != 1 {
		t.Fatalf("failed=%d, want 1 (the bad line only)", failed)
	}
	calls := h.calls()
	if len(calls) != 50 {
		t.Fatalf("calls: %d", len(calls))
	}
	for i, c := range calls {
		if c.Status != ledger.StatusConfirmed || c.CallID != "c"+itoa(i) {
			t.Fatalf("call %d: %+v", i, c)
		}
	}
}

func TestDefaultPath(t *testing.T) {
	env := map[string]string{"HOME": "/home/u"}
	get := func(k string) string { return env[k] }
	cases := []struct {
		c    Client
		want string
	}{
		{ClaudeCode, "/home/u/.claude/ledger-audit/ledger.db"},
		{Generic, "/home/u/.claude/ledger-audit/ledger.db"},
		{Hermes, "/home/u/.hermes/plugin-data/agent-ledger/ledger.db"},
	}
	for _, c := range cases {
		if got, _ := DefaultPath(c.c, get); got != c.want {
			t.Errorf("%s: %s, want %s", c.c, got, c.want)
		}
	}
	env["HERMES_HOME"] = "/srv/hermes"
	if got, _ := DefaultPath(Hermes, get); got != "/srv/hermes/plugin-data/agent-ledger/ledger.db" {
		t.Errorf("HERMES_HOME: %s", got)
	}
	env["LEDGER_AUDIT_DB"] = "/x/l.db"
	for _, c := range Clients {
		if got, _ := DefaultPath(c, get); got != "/x/l.db" {
			t.Errorf("LEDGER_AUDIT_DB for %s: %s", c, got)
		}
	}
}

func TestContextTextBounded(t *testing.T) {
	var ghosts []ledger.Call
	for i := 0; i < 14; i++ {
		ghosts = append(ghosts, ledger.Call{Tool: "patch", TS: t0, Args: `{"path":"` + strings.Repeat("a", 400) + `"}`})
	}
	txt := ContextText(ghosts, t0.Add(90*time.Minute))
	if !strings.HasPrefix(txt, "[ledger-audit] 14 tool calls") || !strings.Contains(txt, "- ... and 4 more") || !strings.Contains(txt, "no result after 1h30m") {
		t.Fatalf("context:\n%s", txt)
	}
	if strings.Count(txt, "\n- patch") != 10 || len(txt) > 3000 {
		t.Fatalf("context not bounded (%d bytes):\n%s", len(txt), txt)
	}
	if ContextText(nil, t0) != "" {
		t.Fatal("no ghosts must mean no context")
	}
}

func fileHash(t *testing.T, p string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func itoa(i int) string { return strconv.Itoa(i) }
