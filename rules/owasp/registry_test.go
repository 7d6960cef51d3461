package owasp

import (
	"strings"
	"testing"

	"github.com/ledger-audit/ledger-audit/finding"
)

// testedBy maps each rule to its table test; a rule added without one
// fails here.
var testedBy = map[string]string{
	RuleOversizedArgs.ID: "TestOversizedArgs", RuleExfilChain.ID: "TestExfilChain", RuleMassEdit.ID: "TestMassEdit",
	RuleDynamicCode.ID: "TestDynamicCode",
	RuleErrorStreak.ID: "TestErrorStreak", RuleRetryStorm.ID: "TestRetryStorm", RuleErrorCascade.ID: "TestErrorCascade",
	RuleGhostScheduler.ID: "TestGhostFinding", RuleGhostCall.ID: "TestGhostFinding", RuleStaleCall.ID: "TestGhostFinding",
	RuleActionRate.ID: "TestActionRate", RuleFanOut.ID: "TestDelegationFanOut", RuleSecretExfil.ID: "TestSecretExfil",
	RuleSelfReplication.ID: "TestSelfReplication", RuleOutsideCwd.ID: "TestOutsideCwd", RuleSelfModification.ID: "TestSelfModification",
	RuleExcessiveAgency.ID: "TestExcessiveAgency",
}

func TestRegistry(t *testing.T) {
	rs := Rules()
	if len(rs) != len(testedBy) {
		t.Errorf("%d rules registered, %d with tests", len(rs), len(testedBy))
	}
	for i, r := range rs {
		if testedBy[r.ID] == "" {
			t.Errorf("%s has no table test", r.ID)
		}
		if !strings.HasPrefix(r.ID, string(r.Category)+"-") {
			t.Errorf("%s: id does not start with its category %s", r.ID, r.Category)
		}
		if got, ok := Lookup(r.ID); !ok || got != r {
			t.Errorf("Lookup(%s) = %+v, %v", r.ID, got, ok)
		}
		if i > 0 && (rs[i-1].Category > r.Category || rs[i-1].Category == r.Category && rs[i-1].ID >= r.ID) {
			t.Errorf("Rules not sorted at %s", r.ID)
		}
		if r.Category == finding.ASI11 && !strings.Contains(r.Title, "community extension") {
			t.Errorf("%s: ASI11 titles must say community extension", r.ID)
		}
	}
	if _, ok := Lookup("ASI02-NOPE"); ok {
		t.Error("Lookup found an unknown id")
	}
}
