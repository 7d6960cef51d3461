package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ledger-audit/ledger-audit/analyze"
)

// sampleNow is the fixed --now of the sample goldens: the morning after
// the sample week ends.
var sampleNow = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)

// auditSample runs the real audit on samples/week-mixed.db from the
// repository root, so paths in the output read as a user would type them.
func auditSample(t *testing.T) *analyze.Result {
	t.Helper()
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir("..")
	r, err := analyze.Audit([]string{"samples/week-mixed.db"}, analyze.AuditOptions{
		Now: sampleNow, Tool: analyze.ToolInfo{Name: "ledger-audit", Version: "golden"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Dir(testdata))
	return r
}

// TestGoldenWeekMixed pins md, json, sarif and junit on the bundled sample.
func TestGoldenWeekMixed(t *testing.T) {
	r := auditSample(t)
	if len(r.Findings) == 0 {
		t.Fatal("the sample audit found nothing; the goldens would prove little")
	}
	for _, c := range []struct{ format, file string }{
		{"json", "week-mixed.json"},
		{"md", "week-mixed.md"},
		{"sarif", "week-mixed.sarif"},
		{"junit", "week-mixed.junit.xml"},
	} {
		t.Run(c.format, func(t *testing.T) {
			golden(t, c.file, render(t, c.format, Options{}, r))
		})
	}
	t.Run("sarif-schema", func(t *testing.T) {
		validateSARIF(t, compileSARIFSchema(t), render(t, "sarif", Options{}, r))
	})
	t.Run("score-recomputes", func(t *testing.T) {
		// The listed weights reproduce the score, from the JSON alone.
		var doc struct {
			Findings []struct {
				Weight     int  `json:"weight"`
				Suppressed bool `json:"suppressed"`
			} `json:"findings"`
			Score struct{ Score, Penalty int } `json:"score"`
		}
		if err := json.Unmarshal(render(t, "json", Options{}, r), &doc); err != nil {
			t.Fatal(err)
		}
		sum := 0
		for _, f := range doc.Findings {
			if !f.Suppressed {
				sum += f.Weight
			}
		}
		if sum != doc.Score.Penalty || max(0, 100-sum) != doc.Score.Score {
			t.Errorf("weights sum to %d, JSON says penalty %d score %d", sum, doc.Score.Penalty, doc.Score.Score)
		}
	})
}

func TestPDFWeekMixed(t *testing.T) {
	r := auditSample(t)
	var hist []HistoryEntry
	for i, s := range []int{72, 64, 58, 81, 40, 33} {
		at := sampleNow.Add(-time.Duration(6-i) * 24 * time.Hour)
		hist = append(hist, HistoryEntry{Date: at.Format(time.DateOnly), GeneratedAt: at, Score: s})
	}
	hist = append(hist, EntryFor(r))
	data := render(t, "pdf", Options{History: hist}, r)
	if *pdfOut != "" {
		if err := os.WriteFile(*pdfOut+".week-mixed.pdf", data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	checkPDF(t, data, 3, "score "+strconv.Itoa(r.Score.Score)+"/100", r.Findings[0].RuleID, "week-mixed.db", "Score trend")
	if !bytes.Contains(data, []byte("/Title")) {
		t.Error("PDF has no title metadata")
	}
}
