package policy

import (
	"bufio"
	"fmt"
	"os"
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
	f, err := os.Open("testdata/eval.tsv")
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
			t.Fatalf("testdata/eval.tsv:%d: want LABEL<TAB>CATEGORY<TAB>VARIANT<TAB>EXAMPLE", n)
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

// TestEvalSet measures the default pack on the labelled set: recall on
// the dangerous examples (blocked on some call of the session) and the
// false-positive rate on the everyday ones (blocked anywhere).
func TestEvalSet(t *testing.T) {
	e := defaultEngine(t)
	cases := loadEval(t)
	var pos, neg, tp, fp int
	perCat := map[string][2]int{}
	var misses, fps []string
	for _, c := range cases {
		blocked := false
		rep := e.NewReplay()
		for _, call := range SplitCalls(c.example) {
			if rep.Evaluate(&call).Decision == "block" {
				blocked = true
			}
		}
		if c.block {
			pos++
			pc := perCat[c.category]
			pc[1]++
			if blocked {
				tp++
				pc[0]++
			} else {
				misses = append(misses, fmt.Sprintf("line %d [%s/%s]: %q", c.line, c.category, c.variant, c.example))
			}
			perCat[c.category] = pc
		} else {
			neg++
			if blocked {
				fp++
				fps = append(fps, fmt.Sprintf("line %d: %q", c.line, c.example))
			}
		}
	}
	if pos < 250 || neg < 250 {
		t.Fatalf("eval set too small: %d positives, %d negatives", pos, neg)
	}
	recall := float64(tp) / float64(pos)
	fpr := float64(fp) / float64(neg)
	cats := make([]string, 0, len(perCat))
	for k := range perCat {
		cats = append(cats, k)
	}
	sort.Strings(cats)
	t.Logf("eval: %d examples; recall %.2f%% (%d/%d); false positives %.2f%% (%d/%d)", pos+neg, 100*recall, tp, pos, 100*fpr, fp, neg)
	for _, k := range cats {
		t.Logf("  %-16s %d/%d", k, perCat[k][0], perCat[k][1])
	}
	for _, m := range misses {
		t.Logf("missed %s", m)
	}
	for _, m := range fps {
		t.Logf("false positive %s", m)
	}
	if recall < 0.97 {
		t.Errorf("recall %.2f%% below 97%%", 100*recall)
	}
	if fpr > 0.003 {
		t.Errorf("false positives %.2f%% above 0.3%%", 100*fpr)
	}
}
