package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/finding"
)

var updateAudit = flag.Bool("update-audit", false, "rewrite testdata/audit golden files")

const (
	auditWeek     = "../../samples/week-mixed.db"
	auditIncident = "../../samples/incident-90985.db"
	auditHome     = "../../samples/incident-90985-home"
	auditNow      = "2026-12-01T08:00:00Z"
)

// auditCLI runs `ledger-audit CMD ARGS...` in-process with an empty
// environment except HERMES_HOME pointing at an empty directory, so no
// real Hermes config is ever read.
func auditCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	home := t.TempDir()
	var out, errb bytes.Buffer
	getenv := func(k string) string {
		if k == "HERMES_HOME" {
			return home
		}
		return ""
	}
	code := runEnv(&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: getenv}, args)
	return out.String(), errb.String(), code
}

func auditHash(t *testing.T, p string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func auditGolden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", "audit", name)
	if *updateAudit {
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
		t.Fatalf("%v (run go test ./cmd/ledger-audit -run TestAudit -update-audit)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from golden (go test ./cmd/ledger-audit -run TestAudit -update-audit to accept):\n%s", p, got)
	}
}

// The table shows the score, the formula with its numbers, the category
// subtotals and a finding for each of the sample's three risky commands.
func TestAuditWeekMixedTable(t *testing.T) {
	before := auditHash(t, auditWeek)
	out, errOut, code := auditCLI(t, "audit", "--now", auditNow, auditWeek)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if auditHash(t, auditWeek) != before {
		t.Fatal("audit changed the sample ledger")
	}
	var res analyze.Result
	js, _, _ := auditCLI(t, "audit", "--now", auditNow, "--format", "json", auditWeek)
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		res.Score.Formula, // "100 − (2×25 + ...) = N" or its max(0, ...) form
		// The table clips long evidence to the terminal width; the JSON
		// check below sees the full excerpts.
		"ASI02-DESTRUCTIVE-DELETE", "rm -rf ~/projects/",
		"ASI05-PIPE-TO-SHELL", "curl -fsSL https://",
		"ASI02-CREDENTIAL-READ", "cat ~/.aws/credentials",
		"ASI08-GHOST-CALL", "ASI11", "community extension", "Trust model",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	excerpts := map[string]string{}
	for _, f := range res.Findings {
		excerpts[f.RuleID] = f.Evidence[0].Excerpt
	}
	for id, cmd := range map[string]string{
		"ASI02-DESTRUCTIVE-DELETE": "rm -rf ~/projects/legacy-api",
		"ASI05-PIPE-TO-SHELL":      "curl -fsSL https://install.example.com/setup.sh | sh",
		"ASI02-CREDENTIAL-READ":    "cat ~/.aws/credentials",
	} {
		if excerpts[id] != cmd {
			t.Errorf("%s evidence %q, want %q", id, excerpts[id], cmd)
		}
	}
	if !strings.HasPrefix(res.Score.Formula, "100 − (") && !strings.HasPrefix(res.Score.Formula, "max(0, 100 − (") {
		t.Errorf("formula %q", res.Score.Formula)
	}
	if strings.Contains(out, "AKIAIOSFODNN7EXAMPLE") || strings.Contains(js, "AKIAIOSFODNN7EXAMPLE") {
		t.Error("the sample's AWS key reached the report")
	}
}

// The score is reproducible by hand from the JSON: 100 minus the listed
// weights of the unsuppressed findings, floored at 0.
func TestAuditScoreRecomputedFromJSON(t *testing.T) {
	for _, ledger := range []string{auditWeek, auditIncident} {
		js, errOut, code := auditCLI(t, "audit", "--now", auditNow, "--format", "json", ledger)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", ledger, code, errOut)
		}
		var doc struct {
			SchemaVersion int `json:"schema_version"`
			Findings      []struct {
				Weight     int    `json:"weight"`
				Severity   string `json:"severity"`
				Suppressed bool   `json:"suppressed"`
			} `json:"findings"`
			Score struct {
				Score   int `json:"score"`
				Penalty int `json:"penalty"`
			} `json:"score"`
		}
		if err := json.Unmarshal([]byte(js), &doc); err != nil {
			t.Fatal(err)
		}
		sum := 0
		for _, f := range doc.Findings {
			sev, err := finding.ParseSeverity(f.Severity)
			if err != nil || sev.Weight() != f.Weight {
				t.Errorf("finding weight %d does not match severity %s", f.Weight, f.Severity)
			}
			if !f.Suppressed {
				sum += f.Weight
			}
		}
		want := 100 - sum
		if want < 0 {
			want = 0
		}
		if doc.SchemaVersion != analyze.SchemaVersion || len(doc.Findings) == 0 || doc.Score.Penalty != sum || doc.Score.Score != want {
			t.Errorf("%s: score %d penalty %d; recomputed %d from %d findings", ledger, doc.Score.Score, doc.Score.Penalty, want, len(doc.Findings))
		}
	}
}

func TestAuditIncidentGhostCronjob(t *testing.T) {
	out, errOut, code := auditCLI(t, "audit", "--now", auditNow, "--hermes-home", auditHome, auditIncident)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"ASI08-GHOST-SCHEDULER", "HIGH", "cronjob", "2026-11-30 20:39:07"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestAuditExitCodes(t *testing.T) {
	clean := filepath.Join(t.TempDir(), "clean.db")
	if _, _, code := auditCLI(t, "sample", "incident-124072", "-o", clean); code != 0 {
		t.Fatal("sample incident-124072 could not be written")
	}
	cases := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"no gate", []string{"audit", auditWeek}, 0, ""},
		{"fail-under 0 always passes", []string{"audit", "--fail-under", "0", auditWeek}, 0, ""},
		{"fail-under 100 fails on findings", []string{"posture", "--fail-under", "100", auditWeek}, 1, "below --fail-under 100"},
		{"fail-on critical trips on the rm -rf", []string{"audit", "--fail-on", "critical", auditWeek}, 1, "at or above CRITICAL"},
		{"fail-on high trips on the ghost cronjob", []string{"posture", "--fail-on", "HIGH", auditIncident}, 1, "--fail-on"},
		{"fail-on critical passes without criticals", []string{"posture", "--fail-on", "critical", auditIncident}, 0, ""},
		{"fail-under above 100", []string{"audit", "--fail-under", "101", auditWeek}, 2, "--fail-under"},
		{"fail-under not a number", []string{"audit", "--fail-under", "ninety", auditWeek}, 2, "--fail-under"},
		{"fail-under negative", []string{"audit", "--fail-under=-1", auditWeek}, 2, "--fail-under"},
		{"fail-on unknown severity", []string{"audit", "--fail-on", "severe", auditWeek}, 2, "--fail-on"},
		{"bad format", []string{"audit", "--format", "xml2", auditWeek}, 2, "--format"},
		{"no ledger", []string{"audit"}, 2, "no ledger"},
		{"bad --grace", []string{"audit", "--grace", "terminal", auditWeek}, 2, "--grace"},
		{"agency bound below 1", []string{"audit", "--agency-targets", "0", auditWeek}, 2, "--agency"},
		{"missing --hermes-config", []string{"audit", "--hermes-config", "/nonexistent/config.yaml", auditWeek}, 2, "config.yaml"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{tc.args[0], "--now", auditNow}, tc.args[1:]...)
			_, errOut, code := auditCLI(t, args...)
			if code != tc.code || !strings.Contains(errOut, tc.err) {
				t.Fatalf("exit %d stderr %q, want %d containing %q", code, errOut, tc.code, tc.err)
			}
			if tc.code == 2 && strings.Count(strings.TrimSpace(errOut), "\n") > 1 {
				t.Errorf("error is more than one line plus usage: %q", errOut)
			}
		})
	}
}

// A bad ledger is one line naming the file, exit 2, the file untouched
// and no partial output file.
func TestAuditBadLedger(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.db")
	os.WriteFile(bad, bytes.Repeat([]byte("not sqlite "), 200), 0o600)
	before := auditHash(t, bad)
	out := filepath.Join(dir, "report.json")
	stdout, errOut, code := auditCLI(t, "audit", "--now", auditNow, "--format", "json", "-o", out, auditWeek, bad)
	if code != 2 || !strings.HasPrefix(errOut, "ledger-audit: "+bad+": ") || strings.Count(errOut, "\n") != 1 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, errOut)
	}
	if auditHash(t, bad) != before {
		t.Fatal("bad ledger modified")
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatal("partial output file left behind")
	}
	if _, errOut, code := auditCLI(t, "posture", filepath.Join(dir, "missing.db")); code != 2 || !strings.Contains(errOut, "missing.db") {
		t.Fatalf("missing ledger: exit %d %q", code, errOut)
	}
}

func TestAuditSuppressionFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "ignore.yaml")
	os.WriteFile(bad, []byte("suppressions:\n  - rule: ASI02-DESTRUCTIVE-DELETE\n    expires: 2027-01-01\n"), 0o600)
	_, errOut, code := auditCLI(t, "audit", "--now", auditNow, "--ignore", bad, auditWeek)
	if code != 2 || !strings.Contains(errOut, bad+":2: entry has no reason") {
		t.Fatalf("reason-less entry: exit %d %q", code, errOut)
	}
	os.WriteFile(bad, []byte("suppressions:\n  - rule: ASI99-TYPO\n    reason: x\n    expires: 2027-01-01\n"), 0o600)
	if _, errOut, code := auditCLI(t, "audit", "--ignore", bad, auditWeek); code != 2 || !strings.Contains(errOut, "unknown rule id \"ASI99-TYPO\"") {
		t.Fatalf("unknown rule: exit %d %q", code, errOut)
	}
	if _, errOut, code := auditCLI(t, "audit", "--ignore", filepath.Join(dir, "nope.yaml"), auditWeek); code != 2 || !strings.Contains(errOut, "nope.yaml") {
		t.Fatalf("missing --ignore file: exit %d %q", code, errOut)
	}

	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte("suppressions:\n"+
		"  - rule: ASI02-DESTRUCTIVE-DELETE\n    reason: legacy-api removal approved (OPS-112)\n    expires: 2027-01-31\n"+
		"  - rule: ASI05-PIPE-TO-SHELL\n    reason: old exception\n    expires: 2026-11-01\n"), 0o600)
	js, errOut, code := auditCLI(t, "audit", "--now", auditNow, "--format", "json", "--fail-on", "critical", "--ignore", good, auditWeek)
	if code != 1 || !strings.Contains(errOut, "expired on 2026-11-01") {
		t.Fatalf("exit %d stderr %q: the expired pipe-to-shell exception must not apply", code, errOut)
	}
	var res analyze.Result
	json.Unmarshal([]byte(js), &res)
	found := false
	for _, f := range res.Findings {
		if f.RuleID == "ASI02-DESTRUCTIVE-DELETE" {
			found = f.Suppressed && f.SuppressReason != ""
		}
		if f.RuleID == "ASI05-PIPE-TO-SHELL" && f.Suppressed {
			t.Error("expired suppression applied")
		}
	}
	if !found || res.Score.Suppressed != 1 || len(res.Suppressions) != 2 {
		t.Errorf("suppressed delete listed: %v; score.suppressed %d; notes %+v", found, res.Score.Suppressed, res.Suppressions)
	}
}

func TestAuditRulesList(t *testing.T) {
	out, errOut, code := auditCLI(t, "audit", "--rules")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d %q", code, errOut)
	}
	for _, want := range []string{
		"ASI02-DESTRUCTIVE-DELETE", "ASI05-PIPE-TO-SHELL", // pack rules
		"ASI10-SECRET-EXFIL", "ASI08-GHOST-SCHEDULER", "ASI11-EXCESSIVE-AGENCY", // posture rules
		"ASI08-LOOP-FAILURE-REPLAY", // loop rules
		"CRITICAL  25", "community extension", "WEIGHT",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--rules lacks %q", want)
		}
	}
	js, _, code := auditCLI(t, "posture", "--rules", "--format", "json")
	var rows []struct {
		ID       string `json:"id"`
		Category string `json:"category"`
		Weight   int    `json:"weight"`
	}
	if code != 0 || json.Unmarshal([]byte(js), &rows) != nil || len(rows) < 20 {
		t.Fatalf("--rules json: exit %d, %d rows", code, len(rows))
	}
	for _, r := range rows {
		if r.Weight == 0 || !strings.HasPrefix(r.ID, r.Category) {
			t.Errorf("rule %+v", r)
		}
	}
}

// posture is the score, its categories and the findings: no ghost, loop
// or policy-replay sections (the ghosts still count as ASI08 findings).
func TestPostureSections(t *testing.T) {
	out, errOut, code := auditCLI(t, "posture", "--now", auditNow, auditWeek)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d %q", code, errOut)
	}
	auditGolden(t, "posture-week-mixed.txt", out)
	js, _, _ := auditCLI(t, "posture", "--now", auditNow, "--format", "json", auditWeek)
	var doc map[string]json.RawMessage
	json.Unmarshal([]byte(js), &doc)
	if _, ok := doc["policy"]; ok {
		t.Error("posture JSON has a policy section")
	}
	if _, ok := doc["loops"]; ok {
		t.Error("posture JSON has a loops section")
	}
	if !strings.Contains(string(doc["findings"]), "ASI08-GHOST-CALL") {
		t.Error("posture lost the ghost findings")
	}
}

// -o writes the same canonical JSON as stdout, atomically, and prints
// nothing. (No JSON golden: pack messages belong to the policy packs and
// are checked there; the table golden above covers the rendering.)
func TestAuditOutputFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "audit.json")
	stdout, errOut, code := auditCLI(t, "audit", "--now", auditNow, "-o", out, auditWeek)
	if code != 0 || stdout != "" || errOut != "" {
		t.Fatalf("exit %d stdout %q stderr %q", code, stdout, errOut)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	js, _, _ := auditCLI(t, "audit", "--now", auditNow, "--format", "json", auditWeek)
	if string(b) != js || !json.Valid(b) {
		t.Error("-o audit.json differs from --format json on stdout")
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o600 {
		t.Errorf("report mode %v, want 0600", st.Mode().Perm())
	}
}

// The ASI11 bound is configurable; a tight one flags the busiest sessions,
// always labelled as the community extension.
func TestAuditAgencyBound(t *testing.T) {
	js, errOut, code := auditCLI(t, "posture", "--now", auditNow, "--format", "json", "--agency-targets", "5", auditWeek)
	if code != 0 {
		t.Fatalf("exit %d %q", code, errOut)
	}
	var res analyze.Result
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range res.Findings {
		if f.RuleID == "ASI11-EXCESSIVE-AGENCY" {
			n++
			if !strings.Contains(f.Title, "community extension") || !strings.Contains(f.Message, "bounds 8 tools, 5 targets") {
				t.Errorf("finding %q / %q", f.Title, f.Message)
			}
		}
	}
	if n == 0 {
		t.Error("no ASI11 finding with a 5-target bound")
	}
}
