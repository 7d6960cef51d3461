package owasp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ledger-audit/ledger-audit/ledger"
)

func TestExcessiveAgency(t *testing.T) {
	manyFiles := func(n int) func(s *script) {
		return func(s *script) {
			for i := 0; i < n; i++ {
				s.write(fmt.Sprintf("/home/dev/proj/f%d.go", i))
			}
		}
	}
	manyTools := func(n int) func(s *script) {
		return func(s *script) {
			for i := 0; i < n; i++ {
				s.call(fmt.Sprintf("mcp__srv__tool%d", i), map[string]any{}, ledger.StatusConfirmed)
			}
		}
	}
	runCases(t, RuleExcessiveAgency.ID, []ruleCase{
		{name: "61 files", want: 1, build: manyFiles(61), in: "community extension"},
		{name: "9 mutating tools", want: 1, build: manyTools(9)},
		{name: "custom bound", want: 1, opts: Options{AgencyTargets: 5}, build: manyFiles(6)},
		{name: "60 files", build: manyFiles(60)},
		{name: "8 mutating tools", build: manyTools(8)},
		{name: "many reads", build: func(s *script) {
			for i := 0; i < 100; i++ {
				s.call("read_file", map[string]any{"path": fmt.Sprintf("f%d", i)}, ledger.StatusConfirmed)
			}
		}},
	})
	if !strings.Contains(RuleExcessiveAgency.Title, "community extension") || !RuleExcessiveAgency.Category.Extension() {
		t.Error("ASI11 must always be labelled a community extension")
	}
}
