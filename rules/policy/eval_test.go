package policy

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// evalCase is one labelled example of testdata/eval.tsv.
type evalCase struct {
	line     int
	block    bool
	category string
	variant  string
	example  string
}

func loadEval(t testing.TB) []evalCase {
	t.Helper()
	return loadEvalFile(t, "testdata/eval.tsv")
}

// loadEvalFile reads one labelled file in the eval.tsv format.
func loadEvalFile(t testing.TB, path string) []evalCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []evalCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		cols := strings.SplitN(l, "\t", 4)
		if len(cols) != 4 || (cols[0] != "A" && cols[0] != "B") {
			t.Fatalf("%s:%d: want LABEL<TAB>CATEGORY<TAB>VARIANT<TAB>EXAMPLE", path, n)
		}
		out = append(out, evalCase{line: n, block: cols[0] == "B", category: cols[1], variant: cols[2], example: unescapeEval(cols[3])})
	}
	return out
}

// unescapeEval decodes \n, \t and \\; other backslashes are literal.
func unescapeEval(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case 'n':
				b.WriteByte('\n')
				i++
				continue
			case 't':
				b.WriteByte('\t')
				i++
				continue
			case '\\':
				b.WriteByte('\\')
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// evalScore is the outcome of one labelled set: positives blocked (tp of
// pos) and negatives blocked (fp of neg), per category, with the
// examples that went wrong.
type evalScore struct {
	pos, neg, tp, fp int
	perCat           map[string][2]int
	misses, fps      []string
}

func (s evalScore) recall() float64 { return float64(s.tp) / float64(max(s.pos, 1)) }
func (s evalScore) fpr() float64    { return float64(s.fp) / float64(max(s.neg, 1)) }

// scoreEval runs every example as one session: a positive counts when
// some call of it is blocked, a negative is a false positive when any
// call is blocked (warnings are neither).
func scoreEval(e *Engine, name string, cases []evalCase) evalScore {
	s := evalScore{perCat: map[string][2]int{}}
	for _, c := range cases {
		blocked := false
		var by []string // the rules that blocked, for the report
		rep := e.NewReplay()
		for _, call := range SplitCalls(c.example) {
			if d := rep.Evaluate(&call); d.Decision == "block" {
				blocked = true
				for _, h := range d.Hits {
					if h.Action == ActionBlock {
						by = append(by, h.RuleID)
					}
				}
			}
		}
		if c.block {
			s.pos++
			pc := s.perCat[c.category]
			pc[1]++
			if blocked {
				s.tp++
				pc[0]++
			} else {
				s.misses = append(s.misses, fmt.Sprintf("%s:%d [%s/%s]: %q", name, c.line, c.category, c.variant, c.example))
			}
			s.perCat[c.category] = pc
		} else {
			s.neg++
			if blocked {
				s.fp++
				s.fps = append(s.fps, fmt.Sprintf("%s:%d (%s): %q", name, c.line, strings.Join(by, ","), c.example))
			}
		}
	}
	return s
}

func (s *evalScore) add(o evalScore) {
	s.pos += o.pos
	s.neg += o.neg
	s.tp += o.tp
	s.fp += o.fp
	s.misses = append(s.misses, o.misses...)
	s.fps = append(s.fps, o.fps...)
	if s.perCat == nil {
		s.perCat = map[string][2]int{}
	}
	for k, v := range o.perCat {
		pc := s.perCat[k]
		s.perCat[k] = [2]int{pc[0] + v[0], pc[1] + v[1]}
	}
}

func (s evalScore) log(t *testing.T, name string) {
	t.Helper()
	t.Logf("%s: %d examples; recall %.2f%% (%d/%d); false positives %.2f%% (%d/%d)", name, s.pos+s.neg, 100*s.recall(), s.tp, s.pos, 100*s.fpr(), s.fp, s.neg)
	cats := make([]string, 0, len(s.perCat))
	for k := range s.perCat {
		cats = append(cats, k)
	}
	sort.Strings(cats)
	for _, k := range cats {
		t.Logf("  %-16s %d/%d", k, s.perCat[k][0], s.perCat[k][1])
	}
	for _, m := range s.misses {
		t.Logf("missed %s", m)
	}
	for _, m := range s.fps {
		t.Logf("false positive %s", m)
	}
}

// TestEvalSet measures the default pack on the labelled set: recall on
// the dangerous examples (blocked on some call of the session) and the
// false-positive rate on the everyday ones (blocked anywhere).
func TestEvalSet(t *testing.T) {
	e := defaultEngine(t)
	s := scoreEval(e, "eval.tsv", loadEval(t))
	if s.pos < 250 || s.neg < 250 {
		t.Fatalf("eval set too small: %d positives, %d negatives", s.pos, s.neg)
	}
	s.log(t, "eval")
	if s.recall() < 0.97 {
		t.Errorf("recall %.2f%% below 97%%", 100*s.recall())
	}
	if s.fpr() > 0.003 {
		t.Errorf("false positives %.2f%% above 0.3%%", 100*s.fpr())
	}
}

// TestHoldoutSets reports the default pack on the held-out batches
// (testdata/holdout-*.tsv), each written before the engine was tuned on
// it; README.md records their first-pass numbers. Once tuned they stay
// as regression sets, so the same targets apply to their union.
func TestHoldoutSets(t *testing.T) {
	files, err := filepath.Glob("testdata/holdout-*.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/holdout-*.tsv")
	}
	// holdout-2 before holdout-10: rounds in order.
	sort.Slice(files, func(i, j int) bool {
		if len(files[i]) != len(files[j]) {
			return len(files[i]) < len(files[j])
		}
		return files[i] < files[j]
	})
	e := defaultEngine(t)
	var all evalScore
	for _, f := range files {
		name := filepath.Base(f)
		s := scoreEval(e, name, loadEvalFile(t, f))
		t.Logf("%s: recall %.2f%% (%d/%d); false positives %.2f%% (%d/%d)", name, 100*s.recall(), s.tp, s.pos, 100*s.fpr(), s.fp, s.neg)
		all.add(s)
	}
	all.log(t, "holdout total")
	if all.recall() < 0.97 {
		t.Errorf("held-out recall %.2f%% below 97%%", 100*all.recall())
	}
	if all.fpr() > 0.003 {
		t.Errorf("held-out false positives %.2f%% above 0.3%%", 100*all.fpr())
	}
}

// TestEvalFile reports the default pack on one labelled file named by
// POLICY_EVAL_FILE: the first pass over a new held-out batch, before it
// joins the gated sets (skipped when the variable is not set).
func TestEvalFile(t *testing.T) {
	f := os.Getenv("POLICY_EVAL_FILE")
	if f == "" {
		t.Skip("POLICY_EVAL_FILE is not set")
	}
	s := scoreEval(defaultEngine(t), filepath.Base(f), loadEvalFile(t, f))
	s.log(t, filepath.Base(f))
}
