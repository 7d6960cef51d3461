package analyze

import (
	"testing"

	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/ledger-audit/ledger-audit/rules/policy"
)

func TestReplayPolicySample(t *testing.T) {
	const db = "../samples/week-mixed.db"
	rep, err := ReplayPolicy([]string{db}, PolicyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Blocked != 3 || rep.Warned != 0 || len(rep.Hits) != 3 || rep.Calls == 0 {
		t.Fatalf("%+v", rep)
	}
	want := []string{"ASI02-DESTRUCTIVE-DELETE", "ASI05-PIPE-TO-SHELL", "ASI02-CREDENTIAL-READ"}
	for i, h := range rep.Hits {
		if h.RuleID != want[i] || h.Ledger != db || h.Row == 0 || h.Session == "" || h.TS.IsZero() {
			t.Errorf("hit %d: %+v", i, h)
		}
	}
	// A session filter narrows the replay to that session's calls.
	one, err := ReplayPolicy([]string{db}, PolicyOptions{Filter: ledger.Filter{Session: rep.Hits[2].Session}})
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Hits) != 1 || one.Hits[0].RuleID != "ASI02-CREDENTIAL-READ" || one.Calls >= rep.Calls {
		t.Fatalf("filtered: %+v", one)
	}
	// Default and strict together: strict's rules join, totals add up.
	d, _ := policy.Builtin("default")
	s, _ := policy.Builtin("strict")
	both, err := ReplayPolicy([]string{db}, PolicyOptions{Engine: policy.NewEngine(d, s)})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tot := range both.Totals {
		n += tot.Count
	}
	if n != len(both.Hits) || both.Blocked+both.Warned != len(both.Hits) || len(both.Packs) != 2 || len(both.Hits) <= 3 {
		t.Fatalf("%+v", both)
	}
	if _, err := ReplayPolicy([]string{"../samples/missing.db"}, PolicyOptions{}); err == nil {
		t.Fatal("missing ledger: no error")
	}
}
