package analyze

import (
	"strings"
	"sync"

	"github.com/ledger-audit/ledger-audit/finding"
	"github.com/ledger-audit/ledger-audit/rules/owasp"
	"github.com/ledger-audit/ledger-audit/rules/policy"
)

// PosturePacks are the built-in policy packs whose hits become posture
// findings: command-based risks live only there, so the score and the
// policy replay can never disagree about what a command is.
var PosturePacks = []string{"default", "strict"}

// postureEngine returns the engine over the posture packs that this
// build embeds (default always; strict when present). They are loaded
// once per process: compiling them is about 70 ms, an audit asked for
// them up to three times (engine, rule list, suppression check), and an
// engine and its packs are never changed after loading.
func postureEngine() (*policy.Engine, []*policy.Pack, error) {
	postureCache.once.Do(func() {
		postureCache.engine, postureCache.packs, postureCache.err = loadPostureEngine()
	})
	return postureCache.engine, postureCache.packs, postureCache.err
}

var postureCache struct {
	once   sync.Once
	engine *policy.Engine
	packs  []*policy.Pack
	err    error
}

func loadPostureEngine() (*policy.Engine, []*policy.Pack, error) {
	have := map[string]bool{}
	for _, n := range policy.BuiltinNames() {
		have[n] = true
	}
	var packs []*policy.Pack
	for _, n := range PosturePacks {
		if !have[n] && n != "default" {
			continue
		}
		p, err := policy.Builtin(n)
		if err != nil {
			return nil, nil, err
		}
		packs = append(packs, p)
	}
	return policy.NewEngine(packs...), packs, nil
}

// PostureEngine is the engine Audit uses when none is given.
func PostureEngine() (*policy.Engine, error) {
	e, _, err := postureEngine()
	return e, err
}

// lockdownOnly are strict-pack rules that describe a locked-down agent's
// allow-list (any network access, any archive) rather than a risk: they
// stay in the policy replay but cost no posture points, or ordinary
// development would score like an incident. The risky uses they feed —
// an archive sent out, a secret sent out — are the chain rules' findings.
var lockdownOnly = map[string]bool{"ASI02-NETWORK-EGRESS": true, "ASI02-ARCHIVE": true}

// PostureHit reports whether a policy hit becomes a posture finding. A
// package install counts only when it installs from a URL (the ASI05
// signal); installing a named dependency from the registry is ordinary
// work that the strict pack still blocks for locked-down agents.
func PostureHit(h policy.Hit) bool {
	if lockdownOnly[h.RuleID] {
		return false
	}
	if h.RuleID == "ASI05-PACKAGE-INSTALL" {
		m := strings.ToLower(h.Matched)
		return strings.Contains(m, "://") || strings.Contains(m, "git+") || strings.Contains(m, "github:")
	}
	return true
}

// PackNames lists the names of an engine's packs.
func PackNames(e *policy.Engine) []string {
	out := []string{}
	for _, p := range e.Packs() {
		out = append(out, p.Name)
	}
	return out
}

// AllRules lists every rule an audit can raise: the posture packs' rules
// (first occurrence of an id wins), this project's own posture rules and
// the loop rules, sorted by category and id.
func AllRules() ([]finding.Rule, error) {
	_, packs, err := postureEngine()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []finding.Rule
	add := func(r finding.Rule) {
		if !seen[r.ID] {
			seen[r.ID] = true
			out = append(out, r)
		}
	}
	for _, p := range packs {
		for _, r := range p.Rules {
			if lockdownOnly[r.ID] {
				continue
			}
			add(finding.Rule{ID: r.ID, Category: r.Category, Severity: r.Severity, Title: r.Title, Rationale: r.Reason, Remediation: r.Remediation})
		}
	}
	for _, r := range owasp.Rules() {
		add(r)
	}
	for _, r := range LoopRules() {
		add(r)
	}
	owasp.SortRules(out)
	return out, nil
}

// KnownRule reports whether id is a rule an audit can raise.
func KnownRule() (func(string) bool, error) {
	rs, err := AllRules()
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	for _, r := range rs {
		ids[r.ID] = true
	}
	return func(id string) bool { return ids[id] }, nil
}
