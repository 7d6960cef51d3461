package policy

import (
	"os"
	"strings"
	"testing"
)

func TestZZExplain(t *testing.T) {
	ex := os.Getenv("POLICY_EXPLAIN")
	if ex == "" {
		t.Skip()
	}
	e := defaultEngine(t)
	for _, line := range strings.Split(ex, "\n@@\n") {
		rep := e.NewReplay()
		for _, c := range SplitCalls(unescapeEval(line)) {
			d := rep.Evaluate(&c)
			for _, l := range d.Explain() {
				t.Log(l)
			}
		}
		t.Log("-----")
	}
}
