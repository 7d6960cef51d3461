package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -update-loops rewrites the loops golden files (so does -update when
// another test file of this package defines it).
var updateLoops = flag.Bool("update-loops", false, "rewrite testdata/loops golden files")

func updatingLoops() bool {
	if *updateLoops {
		return true
	}
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

const incidentLedger = "../../samples/incident-124072.db"

// runLoops drives `ledger-audit loops` in-process with HERMES_HOME set to
// hermesHome, so no real ~/.hermes is ever read.
func runLoops(t *testing.T, hermesHome string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	getenv := func(k string) string {
		if k == "HERMES_HOME" {
			return hermesHome
		}
		return ""
	}
	code := runEnv(&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: getenv}, append([]string{"loops"}, args...))
	return out.String(), errb.String(), code
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", "loops", name)
	if updatingLoops() {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -run TestLoops -update-loops)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from golden (go test -run TestLoops -update-loops to accept):\n--- got\n%s", p, got)
	}
}

func TestLoopsIncidentFormats(t *testing.T) {
	home := t.TempDir() // no config.yaml: documented defaults
	for _, f := range []string{"table", "md", "json"} {
		out, stderr, code := runLoops(t, home, "--format", f, incidentLedger)
		if code != 0 || stderr != "" {
			t.Fatalf("%s: exit %d, stderr %q", f, code, stderr)
		}
		golden(t, "incident-124072."+f, out)
	}
	out, _, _ := runLoops(t, home, incidentLedger)
	for _, want := range []string{"2026-11-24 22:31:05–23:20:12", "│ 190 ", "31,365,131 (31,272,448 cached)", "25,896", "1869.8 s", "call 3", "call 5 (if on)", "never", "193 aux"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	var res struct {
		Loops []struct {
			Calls         int `json:"calls"`
			WarnAt        int `json:"warn_at"`
			UnfixedWarnAt int `json:"unfixed_warn_at"`
		} `json:"loops"`
		Findings []struct {
			RuleID string `json:"rule_id"`
		} `json:"findings"`
	}
	js, _, _ := runLoops(t, home, "--format", "json", incidentLedger)
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Loops) != 1 || res.Loops[0].Calls != 190 || res.Loops[0].WarnAt != 3 || res.Loops[0].UnfixedWarnAt != 0 ||
		len(res.Findings) != 1 || res.Findings[0].RuleID != "ASI02-LOOP-AMPLIFICATION" {
		t.Fatalf("json = %s", js)
	}
}

func TestLoopsHermesConfig(t *testing.T) {
	home := t.TempDir()
	cfg := "tool_loop_guardrails:\n  hard_stop_enabled: true\n  hard_stop_after:\n    idempotent_no_progress: 7\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	// Found through $HERMES_HOME ...
	out, stderr, code := runLoops(t, home, "--format", "json", incidentLedger)
	if code != 0 || !strings.Contains(out, `"hard_stop_at": 7`) || !strings.Contains(out, `"hard_stop_enabled": true`) {
		t.Fatalf("exit %d %s\n%s", code, stderr, out)
	}
	// ... or named explicitly, which beats the environment.
	other := filepath.Join(t.TempDir(), "other.yaml")
	os.WriteFile(other, []byte("tool_loop_guardrails:\n  hard_stop_after: {idempotent_no_progress: 9}\n"), 0o600)
	out, _, code = runLoops(t, home, "--hermes-config", other, "--format", "json", incidentLedger)
	if code != 0 || !strings.Contains(out, `"hard_stop_at": 9`) {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

func TestLoopsBadInput(t *testing.T) {
	home := t.TempDir()
	bad := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(bad, []byte("tool_loop_guardrails:\n  warn_after: {exact_failure: [\n"), 0o600)
	outFile := filepath.Join(t.TempDir(), "loops.txt")
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"malformed config": {[]string{"--hermes-config", bad, "-o", outFile, incidentLedger}, "ledger-audit: " + bad + ": "},
		"missing config":   {[]string{"--hermes-config", bad + ".nope", incidentLedger}, "ledger-audit: " + bad + ".nope: "},
		"missing ledger":   {[]string{"/nonexistent/ledger.db"}, "ledger-audit: /nonexistent/ledger.db: "},
		"no ledger":        {nil, "ledger-audit: no ledger given"},
		"bad format":       {[]string{"--format", "pdf", incidentLedger}, "ledger-audit: --format"},
	} {
		t.Run(name, func(t *testing.T) {
			out, stderr, code := runLoops(t, home, tc.args...)
			if code != 2 || out != "" || !strings.HasPrefix(stderr, tc.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, stderr, tc.want)
			}
			if strings.Count(strings.TrimSpace(stderr), "\n") > 1 { // the problem, plus usage for usage errors
				t.Errorf("stderr is not one line: %q", stderr)
			}
		})
	}
	if _, err := os.Stat(outFile); !os.IsNotExist(err) {
		t.Fatalf("an output file was written despite the error: %v", err)
	}
}

func TestLoopsOutputFileAndWindow(t *testing.T) {
	home := t.TempDir()
	p := filepath.Join(t.TempDir(), "loops.md")
	out, stderr, code := runLoops(t, home, "--format", "md", "-o", p, incidentLedger)
	if code != 0 || out != "" || stderr != "" {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, stderr)
	}
	b, err := os.ReadFile(p)
	if err != nil || !strings.HasPrefix(string(b), "# Loop replay") {
		t.Fatalf("%v %q", err, b)
	}
	// A window that ends before the loop's 3rd call sees no loop.
	out, _, code = runLoops(t, home, "--until", "2026-11-24T22:31:30Z", incidentLedger)
	if code != 0 || !strings.Contains(out, "No loops found.") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}
