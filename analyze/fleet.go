package analyze

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// Fleet audits: many ledgers (one per agent, host or user) audited in
// parallel into one merged Result, with a score per ledger and a summary
// of the fleet. Each ledger is still read in one streaming pass; the pool
// bounds how many are open at once, so peak memory is about Jobs times
// that of a single-ledger audit, plus the merged findings.

// FleetOptions tune AuditFleet.
type FleetOptions struct {
	// Jobs is how many ledgers are audited at once; <= 0 means one per
	// CPU core.
	Jobs int
	// KeepGoing skips a ledger that cannot be read, with a warning in the
	// result, instead of failing the whole fleet on it.
	KeepGoing bool
}

// ExpandLedgers turns command-line arguments into ledger paths: a
// directory stands for the *.db files directly inside it, an argument
// with glob metacharacters (* ? [) for the files it matches, anything else
// for itself (a missing file is reported when it is opened). The result
// is sorted and free of duplicates. An empty directory or a pattern that
// matches nothing is an error: an audit of zero ledgers must not pass.
func ExpandLedgers(args []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		p = filepath.Clean(p)
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, a := range args {
		if st, err := os.Stat(a); err == nil && st.IsDir() {
			matches, err := filepath.Glob(filepath.Join(globEscape(a), "*.db"))
			if err != nil {
				return nil, fmt.Errorf("%s: %v", a, err)
			}
			n := 0
			for _, m := range matches {
				if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() {
					add(m)
					n++
				}
			}
			if n == 0 {
				return nil, fmt.Errorf("%s: directory holds no *.db ledger", a)
			}
			continue
		}
		if strings.ContainsAny(a, "*?[") {
			if _, err := os.Stat(a); err == nil {
				add(a) // a real file whose name has a metacharacter
				continue
			}
			matches, err := filepath.Glob(a)
			if err != nil {
				return nil, fmt.Errorf("%s: bad pattern: %v", a, err)
			}
			if len(matches) == 0 {
				return nil, fmt.Errorf("%s: no ledger matches", a)
			}
			for _, m := range matches {
				add(m)
			}
			continue
		}
		add(a)
	}
	sort.Strings(out)
	return out, nil
}

// globEscape quotes a directory name for use inside a glob pattern.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// AuditFleet is Audit run on a worker pool: every ledger is audited on its
// own (the per-ledger step shares no state) and the partial results are
// merged in sorted path order, so the Result is identical to Audit's,
// whatever Jobs is. Without KeepGoing the first unreadable ledger (in
// path order) is the error; with it, unreadable ledgers are skipped and
// named in Result.Warnings, and only a fleet with nothing readable fails.
func AuditFleet(paths []string, o AuditOptions, fo FleetOptions) (*Result, error) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	o.Now = o.Now.UTC()
	if o.Engine == nil {
		e, err := PostureEngine()
		if err != nil {
			return nil, err
		}
		o.Engine = e
	}
	o.Suppressions.reset()
	ps := append([]string(nil), paths...)
	sort.Strings(ps)
	ps = dedupe(ps)
	if len(ps) == 0 {
		return nil, errors.New("no ledger given")
	}
	jobs := fo.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	jobs = min(jobs, len(ps))

	parts := make([]*ledgerAudit, len(ps))
	errs := make([]error, len(ps))
	var (
		mu      sync.Mutex
		next    int
		failed  bool
		wg      sync.WaitGroup
		dispose = func() (int, bool) {
			mu.Lock()
			defer mu.Unlock()
			// Indices go out in order and stop after a failure, so every
			// ledger before the failing one is audited: the reported error
			// is the first in path order, deterministically.
			if next >= len(ps) || (failed && !fo.KeepGoing) {
				return 0, false
			}
			i := next
			next++
			return i, true
		}
	)
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, ok := dispose()
				if !ok {
					return
				}
				part, err := auditLedger(ps[i], o)
				if err != nil {
					mu.Lock()
					errs[i], failed = err, true
					mu.Unlock()
					continue
				}
				parts[i] = part
			}
		}()
	}
	wg.Wait()

	var kept []*ledgerAudit
	var skipped []string
	for i, err := range errs {
		if err == nil {
			if parts[i] != nil {
				kept = append(kept, parts[i])
			}
			continue
		}
		if !fo.KeepGoing {
			return nil, err
		}
		skipped = append(skipped, skipWarning(ps[i], err))
	}
	if len(kept) == 0 {
		if len(skipped) > 0 {
			return nil, fmt.Errorf("no ledger could be read (%d skipped; first: %s)", len(skipped), skipped[0])
		}
		return nil, errors.New("no ledger given")
	}
	res := merge(kept, o)
	res.Warnings = append(skipped, res.Warnings...)
	return res, nil
}

func dedupe(sorted []string) []string {
	out := sorted[:0]
	for i, p := range sorted {
		if i == 0 || p != sorted[i-1] {
			out = append(out, p)
		}
	}
	return out
}

func skipWarning(path string, err error) string {
	msg := err.Error()
	var le *ledger.Error
	if !errors.As(err, &le) {
		msg = path + ": " + msg
	}
	return msg + " (skipped)"
}

// FleetSummary condenses the per-ledger scores of a fleet audit.
type FleetSummary struct {
	Ledgers     int             `json:"ledgers"`
	Calls       int             `json:"calls"`
	Findings    int             `json:"findings"`
	Ghosts      int             `json:"ghosts"`
	ScoreMin    int             `json:"score_min"`
	ScoreMedian int             `json:"score_median"`
	ScoreMean   float64         `json:"score_mean"`
	Bands       []ScoreBand     `json:"bands"`
	Worst       []LedgerSummary `json:"worst"` // lowest scores first, at most FleetWorst
	Skipped     int             `json:"skipped,omitempty"`
}

// ScoreBand counts the ledgers whose score falls in [Min, Max].
type ScoreBand struct {
	Label   string `json:"label"`
	Min     int    `json:"min"`
	Max     int    `json:"max"`
	Ledgers int    `json:"ledgers"`
}

// FleetWorst is how many of the lowest-scoring ledgers a summary lists.
const FleetWorst = 10

// SummarizeFleet computes the fleet summary of a Result: the spread of
// the per-ledger scores (not the merged score, which over a fleet only
// says that something somewhere is wrong) and the ledgers to look at
// first.
func SummarizeFleet(res *Result) FleetSummary {
	fs := FleetSummary{Ledgers: len(res.Ledgers), Bands: []ScoreBand{
		{Label: "90–100", Min: 90, Max: 100}, {Label: "70–89", Min: 70, Max: 89},
		{Label: "50–69", Min: 50, Max: 69}, {Label: "0–49", Min: 0, Max: 49},
	}}
	for _, w := range res.Warnings {
		if strings.HasSuffix(w, " (skipped)") {
			fs.Skipped++
		}
	}
	var scores []int
	for _, l := range res.Ledgers {
		fs.Calls += l.Calls
		fs.Findings += l.Findings
		fs.Ghosts += l.Ghosts
		if l.Score == nil {
			continue
		}
		scores = append(scores, *l.Score)
		for i := range fs.Bands {
			if b := &fs.Bands[i]; *l.Score >= b.Min && *l.Score <= b.Max {
				b.Ledgers++
			}
		}
	}
	if len(scores) > 0 {
		sort.Ints(scores)
		fs.ScoreMin = scores[0]
		fs.ScoreMedian = scores[(len(scores)-1)/2]
		sum := 0
		for _, s := range scores {
			sum += s
		}
		fs.ScoreMean = float64(int(float64(sum)/float64(len(scores))*10+0.5)) / 10
	}
	worst := append([]LedgerSummary(nil), res.Ledgers...)
	sort.SliceStable(worst, func(i, j int) bool {
		a, b := scoreOf(worst[i]), scoreOf(worst[j])
		if a != b {
			return a < b
		}
		return worst[i].Path < worst[j].Path
	})
	fs.Worst = worst[:min(len(worst), FleetWorst)]
	return fs
}

func scoreOf(l LedgerSummary) int {
	if l.Score == nil {
		return 101
	}
	return *l.Score
}
