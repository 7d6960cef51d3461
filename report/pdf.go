package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/jung-kurt/gofpdf"
	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/finding"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
)

// pdfReporter renders the report a team lead reads over coffee: a cover
// with the score, a page of charts, then the tables of the Markdown
// report. Fonts are the Go fonts embedded as UTF-8 TrueType, so accented
// paths and commands render as recorded.
type pdfReporter struct{ o Options }

// Page geometry, in millimetres (A4 portrait).
const (
	pdfMargin  = 15.0
	pdfPageW   = 210.0
	pdfPageH   = 297.0
	pdfContent = pdfPageW - 2*pdfMargin
	pdfLineH   = 4.2
	// pdfCellLines caps one table cell so a single enormous argument
	// cannot push a row past a page; the Markdown and JSON keep it whole.
	pdfCellLines = 14
)

type rgb struct{ r, g, b int }

var (
	colCritical = rgb{183, 28, 28}
	colHigh     = rgb{230, 81, 0}
	colMedium   = rgb{249, 168, 37}
	colLow      = rgb{2, 136, 209}
	colGood     = rgb{46, 125, 50}
	colInk      = rgb{33, 33, 33}
	colMuted    = rgb{117, 117, 117}
	colRule     = rgb{200, 200, 200}
	colZebra    = rgb{245, 245, 245}
	colCalls    = rgb{144, 164, 174}
)

func severityRGB(s finding.Severity) rgb {
	switch s {
	case finding.Critical:
		return colCritical
	case finding.High:
		return colHigh
	case finding.Medium:
		return colMedium
	}
	return colLow
}

func bandRGB(score int) rgb {
	switch severityBand(score) {
	case "good":
		return colGood
	case "fair":
		return colMedium
	case "poor":
		return colHigh
	}
	return colCritical
}

// pdfDoc wraps gofpdf with the few drawing helpers the report needs.
type pdfDoc struct {
	*gofpdf.Fpdf
	r   *analyze.Result
	o   Options
	now time.Time
}

func (p *pdfReporter) Render(w io.Writer, r *analyze.Result) error {
	d := newPDFDoc(r, p.o)
	d.cover()
	d.charts()
	d.tables()
	if err := d.Error(); err != nil {
		return fmt.Errorf("rendering PDF: %w", err)
	}
	return d.Output(w)
}

func newPDFDoc(r *analyze.Result, o Options) *pdfDoc {
	f := gofpdf.New("P", "mm", "A4", "")
	// The alias must be set before fonts are added: gofpdf sizes the font
	// subset differently when page totals are substituted.
	f.AliasNbPages("{nb}")
	f.AddUTF8FontFromBytes("go", "", goregular.TTF)
	f.AddUTF8FontFromBytes("go", "B", gobold.TTF)
	f.AddUTF8FontFromBytes("mono", "", gomono.TTF)
	f.SetMargins(pdfMargin, pdfMargin+8, pdfMargin)
	f.SetAutoPageBreak(true, pdfMargin+6)
	d := &pdfDoc{Fpdf: f, r: r, o: o, now: o.now(r)}
	// Fixed dates and a sorted catalog keep the file reproducible for a
	// given --now (gofpdf otherwise emits fonts in map order).
	f.SetCatalogSort(true)
	f.SetCreationDate(d.now)
	f.SetModificationDate(d.now)
	f.SetTitle("ledger-audit report: "+shortLedgerName(r), true)
	f.SetCreator(orDefault(r.Tool.Name, "ledger-audit")+" "+r.Tool.Version, true)
	f.SetHeaderFunc(d.header)
	f.SetFooterFunc(d.footer)
	return d
}

// header and footer frame every page but the cover.
func (d *pdfDoc) header() {
	if d.PageNo() == 1 {
		return
	}
	d.font("", 8, colMuted)
	d.SetXY(pdfMargin, 8)
	d.CellFormat(pdfContent/2, 5, pdfText("ledger-audit · "+shortLedgerName(d.r)), "", 0, "L", false, 0, "")
	d.CellFormat(pdfContent/2, 5, pdfText("generated "+timeText(d.now)), "", 0, "R", false, 0, "")
	d.setDraw(colRule)
	d.Line(pdfMargin, 14, pdfPageW-pdfMargin, 14)
	d.SetXY(pdfMargin, pdfMargin+8)
}

func (d *pdfDoc) footer() {
	d.SetY(-12)
	d.font("", 8, colMuted)
	d.CellFormat(pdfContent*0.7, 5, pdfText(fmt.Sprintf("%s · score %d/100 · generated %s", shortLedgerName(d.r), d.r.Score.Score, timeText(d.now))), "", 0, "L", false, 0, "")
	d.CellFormat(pdfContent*0.3, 5, fmt.Sprintf("page %d of {nb}", d.PageNo()), "", 0, "R", false, 0, "")
}

func (d *pdfDoc) font(style string, size float64, c rgb) {
	d.SetFont("go", style, size)
	d.SetTextColor(c.r, c.g, c.b)
}

func (d *pdfDoc) setFill(c rgb) { d.SetFillColor(c.r, c.g, c.b) }
func (d *pdfDoc) setDraw(c rgb) { d.SetDrawColor(c.r, c.g, c.b) }

// pdfText makes a string safe for gofpdf's UTF-8 path: its width tables
// cover the Basic Multilingual Plane only, so anything beyond (emoji) is
// replaced, and control characters become spaces.
func pdfText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r < 0x20 || r == 0x7f:
			return ' '
		case r > 0xFFFF:
			return '?'
		}
		return r
	}, s)
}

// heading starts a section, on a new page when too little room is left
// for the heading and a few lines under it.
func (d *pdfDoc) heading(title string) {
	if d.GetY() > pdfPageH-60 {
		d.AddPage()
	}
	d.Ln(3)
	d.font("B", 13, colInk)
	d.CellFormat(pdfContent, 8, pdfText(title), "B", 1, "L", false, 0, "")
	d.Ln(2)
}

// para writes a wrapped paragraph.
func (d *pdfDoc) para(text string, size float64, c rgb) {
	d.font("", size, c)
	d.MultiCell(pdfContent, size*0.45, pdfText(text), "", "L", false)
	d.Ln(1.5)
}

func (d *pdfDoc) cover() {
	d.AddPage()
	r := d.r
	band := bandRGB(r.Score.Score)
	// Coloured band across the top: the one thing seen from across a room.
	d.setFill(band)
	d.Rect(0, 0, pdfPageW, 62, "F")
	d.SetTextColor(255, 255, 255)
	d.SetFont("go", "B", 22)
	d.SetXY(pdfMargin, 14)
	d.CellFormat(pdfContent, 10, "Agent posture report", "", 1, "L", false, 0, "")
	d.SetFont("go", "", 11)
	d.SetX(pdfMargin)
	d.MultiCell(pdfContent, 5.5, pdfText(ledgerNames(r)), "", "L", false)
	d.SetX(pdfMargin)
	d.CellFormat(pdfContent, 6, pdfText(rangeText(r.Window)), "", 1, "L", false, 0, "")

	// The score as a large figure.
	d.SetXY(pdfMargin, 74)
	d.font("B", 96, band)
	score := strconv.Itoa(r.Score.Score)
	sw := d.GetStringWidth(score)
	d.CellFormat(sw+2, 36, score, "", 0, "L", false, 0, "")
	d.font("B", 28, colMuted)
	d.SetXY(pdfMargin+sw+4, 94)
	d.CellFormat(40, 14, "/ 100", "", 1, "L", false, 0, "")
	d.SetXY(pdfMargin, 114)
	d.font("B", 14, band)
	d.CellFormat(pdfContent, 8, strings.ToUpper(severityBand(r.Score.Score))+" posture", "", 1, "L", false, 0, "")
	d.font("", 11, colInk)
	d.SetX(pdfMargin)
	d.MultiCell(pdfContent, 6, pdfText("Score: "+r.Score.Formula+fmt.Sprintf("   (raw penalty %d)", r.Score.Penalty)), "", "L", false)

	// Severity band: one coloured box per severity with its count.
	y := 140.0
	bw := (pdfContent - 9) / 4
	for i, s := range finding.Severities {
		x := pdfMargin + float64(i)*(bw+3)
		c := severityRGB(s)
		d.setFill(c)
		d.Rect(x, y, bw, 22, "F")
		d.SetTextColor(255, 255, 255)
		d.SetFont("go", "B", 20)
		d.SetXY(x, y+2)
		d.CellFormat(bw, 10, strconv.Itoa(r.Score.Counts[s.String()]), "", 0, "C", false, 0, "")
		d.SetFont("go", "", 9)
		d.SetXY(x, y+13)
		d.CellFormat(bw, 6, fmt.Sprintf("%s (×%d)", s, s.Weight()), "", 0, "C", false, 0, "")
	}

	// Key facts.
	d.SetXY(pdfMargin, y+30)
	facts := [][2]string{
		{"Tool calls", fmt.Sprintf("%d in %d session(s), %d other events", r.Summary.Calls, sessionCount(r), r.Summary.Events)},
		{"Findings", fmt.Sprintf("%d counted, %d suppressed", len(activeFindings(r)), r.Score.Suppressed)},
		{"Ghost calls", fmt.Sprintf("%d counted, %d revived", countedGhosts(r), len(r.Ghosts)-countedGhosts(r))},
	}
	if r.Policy != nil {
		facts = append(facts, [2]string{"Policy replay", fmt.Sprintf("would block %d, would warn %d", r.Policy.Blocked, r.Policy.Warned)})
	}
	if r.Loops != nil {
		facts = append(facts, [2]string{"Loops", fmt.Sprintf("%d detected", len(r.Loops.Loops))})
	}
	facts = append(facts,
		[2]string{"Generated", timeText(d.now) + " by " + orDefault(r.Tool.Name, "ledger-audit") + " " + r.Tool.Version},
		[2]string{"Evidence", map[bool]string{true: "secrets redacted", false: "NOT redacted (--no-redact)"}[r.Redacted]},
	)
	for _, f := range facts {
		d.SetX(pdfMargin)
		d.font("B", 10, colInk)
		d.CellFormat(35, 6.5, f[0], "", 0, "L", false, 0, "")
		d.font("", 10, colInk)
		d.MultiCell(pdfContent-35, 6.5, pdfText(f[1]), "", "L", false)
	}

	// Trust model at the foot of the cover: the caveat travels with the
	// number.
	d.SetXY(pdfMargin, pdfPageH-62)
	d.setDraw(colRule)
	d.Line(pdfMargin, d.GetY(), pdfPageW-pdfMargin, d.GetY())
	d.Ln(3)
	d.font("B", 10, colInk)
	d.CellFormat(pdfContent, 6, "Trust model", "", 1, "L", false, 0, "")
	d.para(r.TrustModel, 9.5, colInk)
}

func (d *pdfDoc) tables() {
	r := d.r
	d.heading("Score by OWASP category")
	var rows [][]string
	ext := false
	for _, c := range r.Score.Categories {
		name := c.Name
		if c.Extension {
			ext = true
		}
		rows = append(rows, []string{string(c.Category), name, strconv.Itoa(c.Findings), strconv.Itoa(c.Penalty)})
	}
	d.table([]pdfCol{{"Category", 22, false, "L"}, {"Name", 118, false, "L"}, {"Findings", 20, false, "R"}, {"Penalty", 20, false, "R"}}, rows, nil)
	if ext {
		d.para("ASI11 Excessive Agency is a community extension: the official OWASP Top 10 for Agentic Applications (2026) ends at ASI10.", 8.5, colMuted)
	}

	d.heading(fmt.Sprintf("Ghost calls (%d counted, %d revived)", countedGhosts(r), len(r.Ghosts)-countedGhosts(r)))
	if len(r.Ghosts) == 0 {
		d.para("No ghost calls: every tracked state-changing call has an outcome.", 10, colInk)
	} else {
		rows = rows[:0]
		for _, g := range r.Ghosts {
			note := strings.Join(g.Evidence, "; ")
			if g.NearCompaction {
				note = strings.TrimPrefix(note+"; near a compaction", "; ")
			}
			args := g.Args
			if note != "" {
				args += "\n→ " + note
			}
			rows = append(rows, []string{string(g.Class), timeText(g.IssuedAt) + "\nrow " + strconv.FormatInt(g.Row, 10), g.Session + "\n" + g.Tool, args})
		}
		d.table([]pdfCol{{"Class", 17, false, "L"}, {"Issued", 33, false, "L"}, {"Session / tool", 35, false, "L"}, {"Arguments", 95, true, "L"}}, rows, nil)
	}

	d.heading(fmt.Sprintf("Findings (%d)", len(r.Findings)))
	if len(r.Findings) == 0 {
		d.para("No findings.", 10, colInk)
	}
	for _, g := range groupByCategory(r.Findings) {
		title := fmt.Sprintf("%s %s: %d finding(s), penalty %d", g.Category, g.Name, len(g.Findings), g.Penalty)
		d.subheading(title)
		rows = rows[:0]
		var sevs []finding.Severity
		for _, f := range g.Findings {
			ev := primary(f)
			sev := f.Severity.String()
			if f.Suppressed {
				sev += "\n(suppressed)"
			}
			evidence := ev.Excerpt
			for _, e := range f.Evidence[min(1, len(f.Evidence)):] {
				evidence += fmt.Sprintf("\n+ row %d %s: %s", e.Row, e.Tool, e.Excerpt)
			}
			rows = append(rows, []string{sev, f.RuleID + "\n" + f.Message, timeText(ev.TS) + "\n" + ev.Session + " · " + ev.Tool + "\nrow " + strconv.FormatInt(ev.Row, 10), evidence})
			sevs = append(sevs, f.Severity)
		}
		d.table([]pdfCol{{"Severity", 23, false, "L"}, {"Rule / message", 54, false, "L"}, {"When / where", 38, false, "L"}, {"Evidence", 65, true, "L"}}, rows, func(i, col int) (rgb, bool) {
			if col == 0 {
				return severityRGB(sevs[i]), true
			}
			return rgb{}, false
		})
	}

	if p := r.Policy; p != nil {
		d.heading(fmt.Sprintf("Policy replay: would block %d, would warn %d", p.Blocked, p.Warned))
		d.para("Packs: "+strings.Join(p.Packs, ", ")+". Dry run over the ledger; nothing was modified.", 9, colMuted)
		rows = rows[:0]
		for _, h := range p.Hits {
			reason := h.Reason
			if len(h.Notes) > 0 {
				reason += " (" + strings.Join(h.Notes, ", ") + ")"
			}
			rows = append(rows, []string{h.Action, h.RuleID + "\n" + reason, timeText(h.TS) + "\n" + h.Session + " · " + h.Tool, h.Matched})
		}
		d.table([]pdfCol{{"Action", 15, false, "L"}, {"Rule / reason", 60, false, "L"}, {"When / where", 40, false, "L"}, {"Matched", 65, true, "L"}}, rows, nil)
	}

	if l := r.Loops; l != nil {
		d.heading(fmt.Sprintf("Loop waste (%d loop(s), guardrails from %s)", len(l.Loops), l.Config.Source))
		rows = rows[:0]
		for _, lp := range l.Loops {
			waste := fmt.Sprintf("%d calls, %s wall, %d LLM calls\n%s input tokens (%s cache read), %s output",
				lp.Waste.Calls, secondsText(lp.Waste.WallSeconds), lp.Waste.LLMCalls, analyze.GroupDigits(lp.Waste.TokensIn), analyze.GroupDigits(lp.Waste.TokensCacheRead), analyze.GroupDigits(lp.Waste.TokensOut))
			stop := fmt.Sprintf("warn at %s, stop at %s\nunfixed: warn %s, stop %s\nsaved: %d calls, %s, %s tokens",
				callAt(lp.WarnAt), callAt(lp.HardStopAt), callAt(lp.UnfixedWarnAt), callAt(lp.UnfixedHardStopAt),
				lp.SavedIfStopped.Calls, secondsText(lp.SavedIfStopped.WallSeconds), analyze.GroupDigits(lp.SavedIfStopped.TokensIn))
			rows = append(rows, []string{lp.Kind + "\n" + lp.Tool, lp.Session + "\n" + timeText(lp.Start) + "\n→ " + timeText(lp.End), waste, stop})
		}
		if len(rows) == 0 {
			d.para("No loops detected.", 10, colInk)
		} else {
			d.table([]pdfCol{{"Loop", 38, false, "L"}, {"Session / span", 38, false, "L"}, {"Waste", 52, false, "L"}, {"Guardrail replay", 52, false, "L"}}, rows, nil)
		}
	}

	if len(r.Warnings) > 0 {
		d.heading("Warnings")
		for _, w := range r.Warnings {
			d.para("• "+w, 9, colInk)
		}
	}

	d.heading("Trust model and methodology")
	d.para(r.TrustModel, 10, colInk)
	d.para("Score = max(0, 100 − Σ weight) over the findings that are not suppressed, with weights CRITICAL 25, HIGH 15, MEDIUM 8, LOW 3. "+
		"Findings are never deduplicated: ten recursive deletes are ten findings. To recompute by hand from the JSON report, add the weight of every finding whose suppressed flag is not set and subtract the sum from 100 (floor 0): "+
		r.Score.Formula+".", 10, colInk)
}

func callAt(n int) string {
	if n == 0 {
		return "never"
	}
	return "call " + strconv.Itoa(n)
}

func (d *pdfDoc) subheading(title string) {
	if d.GetY() > pdfPageH-50 {
		d.AddPage()
	}
	d.Ln(1)
	d.font("B", 10.5, colInk)
	d.MultiCell(pdfContent, 6, pdfText(title), "", "L", false)
	d.Ln(0.5)
}

// pdfCol is one table column.
type pdfCol struct {
	title string
	width float64
	mono  bool
	align string
}

// table draws rows with wrapped cells; a row that does not fit on the
// page moves to the next page with the header repeated, so a cell never
// straddles a page break. cellColor may colour one cell's text.
func (d *pdfDoc) table(cols []pdfCol, rows [][]string, cellColor func(row, col int) (rgb, bool)) {
	const pad = 1.2
	drawHeader := func() {
		d.font("B", 8.5, colInk)
		d.setFill(rgb{230, 230, 230})
		x := pdfMargin
		for _, c := range cols {
			d.SetXY(x, d.GetY())
			d.CellFormat(c.width, 6, pdfText(c.title), "", 0, c.align, true, 0, "")
			x += c.width
		}
		d.Ln(6)
	}
	drawHeader()
	_, pageH := d.GetPageSize()
	_, _, _, bottom := d.GetMargins()
	limit := pageH - bottom - 8
	for i, row := range rows {
		lines := make([][]string, len(cols))
		n := 1
		for j, c := range cols {
			d.cellFont(c)
			var ls []string
			for _, para := range strings.Split(pdfText(row[j]), "\n") {
				if para == "" {
					ls = append(ls, "")
					continue
				}
				ls = append(ls, d.SplitText(para, c.width-2*pad+2*d.GetCellMargin())...)
			}
			if len(ls) > pdfCellLines {
				// The note is wrapped like any text so it cannot overflow a
				// narrow column either.
				note := d.SplitText("… "+strconv.Itoa(len(ls)-pdfCellLines+1)+" more lines (full text in the JSON report)", c.width-2*pad+2*d.GetCellMargin())
				ls = append(ls[:pdfCellLines-len(note)], note...)
			}
			lines[j] = ls
			n = max(n, len(ls))
		}
		h := float64(n)*pdfLineH + 2*pad
		if d.GetY()+h > limit {
			d.AddPage()
			drawHeader()
		}
		y := d.GetY()
		if i%2 == 1 {
			d.setFill(colZebra)
			d.Rect(pdfMargin, y, pdfContent, h, "F")
		}
		x := pdfMargin
		for j, c := range cols {
			d.cellFont(c)
			if cellColor != nil {
				if col, ok := cellColor(i, j); ok {
					d.SetFont("go", "B", 8)
					d.SetTextColor(col.r, col.g, col.b)
				}
			}
			for k, l := range lines[j] {
				d.SetXY(x+pad-d.GetCellMargin(), y+pad+float64(k)*pdfLineH)
				d.CellFormat(c.width-2*pad+2*d.GetCellMargin(), pdfLineH, l, "", 0, c.align, false, 0, "")
			}
			x += c.width
		}
		d.setDraw(colRule)
		d.Line(pdfMargin, y+h, pdfMargin+pdfContent, y+h)
		d.SetXY(pdfMargin, y+h)
	}
	d.Ln(2)
}

func (d *pdfDoc) cellFont(c pdfCol) {
	if c.mono {
		d.SetFont("mono", "", 7.5)
	} else {
		d.SetFont("go", "", 8)
	}
	d.SetTextColor(colInk.r, colInk.g, colInk.b)
}
