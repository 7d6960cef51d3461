package capture

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
)

const pluginDir = "../integrations/hermes"

// runPlugin runs the real plugin under python3 through the driver and
// decodes what the hooks returned.
func runPlugin(t *testing.T, db string, extraEnv []string, args ...string) map[string]json.RawMessage {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed: the Hermes plugin cannot be exercised")
	}
	cmd := exec.Command(py, append([]string{"testdata/hermes_driver.py", pluginDir}, args...)...)
	cmd.Env = append(os.Environ(), "LEDGER_AUDIT_DB="+db, "PYTHONDONTWRITEBYTECODE=1")
	cmd.Env = append(cmd.Env, extraEnv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("driver: %v\n%s", err, stderr.String())
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("driver output %q: %v", stdout.String(), err)
	}
	return out
}

func contextOf(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v *struct {
		Context string `json:"context"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	if v == nil {
		return ""
	}
	return v.Context
}

func readCalls(t *testing.T, db string) []*ledger.Call {
	t.Helper()
	h := &harness{t: t, db: db}
	return h.calls()
}

func TestHermesPluginWritesOurSchema(t *testing.T) {
	db := filepath.Join(t.TempDir(), "hermes", "plugin-data", "agent-ledger", "ledger.db")
	out := runPlugin(t, db, nil, "main")

	for _, k := range []string{"first_context", "early_context", "again_context", "other_session_context"} {
		if c := contextOf(t, out[k]); c != "" {
			t.Errorf("%s: unexpected context %q", k, c)
		}
	}
	ctx := contextOf(t, out["ghost_context"])
	var t0s string
	json.Unmarshal(out["t0"], &t0s)
	if !strings.HasPrefix(ctx, "[ledger-audit] 1 tool call in this session was issued but never confirmed") ||
		!strings.Contains(ctx, "- cronjob at "+t0s[:19]+"Z (call c9), no result after 3m") {
		t.Fatalf("ghost context: %q", ctx)
	}
	if strings.Contains(ctx, "sk-abcdefghijklmnopqrstuvwx") {
		t.Fatalf("context leaks the api key: %q", ctx)
	}

	calls := readCalls(t, db)
	type want struct {
		tool   string
		status ledger.Status
		etype  string
	}
	wants := []want{
		{"terminal", ledger.StatusConfirmed, ""},
		{"write_file", ledger.StatusConfirmed, ""},
		{"execute_code", ledger.StatusError, "tool_error"},
		{"execute_code", ledger.StatusConfirmed, ""},
		{"execute_code", ledger.StatusConfirmed, ""},
		{"terminal", ledger.StatusBlocked, "plugin_block"},
		{"patch", ledger.StatusConfirmed, ""},
		{"cronjob", ledger.StatusConfirmed, ""},
	}
	if len(calls) != len(wants) {
		for _, c := range calls {
			t.Logf("%+v", c)
		}
		t.Fatalf("got %d calls, want %d (read_file must not be recorded)", len(calls), len(wants))
	}
	for i, w := range wants {
		c := calls[i]
		if c.Tool != w.tool || c.Status != w.status || c.ErrorType != w.etype || c.Source != "hermes" || c.SessionID != "s1" {
			t.Errorf("call %d: %s %s %q, want %s %s %q", i, c.Tool, c.Status, c.ErrorType, w.tool, w.status, w.etype)
		}
	}
	if calls[0].Args != `{"command":"ls -la","timeout":30}` || calls[0].CallID != "c1" || *calls[0].DurationMS != 7 {
		t.Errorf("terminal call: %+v", calls[0])
	}
	if calls[1].CallID != "" || calls[1].Args != `{"content":"héllo 😀","path":"/tmp/x"}` {
		t.Errorf("fallback-paired write_file: %+v", calls[1])
	}
	// The Python result hash is the Go one, volatile fields stripped.
	r1 := `{"output":"","duration_seconds":0.41,"kernel":{"execution_count":7,"id":"k"}}`
	if calls[3].ResultHash != ledger.ResultHash("execute_code", r1) || calls[3].ResultHash != calls[4].ResultHash {
		t.Errorf("execute_code hashes: %s %s, Go: %s", calls[3].ResultHash, calls[4].ResultHash, ledger.ResultHash("execute_code", r1))
	}
	if calls[0].ResultHash != ledger.ResultHash("terminal", `{"output":"a\nb","exit_code":0}`) {
		t.Errorf("terminal result hash differs from Go's")
	}
	if !calls[6].ArgsTruncated || len([]rune(calls[6].Args)) != ledger.MaxArgsChars {
		t.Errorf("patch args: truncated=%v len=%d", calls[6].ArgsTruncated, len([]rune(calls[6].Args)))
	}
	// The ghost was reported, then revived by its late confirmation.
	if calls[7].GhostReportedAt.IsZero() || calls[7].OutcomeTS.Sub(calls[7].GhostReportedAt) != time.Minute {
		t.Errorf("revived ghost: %+v", calls[7])
	}
	if n := verifyChain(t, db); n != 19 {
		t.Errorf("chain verified %d rows, want 19", n)
	}
	checkHermesEvents(t, db)
	st, err := os.Stat(db)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("ledger mode: %v %v", st, err)
	}
	if b, err := os.ReadFile(filepath.Join(filepath.Dir(db), ErrorLog)); err == nil {
		t.Fatalf("side log written: %s", b)
	}
}

// One schema, two writers: Go capture and the Python plugin append to the
// same file in turns and extend one hash chain.
func TestHermesPluginAndGoShareOneChain(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ledger.db")
	h := &harness{t: t, db: db, client: Hermes, now: t0}
	h.mustSend(`{"hook":"pre_tool_call","tool_name":"terminal","args":{"command":"make"},"session_id":"go","tool_call_id":"g1"}`)
	runPlugin(t, db, nil, "main")
	h.now = time.Now()
	h.mustSend(`{"hook":"post_tool_call","tool_name":"terminal","result":"{}","session_id":"go","tool_call_id":"g1","status":"ok"}`)
	if n := verifyChain(t, db); n != 21 {
		t.Fatalf("chain verified %d rows, want 21", n)
	}
	calls := h.calls()
	if calls[0].Source != "hermes" || calls[0].Status != ledger.StatusConfirmed || calls[0].SessionID != "go" {
		t.Fatalf("Go-written call: %+v", calls[0])
	}
}

func TestHermesPluginMutatingMatchesGo(t *testing.T) {
	names := []string{"write_file", "patch", "terminal", "execute_code", "delegate_task", "Write", "Edit",
		"MultiEdit", "NotebookEdit", "Bash", "Task", "cronjob", "cronjob_manage", "mcp__github__create_issue",
		"kanban_create", "kanban_move", "kanban_list", "kanban_get", "kanban_show", "kanban_search", "kanban_read",
		"kanban_view", "read_file", "search_files", "web_search", "todo_list", "memory", "session_search", "Read",
		"Grep", "Glob", "WebFetch", "process_manage", "", "mcp_", "TERMINAL"}
	out := runPlugin(t, filepath.Join(t.TempDir(), "l.db"), nil, append([]string{"mutating"}, names...)...)
	var got map[string]bool
	if err := json.Unmarshal(out["mutating"], &got); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if got[n] != ledger.Mutating(n) {
			t.Errorf("%q: plugin says %v, ledger.Mutating says %v", n, got[n], ledger.Mutating(n))
		}
	}
}

func TestHermesSchemaCopyIsIdentical(t *testing.T) {
	ours, err := os.ReadFile(filepath.Join(pluginDir, "schema.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ours, []byte(ledger.SchemaSQL())) {
		t.Fatal("integrations/hermes/schema.sql differs from ledger/schema.sql: copy it over (cp ledger/schema.sql integrations/hermes/)")
	}
}

func TestHermesPluginFailsOpen(t *testing.T) {
	cases := map[string]func(path string){
		"not SQLite": func(p string) {
			os.WriteFile(p, []byte("this is not sqlite, it is a diary: secret plans"), 0o600)
		},
		"foreign SQLite": func(p string) {
			db, err := sql.Open("sqlite3", p)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(`CREATE TABLE notes(x TEXT); INSERT INTO notes VALUES ('keep')`); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "ledger.db")
			mk(db)
			before := fileHash(t, db)
			out := runPlugin(t, db, nil, "broken")
			for k, v := range out {
				if k != "t0" && string(v) != "null" {
					t.Errorf("%s returned %s, want None", k, v)
				}
			}
			log, err := os.ReadFile(filepath.Join(dir, ErrorLog))
			if err != nil {
				t.Fatal("no side log")
			}
			if !strings.Contains(string(log), "plugin hook=pre_tool_call") || strings.Contains(string(log), `"command"`) {
				t.Fatalf("side log: %s", log)
			}
			if fileHash(t, db) != before {
				t.Fatal("the plugin changed a file that is not a ledger")
			}
		})
	}
}

// checkHermesEvents reads the non-call rows the plugin writes: the session
// start with model and platform (the loop replay needs the platform) and
// one model call with its token usage.
func checkHermesEvents(t *testing.T, db string) {
	t.Helper()
	r, err := ledger.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var start, llm *ledger.Event
	err = r.Scan(ledger.Filter{}, func(rec ledger.Record) error {
		if e := rec.Event; e != nil {
			switch e.Kind {
			case ledger.KindSessionStart:
				start = e
			case ledger.KindLLMCall:
				llm = e
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if start == nil || start.ArgsJSON != `{"model":"m","platform":"cli"}` {
		t.Errorf("session_start: %+v", start)
	}
	if llm == nil || llm.TokensIn == nil || *llm.TokensIn != 1200 || *llm.TokensOut != 80 ||
		*llm.TokensCacheRead != 1000 || *llm.DurationMS != 950 || llm.ArgsJSON != `{"model":"m"}` {
		t.Errorf("llm_call: %+v", llm)
	}
}
