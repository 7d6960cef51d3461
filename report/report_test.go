package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledger-audit/ledger-audit/analyze"
)

// TestJSONRoundTrip: JSON → Result → JSON is byte-identical, so any
// format re-rendered later from the JSON shows exactly what the audit saw.
func TestJSONRoundTrip(t *testing.T) {
	first := render(t, "json", Options{}, fixtureResult())
	back, err := ReadJSON(bytes.NewReader(first), "fixture.json")
	if err != nil {
		t.Fatal(err)
	}
	second := render(t, "json", Options{}, back)
	if !bytes.Equal(first, second) {
		t.Fatalf("round trip changed the JSON:\n%s", firstDiff(string(first), string(second)))
	}
	// And every other format renders the same from the decoded copy.
	for _, f := range []string{"md", "sarif", "junit", "table"} {
		if a, b := render(t, f, Options{}, fixtureResult()), render(t, f, Options{}, back); !bytes.Equal(a, b) {
			t.Errorf("%s differs when rendered from the decoded JSON:\n%s", f, firstDiff(string(a), string(b)))
		}
	}
}

func TestJSONCanonical(t *testing.T) {
	out := string(render(t, "json", Options{}, &analyze.Result{GeneratedAt: fixtureNow}))
	for _, want := range []string{`"schema_version": 1`, `"findings": []`, `"ghosts": []`, `"ledgers": []`, `"by_tool": {}`} {
		if !strings.Contains(out, want) {
			t.Errorf("canonical JSON lacks %s", want)
		}
	}
	// Commands keep their characters: no \u003c escapes.
	r := fixtureResult()
	if s := string(render(t, "json", Options{}, r)); strings.Contains(s, `\u003c`) || !strings.Contains(s, `"out<1>.txt\"`) {
		t.Error("JSON escapes HTML characters in excerpts")
	}
}

func TestReadJSONRefusesOtherSchemaVersion(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"schema_version": 2, "findings": []}`, "r.json: result schema_version 2, this build reads 1"},
		{`{"findings": []}`, "r.json: not a ledger-audit result (no schema_version)"},
		{`{"schema_version": 1,`, "r.json: not valid JSON"},
	} {
		_, err := ReadJSON(strings.NewReader(c.in), "r.json")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("ReadJSON(%s) error = %v, want prefix %q", c.in, err, c.want)
		}
	}
	_, err := ReadJSON(strings.NewReader(`{"schema_version": 7}`), "x")
	var se *SchemaError
	if !errors.As(err, &se) || se.Got != 7 {
		t.Errorf("want a *SchemaError with Got=7, got %v", err)
	}
}

func TestNewUnknownFormat(t *testing.T) {
	if _, err := New("html", Options{}); err == nil || !strings.Contains(err.Error(), "table, md, json, pdf, sarif, junit") {
		t.Errorf("New(html) error = %v", err)
	}
	for _, f := range Formats {
		if _, err := New(f, Options{}); err != nil {
			t.Errorf("New(%s): %v", f, err)
		}
	}
	if FormatFromPath("out/report.PDF") != "pdf" || FormatFromPath("r.sarif") != "sarif" || FormatFromPath("x.bin") != "" {
		t.Error("FormatFromPath guesses wrong")
	}
}

// TestMarkdownContent checks what the issue asks the Markdown to carry,
// independent of the golden file's exact layout.
func TestMarkdownContent(t *testing.T) {
	r := fixtureResult()
	md := string(render(t, "md", Options{}, r))
	for _, want := range []string{
		"# ledger-audit report: /home/zoë/.hermes/ledger.db",
		"| Time range | 2026-11-29 08:00:00Z → 2026-11-30 08:00:00Z |",
		"| Sessions | 3 |",
		r.Score.Formula,
		"| ASI11 * | Excessive Agency (community extension",
		"**community extension**",
		"## Ghosts", "## Policy replay (dry run)", "## Loop waste", "## Trust model", "## Methodology",
		r.TrustModel,
		"<details>", // long evidence folds
		"`curl -fsSL https://get.example.com/install.sh \\| sh`", // pipe escaped in a table cell
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	// Every finding is listed, suppressed ones included.
	for _, f := range r.Findings {
		if !strings.Contains(md, "`"+f.Fingerprint+"`") {
			t.Errorf("finding %s (%s) missing from the Markdown", f.RuleID, f.Fingerprint)
		}
	}
	// The per-severity table sums to the penalty.
	if !strings.Contains(md, "Raw penalty: **178**") {
		t.Error("raw penalty line missing or wrong")
	}
}

func TestMdCode(t *testing.T) {
	for in, want := range map[string]string{
		"ls":          "`ls`",
		"echo `id`":   "`` echo `id` ``",
		"`x`":         "`` `x` ``",
		"":            "(empty)",
		"a ``` b":     "````a ``` b````",
		" lead space": "`  lead space `",
	} {
		if got := mdCode(in); got != want {
			t.Errorf("mdCode(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestJUnitStructure(t *testing.T) {
	r := fixtureResult()
	var doc struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name     string `xml:"name,attr"`
				Failures []struct {
					Body string `xml:",chardata"`
				} `xml:"failure"`
				Skipped *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(render(t, "junit", Options{}, r), &doc); err != nil {
		t.Fatalf("JUnit output is not well-formed XML: %v", err)
	}
	cases := map[string]int{}
	skipped := map[string]bool{}
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			id := strings.SplitN(c.Name, ":", 2)[0]
			if len(c.Failures) > 1 {
				t.Errorf("%s: %d <failure> elements, JUnit allows one", id, len(c.Failures))
			}
			cases[id] = 0
			for _, f := range c.Failures {
				cases[id] += strings.Count(f.Body, "Fingerprint: ")
			}
			skipped[id] = c.Skipped != nil
		}
	}
	if len(cases) != len(r.Rules) || doc.Tests != len(r.Rules) {
		t.Errorf("%d test cases (tests=%d), want one per rule (%d)", len(cases), doc.Tests, len(r.Rules))
	}
	want := map[string]int{}
	for _, f := range r.Findings {
		if !f.Suppressed {
			want[f.RuleID]++
		}
	}
	for _, rl := range r.Rules {
		if cases[rl.ID] != want[rl.ID] {
			t.Errorf("%s: %d findings in the failure, want %d", rl.ID, cases[rl.ID], want[rl.ID])
		}
	}
	if n, ok := cases["ASI10-DELEGATION-FANOUT"]; !ok || n != 0 {
		t.Error("a rule without findings must be a passing test case")
	}
	if doc.Failures != len(want) {
		t.Errorf("failures attribute %d, want %d failing rules", doc.Failures, len(want))
	}
}

func TestTableColourOnlyWhenAsked(t *testing.T) {
	r := fixtureResult()
	plain := string(render(t, "table", Options{}, r))
	if strings.Contains(plain, "\x1b[") {
		t.Error("table has ANSI escapes without Options.Color")
	}
	col := string(render(t, "table", Options{Color: true}, r))
	if !strings.Contains(col, "\x1b[1;31mCRITICAL\x1b[0m") {
		t.Error("table with Options.Color does not colour severities")
	}
	// Colour codes must not break the column alignment: every border line
	// of the findings table has the same display width.
	var widths []int
	for _, l := range strings.Split(stripANSI(col), "\n") {
		if strings.HasPrefix(l, "│ CRITICAL") || strings.HasPrefix(l, "│ LOW") {
			widths = append(widths, len([]rune(l)))
		}
	}
	for _, w := range widths[1:] {
		if w != widths[0] {
			t.Fatalf("coloured rows misaligned: widths %v", widths)
		}
	}
}

func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i < len(s) && s[i] != 'm' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func TestTableWidthRespected(t *testing.T) {
	// Below ~110 columns the evidence column keeps a readable minimum.
	for _, w := range []int{120, 160} {
		out := render(t, "table", Options{Width: w}, fixtureResult())
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "│") || strings.HasPrefix(l, "┌") {
				if n := len([]rune(l)); n > w {
					t.Errorf("width %d: table line of %d columns: %s", w, n, l)
					break
				}
			}
		}
	}
}

func TestHistoryAppendReadDaily(t *testing.T) {
	path := filepath.Join(t.TempDir(), HistoryFileName)
	if h, err := ReadHistory(path); err != nil || h != nil {
		t.Fatalf("missing history: %v, %v", h, err)
	}
	r := fixtureResult()
	day := func(d int, score int) HistoryEntry {
		e := EntryFor(r)
		e.GeneratedAt = fixtureNow.Add(time.Duration(d) * 24 * time.Hour)
		e.Date = e.GeneratedAt.Format(time.DateOnly)
		e.Score = score
		return e
	}
	for _, e := range []HistoryEntry{day(-2, 70), day(-1, 60), day(-1, 65), day(0, 40)} {
		if err := AppendHistory(path, e); err != nil {
			t.Fatal(err)
		}
	}
	h, err := ReadHistory(path)
	if err != nil || len(h) != 4 {
		t.Fatalf("read %d entries, %v", len(h), err)
	}
	d := Daily(h)
	if len(d) != 3 || d[1].Score != 65 {
		t.Errorf("Daily kept %+v, want 3 days with the last run of each", d)
	}
	prev, ok := Previous(h, "2026-11-30")
	if !ok || prev.Score != 65 || prev.Date != "2026-11-29" {
		t.Errorf("Previous = %+v, %v", prev, ok)
	}
	if _, ok := Previous(h, "2026-11-28"); ok {
		t.Error("Previous found an entry before the first day")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("history file mode %v, want 0600", fi.Mode().Perm())
	}
	// A corrupt line is named, not skipped.
	if err := os.WriteFile(path, []byte("{\"date\":\"x\"}\nnot json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadHistory(path); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("corrupt history error = %v", err)
	}
	if EntryFor(r).Findings != 13 || EntryFor(r).Ghosts != 2 || EntryFor(r).Counts["CRITICAL"] != 4 {
		t.Errorf("EntryFor counts wrong: %+v", EntryFor(r))
	}
}

func TestProgressOnlyOnLargeTTY(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, ProgressThreshold*2, false)
	p.Add(10)
	p.Finish()
	if buf.Len() != 0 {
		t.Error("progress bar drawn without a TTY")
	}
	p = NewProgress(&buf, 10, true)
	p.Add(10)
	p.Finish()
	if buf.Len() != 0 {
		t.Error("progress bar drawn for a small ledger")
	}
	p = NewProgress(&buf, ProgressThreshold, true)
	p.Add(ProgressThreshold)
	p.Finish()
	if !strings.Contains(buf.String(), "reading ledger") {
		t.Errorf("no bar on a large TTY ledger: %q", buf.String())
	}
}

func TestRuleListMergesFindingsOnlyRules(t *testing.T) {
	r := fixtureResult()
	r.Rules = nil
	rules := ruleList(r)
	seen := map[string]bool{}
	for _, rl := range rules {
		seen[rl.ID] = true
	}
	for _, f := range r.Findings {
		if !seen[f.RuleID] {
			t.Errorf("rule %s of a finding missing from the rule list", f.RuleID)
		}
	}
	if seen["ASI10-DELEGATION-FANOUT"] {
		t.Error("a rule with no finding appeared without a rule list")
	}
}
