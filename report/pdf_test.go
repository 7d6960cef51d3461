package report

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ledger-audit/ledger-audit/analyze"
)

var pdfOut = flag.String("pdf-out", "", "also write the rendered fixture PDF here, to look at it")

// fixtureHistory is two weeks of daily scores for the trend chart.
func fixtureHistory() []HistoryEntry {
	var h []HistoryEntry
	for i := 13; i >= 1; i-- {
		at := fixtureNow.Add(-time.Duration(i) * 24 * time.Hour)
		h = append(h, HistoryEntry{Date: at.Format(time.DateOnly), GeneratedAt: at, Score: max(0, 92-i*3-(i%3)*11)})
	}
	return append(h, EntryFor(fixtureResult()))
}

// pdfPages counts page objects ("/Type /Page" not followed by "s").
var pdfPageRE = regexp.MustCompile(`/Type /Page[^s]`)

func checkPDF(t *testing.T, data []byte, minPages int, wantText ...string) {
	t.Helper()
	if !bytes.HasPrefix(data, []byte("%PDF-1.")) {
		t.Fatalf("not a PDF: starts with %q", data[:min(8, len(data))])
	}
	if !bytes.Contains(data[max(0, len(data)-64):], []byte("%%EOF")) {
		t.Fatal("PDF has no EOF trailer")
	}
	if n := len(pdfPageRE.FindAll(data, -1)); n < minPages {
		t.Fatalf("PDF has %d pages, want at least %d", n, minPages)
	}
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Logf("pdftotext not installed: skipping the text-extraction assertions (apt-get install poppler-utils)")
		return
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "r.pdf")
	if err := os.WriteFile(in, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdftotext", "-layout", in, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext rejects the PDF: %v", err)
	}
	text := string(out)
	for _, w := range wantText {
		if !strings.Contains(text, w) {
			t.Errorf("PDF text lacks %q", w)
		}
	}
	if strings.Contains(text, "{nb}") {
		t.Error("page-total alias {nb} was not substituted")
	}
}

func TestPDFFixture(t *testing.T) {
	r := fixtureResult()
	data := render(t, "pdf", Options{History: fixtureHistory()}, r)
	if *pdfOut != "" {
		if err := os.WriteFile(*pdfOut, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	checkPDF(t, data, 3,
		"Agent posture report",
		"score "+strconv.Itoa(r.Score.Score)+"/100", // footer
		"/ 100", // the cover figure
		r.Score.Formula,
		"ASI10-SELF-MODIFICATION",
		"/home/zoë/projets/données.txt", // non-ASCII path, from an evidence excerpt
		"page 2 of",
		"Score trend",
		r.TrustModel[:60],
	)
	// The file's dates come from the report clock, never the wall clock.
	// (Whole bytes are not compared: gofpdf's font subsetter iterates a
	// Go map, so glyph order inside the embedded font varies run to run.)
	if !bytes.Contains(data, []byte("/CreationDate (D:20261130080000")) {
		t.Error("PDF CreationDate is not the report's --now")
	}
}

// TestPDFEmptyResult: a clean ledger still makes a valid report (no
// division by zero in the charts, no empty-table glitches).
func TestPDFEmptyResult(t *testing.T) {
	r := &analyze.Result{SchemaVersion: 1, GeneratedAt: fixtureNow, TrustModel: analyze.TrustModel}
	r.Score.Score = 100
	r.Score.Formula = "100 − 0 = 100"
	data := render(t, "pdf", Options{}, r)
	checkPDF(t, data, 2, "100", "No findings.")
}

// TestPDFLongArgumentsWrap: an argument of thousands of characters with no
// spaces must wrap inside its cell (and be capped), not run off the page.
func TestPDFLongArgumentsWrap(t *testing.T) {
	r := fixtureResult()
	r.Findings[0].Evidence[0].Excerpt = strings.Repeat("A", 5000) + " " + strings.Repeat("é", 3000)
	data := render(t, "pdf", Options{}, r)
	checkPDF(t, data, 3, "more lines (full text in the JSON")
}
