package report

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/jung-kurt/gofpdf"
	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/finding"
)

// charts draws the second page: severity and category bars, the activity
// timeline with findings and ghosts marked, and the score trend when a
// history exists. Everything is gofpdf primitives, no images, so the
// charts stay sharp and the file small.
func (d *pdfDoc) charts() {
	d.AddPage()
	d.heading("Findings by severity")
	d.severityBars()
	d.ensure(12 + 7.5*float64(len(d.r.Score.Categories)))
	d.heading("Findings by OWASP category")
	d.categoryBars()
	d.ensure(90)
	d.heading("Tool calls over time")
	d.timeline()
	if len(d.o.History) > 0 {
		d.ensure(60)
	}
	d.heading("Score trend")
	d.trend()
}

// ensure starts a new page when h millimetres do not fit.
func (d *pdfDoc) ensure(h float64) {
	if d.GetY()+h > pdfPageH-pdfMargin-10 {
		d.AddPage()
	}
}

// hbars draws labelled horizontal bars scaled to the largest value.
func (d *pdfDoc) hbars(labels []string, values []int, notes []string, colors []rgb) {
	const labelW, rowH, barH = 62.0, 7.5, 5.0
	d.ensure(float64(len(labels))*rowH + 4)
	maxV := 1
	for _, v := range values {
		maxV = max(maxV, v)
	}
	barMax := pdfContent - labelW - 40
	y := d.GetY() + 1
	for i, l := range labels {
		d.font("", 9, colInk)
		d.SetXY(pdfMargin, y)
		d.CellFormat(labelW, barH, pdfText(clip(l, 44)), "", 0, "L", false, 0, "")
		w := barMax * float64(values[i]) / float64(maxV)
		if values[i] > 0 {
			d.setFill(colors[i])
			d.Rect(pdfMargin+labelW, y, math.Max(w, 0.8), barH, "F")
		}
		d.font("B", 9, colInk)
		d.SetXY(pdfMargin+labelW+w+2, y)
		d.CellFormat(38, barH, pdfText(strconv.Itoa(values[i])+notes[i]), "", 0, "L", false, 0, "")
		y += rowH
	}
	d.setDraw(colRule)
	d.Line(pdfMargin+labelW, d.GetY(), pdfMargin+labelW, y-rowH+barH+1)
	d.SetXY(pdfMargin, y+2)
}

func (d *pdfDoc) severityBars() {
	var labels, notes []string
	var values []int
	var colors []rgb
	for _, s := range finding.Severities {
		n := d.r.Score.Counts[s.String()]
		labels = append(labels, fmt.Sprintf("%s (weight %d)", s, s.Weight()))
		values = append(values, n)
		notes = append(notes, fmt.Sprintf("  (−%d)", n*s.Weight()))
		colors = append(colors, severityRGB(s))
	}
	d.hbars(labels, values, notes, colors)
}

func (d *pdfDoc) categoryBars() {
	var labels, notes []string
	var values []int
	var colors []rgb
	worst := map[finding.Category]finding.Severity{}
	for _, f := range activeFindings(d.r) {
		worst[f.Category] = max(worst[f.Category], f.Severity)
	}
	ext := false
	for _, c := range d.r.Score.Categories {
		name := string(c.Category) + " " + c.Name
		if c.Extension {
			name = string(c.Category) + " Excessive Agency (ext.)"
			ext = true
		}
		labels = append(labels, name)
		values = append(values, c.Findings)
		notes = append(notes, fmt.Sprintf("  (−%d)", c.Penalty))
		col := colCalls
		if s, ok := worst[c.Category]; ok {
			col = severityRGB(s)
		}
		colors = append(colors, col)
	}
	d.hbars(labels, values, notes, colors)
	if ext {
		d.para("Bars are coloured by the worst severity in the category. ASI11 is a community extension, not part of the official OWASP list.", 8, colMuted)
	}
}

// timeline draws the call histogram (errors stacked in red) with a strip
// of finding markers (triangles, by severity) and ghost markers (circles)
// on the same time axis.
func (d *pdfDoc) timeline() {
	const chartH, stripH, axisH = 36.0, 12.0, 10.0
	d.ensure(chartH + stripH + axisH + 12)
	r := d.r
	buckets := r.Summary.Timeline
	start, end := timelineSpan(r)
	if !start.Before(end) {
		d.para("No timestamps to plot.", 10, colMuted)
		return
	}
	x0, y0 := pdfMargin+12, d.GetY()+2
	w := pdfContent - 14
	span := end.Sub(start).Seconds()
	xOf := func(t time.Time) float64 {
		f := t.Sub(start).Seconds() / span
		return x0 + w*math.Min(1, math.Max(0, f))
	}
	maxCalls := 1
	for _, b := range buckets {
		maxCalls = max(maxCalls, b.Calls)
	}
	// Round the axis up to a multiple of 4 so the quarter grid lines get
	// whole-number labels.
	maxCalls = (maxCalls + 3) / 4 * 4
	// Axes and a light grid.
	d.setDraw(colRule)
	d.SetLineWidth(0.2)
	for i := 0; i <= 4; i++ {
		y := y0 + chartH - chartH*float64(i)/4
		d.Line(x0, y, x0+w, y)
		d.font("", 6.5, colMuted)
		d.SetXY(pdfMargin-2, y-2)
		d.CellFormat(13, 4, strconv.Itoa(maxCalls*i/4), "", 0, "R", false, 0, "")
	}
	for _, b := range buckets {
		bx := xOf(b.Start)
		bw := math.Max(0.4, xOf(b.Start.Add(time.Duration(b.Width)))-bx-0.3)
		h := chartH * float64(b.Calls) / float64(maxCalls)
		d.setFill(colCalls)
		d.Rect(bx, y0+chartH-h, bw, h, "F")
		if b.Errors > 0 {
			eh := chartH * float64(b.Errors) / float64(maxCalls)
			d.setFill(colCritical)
			d.Rect(bx, y0+chartH-eh, bw, eh, "F")
		}
	}
	if len(buckets) == 0 {
		d.font("", 8, colMuted)
		d.SetXY(x0, y0+chartH/2-3)
		d.CellFormat(w, 6, "(this result carries no call histogram; markers only)", "", 0, "C", false, 0, "")
	}
	// Marker strip: findings above, ghosts below.
	sy := y0 + chartH + 2
	d.setFill(rgb{250, 250, 250})
	d.Rect(x0, sy, w, stripH, "F")
	for _, f := range r.Findings {
		if f.Suppressed || len(f.Evidence) == 0 {
			continue
		}
		x := xOf(f.Evidence[0].TS)
		c := severityRGB(f.Severity)
		d.setFill(c)
		d.Polygon([]gofpdf.PointType{{X: x, Y: sy + 1}, {X: x - 1.4, Y: sy + 4}, {X: x + 1.4, Y: sy + 4}}, "F")
	}
	for _, g := range r.Ghosts {
		x := xOf(g.IssuedAt)
		d.SetLineWidth(0.4)
		if g.Class == analyze.ClassRevived {
			d.setDraw(colMuted)
			d.Circle(x, sy+8.5, 1.3, "D")
		} else {
			d.setDraw(colInk)
			d.setFill(colInk)
			d.Circle(x, sy+8.5, 1.3, "FD")
		}
	}
	d.SetLineWidth(0.2)
	// Time axis labels: start, end and three in between.
	ay := sy + stripH + 1
	d.font("", 6.5, colMuted)
	layout := "01-02 15:04"
	for i := 0; i <= 4; i++ {
		t := start.Add(time.Duration(float64(end.Sub(start)) * float64(i) / 4))
		x := x0 + w*float64(i)/4
		align, lx := "C", x-12
		switch i {
		case 0:
			align, lx = "L", x
		case 4:
			align, lx = "R", x-24
		}
		d.SetXY(lx, ay)
		d.CellFormat(24, 4, t.UTC().Format(layout), "", 0, align, false, 0, "")
	}
	// Legend.
	ly := ay + 5
	d.SetXY(x0, ly)
	d.legendBox(colCalls, "calls")
	d.legendBox(colCritical, "errors")
	d.legendTri(colCritical, "finding (by severity)")
	d.legendDot(true, "ghost / stale")
	d.legendDot(false, "revived")
	d.SetXY(pdfMargin, ly+7)
}

func (d *pdfDoc) legendBox(c rgb, label string) {
	x, y := d.GetX(), d.GetY()
	d.setFill(c)
	d.Rect(x, y+0.8, 3, 3, "F")
	d.font("", 7.5, colInk)
	d.SetXY(x+4, y)
	d.CellFormat(d.GetStringWidth(label)+5, 4.5, label, "", 0, "L", false, 0, "")
}

func (d *pdfDoc) legendTri(c rgb, label string) {
	x, y := d.GetX(), d.GetY()
	d.setFill(c)
	d.Polygon([]gofpdf.PointType{{X: x + 1.5, Y: y + 0.8}, {X: x, Y: y + 3.8}, {X: x + 3, Y: y + 3.8}}, "F")
	d.font("", 7.5, colInk)
	d.SetXY(x+4, y)
	d.CellFormat(d.GetStringWidth(label)+5, 4.5, label, "", 0, "L", false, 0, "")
}

func (d *pdfDoc) legendDot(filled bool, label string) {
	x, y := d.GetX(), d.GetY()
	d.SetLineWidth(0.4)
	if filled {
		d.setDraw(colInk)
		d.setFill(colInk)
		d.Circle(x+1.5, y+2.3, 1.3, "FD")
	} else {
		d.setDraw(colMuted)
		d.Circle(x+1.5, y+2.3, 1.3, "D")
	}
	d.SetLineWidth(0.2)
	d.font("", 7.5, colInk)
	d.SetXY(x+4, y)
	d.CellFormat(d.GetStringWidth(label)+5, 4.5, label, "", 0, "L", false, 0, "")
}

// timelineSpan is the x range: the histogram's buckets when present,
// widened to include every finding and ghost, else the audited window.
func timelineSpan(r *analyze.Result) (time.Time, time.Time) {
	var start, end time.Time
	widen := func(a, b time.Time) {
		if a.IsZero() {
			return
		}
		if start.IsZero() || a.Before(start) {
			start = a
		}
		if b.After(end) {
			end = b
		}
	}
	for _, b := range r.Summary.Timeline {
		widen(b.Start, b.Start.Add(time.Duration(b.Width)))
	}
	for _, f := range r.Findings {
		if len(f.Evidence) > 0 {
			widen(f.Evidence[0].TS, f.Evidence[0].TS)
		}
	}
	for _, g := range r.Ghosts {
		widen(g.IssuedAt, g.IssuedAt)
	}
	widen(r.Window.First, r.Window.Last)
	if !start.IsZero() && !end.After(start) {
		end = start.Add(time.Minute)
	}
	return start, end
}

// trend draws the daily score history as a line (0–100), one point per
// day, the latest labelled.
func (d *pdfDoc) trend() {
	h := Daily(d.o.History)
	if len(h) == 0 {
		d.para("No history yet: `ledger-audit daily` appends one line per run to a history file, and this chart shows the trend from the second day on.", 9, colMuted)
		return
	}
	const chartH = 32.0
	d.ensure(chartH + 14)
	x0, y0 := pdfMargin+12, d.GetY()+2
	w := pdfContent - 18
	d.setDraw(colRule)
	d.SetLineWidth(0.2)
	for _, v := range []int{0, 25, 50, 75, 100} {
		y := y0 + chartH - chartH*float64(v)/100
		d.Line(x0, y, x0+w, y)
		d.font("", 6.5, colMuted)
		d.SetXY(pdfMargin-2, y-2)
		d.CellFormat(13, 4, strconv.Itoa(v), "", 0, "R", false, 0, "")
	}
	xOf := func(i int) float64 {
		if len(h) == 1 {
			return x0 + w/2
		}
		return x0 + w*float64(i)/float64(len(h)-1)
	}
	yOf := func(s int) float64 { return y0 + chartH - chartH*float64(s)/100 }
	d.SetLineWidth(0.6)
	d.setDraw(colInk)
	for i := 1; i < len(h); i++ {
		d.Line(xOf(i-1), yOf(h[i-1].Score), xOf(i), yOf(h[i].Score))
	}
	step := max(1, len(h)/8)
	for i, e := range h {
		c := bandRGB(e.Score)
		d.setFill(c)
		d.setDraw(c)
		d.Circle(xOf(i), yOf(e.Score), 1.1, "F")
		if i%step == 0 || i == len(h)-1 {
			d.font("", 6.5, colMuted)
			d.SetXY(xOf(i)-10, y0+chartH+1)
			d.CellFormat(20, 4, e.Date[min(5, len(e.Date)):], "", 0, "C", false, 0, "")
		}
	}
	last := h[len(h)-1]
	d.font("B", 8, colInk)
	d.SetXY(math.Min(xOf(len(h)-1)+2, x0+w-8), yOf(last.Score)-5)
	d.CellFormat(10, 4, strconv.Itoa(last.Score), "", 0, "L", false, 0, "")
	d.SetLineWidth(0.2)
	d.SetXY(pdfMargin, y0+chartH+7)
	d.para(fmt.Sprintf("%d day(s) of history, %s to %s.", len(h), h[0].Date, last.Date), 8, colMuted)
}
