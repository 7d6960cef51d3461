package analyze

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/ledger-audit/ledger-audit/finding"
	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/ledger-audit/ledger-audit/redact"
	"github.com/ledger-audit/ledger-audit/rules/owasp"
	"github.com/ledger-audit/ledger-audit/rules/policy"
)

// AuditOptions configure Audit. The zero value audits with the defaults:
// current clock, no window, default grace periods, Hermes' default loop
// guardrails, the built-in posture packs, redaction on.
type AuditOptions struct {
	Now        time.Time
	Filter     ledger.Filter
	Grace      map[string]time.Duration // per-tool grace overrides
	HermesHome string                   // offline ghost evidence
	Loops      *LoopConfig              // nil: Hermes' defaults
	// Engine replays the policy packs whose hits become command findings;
	// nil means PostureEngine().
	Engine       *policy.Engine
	PackNames    []string      // names of Engine's packs, for the report
	Rules        owasp.Options // bounds of the aggregate posture rules
	Suppressions *Suppressions // nil: none
	NoRedact     bool
	Tool         ToolInfo
	// TrimMemory lets the audit lower the Go runtime's soft memory limit
	// while it runs (see memlimit.go). It is a process-wide setting, so
	// only a program that owns its process (the CLI) should turn it on.
	TrimMemory bool
}

// Audit reads each ledger once, streaming (ledger.Open + Reader.Scan),
// and feeds every record to the ghost tracker, the loop tracker, the
// policy replay and the posture rules. Ledgers are audited one by one in
// sorted path order, each into its own partial result, then merged. It is
// AuditFleet with a single worker, so both give the same Result.
func Audit(paths []string, o AuditOptions) (*Result, error) {
	return AuditFleet(paths, o, FleetOptions{Jobs: 1})
}

// ledgerAudit is the partial result of one ledger.
type ledgerAudit struct {
	summary  LedgerSummary
	counts   Summary
	sessions map[string]*SessionSummary
	ghosts   []Ghost
	findings []finding.Finding
	hits     []PolicyHit
	loops    *LoopReport
	warnings []string
	first    time.Time
	last     time.Time
	timeline *TimelineBuilder
}

func auditLedger(path string, o AuditOptions) (*ledgerAudit, error) {
	r, err := ledger.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if o.TrimMemory {
		defer limitMemory()()
	}
	red := redact.Redactor{Off: o.NoRedact}
	la := &ledgerAudit{
		summary:  LedgerSummary{Path: path, Format: string(r.Format())},
		counts:   Summary{ByTool: map[string]int{}, ByStatus: map[string]int{}},
		sessions: map[string]*SessionSummary{},
		timeline: NewTimelineBuilder(),
	}
	ghosts := NewGhostTracker(GhostOptions{Now: o.Now, Grace: o.Grace, HermesHome: o.HermesHome, Redact: red})
	ghosts.BeginLedger(path)
	var loops *LoopTracker
	if o.Loops != nil {
		loops = NewLoopTracker(*o.Loops)
	} else {
		loops = NewLoopTracker()
	}
	loops.SetRedact(!o.NoRedact)
	loops.BeginLedger(path)
	replay := o.Engine.NewReplay()
	rules := owasp.NewChecker(o.Rules)

	// The scan is split into stages joined by channels of record
	// batches: the reader (SQLite, plus the argument canonicalisation and
	// decoding the later stages share), the policy replay, the posture
	// rules (fed the replay's hits), and the ghost and loop trackers with
	// the summaries. Each stage sees every record in id order and owns its
	// own state, so the result is the one a single loop would give; on a
	// machine with more than one core the stages overlap instead of
	// adding up.
	posture := newStage(func(it *auditItem) {
		c := it.rec.Call
		if c == nil {
			return
		}
		for _, h := range it.hits {
			if PostureHit(h) {
				la.findings = append(la.findings, owasp.FromHit(h, c))
			}
		}
		la.findings = append(la.findings, rules.ObserveDecoded(c, it.hits, &it.sum, it.args)...)
	}, nil)
	commands := newStage(func(it *auditItem) {
		c := it.rec.Call
		if c == nil {
			return
		}
		it.hits = uniqueHits(replay.ObserveDecoded(c, it.args))
		for _, h := range it.hits {
			la.hits = append(la.hits, policyHit(h, c, red))
		}
	}, posture)
	trackers := newStage(func(it *auditItem) {
		rec := it.rec
		ghosts.Observe(rec)
		if rec.Event != nil {
			loops.Observe(rec)
			la.observeEvent(rec.Event)
			return
		}
		loops.observePrepared(rec, &it.sum, it.args)
		la.observeCall(rec.Call)
	}, nil)
	batch := make([]auditItem, 0, auditBatch)
	records := 0
	err = r.Scan(o.Filter, func(rec ledger.Record) error {
		if records++; o.TrimMemory && records%memCheckEvery == 0 {
			recheckMemory()
		}
		it := auditItem{rec: rec}
		if rec.Call != nil {
			// Loop forensics and the posture rules' retry signature both
			// hash the canonical arguments, and the policy replay and the
			// posture rules both read argument fields: canonicalise and
			// decode once, here, off the busiest stage.
			it.sum = argsDigestOf(rec.Call.Args)
			it.args = ledger.DecodeArgs(rec.Call.Args)
		}
		if batch = append(batch, it); len(batch) == auditBatch {
			commands.send(batch)
			trackers.send(batch)
			batch = make([]auditItem, 0, auditBatch)
		}
		return nil
	})
	if len(batch) > 0 {
		commands.send(batch)
		trackers.send(batch)
	}
	waitStages(commands, posture, trackers)
	if err != nil {
		return nil, err
	}
	la.findings = append(la.findings, rules.Finish()...)
	la.ghosts = ghosts.Ghosts()
	for _, g := range la.ghosts {
		if f, ok := owasp.GhostFinding(ghostInput(g)); ok {
			la.findings = append(la.findings, f)
		}
	}
	la.loops = loops.Report()
	la.findings = append(la.findings, supersede(loops.Findings(), la.findings)...)
	for _, w := range r.Warnings() {
		la.warnings = append(la.warnings, path+": "+red.String(w))
	}
	la.summary.Sessions = len(la.sessions)
	la.summary.Ghosts = CountLost(la.ghosts)
	return la, nil
}

// auditItem is one record on its way through the audit's stages.
type auditItem struct {
	rec  ledger.Record
	sum  [32]byte          // sha256 of the canonical arguments (ledger.ArgsHash), for both call signatures
	args ledger.ArgsObject // its decoded arguments (read-only)
	// hits are the policy replay's, written by its stage before the batch
	// moves on to the posture rules; no other stage reads them.
	hits []policy.Hit
}

// auditBatch records travel together: a channel send per record would
// cost more than some of the work it hands over.
const auditBatch = 256

// stage runs fn over every item sent to it, in order, on its own
// goroutine, then hands each batch to next (if any). Batches are shared
// between stages; an item field is written by one stage only.
type stage struct {
	in   chan []auditItem
	done chan struct{}
	// panicked holds a panic raised by fn; the stage then drains its input
	// (so the reader never blocks) and wait re-raises the panic in the
	// caller's goroutine, where it would have surfaced without stages.
	panicked any
}

func newStage(fn func(*auditItem), next *stage) *stage {
	s := &stage{in: make(chan []auditItem, 8), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for b := range s.in {
			if s.panicked != nil {
				continue
			}
			func() {
				defer func() { s.panicked = recover() }()
				for i := range b {
					fn(&b[i])
				}
			}()
			if next != nil && s.panicked == nil {
				next.send(b)
			}
		}
	}()
	return s
}

func (s *stage) send(b []auditItem) { s.in <- b }

// waitStages closes each stage's input and waits for it, in order (a
// stage feeding another comes first), then re-raises the first panic.
func waitStages(stages ...*stage) {
	var p any
	for _, s := range stages {
		close(s.in)
		<-s.done
		if p == nil {
			p = s.panicked
		}
	}
	if p != nil {
		panic(p)
	}
}

func (la *ledgerAudit) seenAt(t time.Time) {
	if t.IsZero() {
		return
	}
	if la.first.IsZero() || t.Before(la.first) {
		la.first = t
	}
	if t.After(la.last) {
		la.last = t
	}
}

func (la *ledgerAudit) observeEvent(e *ledger.Event) {
	la.summary.Events++
	la.counts.Events++
	la.seenAt(e.TS)
	if e.Kind == ledger.KindLLMCall {
		la.counts.LLMCalls++
		if e.TokensIn != nil {
			la.counts.TokensIn += *e.TokensIn
		}
		if e.TokensOut != nil {
			la.counts.TokensOut += *e.TokensOut
		}
		if e.TokensCacheRead != nil {
			la.counts.TokensCacheRead += *e.TokensCacheRead
		}
	}
}

func (la *ledgerAudit) observeCall(c *ledger.Call) {
	la.summary.Calls++
	la.counts.Calls++
	la.counts.ByTool[c.Tool]++
	la.counts.ByStatus[string(c.Status)]++
	la.seenAt(c.TS)
	la.timeline.Add(c.TS, c.Status == ledger.StatusError)
	s := la.sessions[c.SessionID]
	if s == nil {
		s = &SessionSummary{Ledger: c.Ledger, ID: c.SessionID, First: c.TS, Last: c.TS}
		la.sessions[c.SessionID] = s
	}
	s.Calls++
	if c.Status == ledger.StatusError {
		s.Errors++
	}
	if c.TS.Before(s.First) {
		s.First = c.TS
	}
	if c.TS.After(s.Last) {
		s.Last = c.TS
	}
}

// uniqueHits keeps one hit per rule id: the default and strict packs may
// both carry a rule, and one rule matching one call is one finding.
func uniqueHits(hs []policy.Hit) []policy.Hit {
	if len(hs) < 2 {
		return hs
	}
	seen := map[string]bool{}
	out := hs[:0:0]
	for _, h := range hs {
		if seen[h.RuleID] {
			continue
		}
		seen[h.RuleID] = true
		out = append(out, h)
	}
	return out
}

func policyHit(h policy.Hit, c *ledger.Call, red redact.Redactor) PolicyHit {
	return PolicyHit{
		Ledger: c.Ledger, Row: c.ID, Session: c.SessionID, TS: c.TS, Tool: c.Tool, Pack: h.Pack,
		RuleID: h.RuleID, Action: string(h.Action), Severity: h.Severity, Reason: h.Reason,
		Matched: red.String(h.Matched), Notes: h.Notes,
	}
}

func ghostInput(g Ghost) owasp.GhostInput {
	return owasp.GhostInput{
		Ledger: g.Ledger, Row: g.Row, CallID: g.CallID, Session: g.Session, Tool: g.Tool,
		IssuedAt: g.IssuedAt, Class: string(g.Class), Age: time.Duration(g.Age), Args: g.Args, Evidence: g.Evidence,
	}
}

// supersede drops the posture rules' retry-storm and error-streak
// findings where loop forensics reports the same failing run
// (ASI08-LOOP-FAILURE-REPLAY starting on the same call): one behaviour,
// one finding. It returns the loop findings to add and marks the
// superseded ones in fs (empty RuleID), which merge then drops.
func supersede(loopFs []finding.Finding, fs []finding.Finding) []finding.Finding {
	covered := map[string]bool{}
	for _, f := range loopFs {
		if f.RuleID == RuleLoopFailureReplay.ID && len(f.Evidence) > 0 {
			covered[f.Evidence[0].Session+"\x00"+fmt.Sprint(f.Evidence[0].Row)] = true
		}
	}
	if len(covered) == 0 {
		return loopFs
	}
	for i := range fs {
		f := &fs[i]
		if f.RuleID != owasp.RuleRetryStorm.ID && f.RuleID != owasp.RuleErrorStreak.ID || len(f.Evidence) == 0 {
			continue
		}
		if covered[f.Evidence[0].Session+"\x00"+fmt.Sprint(f.Evidence[0].Row)] {
			f.RuleID = ""
		}
	}
	return loopFs
}

// merge combines the partial results in path order and scores them.
func merge(parts []*ledgerAudit, o AuditOptions) *Result {
	red := redact.Redactor{Off: o.NoRedact}
	res := &Result{
		SchemaVersion: SchemaVersion, Tool: o.Tool, GeneratedAt: o.Now,
		Window:     Window{Since: o.Filter.Since, Until: o.Filter.Until},
		Summary:    Summary{ByTool: map[string]int{}, ByStatus: map[string]int{}, Sessions: []SessionSummary{}},
		Ghosts:     []Ghost{},
		Findings:   []finding.Finding{},
		TrustModel: TrustModel, Redacted: !o.NoRedact,
		Policy: &PolicyReport{Packs: PackNames(o.Engine), Hits: []PolicyHit{}, Totals: []RuleTotal{}},
		Loops:  &LoopReport{},
	}
	tl := NewTimelineBuilder()
	for i, p := range parts {
		var kept []finding.Finding
		for _, f := range p.findings {
			if f.RuleID == "" {
				continue
			}
			kept = append(kept, finalize(f, red))
		}
		o.Suppressions.apply(kept, o.Now)
		sc := finding.Compute(kept)
		p.summary.Score, p.summary.Penalty = &sc.Score, &sc.Penalty
		p.summary.Findings = len(kept)
		res.Ledgers = append(res.Ledgers, p.summary)
		res.Findings = append(res.Findings, kept...)
		res.Ghosts = append(res.Ghosts, p.ghosts...)
		res.Policy.Hits = append(res.Policy.Hits, p.hits...)
		res.Warnings = append(res.Warnings, p.warnings...)
		mergeSummary(&res.Summary, &p.counts, p.sessions)
		mergeTimeline(tl, p.timeline)
		if i == 0 {
			res.Loops.Config = p.loops.Config
		}
		res.Loops.Loops = append(res.Loops.Loops, p.loops.Loops...)
		res.Loops.Sessions += p.loops.Sessions
		res.Loops.Calls += p.loops.Calls
		for _, n := range p.loops.Notes {
			if !slices.Contains(res.Loops.Notes, n) {
				res.Loops.Notes = append(res.Loops.Notes, n)
			}
		}
		if !p.first.IsZero() && (res.Window.First.IsZero() || p.first.Before(res.Window.First)) {
			res.Window.First = p.first
		}
		if p.last.After(res.Window.Last) {
			res.Window.Last = p.last
		}
	}
	res.Summary.Timeline = tl.Buckets()
	finding.Sort(res.Findings)
	res.Score = finding.Compute(res.Findings)
	res.Suppressions = o.Suppressions.notes()
	tallyPolicy(res.Policy)
	// The full rule list lets SARIF and JUnit show rules that passed, not
	// only those with findings. It is built from embedded packs, so an
	// error here would already have failed PostureEngine.
	if rules, err := AllRules(); err == nil {
		res.Rules = rules
	}
	return res
}

// finalize redacts a finding's message and evidence and gives it a
// fingerprint computed over the redacted text, so a fingerprint in a
// suppression file matches with and without --no-redact.
func finalize(f finding.Finding, red redact.Redactor) finding.Finding {
	ev := make([]finding.Evidence, len(f.Evidence))
	raw := make([]finding.Evidence, len(f.Evidence))
	for i, e := range f.Evidence {
		raw[i] = e
		e.Excerpt = redact.String(e.Excerpt)
		ev[i] = e
	}
	f.Evidence = ev
	f.Fingerprint = finding.Fingerprint(f)
	f.Message = red.String(f.Message)
	if red.Off {
		f.Evidence = raw
	}
	return f
}

func mergeSummary(dst, src *Summary, sessions map[string]*SessionSummary) {
	dst.Calls += src.Calls
	dst.Events += src.Events
	dst.LLMCalls += src.LLMCalls
	dst.TokensIn += src.TokensIn
	dst.TokensOut += src.TokensOut
	dst.TokensCacheRead += src.TokensCacheRead
	for k, v := range src.ByTool {
		dst.ByTool[k] += v
	}
	for k, v := range src.ByStatus {
		dst.ByStatus[k] += v
	}
	ids := make([]string, 0, len(sessions))
	for id := range sessions {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		dst.Sessions = append(dst.Sessions, *sessions[id])
	}
}

func tallyPolicy(p *PolicyReport) {
	type key struct{ pack, rule, action string }
	n := map[key]int{}
	for _, h := range p.Hits {
		n[key{h.Pack, h.RuleID, h.Action}]++
		switch policy.Action(h.Action) {
		case policy.ActionBlock:
			p.Blocked++
		case policy.ActionWarn:
			p.Warned++
		}
	}
	for k, c := range n {
		p.Totals = append(p.Totals, RuleTotal{Pack: k.pack, RuleID: k.rule, Action: k.action, Count: c})
	}
	sort.Slice(p.Totals, func(i, j int) bool {
		a, b := p.Totals[i], p.Totals[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if a.Pack != b.Pack {
			return a.Pack < b.Pack
		}
		return a.RuleID < b.RuleID
	})
}

// mergeTimeline adds one ledger's counts into dst.
func mergeTimeline(dst, src *TimelineBuilder) { dst.merge(src) }
