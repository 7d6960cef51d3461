package report

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/finding"
)

// Reporter renders one audit Result in one format.
type Reporter interface {
	Render(w io.Writer, r *analyze.Result) error
}

// Options tune rendering. The zero value is valid: no colour, the
// Result's own GeneratedAt as the clock, no history.
type Options struct {
	// Color enables ANSI colour in the table format. The CLI sets it only
	// when stdout is a terminal; the report package never probes.
	Color bool
	// Now overrides the "generated at" time shown; zero means
	// Result.GeneratedAt, so re-rendering from JSON is reproducible.
	Now time.Time
	// History feeds the PDF score-trend chart (oldest first). Optional.
	History []HistoryEntry
	// Width is the terminal width for the table format; 0 means 120.
	Width int
}

// Formats lists the report formats New accepts, in the order help shows.
var Formats = []string{"table", "md", "json", "pdf", "sarif", "junit"}

// New returns the Reporter for a format name (see Formats).
func New(format string, o Options) (Reporter, error) {
	switch strings.ToLower(format) {
	case "table", "text", "":
		return &tableReporter{o: o}, nil
	case "md", "markdown":
		return &markdownReporter{o: o}, nil
	case "json":
		return jsonReporter{}, nil
	case "pdf":
		return &pdfReporter{o: o}, nil
	case "sarif":
		return sarifReporter{}, nil
	case "junit", "xml":
		return junitReporter{}, nil
	}
	return nil, fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
}

// FormatFromPath guesses a format from an output file's extension, for
// `-o report.pdf` without --format. It returns "" when the extension says
// nothing.
func FormatFromPath(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".markdown":
		return "md"
	case ".json":
		return "json"
	case ".pdf":
		return "pdf"
	case ".sarif":
		return "sarif"
	case ".xml":
		return "junit"
	case ".txt":
		return "table"
	}
	return ""
}

func (o Options) now(r *analyze.Result) time.Time {
	if !o.Now.IsZero() {
		return o.Now.UTC()
	}
	return r.GeneratedAt.UTC()
}

// timeText is the one timestamp format every human-facing report uses.
func timeText(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

// ledgerNames lists the audited files, or "(no ledger)".
func ledgerNames(r *analyze.Result) string {
	if len(r.Ledgers) == 0 {
		return "(no ledger)"
	}
	names := make([]string, len(r.Ledgers))
	for i, l := range r.Ledgers {
		names[i] = l.Path
	}
	return strings.Join(names, ", ")
}

// shortLedgerName is the header/footer label: the base name of the one
// ledger, or "N ledgers".
func shortLedgerName(r *analyze.Result) string {
	switch len(r.Ledgers) {
	case 0:
		return "(no ledger)"
	case 1:
		return filepath.Base(r.Ledgers[0].Path)
	}
	return fmt.Sprintf("%d ledgers", len(r.Ledgers))
}

// rangeText describes the audited window: the requested bounds when set,
// else the first and last record seen.
func rangeText(w analyze.Window) string {
	from, to := w.Since, w.Until
	if from.IsZero() {
		from = w.First
	}
	if to.IsZero() {
		to = w.Last
	}
	if from.IsZero() && to.IsZero() {
		return "no records"
	}
	return timeText(from) + " → " + timeText(to)
}

// sessionCount counts distinct sessions across ledgers.
func sessionCount(r *analyze.Result) int { return len(r.Summary.Sessions) }

// activeFindings are the findings that count towards the score.
func activeFindings(r *analyze.Result) []finding.Finding {
	var out []finding.Finding
	for _, f := range r.Findings {
		if !f.Suppressed {
			out = append(out, f)
		}
	}
	return out
}

// countedGhosts are ghosts that count (revived ones are shown, not counted).
func countedGhosts(r *analyze.Result) int {
	n := 0
	for _, g := range r.Ghosts {
		if g.Class != analyze.ClassRevived {
			n++
		}
	}
	return n
}

// categoryGroup is the findings of one category, for grouped listings.
type categoryGroup struct {
	Category  finding.Category
	Name      string
	Extension bool
	Findings  []finding.Finding
	Penalty   int
}

// groupByCategory keeps the Result's finding order inside each group and
// orders groups by category id.
func groupByCategory(fs []finding.Finding) []categoryGroup {
	idx := map[finding.Category]int{}
	var out []categoryGroup
	for _, f := range fs {
		i, ok := idx[f.Category]
		if !ok {
			i = len(out)
			idx[f.Category] = i
			out = append(out, categoryGroup{Category: f.Category, Name: f.Category.Name(), Extension: f.Category.Extension()})
		}
		out[i].Findings = append(out[i].Findings, f)
		if !f.Suppressed {
			out[i].Penalty += f.Weight
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Category < out[j].Category })
	return out
}

// ruleList is every rule the Result knows about: its rule list when the
// audit supplied one, plus any rule only seen through a finding (a
// re-rendered older JSON, or a policy rule), sorted by id.
func ruleList(r *analyze.Result) []finding.Rule {
	seen := map[string]bool{}
	var out []finding.Rule
	for _, rl := range r.Rules {
		if !seen[rl.ID] {
			seen[rl.ID] = true
			out = append(out, rl)
		}
	}
	for _, f := range r.Findings {
		if seen[f.RuleID] {
			continue
		}
		seen[f.RuleID] = true
		out = append(out, finding.Rule{
			ID: f.RuleID, Category: f.Category, Severity: f.Severity,
			Title: f.Title, Remediation: f.Remediation,
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// primary returns a finding's first evidence, or a zero one.
func primary(f finding.Finding) finding.Evidence {
	if len(f.Evidence) == 0 {
		return finding.Evidence{}
	}
	return f.Evidence[0]
}

// sortedKeys returns a map's keys in order, for deterministic tables.
func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// oneLine flattens whitespace so an excerpt fits a table cell.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// clip shortens s to at most n runes, marking the cut with an ellipsis.
func clip(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	return string(rs[:n-1]) + "…"
}

// severityBand names the band a score falls in, for the cover colour and
// the one-word verdict.
func severityBand(score int) string {
	switch {
	case score >= 90:
		return "good"
	case score >= 70:
		return "fair"
	case score >= 40:
		return "poor"
	}
	return "critical"
}

// worstSeverity is the most severe unsuppressed finding's severity, or 0.
func worstSeverity(r *analyze.Result) finding.Severity {
	var w finding.Severity
	for _, f := range r.Findings {
		if !f.Suppressed && f.Severity > w {
			w = f.Severity
		}
	}
	return w
}
