package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/ledger-audit/ledger-audit/analyze"
)

// HistoryFileName is the default history file, created next to the
// (first) ledger. It is never the ledger itself: analysis must not write
// to what it audits.
const HistoryFileName = "ledger-audit-history.jsonl"

// HistoryEntry is one line of the daily history: enough to draw a score
// trend and say "change since yesterday" without keeping whole reports.
type HistoryEntry struct {
	Date        string         `json:"date"` // YYYY-MM-DD (UTC) of GeneratedAt
	GeneratedAt time.Time      `json:"generated_at"`
	Since       time.Time      `json:"since,omitzero"`
	Until       time.Time      `json:"until,omitzero"`
	Ledgers     []string       `json:"ledgers"`
	Score       int            `json:"score"`
	Penalty     int            `json:"penalty"`
	Counts      map[string]int `json:"counts"` // by severity
	Findings    int            `json:"findings"`
	Ghosts      int            `json:"ghosts"`
	Calls       int            `json:"calls"`
	Sessions    int            `json:"sessions"`
}

// EntryFor summarises a Result as a history line.
func EntryFor(r *analyze.Result) HistoryEntry {
	e := HistoryEntry{
		Date: r.GeneratedAt.UTC().Format(time.DateOnly), GeneratedAt: r.GeneratedAt.UTC(),
		Since: r.Window.Since, Until: r.Window.Until,
		Score: r.Score.Score, Penalty: r.Score.Penalty, Counts: map[string]int{},
		Findings: len(activeFindings(r)), Ghosts: countedGhosts(r),
		Calls: r.Summary.Calls, Sessions: sessionCount(r), Ledgers: []string{},
	}
	for k, v := range r.Score.Counts {
		e.Counts[k] = v
	}
	for _, l := range r.Ledgers {
		e.Ledgers = append(e.Ledgers, l.Path)
	}
	return e
}

// DefaultHistoryPath is <dir of ledger>/ledger-audit-history.jsonl.
func DefaultHistoryPath(ledger string) string {
	return filepath.Join(filepath.Dir(ledger), HistoryFileName)
}

// ReadHistory loads a history file, oldest first. A missing file is an
// empty history; a malformed line is an error naming the file and line,
// because a silently shortened trend would mislead.
func ReadHistory(path string) ([]HistoryEntry, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, unwrapPath(err))
	}
	var out []HistoryEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e HistoryEntry
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("%s: line %d: not a history entry: %v", path, n, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].GeneratedAt.Before(out[j].GeneratedAt) })
	return out, nil
}

// AppendHistory adds one line to the history file, creating it (0600)
// when absent. One write of one line with O_APPEND keeps concurrent runs
// from interleaving partial lines.
func AppendHistory(path string, e HistoryEntry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("%s: cannot write history: %v", path, unwrapPath(err))
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("%s: cannot write history: %v", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}

// Daily collapses a history to one entry per date (the latest run of
// each day wins), oldest first: re-running the daily job must not draw a
// saw-tooth trend.
func Daily(h []HistoryEntry) []HistoryEntry {
	var out []HistoryEntry
	for _, e := range h {
		if n := len(out); n > 0 && out[n-1].Date == e.Date {
			out[n-1] = e
			continue
		}
		out = append(out, e)
	}
	return out
}

// Previous returns the latest entry from a day before date, for "change
// since yesterday" (the last report before today, which may be older
// than yesterday when a day was skipped).
func Previous(h []HistoryEntry, date string) (HistoryEntry, bool) {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Date < date {
			return h[i], true
		}
	}
	return HistoryEntry{}, false
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
