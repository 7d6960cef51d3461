package analyze

import (
	"sort"

	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/ledger-audit/ledger-audit/redact"
	"github.com/ledger-audit/ledger-audit/rules/policy"
)

// PolicyOptions configure ReplayPolicy.
type PolicyOptions struct {
	Engine   *policy.Engine // nil: the built-in default pack
	Filter   ledger.Filter
	NoRedact bool
}

// ReplayPolicy is the dry run of policy packs over recorded calls: every
// call the packs would have blocked or warned about, in ledger order, with
// per-rule totals. Each ledger is opened read-only and streamed once;
// session state (variables, written files, downloads) carries across the
// calls of a session so split attacks are caught as they would have been
// live.
func ReplayPolicy(paths []string, o PolicyOptions) (*PolicyReport, error) {
	if o.Engine == nil {
		e, err := policy.Default()
		if err != nil {
			return nil, err
		}
		o.Engine = e
	}
	red := redact.Redactor{Off: o.NoRedact}
	rep := &PolicyReport{Packs: PackNames(o.Engine), Hits: []PolicyHit{}, Totals: []RuleTotal{}}
	ps := append([]string(nil), paths...)
	sort.Strings(ps)
	seen := map[string]bool{}
	for _, p := range ps {
		if seen[p] {
			continue
		}
		seen[p] = true
		if err := replayLedger(p, o, red, rep); err != nil {
			return nil, err
		}
	}
	tallyPolicy(rep)
	return rep, nil
}

func replayLedger(path string, o PolicyOptions, red redact.Redactor, rep *PolicyReport) error {
	r, err := ledger.Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	replay := o.Engine.NewReplay()
	return r.Scan(o.Filter, func(rec ledger.Record) error {
		c := rec.Call
		if c == nil {
			return nil
		}
		rep.Calls++
		for _, h := range uniqueHits(replay.Observe(c)) {
			rep.Hits = append(rep.Hits, policyHit(h, c, red))
		}
		return nil
	})
}
