package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// reportFixtureJSON is the report package's hand-built result, canonical JSON.
const reportFixtureJSON = "../../report/testdata/fixture.json"

func reportRun(t *testing.T, getenv map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return getenv[k] }}
	code := runEnv(e, args)
	return code, out.String(), errb.String()
}

func TestReportRerendersFromJSON(t *testing.T) {
	want, err := os.ReadFile("../../report/testdata/fixture.md")
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr := reportRun(t, nil, "report", "--from", reportFixtureJSON, "--format", "md")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if out != string(want) {
		t.Error("report --format md differs from the golden Markdown of the same result")
	}
	// JSON → JSON is the identity.
	code, out, _ = reportRun(t, nil, "report", "--from", reportFixtureJSON, "--format", "json")
	orig, _ := os.ReadFile(reportFixtureJSON)
	if code != 0 || out != string(orig) {
		t.Error("report --format json does not reproduce its input")
	}

	dir := t.TempDir()
	for _, name := range []string{"r.pdf", "r.sarif", "r.xml", "r.md"} {
		p := filepath.Join(dir, name)
		if code, _, stderr := reportRun(t, nil, "report", "--from", reportFixtureJSON, "-o", p); code != 0 {
			t.Fatalf("-o %s: exit %d: %s", name, code, stderr)
		}
		data, _ := os.ReadFile(p)
		head := map[string]string{"r.pdf": "%PDF-", "r.sarif": "{\n  \"$schema\"", "r.xml": "<?xml", "r.md": "# ledger-audit report"}[name]
		if !bytes.HasPrefix(data, []byte(head)) {
			t.Errorf("%s: format not taken from the extension: %q", name, data[:min(20, len(data))])
		}
	}
}

func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	v2 := filepath.Join(dir, "v2.json")
	if err := os.WriteFile(v2, []byte(`{"schema_version": 2, "findings": []}`), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.md")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--from", v2, "-o", out}, v2 + ": result schema_version 2, this build reads 1"},
		{[]string{"report", "--from", filepath.Join(dir, "nope.json")}, "nope.json: no such file or directory"},
		{[]string{"report"}, "--from is required"},
		{[]string{"report", "--from", reportFixtureJSON, "--format", "html"}, `unknown format "html"`},
		{[]string{"report", "--from", reportFixtureJSON, "-o", filepath.Join(dir, "missing", "r.md")}, "cannot write output"},
		{[]string{"report", "--from", reportFixtureJSON, "--color", "sometimes"}, "--color"},
	} {
		code, stdout, stderr := reportRun(t, nil, c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2", c.args, code)
		}
		first := strings.SplitN(stderr, "\n", 2)[0]
		if !strings.Contains(first, c.want) {
			t.Errorf("%v: stderr %q, want %q on the first line", c.args, stderr, c.want)
		}
		if stdout != "" {
			t.Errorf("%v: wrote %q to stdout on error", c.args, stdout)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("partial output left behind: %v", entries)
	}
}
