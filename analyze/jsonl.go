package analyze

import (
	"bufio"
	"encoding/json"
	"io"
	"time"
)

// FindingRow is one line of the JSON Lines export: a finding flattened to
// scalar columns (the primary evidence inlined) so a warehouse can load
// the file without a nested schema — DuckDB's read_json_auto, BigQuery's
// NEWLINE_DELIMITED_JSON with autodetect, Spark's read.json.
type FindingRow struct {
	GeneratedAt    time.Time `json:"generated_at"`
	Ledger         string    `json:"ledger"`
	LedgerScore    *int      `json:"ledger_score"`
	RuleID         string    `json:"rule_id"`
	Category       string    `json:"category"`
	CategoryName   string    `json:"category_name"`
	Severity       string    `json:"severity"`
	Weight         int       `json:"weight"`
	Title          string    `json:"title"`
	Message        string    `json:"message"`
	Fingerprint    string    `json:"fingerprint"`
	Row            int64     `json:"row"`
	CallID         string    `json:"call_id"`
	TS             time.Time `json:"ts"`
	Session        string    `json:"session"`
	Tool           string    `json:"tool"`
	Excerpt        string    `json:"excerpt"`
	Truncated      bool      `json:"truncated"`
	EvidenceRows   []int64   `json:"evidence_rows"` // every row the finding cites, primary first
	Suppressed     bool      `json:"suppressed"`
	SuppressReason string    `json:"suppress_reason"`
}

// WriteJSONL writes one FindingRow per line, in the Result's finding
// order. Every line is complete JSON on its own (no enclosing array), so
// the output can be streamed, split, concatenated across runs and loaded
// in parallel. Every field is always present, so schema inference sees
// the same columns on every line. A finding without evidence keeps the
// ledger empty.
func WriteJSONL(w io.Writer, res *Result) error {
	scores := map[string]*int{}
	for _, l := range res.Ledgers {
		scores[l.Path] = l.Score
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, f := range res.Findings {
		row := FindingRow{
			GeneratedAt: res.GeneratedAt, RuleID: f.RuleID, Category: string(f.Category), CategoryName: f.Category.Name(),
			Severity: f.Severity.String(), Weight: f.Weight, Title: f.Title, Message: f.Message, Fingerprint: f.Fingerprint,
			Suppressed: f.Suppressed, SuppressReason: f.SuppressReason, EvidenceRows: []int64{},
		}
		if len(f.Evidence) > 0 {
			e := f.Evidence[0]
			row.Ledger, row.Row, row.CallID, row.TS, row.Session, row.Tool, row.Excerpt, row.Truncated =
				e.Ledger, e.Row, e.CallID, e.TS, e.Session, e.Tool, e.Excerpt, e.Truncated
			row.LedgerScore = scores[e.Ledger]
		}
		for _, e := range f.Evidence {
			row.EvidenceRows = append(row.EvidenceRows, e.Row)
		}
		if err := enc.Encode(row); err != nil {
			return err
		}
	}
	return bw.Flush()
}
