package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledger-audit/ledger-audit/ledger"
)

func selftestCLI(t *testing.T, envv map[string]string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runEnv(&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return envv[k] }},
		append([]string{"selftest"}, args...))
	return out.String(), errb.String(), code
}

func TestSelftestPassesWithoutPlugin(t *testing.T) {
	home := t.TempDir()
	out, errOut, code := selftestCLI(t, map[string]string{"HOME": home})
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"PASS  pairing by call id", "PASS  fallback confirmation by tool name", "PASS  ghost detection",
		"PASS  context injection", "PASS  only state-changing tools recorded", "PASS  fail open on bad input",
		"PASS  enforce mode refuses a destructive call",
		"SKIP  installed Hermes plugin matches the schema: no plugin installed at " + filepath.Join(home, ".hermes", "plugins", "ledger-audit"),
		"SKIP  installed Hermes plugin writes a readable ledger: no plugin installed",
		"SKIP  policy configuration next to the ledgers",
		"selftest: 7 passed, 0 failed, 3 skipped",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestSelftestChecksInstalledPlugin(t *testing.T) {
	hh := t.TempDir()
	dir := filepath.Join(hh, "plugins", "ledger-audit")
	os.MkdirAll(dir, 0o700)
	for _, f := range []string{"plugin.yaml", "__init__.py"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "integrations", "hermes", f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), b, 0o600)
	}
	os.WriteFile(filepath.Join(dir, "schema.sql"), []byte(ledger.SchemaSQL()), 0o600)
	out, _, code := selftestCLI(t, map[string]string{"HOME": t.TempDir(), "HERMES_HOME": hh})
	ran := "PASS  installed Hermes plugin writes a readable ledger"
	if _, err := exec.LookPath("python3"); err != nil {
		ran = "SKIP  installed Hermes plugin writes a readable ledger: python3 not found"
	}
	if code != 0 || !strings.Contains(out, "PASS  installed Hermes plugin matches the schema") || !strings.Contains(out, ran) {
		t.Fatalf("exit %d\n%s", code, out)
	}
	// An outdated copy of the schema is a failure: exit 1.
	os.WriteFile(filepath.Join(dir, "schema.sql"), []byte(ledger.SchemaSQL()+"-- old\n"), 0o600)
	out, errOut, code := selftestCLI(t, map[string]string{"HOME": t.TempDir()}, "--hermes-home", hh)
	if code != 1 || !strings.Contains(out, "FAIL  installed Hermes plugin matches the schema: "+filepath.Join(dir, "schema.sql")+" differs") ||
		!strings.Contains(errOut, "1 check(s) failed") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
}

func TestSelftestReportsBrokenPolicyMode(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".claude", "ledger-audit")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "policy_mode"), []byte("enforce-everything"), 0o600)
	out, _, code := selftestCLI(t, map[string]string{"HOME": home})
	if code != 1 || !strings.Contains(out, "FAIL  policy configuration next to the ledgers: "+filepath.Join(dir, "policy_mode")+": unknown policy mode") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	os.WriteFile(filepath.Join(dir, "policy_mode"), []byte("dry_run"), 0o600)
	out, _, code = selftestCLI(t, map[string]string{"HOME": home})
	if code != 0 || !strings.Contains(out, "PASS  policy configuration next to the ledgers") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

func TestSelftestUsage(t *testing.T) {
	if _, errOut, code := selftestCLI(t, nil, "extra"); code != 2 || !strings.Contains(errOut, "takes no arguments") {
		t.Fatalf("exit %d %q", code, errOut)
	}
}
