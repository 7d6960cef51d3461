package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
)

func captureCLI(t *testing.T, envv map[string]string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runEnv(&env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(k string) string { return envv[k] }},
		append([]string{"capture"}, args...))
	return out.String(), errb.String(), code
}

func captureCalls(t *testing.T, db string) []*ledger.Call {
	t.Helper()
	r, err := ledger.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []*ledger.Call
	if err := r.Scan(ledger.Filter{}, func(rec ledger.Record) error {
		if rec.Call != nil {
			out = append(out, rec.Call)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCaptureCLIRecordsAndInjectsContext(t *testing.T) {
	db := filepath.Join(t.TempDir(), "l.db")
	pre := `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Write","tool_use_id":"w1","tool_input":{"file_path":"/x"}}`
	if out, errOut, code := captureCLI(t, nil, pre, "--client", "claude-code", "--db", db, "--now", "2026-11-30T20:39:07Z"); code != 0 || out != "" || errOut != "" {
		t.Fatalf("exit %d, out %q, err %q", code, out, errOut)
	}
	prompt := `{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"next"}`
	out, _, code := captureCLI(t, nil, prompt, "--client", "claude-code", "--db", db, "--now", "2026-11-30T20:45:00Z")
	var v struct {
		H struct{ AdditionalContext string } `json:"hookSpecificOutput"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || !strings.Contains(v.H.AdditionalContext, "Write at 2026-11-30T20:39:07Z (call w1), no result after 5m") {
		t.Fatalf("exit %d, out %q", code, out)
	}
	if c := captureCalls(t, db); len(c) != 1 || c[0].GhostReportedAt.IsZero() {
		t.Fatalf("calls: %+v", c)
	}
}

func TestCaptureCLIDefaultPathFromEnvironment(t *testing.T) {
	home := t.TempDir()
	pre := `{"hook":"pre_tool_call","tool_name":"terminal","args":{"command":"ls"},"session_id":"h","tool_call_id":"c"}`
	if _, _, code := captureCLI(t, map[string]string{"HOME": home}, pre, "--client", "hermes"); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if c := captureCalls(t, filepath.Join(home, ".hermes", "plugin-data", "agent-ledger", "ledger.db")); len(c) != 1 {
		t.Fatalf("hermes default path: %+v", c)
	}
	other := filepath.Join(home, "custom.db")
	if _, _, code := captureCLI(t, map[string]string{"HOME": home, "LEDGER_AUDIT_DB": other}, pre, "--client", "generic"); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if _, err := os.Stat(other); err == nil {
		t.Fatal("a hermes payload is not a generic one: nothing should be written")
	}
	gen := `{"event":"pre_tool","session_id":"g","tool":"patch","args":{}}`
	captureCLI(t, map[string]string{"HOME": home, "LEDGER_AUDIT_DB": other}, gen, "--client", "generic")
	if c := captureCalls(t, other); len(c) != 1 {
		t.Fatalf("LEDGER_AUDIT_DB: %+v", c)
	}
	captureCLI(t, map[string]string{"HOME": home}, `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"b","tool_input":{"command":"ls"}}`, "--client", "claude-code")
	if c := captureCalls(t, filepath.Join(home, ".claude", "ledger-audit", "ledger.db")); len(c) != 1 {
		t.Fatalf("claude-code default path: %+v", c)
	}
}

// A misconfigured hook must never block the agent: Claude Code reads exit
// 2 from PreToolUse as a refusal. Usage problems exit 0, say so on stderr
// and land in the side log.
func TestCaptureCLIMisconfigurationExitsZero(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "l.db")
	for _, args := range [][]string{
		{"--db", db},
		{"--client", "cursor", "--db", db},
		{"--client", "generic", "--db", db, "extra-arg"},
		{"--client", "generic", "--db", db, "--no-such-flag"},
		{"--client", "generic", "--db", db, "--now", "yesterday"},
	} {
		out, errOut, code := captureCLI(t, nil, `{"event":"pre_tool","session_id":"s","tool":"patch"}`, args...)
		if code != 0 || out != "" || !strings.Contains(errOut, "event not recorded") {
			t.Errorf("%v: exit %d, out %q, err %q", args, code, out, errOut)
		}
	}
	log, _ := os.ReadFile(filepath.Join(dir, "ledger-audit-errors.log"))
	if n := strings.Count(string(log), "\n"); n != 5 {
		t.Fatalf("side log has %d lines, want one per misconfiguration:\n%s", n, log)
	}
	if _, err := os.Stat(db); err == nil {
		t.Fatal("no event should have been recorded")
	}
	if out, _, code := captureCLI(t, nil, "", "--help"); code != 0 || !strings.Contains(out, "--client") {
		t.Fatalf("--help: exit %d, %q", code, out)
	}
}

func TestCaptureCLIBadPayloadIsSilent(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "l.db")
	out, errOut, code := captureCLI(t, nil, "{not json", "--client", "claude-code", "--db", db)
	if code != 0 || out != "" || errOut != "" {
		t.Fatalf("exit %d, out %q, err %q", code, out, errOut)
	}
	if log, _ := os.ReadFile(filepath.Join(dir, "ledger-audit-errors.log")); !strings.Contains(string(log), "not valid JSON") {
		t.Fatalf("side log: %q", log)
	}
}

// A hook whose stdin never closes must not hang the agent: the watchdog
// logs and ends the process (here: unblocks the read) at the deadline.
func TestCaptureCLIWatchdog(t *testing.T) {
	dir := t.TempDir()
	pr, pw := io.Pipe()
	oldDeadline, oldExit := captureDeadline, captureExit
	fired := make(chan struct{})
	captureDeadline = 50 * time.Millisecond
	captureExit = func() { close(fired); pw.Close() }
	defer func() { captureDeadline, captureExit = oldDeadline, oldExit }()
	var out, errb bytes.Buffer
	code := runEnv(&env{stdin: pr, stdout: &out, stderr: &errb, getenv: func(string) string { return "" }},
		[]string{"capture", "--client", "generic", "--db", filepath.Join(dir, "l.db")})
	<-fired
	if code != 0 || out.Len() != 0 {
		t.Fatalf("exit %d, out %q", code, out.String())
	}
	if log, _ := os.ReadFile(filepath.Join(dir, "ledger-audit-errors.log")); !strings.Contains(string(log), "gave up after 50ms") {
		t.Fatalf("side log: %q", log)
	}
}
