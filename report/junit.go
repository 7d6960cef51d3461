package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/finding"
)

// junitReporter writes JUnit XML so CI systems that only understand test
// reports (GitLab, Jenkins) show the audit: one test suite per OWASP
// category, one test case per rule, one failure per finding of that rule.
// A rule with no findings is a passing test case.
type junitReporter struct{}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties *junitPropList  `xml:"properties,omitempty"`
	Cases      []junitTestCase `xml:"testcase"`
}

type junitPropList struct {
	Props []junitProp `xml:"property"`
}

type junitProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitTestCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

func (junitReporter) Render(w io.Writer, r *analyze.Result) error {
	byRule := map[string][]finding.Finding{}
	for _, f := range r.Findings {
		byRule[f.RuleID] = append(byRule[f.RuleID], f)
	}
	suites := map[finding.Category]*junitSuite{}
	var order []finding.Category
	for _, rl := range ruleList(r) {
		s := suites[rl.Category]
		if s == nil {
			name := fmt.Sprintf("%s %s", rl.Category, rl.Category.Name())
			s = &junitSuite{Name: name, Timestamp: r.GeneratedAt.UTC().Format("2006-01-02T15:04:05")}
			suites[rl.Category] = s
			order = append(order, rl.Category)
		}
		tc := junitTestCase{Name: rl.ID + ": " + rl.Title, Classname: "ledger-audit." + string(rl.Category)}
		// One <failure> per test case (the JUnit schema allows at most one;
		// Jenkins and GitLab show the first only), listing every finding.
		var active []finding.Finding
		var suppressed []string
		for _, f := range byRule[rl.ID] {
			if f.Suppressed {
				suppressed = append(suppressed, f.Fingerprint+" ("+f.SuppressReason+")")
				continue
			}
			active = append(active, f)
		}
		if len(active) > 0 {
			bodies := make([]string, len(active))
			for i, f := range active {
				bodies[i] = junitBody(f)
			}
			tc.Failure = &junitFailure{
				Message: fmt.Sprintf("%d finding(s), %s: %s", len(active), active[0].Severity, active[0].Message),
				Type:    active[0].Severity.String(),
				Body:    strings.Join(bodies, "\n\n"),
			}
		}
		if len(suppressed) > 0 {
			tc.SystemOut = "suppressed: " + strings.Join(suppressed, "; ")
			if len(active) == 0 {
				tc.Skipped = &junitSkipped{Message: fmt.Sprintf("%d finding(s) suppressed", len(suppressed))}
				s.Skipped++
			}
		}
		s.Tests++
		if len(active) > 0 {
			s.Failures++
		}
		s.Cases = append(s.Cases, tc)
	}
	out := junitSuites{Name: fmt.Sprintf("ledger-audit posture %d/100 (%s)", r.Score.Score, r.Score.Formula)}
	for _, c := range order {
		s := suites[c]
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Suites = append(out.Suites, *s)
	}
	// The score itself is a suite too, so a CI summary shows it even when
	// every rule passed.
	out.Suites = append(out.Suites, junitSuite{
		Name: "posture score", Tests: 0, Timestamp: r.GeneratedAt.UTC().Format("2006-01-02T15:04:05"),
		Properties: &junitPropList{Props: []junitProp{
			{Name: "score", Value: fmt.Sprint(r.Score.Score)},
			{Name: "penalty", Value: fmt.Sprint(r.Score.Penalty)},
			{Name: "formula", Value: r.Score.Formula},
			{Name: "ledgers", Value: ledgerNames(r)},
			{Name: "trust_model", Value: r.TrustModel},
		}},
	})
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitBody is the failure text a CI page shows: where, when, what.
func junitBody(f finding.Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s, weight %d)\n", f.Title, f.Category, f.Weight)
	for _, e := range f.Evidence {
		fmt.Fprintf(&b, "%s row %d, %s, session %s, tool %s: %s\n", e.Ledger, e.Row, timeText(e.TS), e.Session, e.Tool, e.Excerpt)
	}
	fmt.Fprintf(&b, "Remediation: %s\nFingerprint: %s", f.Remediation, f.Fingerprint)
	return b.String()
}
