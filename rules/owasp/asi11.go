package owasp

import (
	"fmt"
	"strings"

	"github.com/ledger-audit/ledger-audit/finding"
	"github.com/ledger-audit/ledger-audit/ledger"
)

// ASI11 Excessive Agency is a community extension: the official OWASP
// Agentic Top 10 ends at ASI10. Its title says so wherever it is shown.
var RuleExcessiveAgency = rule(finding.Rule{
	ID: "ASI11-EXCESSIVE-AGENCY", Category: finding.ASI11, Severity: finding.Medium,
	Title:       "Excessive agency (community extension ASI11, not official OWASP)",
	Rationale:   "One session changing state through many different tools and many different targets acts with more reach than any single task needs.",
	Remediation: "Split the work into narrower sessions and give each only the tools it needs (tool allow-lists, per-project permissions).",
})

// asi11 records the breadth of one session's mutations; Finish judges it.
func (k *Checker) asi11(s *session, v *view) {
	if !ledger.Mutating(v.c.Tool) || v.c.Status == ledger.StatusBlocked {
		return
	}
	if len(s.mutTools) <= k.o.AgencyTools {
		s.mutTools[v.c.Tool] = true // past the bound the exact count no longer matters
	}
	m := markOf(v.c, v.ex(), "")
	if s.firstMut == nil {
		s.firstMut = &m
	}
	s.lastMut = &m
	add := func(t string) {
		if len(s.targets) > k.o.AgencyTargets {
			s.targetsCut = true // enough to decide; stop growing
			return
		}
		s.targets[t] = true
	}
	for _, p := range v.writes() {
		add("file:" + p)
	}
	if f := v.facts(); f != nil {
		for _, snd := range f.sendOps {
			for _, a := range snd.cmd.Args {
				if h := hostOf(a); h != "" {
					add("host:" + h)
				}
			}
		}
	}
	if isCron(v.c.Tool) {
		add("cron:" + v.a().str("name", "prompt", "job_id"))
	}
	if isDelegation(v.c.Tool) {
		add("agent:" + v.c.CallID + fmt.Sprint(v.c.ID))
	}
}

func hostOf(a string) string {
	i := strings.Index(a, "://")
	if i < 0 {
		return ""
	}
	h := a[i+3:]
	if j := strings.IndexAny(h, "/?#"); j >= 0 {
		h = h[:j]
	}
	if j := strings.LastIndex(h, "@"); j >= 0 {
		h = h[j+1:]
	}
	return h
}

func (k *Checker) finishAgency(s *session) []finding.Finding {
	tools, targets := len(s.mutTools), len(s.targets)
	if s.firstMut == nil || (tools <= k.o.AgencyTools && targets <= k.o.AgencyTargets) {
		return nil
	}
	more := ""
	if s.targetsCut {
		more = "+"
	}
	msg := fmt.Sprintf("session %s changed state through %d tools (%s) and %d%s targets; bounds %d tools, %d targets. ASI11 is a community extension, not part of the official OWASP list",
		s.id, tools, strings.Join(sortedKeys(s.mutTools), ", "), targets, more, k.o.AgencyTools, k.o.AgencyTargets)
	ev := []finding.Evidence{s.firstMut.ev}
	if s.lastMut.ev.Row != s.firstMut.ev.Row {
		ev = append(ev, s.lastMut.ev)
	}
	return []finding.Finding{finding.New(RuleExcessiveAgency, msg, ev...)}
}
