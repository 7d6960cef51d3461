package policy

import (
	"testing"
)

// TestBuiltinExamples checks every example of every built-in pack.
func TestBuiltinExamples(t *testing.T) {
	for _, name := range BuiltinNames() {
		p, err := Builtin(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, r := range p.Rules {
			if len(r.Examples.Match) < 3 || len(r.Examples.NoMatch) < 3 {
				t.Errorf("%s/%s: want at least 3 match and 3 no_match examples, have %d/%d", name, r.ID, len(r.Examples.Match), len(r.Examples.NoMatch))
			}
		}
		for _, res := range p.Test() {
			if !res.OK() {
				t.Errorf("%s/%s: %q: want %s, got %s %s", name, res.Rule, res.Example, res.Want, res.Got, res.Matched)
			}
		}
	}
}
