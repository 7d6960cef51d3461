package capture

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/ledger-audit/ledger-audit/rules/policy"
)

func TestVerdictPicksFirstBlock(t *testing.T) {
	hits := []policy.Hit{
		{RuleID: "W1", Action: policy.ActionWarn, Reason: "careful"},
		{RuleID: "B1", Action: policy.ActionBlock, Reason: "destroys data"},
		{RuleID: "B2", Action: policy.ActionBlock},
	}
	d := verdict(ModeEnforce, hits)
	if d.Rule != "B1" || !d.Refuse || d.recorded() != "block" || d.message() != "destroys data (ledger-audit policy rule B1)" {
		t.Fatalf("enforce: %+v", d)
	}
	d = verdict(ModeDryRun, hits)
	if d.Rule != "B1" || d.Refuse || d.recorded() != "would_block" {
		t.Fatalf("dry run: %+v", d)
	}
	d = verdict(ModeEnforce, hits[:1])
	if d.Rule != "W1" || d.Refuse || d.recorded() != "warn" {
		t.Fatalf("warn only: %+v", d)
	}
	if d := verdict(ModeEnforce, nil); d.Action != "" || d.Refuse || d.recorded() != "" {
		t.Fatalf("no hits: %+v", d)
	}
}

func TestReadMode(t *testing.T) {
	dir := t.TempDir()
	if m, err := ReadMode(dir); m != ModeOff || err != nil {
		t.Fatalf("missing file: %q %v", m, err)
	}
	for content, want := range map[string]Mode{"enforce\n": ModeEnforce, " dry_run ": ModeDryRun, "off": ModeOff, "": ModeOff} {
		os.WriteFile(filepath.Join(dir, ModeFile), []byte(content), 0o600)
		if m, err := ReadMode(dir); m != want || err != nil {
			t.Errorf("%q: %q %v", content, m, err)
		}
	}
	os.WriteFile(filepath.Join(dir, ModeFile), []byte("block everything"), 0o600)
	if m, err := ReadMode(dir); m != ModeOff || err == nil {
		t.Fatalf("garbage mode must be an error and off: %q %v", m, err)
	}
}

// engineBlocks checks that the policy engine refuses a plain `rm -rf /`:
// every enforce test below relies on it, so a broken engine fails here
// first with a message that says why.
func engineBlocks(t *testing.T) {
	t.Helper()
	e, err := policy.Default()
	if err != nil {
		t.Fatalf("policy.Default: %v", err)
	}
	hits := e.NewReplay().Observe(&ledger.Call{Tool: "Bash", SessionID: "probe", Args: `{"command":"rm -rf /"}`, TS: t0})
	for _, h := range hits {
		if h.Action == policy.ActionBlock {
			return
		}
	}
	t.Fatal("the default policy pack does not block `rm -rf /`: enforce mode would refuse nothing")
}

func setMode(t *testing.T, db string, m Mode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(db), ModeFile), []byte(string(m)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestEnforceDeniesClaudeCodeCall(t *testing.T) {
	engineBlocks(t)
	h := newHarness(t, ClaudeCode)
	setMode(t, h.db, ModeEnforce)
	out := h.mustSend(claude("PreToolUse", "s1", "Bash", "t1", `"tool_input":{"command":"rm -rf /"}`))
	var v struct {
		H struct {
			Event    string `json:"hookEventName"`
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.H.Event != "PreToolUse" || v.H.Decision != "deny" || v.H.Reason == "" {
		t.Fatalf("deny output: %q", out)
	}
	calls := h.calls()
	if len(calls) != 1 || calls[0].Status != ledger.StatusBlocked || calls[0].PolicyAction != "block" || calls[0].PolicyRule == "" ||
		calls[0].ErrorType != "policy_block" || !strings.Contains(v.H.Reason, calls[0].PolicyRule) {
		t.Fatalf("blocked call: %+v", calls)
	}
	// An everyday command runs and is recorded without a policy mark.
	if out := h.mustSend(claude("PreToolUse", "s1", "Bash", "t2", `"tool_input":{"command":"ls -la"}`)); out != "" {
		t.Fatalf("benign call refused: %s", out)
	}
	if c := h.calls()[1]; c.Status != ledger.StatusPending || c.PolicyAction != "" {
		t.Fatalf("benign call: %+v", c)
	}
	if log := h.sideLog(); log != "" {
		t.Fatalf("side log: %s", log)
	}
}

func TestEnforceCarriesSessionStateAcrossCalls(t *testing.T) {
	engineBlocks(t)
	h := newHarness(t, ClaudeCode)
	setMode(t, h.db, ModeEnforce)
	if out := h.mustSend(claude("PreToolUse", "s1", "Bash", "t1", `"tool_input":{"command":"export T=/"}`)); out != "" {
		t.Fatalf("export refused: %s", out)
	}
	h.mustSend(claude("PostToolUse", "s1", "Bash", "t1", `"tool_input":{},"tool_response":{"stdout":""}`))
	out := h.mustSend(claude("PreToolUse", "s1", "Bash", "t2", `"tool_input":{"command":"rm -rf \"$T\""}`))
	if !strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Fatalf("split bypass not refused: %q", out)
	}
	// Another session never exported T: its state is its own.
	other := h.mustSend(claude("PreToolUse", "s2", "Bash", "t3", `"tool_input":{"command":"rm -rf ./build"}`))
	if other != "" {
		t.Fatalf("benign call in another session refused: %s", other)
	}
}

func TestDryRunRecordsAndLetsCallRun(t *testing.T) {
	engineBlocks(t)
	h := newHarness(t, ClaudeCode)
	setMode(t, h.db, ModeDryRun)
	if out := h.mustSend(claude("PreToolUse", "s1", "Bash", "t1", `"tool_input":{"command":"rm -rf /"}`)); out != "" {
		t.Fatalf("dry run refused a call: %s", out)
	}
	h.mustSend(claude("PostToolUse", "s1", "Bash", "t1", `"tool_input":{},"tool_response":{"stdout":""}`))
	c := h.calls()[0]
	if c.Status != ledger.StatusConfirmed || c.PolicyAction != "would_block" || c.PolicyRule == "" {
		t.Fatalf("dry-run call: %+v", c)
	}
}

func TestBrokenPolicyFailsOpen(t *testing.T) {
	h := newHarness(t, ClaudeCode)
	setMode(t, h.db, ModeEnforce)
	bad := filepath.Join(filepath.Dir(h.db), PolicyFile)
	if err := os.WriteFile(bad, []byte("rules: [ {id: X, action: explode\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, failed := h.send(claude("PreToolUse", "s1", "Bash", "t1", `"tool_input":{"command":"rm -rf /"}`))
	if out != "" || failed != 0 {
		t.Fatalf("broken policy must not refuse: out=%q failed=%d", out, failed)
	}
	if c := h.calls(); len(c) != 1 || c[0].Status != ledger.StatusPending {
		t.Fatalf("the call must still be recorded: %+v", c)
	}
	if log := h.sideLog(); !strings.Contains(log, PolicyFile) || strings.Contains(log, "rm -rf") {
		t.Fatalf("side log: %q", log)
	}
}

func TestHermesPluginEnforce(t *testing.T) {
	engineBlocks(t)
	bin := ledgerAuditBinary(t)
	db := filepath.Join(t.TempDir(), "ledger.db")
	setMode(t, db, ModeEnforce)
	out := runPlugin(t, db, []string{"LEDGER_AUDIT_BIN=" + bin}, "enforce", "rm -rf /")
	var ret map[string]string
	if err := json.Unmarshal(out["pre"], &ret); err != nil || ret["action"] != "block" || ret["message"] == "" {
		t.Fatalf("pre_tool_call returned %s, want a block", out["pre"])
	}
	calls := readCalls(t, db)
	if len(calls) != 1 || calls[0].Status != ledger.StatusBlocked || calls[0].PolicyAction != "block" || calls[0].PolicyRule == "" {
		t.Fatalf("blocked call: %+v", calls)
	}
	h := &harness{t: t, db: db}
	if n := h.count("kind='blocked'"); n != 1 {
		t.Fatalf("%d blocked rows: Hermes' post_tool_call(status=blocked) must not duplicate ours", n)
	}
	verifyChain(t, db)

	// dry run: the call runs, the would-be block is recorded.
	db2 := filepath.Join(t.TempDir(), "ledger.db")
	setMode(t, db2, ModeDryRun)
	out = runPlugin(t, db2, []string{"LEDGER_AUDIT_BIN=" + bin}, "enforce", "rm -rf /")
	if string(out["pre"]) != "null" {
		t.Fatalf("dry run blocked: %s", out["pre"])
	}
	calls = readCalls(t, db2)
	if len(calls) != 1 || calls[0].Status != ledger.StatusConfirmed || calls[0].PolicyAction != "would_block" {
		t.Fatalf("dry-run call: %+v", calls)
	}
}

// The plugin must fail open, never closed, when the binary it asks is
// missing or hangs.
func TestHermesPluginEnforceFailsOpen(t *testing.T) {
	dir := t.TempDir()
	slow := filepath.Join(dir, "slow-ledger-audit")
	if err := os.WriteFile(slow, []byte("#!/bin/sh\nexec sleep 30\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, bin, logged string }{
		{"missing", filepath.Join(dir, "nope"), "FileNotFoundError"},
		{"slow", slow, "TimeoutExpired"}, // proves the 2 s timeout fired
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "ledger.db")
			setMode(t, db, ModeEnforce)
			out := runPlugin(t, db, []string{"LEDGER_AUDIT_BIN=" + tc.bin}, "enforce", "rm -rf /")
			if string(out["pre"]) != "null" {
				t.Fatalf("pre_tool_call returned %s, want None (fail open)", out["pre"])
			}
			calls := readCalls(t, db)
			if len(calls) != 1 || calls[0].Status != ledger.StatusConfirmed || calls[0].PolicyAction != "" {
				t.Fatalf("the call must run and be recorded: %+v", calls)
			}
			log, _ := os.ReadFile(filepath.Join(filepath.Dir(db), ErrorLog))
			if !strings.Contains(string(log), "hook=pre_tool_call: "+tc.logged) || strings.Contains(string(log), "rm -rf") {
				t.Fatalf("side log: %q", log)
			}
		})
	}
}

func TestEnforceUserPolicyFileAddsRules(t *testing.T) {
	engineBlocks(t)
	h := newHarness(t, ClaudeCode)
	setMode(t, h.db, ModeEnforce)
	pack := `name: local
version: "1"
rules:
  - id: LOCAL-NO-NPM-PUBLISH
    title: npm publish
    severity: HIGH
    category: ASI02
    action: block
    tools: [Bash, terminal]
    reason: Refused by local policy.
    match:
      - programs: [npm]
        args_any: [publish]
    examples:
      match: ["npm publish", "cd pkg && npm publish --access public", "sudo npm publish"]
      no_match: ["npm pack", "npm install", "echo npm publish"]
`
	if err := os.WriteFile(filepath.Join(filepath.Dir(h.db), PolicyFile), []byte(pack), 0o600); err != nil {
		t.Fatal(err)
	}
	// The default pack lets a publish through; the user's pack refuses it.
	out := h.mustSend(claude("PreToolUse", "s1", "Bash", "t1", `"tool_input":{"command":"cd pkg && npm publish --access public"}`))
	if !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "Refused by local policy. (ledger-audit policy rule LOCAL-NO-NPM-PUBLISH)") {
		t.Fatalf("user rule not enforced: %q", out)
	}
	// The default pack still applies alongside it.
	if out := h.mustSend(claude("PreToolUse", "s1", "Bash", "t2", `"tool_input":{"command":"rm -rf ~"}`)); !strings.Contains(out, "deny") {
		t.Fatalf("default pack dropped: %q", out)
	}
	if out := h.mustSend(claude("PreToolUse", "s1", "Bash", "t3", `"tool_input":{"command":"npm pack"}`)); out != "" {
		t.Fatalf("pack refused: %q", out)
	}
}
