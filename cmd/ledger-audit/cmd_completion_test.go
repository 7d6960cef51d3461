package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func runCLI(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runEnv(&env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}, args)
	return out.String(), errb.String(), code
}

func TestCompletionBashIsValidAndListsCommands(t *testing.T) {
	out, _, code := runCLI(t, "", "completion", "bash")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"completion", "version", "complete -o filenames -F _ledger_audit ledger-audit"} {
		if !strings.Contains(out, want) {
			t.Errorf("script lacks %q", want)
		}
	}
	if bash, err := exec.LookPath("bash"); err == nil {
		f := t.TempDir() + "/c.sh"
		os.WriteFile(f, []byte(out), 0o600)
		if msg, err := exec.Command(bash, "-n", f).CombinedOutput(); err != nil {
			t.Fatalf("bash -n rejects the script: %v %s", err, msg)
		}
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	if _, errOut, code := runCLI(t, "", "completion", "fish"); code != 2 || !strings.Contains(errOut, "unknown shell") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if _, errOut, code := runCLI(t, "", "no-such-command"); code != 2 || !strings.Contains(errOut, "unknown command") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if _, errOut, code := runCLI(t, "", "version", "--bogus"); code != 2 || !strings.Contains(errOut, "unknown flag") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if _, _, code := runCLI(t, ""); code != 2 {
		t.Fatalf("no args: exit %d", code)
	}
}
