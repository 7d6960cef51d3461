// Package owasp holds the posture rules computed from ledger records
// alone, one file per OWASP Agentic category (ASI02, ASI05, ASI08, ASI10
// and the ASI11 community extension). Command-based rules (destructive
// deletes, pipe-to-shell, sudo, credential reads, ...) are not written
// here: they are the policy engine's pack rules, and FromHit turns each
// hit into a finding, so there is one parser and one rule set per
// behaviour. This package covers what a per-call pack cannot see:
// sizes, chains across calls, rates, streaks, breadth and ghosts.
//
// Rules never read or write a ledger; the caller streams calls in.
package owasp

import (
	"sort"

	"github.com/ledger-audit/ledger-audit/finding"
)

// registry holds this package's own rules, filled by each category file.
var registry = map[string]finding.Rule{}

func rule(r finding.Rule) finding.Rule {
	if _, dup := registry[r.ID]; dup {
		panic("owasp: duplicate rule " + r.ID)
	}
	if r.ID == "" || !r.Category.Valid() || r.Severity.Weight() == 0 || r.Title == "" || r.Rationale == "" || r.Remediation == "" {
		panic("owasp: incomplete rule metadata " + r.ID)
	}
	registry[r.ID] = r
	return r
}

// Rules lists this package's own rules sorted by category, then id.
// Pack-derived and loop rules are listed by their owners.
func Rules() []finding.Rule {
	out := make([]finding.Rule, 0, len(registry))
	for _, r := range registry {
		out = append(out, r)
	}
	SortRules(out)
	return out
}

// Lookup returns one of this package's rules by id.
func Lookup(id string) (finding.Rule, bool) {
	r, ok := registry[id]
	return r, ok
}

// SortRules orders rules by category, then id.
func SortRules(rs []finding.Rule) {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].Category != rs[j].Category {
			return rs[i].Category < rs[j].Category
		}
		return rs[i].ID < rs[j].ID
	})
}
