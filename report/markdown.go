package report

import (
	"fmt"
	"html"
	"io"
	"strings"
	"text/template"
	"time"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/finding"
	"github.com/ledger-audit/ledger-audit/templates"
)

// markdownReporter renders templates.Markdown: a GitHub-flavoured report
// a reviewer can read top to bottom or paste into an incident ticket.
type markdownReporter struct{ o Options }

// longEvidence is the excerpt length above which the Markdown report folds
// evidence into a <details> block instead of an inline code span.
const longEvidence = 120

var mdTemplate = template.Must(template.New("report.md").Funcs(template.FuncMap{
	"ts":       timeText,
	"cell":     mdCell,
	"code":     mdCode,
	"codecell": func(s string) string { return mdCell(mdCode(oneLine(s))) },
	"evidence": mdEvidence,
	"htmlesc":  html.EscapeString,
	"indent":   indentBlock,
	"clip":     clip,
	"dur":      func(d analyze.Duration) string { return time.Duration(d).Round(time.Second).String() },
	"secs":     func(s float64) string { return (time.Duration(s * float64(time.Second))).Round(time.Second).String() },
	"pct":      func(f float64) string { return fmt.Sprintf("%.0f %%", f*100) },
	"num":      analyze.GroupDigits,
	"add":      func(a, b int) int { return a + b },
	"callat": func(n int) string {
		if n == 0 {
			return "never"
		}
		return fmt.Sprintf("call %d", n)
	},
}).Parse(templates.Markdown))

// mdView is what the Markdown template sees: the Result plus the few
// derived values templates should not compute.
type mdView struct {
	R            *analyze.Result
	Ledgers      string
	Range        string
	Sessions     int
	Generated    string
	Band         string
	Severities   []sevRow
	Groups       []categoryGroup
	Active       int
	Ghosts       int
	Revived      int
	HasExtension bool
}

type sevRow struct {
	Name    string
	Weight  int
	Count   int
	Penalty int
}

func (m *markdownReporter) Render(w io.Writer, r *analyze.Result) error {
	return mdTemplate.Execute(w, buildView(r, m.o))
}

func buildView(r *analyze.Result, o Options) mdView {
	v := mdView{
		R: r, Ledgers: ledgerNames(r), Range: rangeText(r.Window), Sessions: sessionCount(r),
		Generated: timeText(o.now(r)), Band: severityBand(r.Score.Score),
		Groups: groupByCategory(r.Findings), Active: len(activeFindings(r)),
		Ghosts: countedGhosts(r), Revived: len(r.Ghosts) - countedGhosts(r),
	}
	for _, s := range finding.Severities {
		n := r.Score.Counts[s.String()]
		v.Severities = append(v.Severities, sevRow{s.String(), s.Weight(), n, n * s.Weight()})
	}
	for _, c := range r.Score.Categories {
		if c.Extension {
			v.HasExtension = true
		}
	}
	for _, g := range v.Groups {
		if g.Extension {
			v.HasExtension = true
		}
	}
	return v
}

// mdCell makes text safe inside a GitHub table cell: no line breaks, and
// pipes escaped (GitHub needs \| even inside code spans).
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "\r", "")
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// mdCode wraps s in a code span whose backtick fence is longer than any
// backtick run inside it, so commands containing backticks survive.
func mdCode(s string) string {
	if s == "" {
		return "(empty)"
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// mdEvidence renders an excerpt inline when short, else as a collapsible
// block with a fenced code body (long arguments stay readable on GitHub
// without flooding the page).
func mdEvidence(s string, truncated bool) string {
	note := ""
	if truncated {
		note = " (truncated in the ledger)"
	}
	if len([]rune(s)) <= longEvidence && !strings.Contains(s, "\n") {
		return mdCode(s) + note
	}
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	summary := html.EscapeString(clip(oneLine(s), 60))
	return fmt.Sprintf("<details><summary><code>%s</code> — %d characters%s</summary>\n\n%stext\n%s\n%s\n\n</details>",
		summary, len([]rune(s)), note, fence, s, fence)
}

// indentBlock indents every line but the first by two spaces, so a
// multi-line block stays inside the list item it belongs to.
func indentBlock(s string) string {
	lines := strings.Split(s, "\n")
	for i := 1; i < len(lines); i++ {
		if lines[i] != "" {
			lines[i] = "  " + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}

func longestRun(s string, c rune) int {
	best, cur := 0, 0
	for _, r := range s {
		if r == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}
