package policy

import (
	"testing"

	"github.com/ledger-audit/ledger-audit/rules/shell"
)

// TestFeatureMaskOnlySkips: the feature mask (Matcher.need against
// cmdView.features) only saves work. Every matcher it turns away, over
// every command of the labelled set, would not have matched with the
// mask left out.
func TestFeatureMaskOnlySkips(t *testing.T) {
	e := defaultEngine(t)
	skipped, checked := 0, 0
	for _, c := range loadEval(t) {
		st := shell.NewState()
		for _, call := range SplitCalls(c.example) {
			cmds, _, _ := extract(st, call.Tool, call.Args, nil)
			views := make([]*cmdView, len(cmds))
			for i := range cmds {
				views[i] = newView(&cmds[i])
			}
			linkPipes(views)
			for _, v := range views {
				for _, p := range e.packs {
					for _, r := range p.Rules {
						for _, m := range r.Match {
							if len(m.paths) > 0 || m.need == 0 {
								continue
							}
							checked++
							if m.need&^v.features() == 0 {
								continue
							}
							skipped++
							need := m.need
							m.need = 0
							_, ok := m.matchCommandIndexed(v, false)
							m.need = need
							if ok {
								t.Fatalf("eval.tsv:%d: %s matcher turned away by the mask matches %q", c.line, r.ID, v.str)
							}
						}
					}
				}
			}
		}
	}
	if skipped == 0 || skipped == checked {
		t.Fatalf("mask turned away %d of %d matcher checks: the test exercises nothing", skipped, checked)
	}
	t.Logf("mask turned away %d of %d checks of matchers with needs", skipped, checked)
}
