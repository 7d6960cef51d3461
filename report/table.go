package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/finding"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// tableReporter is the terminal view: the score line first (what a
// reader wants to know), then how it was computed, then every finding.
type tableReporter struct{ o Options }

// ANSI colours per severity; used only when Options.Color is set.
var sevColor = map[finding.Severity]string{
	finding.Critical: "\x1b[1;31m",
	finding.High:     "\x1b[31m",
	finding.Medium:   "\x1b[33m",
	finding.Low:      "\x1b[36m",
}

const ansiReset = "\x1b[0m"

func (t *tableReporter) paint(s string, sev finding.Severity) string {
	if !t.o.Color || sevColor[sev] == "" {
		return s
	}
	return sevColor[sev] + s + ansiReset
}

func (t *tableReporter) bold(s string) string {
	if !t.o.Color {
		return s
	}
	return "\x1b[1m" + s + ansiReset
}

func (t *tableReporter) width() int {
	if t.o.Width > 0 {
		return t.o.Width
	}
	return 120
}

func (t *tableReporter) newTable(w io.Writer, header ...any) *tablewriter.Table {
	tb := tablewriter.NewTable(w,
		// Cells are clipped by fitWidth instead of wrapped: one finding per
		// line keeps the list greppable.
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithTrimSpace(tw.On),
	)
	tb.Header(header...)
	return tb
}

// errWriter remembers the first write error so the many small writes of
// a report need no individual checks.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, a ...any) { fmt.Fprintf(e, format, a...) }

func (t *tableReporter) Render(out io.Writer, r *analyze.Result) error {
	w := &errWriter{w: out}
	score := r.Score
	w.printf("%s  %s\n", t.paint(t.bold(fmt.Sprintf("Posture score: %d/100 (%s)", score.Score, severityBand(score.Score))), worstSeverity(r)),
		fmt.Sprintf("%d findings, %d ghosts, %d calls in %d sessions", len(activeFindings(r)), headerGhosts(r), r.Summary.Calls, sessionCount(r)))
	w.printf("Score: %s   (raw penalty %d", score.Formula, score.Penalty)
	if score.Suppressed > 0 {
		w.printf(", %d suppressed", score.Suppressed)
	}
	w.printf(")\n")
	w.printf("Ledger: %s\nWindow: %s   Generated: %s\n\n", ledgerNames(r), rangeText(r.Window), timeText(t.o.now(r)))
	if err := t.renderFleet(w, r); err != nil {
		return err
	}

	cat := t.newTable(w, "Category", "Name", "Findings", "Penalty")
	ext := false
	nameW := t.fitWidth([]int{len("Category"), len("Findings"), len("Penalty")})
	for _, c := range score.Categories {
		id := string(c.Category)
		if c.Extension {
			id += " *"
			ext = true
		}
		if err := cat.Append(id, clip(c.Name, nameW), strconv.Itoa(c.Findings), strconv.Itoa(c.Penalty)); err != nil {
			return err
		}
	}
	if err := cat.Render(); err != nil {
		return err
	}
	if ext {
		w.printf("* ASI11 is a community extension; the official OWASP Agentic Top 10 ends at ASI10.\n")
	}

	if len(r.Ghosts) > 0 {
		w.printf("\nGhost calls (%d counted, %d revived):\n", countedGhosts(r), len(r.Ghosts)-countedGhosts(r))
		gt := t.newTable(w, "Class", "Issued", "Session", "Tool", "Row", "Arguments")
		var fixed []int
		for _, g := range r.Ghosts {
			fixed = maxWidths(fixed, ghostClass(g), timeText(g.IssuedAt), g.Session, g.Tool, strconv.FormatInt(g.Row, 10))
		}
		ghostW := t.fitWidth(fixed)
		for _, g := range r.Ghosts {
			if err := gt.Append(ghostClass(g), timeText(g.IssuedAt), g.Session, g.Tool, strconv.FormatInt(g.Row, 10), clip(oneLine(g.Args), ghostW)); err != nil {
				return err
			}
		}
		if err := gt.Render(); err != nil {
			return err
		}
	}

	w.printf("\nFindings (%d):\n", len(r.Findings))
	if len(r.Findings) == 0 {
		w.printf("none\n")
	} else {
		// The rule id already starts with its category, so no category
		// column: the evidence gets the room.
		ft := t.newTable(w, "Severity", "Rule", "Time", "Session", "Tool", "Evidence")
		fixed := []int{len("(CRITICAL)")}
		for _, f := range r.Findings {
			ev := primary(f)
			fixed = maxWidths(fixed, "", f.RuleID, timeText(ev.TS), ev.Session, ev.Tool)
		}
		evW := t.fitWidth(fixed)
		suppressed := false
		for _, f := range r.Findings {
			ev := primary(f)
			sev := t.paint(f.Severity.String(), f.Severity)
			if f.Suppressed {
				sev = "(" + f.Severity.String() + ")"
				suppressed = true
			}
			if err := ft.Append(sev, f.RuleID, timeText(ev.TS), ev.Session, ev.Tool, clip(oneLine(ev.Excerpt), evW)); err != nil {
				return err
			}
		}
		if err := ft.Render(); err != nil {
			return err
		}
		if suppressed {
			w.printf("(SEVERITY) = suppressed: listed, not counted in the score.\n")
		}
	}

	if p := r.Policy; p != nil {
		w.printf("\nPolicy replay (%s): would block %d, would warn %d\n", strings.Join(p.Packs, ", "), p.Blocked, p.Warned)
		for _, tot := range p.Totals {
			w.printf("  %-6s %-32s %d\n", tot.Action, tot.RuleID, tot.Count)
		}
	}
	if l := r.Loops; l != nil {
		w.printf("\nLoops (guardrails from %s): %d\n", l.Config.Source, len(l.Loops))
		for _, lp := range l.Loops {
			w.printf("  %s %s in %s: %d calls, %s wall, %s input tokens; would stop at call %d, saving %d calls\n",
				lp.Kind, lp.Tool, lp.Session, lp.Calls, secondsText(lp.Waste.WallSeconds), analyze.GroupDigits(lp.Waste.TokensIn), lp.HardStopAt, lp.SavedIfStopped.Calls)
		}
	}
	for _, s := range r.Suppressions {
		if s.Status != "applied" {
			w.printf("\nSuppression %s is %s (%s)", s.Match, s.Status, s.Reason)
		}
	}
	for _, warn := range r.Warnings {
		w.printf("\nwarning: %s", warn)
	}
	w.printf("\n\nTrust model: %s\n", r.TrustModel)
	return w.err
}

// maxWidths folds one row's cell widths (in runes) into running maxima.
func maxWidths(acc []int, cells ...string) []int {
	for len(acc) < len(cells) {
		acc = append(acc, 0)
	}
	for i, c := range cells {
		acc[i] = max(acc[i], utf8.RuneCountInString(c))
	}
	return acc
}

// fitWidth is what is left for the last column once the fixed columns
// and the borders (3 characters per column plus one) are placed, never
// less than 24.
func (t *tableReporter) fitWidth(fixed []int) int {
	used := 2 + 3*(len(fixed)+1)
	for _, n := range fixed {
		used += n
	}
	return max(24, t.width()-used)
}

func secondsText(s float64) string {
	return strconv.FormatFloat(s, 'f', 0, 64) + "s"
}

// ghostClass marks a ghost issued next to a context compaction: the most
// likely cause of a swallowed turn, worth seeing without opening the JSON.
func ghostClass(g analyze.Ghost) string {
	if g.NearCompaction {
		return string(g.Class) + " (compaction)"
	}
	return string(g.Class)
}

// renderFleet shows the spread of per-ledger scores of a fleet audit: over
// many ledgers the merged score above sums every finding and says little
// on its own, so each ledger's own score is listed, worst first.
func (t *tableReporter) renderFleet(w *errWriter, r *analyze.Result) error {
	f := r.Fleet
	if f == nil {
		return nil
	}
	w.printf("Fleet: %d ledgers, %d calls, %d findings, %d ghosts; per-ledger score min %d, median %d, mean %.1f",
		f.Ledgers, f.Calls, f.Findings, f.Ghosts, f.ScoreMin, f.ScoreMedian, f.ScoreMean)
	if f.Skipped > 0 {
		w.printf(", %d skipped (see warnings)", f.Skipped)
	}
	w.printf("\n")
	for _, b := range f.Bands {
		w.printf("  score %-7s %d ledger(s)\n", b.Label, b.Ledgers)
	}
	lt := t.newTable(w, "Ledger", "Score", "Findings", "Ghosts", "Calls")
	for _, l := range f.Worst {
		score := "-"
		if l.Score != nil {
			score = strconv.Itoa(*l.Score)
		}
		if err := lt.Append(l.Path, score, strconv.Itoa(l.Findings), strconv.Itoa(l.Ghosts), strconv.Itoa(l.Calls)); err != nil {
			return err
		}
	}
	if err := lt.Render(); err != nil {
		return err
	}
	w.printf("\n")
	return w.err
}

// headerGhosts counts ghosts for the headline. `posture` drops the ghost
// list (its ASI08 findings still cite them), so when the list is empty the
// per-ledger counts, which the audit always fills, are used instead.
func headerGhosts(r *analyze.Result) int {
	if len(r.Ghosts) > 0 {
		return countedGhosts(r)
	}
	n := 0
	for _, l := range r.Ledgers {
		n += l.Ghosts
	}
	return n
}
