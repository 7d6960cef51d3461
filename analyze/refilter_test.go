package analyze

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ledger-audit/ledger-audit/internal/refilter"
	"github.com/ledger-audit/ledger-audit/ledger"
)

// TestPrefilteredPatternsAgree checks every prefiltered pattern the
// analysis compiles (the policy packs', the code extractor's, the posture
// rules') against plain regexp on the policy evaluation corpora and the
// arguments of the sample ledgers: the prefilter may only skip work,
// never change an answer.
func TestPrefilteredPatternsAgree(t *testing.T) {
	if _, err := PostureEngine(); err != nil { // compiles the packs
		t.Fatal(err)
	}
	var texts []string
	files, _ := filepath.Glob("../rules/policy/testdata/*.tsv")
	// Every pattern is run over every text, so the labelled sets (80 k
	// lines and growing) are sampled: every line of eval.tsv, and an
	// evenly spaced, fixed selection of the holdout lines, about
	// maxHoldoutTexts of them.
	const maxHoldoutTexts = 9000
	var holdout []string
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			cols := strings.Split(sc.Text(), "\t")
			if filepath.Base(f) == "eval.tsv" {
				texts = append(texts, cols[len(cols)-1])
			} else {
				holdout = append(holdout, cols[len(cols)-1])
			}
		}
		fh.Close()
	}
	step := max(1, len(holdout)/maxHoldoutTexts)
	for i := 0; i < len(holdout); i += step {
		texts = append(texts, holdout[i])
	}
	samples, _ := filepath.Glob("../samples/*.db")
	for _, s := range samples {
		r, err := ledger.Open(s)
		if err != nil {
			t.Fatal(err)
		}
		r.Scan(ledger.Filter{}, func(rec ledger.Record) error {
			if rec.Call != nil {
				texts = append(texts, rec.Call.Args)
				for _, v := range ledger.DecodeArgs(rec.Call.Args) {
					if s, ok := v.(string); ok {
						texts = append(texts, s)
					}
				}
			}
			return nil
		})
		r.Close()
	}
	if len(files) < 10 || len(texts) < 5000 {
		t.Fatalf("corpus too small: %d files, %d texts", len(files), len(texts))
	}
	pats := refilter.Compiled()
	if len(pats) < 50 {
		t.Fatalf("only %d prefiltered patterns registered", len(pats))
	}
	skipped, matched := 0, 0
	for _, p := range pats {
		plain := regexp.MustCompile(p.String())
		for _, s := range texts {
			want := plain.FindAllStringSubmatchIndex(s, -1)
			got := p.FindAllStringSubmatchIndex(s, -1)
			if !slices.EqualFunc(want, got, slices.Equal) {
				t.Fatalf("%q on %q: prefiltered %v, regexp %v", p.String(), s, got, want)
			}
			if w, g := want != nil, p.MatchString(s); w != g {
				t.Fatalf("%q on %q: MatchString %v, regexp %v", p.String(), s, g, w)
			}
			if want == nil {
				skipped++
			} else {
				matched++
			}
		}
	}
	t.Logf("%d patterns × %d texts: %d matches agree, %d non-matches agree", len(pats), len(texts), matched, skipped)
}
