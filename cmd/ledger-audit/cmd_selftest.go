package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ledger-audit/ledger-audit/capture"
	"github.com/ledger-audit/ledger-audit/ledger"
)

// selftest exercises the capture path end to end against a temporary
// ledger — the same code the hooks run — and checks the installed Hermes
// plugin and any policy configuration beside the real ledgers, so a user
// can tell in one command whether their setup records what it should.
func init() {
	c := &command{name: "selftest", summary: "check capture, pairing, ghost detection and the installed Hermes plugin",
		usage: "[--hermes-home DIR]"}
	c.run = func(e *env, args []string) error { return runSelftest(e, c, args) }
	register(c)
}

type selfCheck struct {
	name string
	run  func(dir string) (skip string, err error)
}

func runSelftest(e *env, c *command, args []string) error {
	fs := newFlags(e, c)
	hermesHome := fs.String("hermes-home", "", "Hermes home holding plugins/ledger-audit (default: $HERMES_HOME, else ~/.hermes)")
	if err := parseFlags(e, c, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("selftest takes no arguments")
	}
	tmp, err := os.MkdirTemp("", "ledger-audit-selftest-")
	if err != nil {
		return fmt.Errorf("selftest: cannot create a temporary directory: %v", err)
	}
	defer os.RemoveAll(tmp)

	checks := []selfCheck{
		{"pairing by call id", checkPairing},
		{"fallback confirmation by tool name", checkFallback},
		{"ghost detection (per-tool grace)", checkGhosts},
		{"context injection (session-scoped, reported once)", checkContext},
		{"only state-changing tools recorded", checkMutatingOnly},
		{"fail open on bad input", checkFailOpen},
		{"enforce mode refuses a destructive call", checkEnforce},
		{"installed Hermes plugin matches the schema", func(string) (string, error) { return checkHermesPlugin(e, *hermesHome) }},
		{"installed Hermes plugin writes a readable ledger", func(dir string) (string, error) { return checkHermesPluginRuns(e, *hermesHome, dir) }},
		{"policy configuration next to the ledgers", func(string) (string, error) { return checkPolicyConfig(e) }},
	}
	var pass, fail, skip int
	for i, ch := range checks {
		dir := filepath.Join(tmp, fmt.Sprint(i))
		why, err := ch.run(dir)
		switch {
		case err != nil:
			fail++
			fmt.Fprintf(e.stdout, "FAIL  %s: %s\n", ch.name, oneLine(err.Error()))
		case why != "":
			skip++
			fmt.Fprintf(e.stdout, "SKIP  %s: %s\n", ch.name, why)
		default:
			pass++
			fmt.Fprintf(e.stdout, "PASS  %s\n", ch.name)
		}
	}
	fmt.Fprintf(e.stdout, "selftest: %d passed, %d failed, %d skipped\n", pass, fail, skip)
	if fail > 0 {
		return gateError{fmt.Sprintf("selftest: %d check(s) failed", fail)}
	}
	return nil
}

// probe drives capture.Run on one temporary ledger with a movable clock.
type probe struct {
	db     string
	client capture.Client
	now    time.Time
	all    bool
}

var selftestT0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func newProbe(dir string, c capture.Client) *probe {
	return &probe{db: filepath.Join(dir, "ledger.db"), client: c, now: selftestT0}
}

func (p *probe) send(payload string) (string, error) {
	var out bytes.Buffer
	now := p.now
	cfg := capture.Config{Options: capture.Options{Client: p.client, AllTools: p.all, Now: func() time.Time { return now }}, DB: p.db}
	if capture.Run(cfg, strings.NewReader(payload), &out) > 0 {
		log, _ := os.ReadFile(filepath.Join(filepath.Dir(p.db), capture.ErrorLog))
		return out.String(), fmt.Errorf("capture failed: %s", strings.TrimSpace(string(log)))
	}
	return out.String(), nil
}

func (p *probe) sendAll(payloads ...string) error {
	for _, pl := range payloads {
		if _, err := p.send(pl); err != nil {
			return err
		}
	}
	return nil
}

func (p *probe) calls() ([]*ledger.Call, error) {
	r, err := ledger.Open(p.db)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []*ledger.Call
	err = r.Scan(ledger.Filter{}, func(rec ledger.Record) error {
		if rec.Call != nil {
			out = append(out, rec.Call)
		}
		return nil
	})
	return out, err
}

func cc(event, session, tool, id, extra string) string {
	m := map[string]any{"session_id": session, "cwd": "/selftest", "hook_event_name": event,
		"transcript_path": "/selftest/t.jsonl", "permission_mode": "default"}
	if tool != "" {
		m["tool_name"], m["tool_use_id"] = tool, id
	}
	if extra != "" {
		var x map[string]any
		json.Unmarshal([]byte(extra), &x)
		for k, v := range x {
			m[k] = v
		}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func checkPairing(dir string) (string, error) {
	p := newProbe(dir, capture.ClaudeCode)
	err := p.sendAll(
		cc("PreToolUse", "s", "Bash", "t1", `{"tool_input":{"command":"make"}}`),
		cc("PreToolUse", "s", "Bash", "t2", `{"tool_input":{"command":"make test"}}`),
		cc("PostToolUse", "s", "Bash", "t2", `{"tool_response":{"stdout":"ok"}}`),
	)
	if err != nil {
		return "", err
	}
	calls, err := p.calls()
	if err != nil {
		return "", err
	}
	if len(calls) != 2 || calls[0].Status != ledger.StatusPending || calls[1].Status != ledger.StatusConfirmed {
		return "", fmt.Errorf("want t1 pending and t2 confirmed, got %s", statuses(calls))
	}
	return "", nil
}

func checkFallback(dir string) (string, error) {
	p := newProbe(dir, capture.Generic)
	err := p.sendAll(
		`{"event":"pre_tool","session_id":"s","tool":"write_file","args":{"path":"a"}}`,
		`{"event":"pre_tool","session_id":"s","tool":"write_file","args":{"path":"b"}}`,
		`{"event":"pre_tool","session_id":"other","tool":"write_file","args":{"path":"c"}}`,
		`{"event":"post_tool","session_id":"s","tool":"write_file","result":"ok"}`,
	)
	if err != nil {
		return "", err
	}
	calls, err := p.calls()
	if err != nil {
		return "", err
	}
	if len(calls) != 3 || calls[0].Status != ledger.StatusConfirmed || calls[1].Status != ledger.StatusPending || calls[2].Status != ledger.StatusPending {
		return "", fmt.Errorf("want only the oldest open write_file of the session confirmed, got %s", statuses(calls))
	}
	return "", nil
}

func checkGhosts(dir string) (string, error) {
	p := newProbe(dir, capture.ClaudeCode)
	err := p.sendAll(
		cc("PreToolUse", "s", "Write", "w", `{"tool_input":{"file_path":"/x"}}`),
		cc("PreToolUse", "s", "Bash", "b", `{"tool_input":{"command":"make"}}`),
	)
	if err != nil {
		return "", err
	}
	p.now = selftestT0.Add(3 * time.Minute) // past Write's 2 min, inside Bash's 15 min
	out, err := p.send(cc("UserPromptSubmit", "s", "", "", `{"prompt":"next"}`))
	if err != nil {
		return "", err
	}
	if !strings.Contains(out, "Write at") || strings.Contains(out, "Bash at") {
		return "", fmt.Errorf("want the Write ghost only, got %q", out)
	}
	calls, err := p.calls()
	if err != nil {
		return "", err
	}
	if calls[0].GhostReportedAt.IsZero() || !calls[1].GhostReportedAt.IsZero() {
		return "", errors.New("ghost_reported row missing or recorded for a call inside its grace period")
	}
	return "", nil
}

func checkContext(dir string) (string, error) {
	p := newProbe(dir, capture.ClaudeCode)
	if err := p.sendAll(cc("PreToolUse", "s", "Edit", "e", `{"tool_input":{"file_path":"/x"}}`)); err != nil {
		return "", err
	}
	p.now = selftestT0.Add(10 * time.Minute)
	other, err := p.send(cc("UserPromptSubmit", "another", "", "", `{"prompt":"hi"}`))
	if err != nil {
		return "", err
	}
	if other != "" {
		return "", fmt.Errorf("another session was told about this session's ghost: %q", other)
	}
	out, err := p.send(cc("SessionStart", "s", "", "", `{"source":"resume"}`))
	if err != nil {
		return "", err
	}
	var v struct {
		H struct {
			Event   string `json:"hookEventName"`
			Context string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.H.Event != "SessionStart" || !strings.Contains(v.H.Context, "Edit at") {
		return "", fmt.Errorf("want hookSpecificOutput with additionalContext, got %q", out)
	}
	again, err := p.send(cc("UserPromptSubmit", "s", "", "", `{"prompt":"hi"}`))
	if err != nil {
		return "", err
	}
	if again != "" {
		return "", fmt.Errorf("ghost reported twice: %q", again)
	}
	return "", nil
}

func checkMutatingOnly(dir string) (string, error) {
	p := newProbe(dir, capture.ClaudeCode)
	err := p.sendAll(
		cc("PreToolUse", "s", "Read", "r", `{"tool_input":{"file_path":"/x"}}`),
		cc("PostToolUse", "s", "Read", "r", `{"tool_response":"text"}`),
		cc("PreToolUse", "s", "Grep", "g", `{"tool_input":{"pattern":"x"}}`),
		cc("PreToolUse", "s", "Bash", "b", `{"tool_input":{"command":"ls"}}`),
	)
	if err != nil {
		return "", err
	}
	calls, err := p.calls()
	if err != nil {
		return "", err
	}
	if len(calls) != 1 || calls[0].Tool != "Bash" {
		return "", fmt.Errorf("want only Bash recorded, got %s", statuses(calls))
	}
	p.all = true
	if err := p.sendAll(cc("PreToolUse", "s", "Read", "r2", `{"tool_input":{"file_path":"/y"}}`)); err != nil {
		return "", err
	}
	if calls, err = p.calls(); err != nil || len(calls) != 2 {
		return "", fmt.Errorf("--all-tools did not record Read (%v)", err)
	}
	return "", nil
}

func checkFailOpen(dir string) (string, error) {
	p := newProbe(dir, capture.ClaudeCode)
	out, err := p.send(`{"session_id": "s", "hook_event_name": "PreToolUse", "tool_input": {`)
	if err == nil || out != "" {
		return "", fmt.Errorf("bad JSON: want no output and a logged failure, got output %q", out)
	}
	log, rerr := os.ReadFile(filepath.Join(dir, capture.ErrorLog))
	if rerr != nil || !strings.Contains(string(log), "not valid JSON") {
		return "", errors.New("bad JSON was not written to the side log")
	}
	return "", nil
}

func checkEnforce(dir string) (string, error) {
	p := newProbe(dir, capture.ClaudeCode)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, capture.ModeFile), []byte("enforce\n"), 0o600); err != nil {
		return "", err
	}
	out, err := p.send(cc("PreToolUse", "s", "Bash", "x", `{"tool_input":{"command":"sh -c 'rm -rf /'"}}`))
	if err != nil {
		return "", err
	}
	if !strings.Contains(out, `"permissionDecision":"deny"`) {
		return "", fmt.Errorf("want a permissionDecision deny, got %q", out)
	}
	if out, err = p.send(cc("PreToolUse", "s", "Bash", "y", `{"tool_input":{"command":"rm -rf ./build"}}`)); err != nil || out != "" {
		return "", fmt.Errorf("an everyday command was refused: %q %v", out, err)
	}
	calls, err := p.calls()
	if err != nil {
		return "", err
	}
	if len(calls) != 2 || calls[0].Status != ledger.StatusBlocked || calls[0].PolicyRule == "" {
		return "", fmt.Errorf("want the refused call recorded as blocked with its rule, got %s", statuses(calls))
	}
	return "", nil
}

// pluginDir finds the installed Hermes plugin, or says why there is none.
func pluginDir(e *env, home string) (string, string) {
	if home == "" {
		home = e.getenv("HERMES_HOME")
	}
	if home == "" {
		h := e.getenv("HOME")
		if h == "" {
			return "", "no home directory to look in"
		}
		home = filepath.Join(h, ".hermes")
	}
	dir := filepath.Join(home, "plugins", "ledger-audit")
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return "", "no plugin installed at " + dir
	}
	return dir, ""
}

// pluginSmoke loads the plugin the way Hermes does and runs one tool call
// through its hooks; the ledger path comes from LEDGER_AUDIT_DB.
const pluginSmoke = `import importlib.util, json, os, sys
d = sys.argv[1]
spec = importlib.util.spec_from_file_location("ledger_audit_plugin", os.path.join(d, "__init__.py"), submodule_search_locations=[d])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
hooks = {}
class Ctx:
    def register_hook(self, name, fn):
        hooks[name] = fn
m.register(Ctx())
hooks["on_session_start"](session_id="selftest", model="m", platform="cli", extra_kwarg=1)
hooks["pre_tool_call"](tool_name="write_file", args={"path": "/selftest"}, task_id="t", session_id="selftest", tool_call_id="c1", turn_id="1")
hooks["post_tool_call"](tool_name="write_file", args={}, result='{"ok": true}', task_id="t", session_id="selftest", tool_call_id="c1", turn_id="1", duration_ms=1, status="ok")
print(json.dumps(sorted(hooks)))
`

// checkHermesPluginRuns runs the installed plugin under python3 against a
// temporary ledger and reads the result back with this binary.
func checkHermesPluginRuns(e *env, home, dir string) (string, error) {
	pd, why := pluginDir(e, home)
	if pd == "" {
		return why, nil
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		return "python3 not found", nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	db := filepath.Join(dir, "ledger.db")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "-c", pluginSmoke, pd)
	cmd.Env = append(os.Environ(), "LEDGER_AUDIT_DB="+db, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("python3 could not load the plugin: %v: %s", err, oneLine(string(out)))
	}
	// The four hooks recording depends on must be there; optional ones
	// (post_llm_call on Hermes versions that have it) may be added.
	var registered []string
	if err := json.Unmarshal(out, &registered); err != nil {
		return "", fmt.Errorf("the plugin smoke run printed %q", strings.TrimSpace(string(out)))
	}
	for _, h := range []string{"on_session_start", "post_tool_call", "pre_llm_call", "pre_tool_call"} {
		if !slices.Contains(registered, h) {
			return "", fmt.Errorf("the plugin does not register %s (it registered %v)", h, registered)
		}
	}
	calls, err := (&probe{db: db}).calls()
	if err != nil {
		return "", err
	}
	if len(calls) != 1 || calls[0].Status != ledger.StatusConfirmed || calls[0].Source != "hermes" {
		if log, _ := os.ReadFile(filepath.Join(dir, capture.ErrorLog)); len(log) > 0 {
			return "", fmt.Errorf("the plugin recorded %s; its side log says: %s", statuses(calls), oneLine(string(log)))
		}
		return "", fmt.Errorf("the plugin recorded %s, want one confirmed write_file", statuses(calls))
	}
	v, err := ledger.Verify(db, nil)
	if err != nil {
		return "", err
	}
	if !v.OK() {
		return "", fmt.Errorf("the plugin's hash chain does not verify: %s", v.Break)
	}
	return "", nil
}

// checkHermesPlugin compares an installed plugin's schema copy with ours:
// a plugin from another release would write rows this binary misreads.
func checkHermesPlugin(e *env, home string) (string, error) {
	dir, why := pluginDir(e, home)
	if dir == "" {
		return why, nil
	}
	for _, f := range []string{"plugin.yaml", "__init__.py"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return "", fmt.Errorf("%s: missing (copy integrations/hermes/ there)", filepath.Join(dir, f))
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "schema.sql"))
	if err != nil {
		return "", fmt.Errorf("%s: %v", filepath.Join(dir, "schema.sql"), unwrapPathErr(err))
	}
	if string(b) != ledger.SchemaSQL() {
		return "", fmt.Errorf("%s differs from this binary's ledger schema (version %d): reinstall the plugin from integrations/hermes/", filepath.Join(dir, "schema.sql"), ledger.SchemaVersion)
	}
	return "", nil
}

// checkPolicyConfig validates policy_mode / policy.yaml beside the real
// ledgers: capture ignores a broken one (fail open), so this is where the
// user finds out.
func checkPolicyConfig(e *env) (string, error) {
	seen := map[string]bool{}
	var found []string
	for _, c := range capture.Clients {
		p, err := capture.DefaultPath(c, e.getenv)
		if err != nil {
			continue
		}
		dir := filepath.Dir(p)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		mode, err := capture.ReadMode(dir)
		if err != nil {
			return "", err
		}
		if mode == capture.ModeOff {
			continue
		}
		if _, err := capture.LoadEngine(dir); err != nil {
			return "", fmt.Errorf("%s mode is set but the policy does not load: %v", mode, err)
		}
		found = append(found, dir+" ("+string(mode)+")")
	}
	if len(found) == 0 {
		return "no policy_mode file next to the default ledgers", nil
	}
	return "", nil
}

func statuses(calls []*ledger.Call) string {
	var parts []string
	for _, c := range calls {
		parts = append(parts, c.Tool+"/"+c.SessionID+"="+string(c.Status))
	}
	return "[" + strings.Join(parts, " ") + "]"
}
