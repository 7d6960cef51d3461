package analyze_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/finding"
	"github.com/ledger-audit/ledger-audit/rules/owasp"
)

func known(t *testing.T) func(string) bool {
	t.Helper()
	k, err := analyze.KnownRule()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSuppressionFileErrors(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"unknown rule", "suppressions:\n  - rule: ASI02-NOPE\n    reason: r\n    expires: 2027-01-01\n", ".yaml:2: unknown rule id \"ASI02-NOPE\""},
		{"missing reason", "suppressions:\n  - rule: ASI08-STALE-CALL\n    expires: 2027-01-01\n", ":2: entry has no reason"},
		{"blank reason", "suppressions:\n  - rule: ASI08-STALE-CALL\n    reason: \"  \"\n    expires: 2027-01-01\n", ":2: entry has no reason"},
		{"missing expiry", "suppressions:\n  - fingerprint: 0123456789abcdef\n    reason: ok\n", ":2: entry has no expires"},
		{"bad date", "suppressions:\n  - rule: ASI08-STALE-CALL\n    reason: ok\n    expires: next week\n", ":2: expires \"next week\" is not a date"},
		{"neither", "suppressions:\n  - reason: ok\n    expires: 2027-01-01\n", ":2: entry needs a fingerprint or a rule"},
		{"both", "suppressions:\n  - rule: ASI08-STALE-CALL\n    fingerprint: 0123456789abcdef\n    reason: ok\n    expires: 2027-01-01\n", ":2: entry has both"},
		{"unknown key", "suppressions:\n  - rule: ASI08-STALE-CALL\n    reason: ok\n    expires: 2027-01-01\n    until: x\n", ":5: unknown key \"until\""},
		{"malformed", "suppressions:\n  - rule: [unclosed\n", "malformed YAML"},
		{"not a list", "suppressions: yes\n", ":1: suppressions must be a list"},
		{"bad fingerprint", "- fingerprint: zz\n  reason: ok\n  expires: 2027-01-01\n", ":1: fingerprint \"zz\""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := analyze.ParseSuppressions("x.yaml", []byte(tc.text), known(t))
			if err == nil || !strings.HasPrefix(err.Error(), "x.yaml:") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want x.yaml:...%s", err, tc.want)
			}
		})
	}
	if s, err := analyze.LoadSuppressions(filepath.Join(t.TempDir(), "absent.yaml"), false, known(t)); err != nil || s != nil {
		t.Errorf("absent default file: %v %v", s, err)
	}
	if _, err := analyze.LoadSuppressions(filepath.Join(t.TempDir(), "absent.yaml"), true, known(t)); err == nil || !strings.Contains(err.Error(), "absent.yaml: ") {
		t.Errorf("absent --ignore file: %v", err)
	}
}

// A rule suppression and a fingerprint suppression mark findings without
// removing them and take them out of the score; an expired entry stops
// applying and is reported.
func TestSuppressionsApply(t *testing.T) {
	base := audit(t, analyze.AuditOptions{}, weekDB)
	var ghost finding.Finding
	for _, f := range base.Findings {
		if f.RuleID == owasp.RuleGhostCall.ID {
			ghost = f
		}
	}
	if ghost.Fingerprint == "" {
		t.Fatal("sample lost its ghost finding")
	}
	text := "suppressions:\n" +
		"  - rule: ASI08-STALE-CALL\n    reason: end-of-day test run, checked\n    expires: 2026-12-31\n" +
		"  - fingerprint: " + ghost.Fingerprint + "\n    reason: note rewritten by hand\n    expires: 2026-12-01\n" +
		"  - rule: ASI02-DESTRUCTIVE-DELETE\n    reason: was approved last month\n    expires: 2026-11-15\n" +
		"  - rule: ASI10-SELF-MODIFICATION\n    reason: nothing to match\n    expires: 2027-01-01\n"
	p := filepath.Join(t.TempDir(), ".ledger-audit-ignore.yaml")
	os.WriteFile(p, []byte(text), 0o600)
	sup, err := analyze.LoadSuppressions(p, true, known(t))
	if err != nil {
		t.Fatal(err)
	}
	res := audit(t, analyze.AuditOptions{Suppressions: sup}, weekDB)
	if len(res.Findings) != len(base.Findings) {
		t.Fatalf("suppression dropped findings: %d of %d", len(res.Findings), len(base.Findings))
	}
	want := base.Score.Penalty - owasp.RuleStaleCall.Severity.Weight() - ghost.Weight
	if res.Score.Penalty != want || res.Score.Suppressed != 2 {
		t.Errorf("penalty %d (suppressed %d), want %d (2)", res.Score.Penalty, res.Score.Suppressed, want)
	}
	for _, f := range res.Findings {
		sup := f.RuleID == owasp.RuleStaleCall.ID || f.Fingerprint == ghost.Fingerprint
		if f.Suppressed != sup || (sup && f.SuppressReason == "") {
			t.Errorf("%s suppressed=%v reason=%q", f.RuleID, f.Suppressed, f.SuppressReason)
		}
	}
	status := map[string]string{}
	for _, n := range res.Suppressions {
		status[n.Match] = n.Status
	}
	if status["ASI08-STALE-CALL"] != "applied" || status[ghost.Fingerprint] != "applied" || status["ASI02-DESTRUCTIVE-DELETE"] != "expired" || status["ASI10-SELF-MODIFICATION"] != "unused" {
		t.Errorf("notes: %+v", res.Suppressions)
	}
	if exp := sup.Expired(auditNow); len(exp) != 1 || !strings.Contains(exp[0], ":8: suppression of ASI02-DESTRUCTIVE-DELETE expired on 2026-11-15") {
		t.Errorf("expired warnings: %q", exp)
	}
	// The fingerprint entry is valid through its expiry day and no later.
	late := audit(t, analyze.AuditOptions{Suppressions: sup, Now: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)}, weekDB)
	for _, f := range late.Findings {
		if f.Fingerprint == ghost.Fingerprint && f.Suppressed {
			t.Error("fingerprint suppression applied after its expiry day")
		}
	}
}

// FuzzParseSuppressions: any bytes give either a set or one error line
// that names the file and a line, never a panic.
func FuzzParseSuppressions(f *testing.F) {
	f.Add("suppressions:\n  - rule: ASI08-STALE-CALL\n    reason: ok\n    expires: 2027-01-01\n")
	f.Add("- fingerprint: 0123456789abcdef\n  reason: r\n  expires: 2026-12-01T00:00:00Z\n")
	f.Add("suppressions: [")
	f.Add("")
	f.Add("suppressions:\n  - {rule: X, reason: [a], expires: 1}\n")
	k, err := analyze.KnownRule()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		_, err := analyze.ParseSuppressions("f.yaml", []byte(text), k)
		if err != nil && (!strings.HasPrefix(err.Error(), "f.yaml:") || strings.Contains(err.Error(), "\n")) {
			t.Fatalf("bad error shape: %q", err)
		}
	})
}
