package analyze

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ledger-audit/ledger-audit/finding"
	"github.com/ledger-audit/ledger-audit/ledger"
)

// episode is one candidate loop while it grows. It keeps running sums and
// three evidence calls, never the calls themselves.
type episode struct {
	kind   string
	sess   *loopSession
	tools  []string // distinct tools in order (several for a cycle)
	turn   string
	turns  int
	period int

	start, end       time.Time
	first, warnPt    callPoint
	last             callPoint
	calls, failed    int
	toolMS           int64
	base, cum        llmTotals
	argSigs          []string
	moreArgs         bool
	unknown          int
	warnAt, stopAt   int
	warnCode         string
	stopCode         string
	uWarnAt, uStopAt int
	capBlockAt       int
	stop             snapshot
	closed           bool
	near             *nearRun
}

// snapshot is the episode's state after its hard-stop call.
type snapshot struct {
	calls  int
	toolMS int64
	cum    llmTotals
	end    time.Time
}

func newEpisode(kind string, s *loopSession, pt *callPoint) *episode {
	return &episode{kind: kind, sess: s, start: pt.startTS, base: pt.base, turn: pt.turn}
}

func (ep *episode) snap() snapshot { return snapshot{ep.calls, ep.toolMS, ep.cum, ep.end} }

// add folds one call in, with the guardrail decisions made on it.
func (ep *episode) add(pt *callPoint) {
	idx := ep.calls + 1
	haltHere := false
	for _, d := range pt.decs {
		switch d.action {
		case actWarn:
			if ep.warnAt == 0 {
				ep.warnAt, ep.warnCode, ep.warnPt = idx, d.code, *pt
			}
		case actHalt:
			if ep.stopAt == 0 {
				ep.stopAt, ep.stopCode, haltHere = idx, d.code, true
			}
		case actBlock:
			if strings.HasPrefix(d.code, "loop_") && ep.capBlockAt == 0 {
				ep.capBlockAt = idx
			}
			// A block refuses this call: the previous one was the last to run.
			if ep.stopAt == 0 && idx > 1 {
				ep.stopAt, ep.stopCode, ep.stop = idx-1, d.code, ep.snap()
			}
		}
	}
	for _, d := range pt.udecs {
		switch {
		case d.action == actWarn && ep.uWarnAt == 0:
			ep.uWarnAt = idx
		case d.action == actHalt && ep.uStopAt == 0:
			ep.uStopAt = idx
		case d.action == actBlock && ep.uStopAt == 0 && idx > 1:
			ep.uStopAt = idx - 1
		}
	}
	if idx == 1 {
		ep.first = *pt
		ep.turns = 1
	} else if pt.turn != ep.turn {
		ep.turns++
	}
	ep.turn = pt.turn
	ep.last = *pt
	ep.calls = idx
	if pt.failed {
		ep.failed++
	}
	if pt.unknown {
		ep.unknown++
	}
	ep.toolMS += pt.durMS
	ep.cum = pt.cum
	ep.end = pt.end
	if len(ep.tools) < maxCyclePeriod && !contains(ep.tools, pt.tool) {
		ep.tools = append(ep.tools, pt.tool)
	}
	if !contains(ep.argSigs, pt.argsSig) {
		if len(ep.argSigs) < maxDistinctArgs {
			ep.argSigs = append(ep.argSigs, pt.argsSig)
		} else {
			ep.moreArgs = true
		}
	}
	if haltHere {
		ep.stop = ep.snap()
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func (ep *episode) allFailed() bool { return ep.failed == ep.calls }

func (ep *episode) distinct() int { return len(ep.argSigs) }

func (ep *episode) capRefusedAt() int { return ep.capBlockAt }

// Report closes every open loop and returns the replay. Call it once the
// stream is done; later calls return the same report.
func (t *LoopTracker) Report() *LoopReport {
	if t.report != nil {
		return t.report
	}
	keys := make([]sessKey, 0, len(t.sessions))
	for k := range t.sessions {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].ledger != keys[j].ledger {
			return keys[i].ledger < keys[j].ledger
		}
		return keys[i].session < keys[j].session
	})
	sessions := 0
	for _, k := range keys {
		s := t.sessions[k]
		if s.seenCall {
			sessions++
		}
		t.closeTurn(s)
		t.close(s.ident)
		t.close(s.cycle)
		t.closeNear(s)
	}
	rep := &LoopReport{Config: t.cfg, Loops: []Loop{}, Sessions: sessions, Calls: t.calls}
	for _, ep := range t.loops {
		rep.Loops = append(rep.Loops, t.toLoop(ep))
	}
	sort.SliceStable(rep.Loops, func(i, j int) bool {
		a, b := &rep.Loops[i], &rep.Loops[j]
		if a.Ledger != b.Ledger {
			return a.Ledger < b.Ledger
		}
		if a.Session != b.Session {
			return a.Session < b.Session
		}
		if a.FirstRow != b.FirstRow {
			return a.FirstRow < b.FirstRow
		}
		return a.Kind < b.Kind
	})
	capped := false
	for _, k := range keys {
		capped = capped || t.sessions[k].fixed.capped
	}
	if capped {
		rep.Notes = append(rep.Notes, fmt.Sprintf("A turn had more than %d distinct failing or read-only call signatures: beyond that, new signatures were not counted by the failure and no-progress detectors (memory bound).", maxTurnKeys))
	}
	if t.unknown > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d call(s) had a result longer than the %d-character digest the ledger keeps: the unfixed-signature comparison cannot recompute their pre-fix hash and treats them as distinct.", t.unknown, ledger.MaxDigestChars))
	}
	t.report = rep
	t.findings = t.buildFindings(rep)
	return rep
}

func seconds(ms int64) float64 { return float64(ms) / 1000 }

func wasteOf(calls int, toolMS int64, llm llmTotals, wall time.Duration) Waste {
	return Waste{
		Calls: calls, WallSeconds: wall.Seconds(), ToolSeconds: seconds(toolMS),
		LLMCalls: llm.calls, AuxLLMCalls: llm.aux, TokensIn: llm.in, TokensCacheRead: llm.cacheRead,
		TokensOut: llm.out, LatencySeconds: seconds(llm.latMS),
	}
}

func (t *LoopTracker) toLoop(ep *episode) Loop {
	s := ep.sess
	llm := ep.cum.sub(ep.base)
	w := wasteOf(ep.calls, ep.toolMS, llm, ep.end.Sub(ep.start))
	if s.cum.calls > 0 {
		w.ShareOfCalls = round4(float64(llm.calls) / float64(s.cum.calls))
	}
	if s.cum.in > 0 {
		w.ShareOfTokens = round4(float64(llm.in) / float64(s.cum.in))
	}
	l := Loop{
		Ledger: s.key.ledger, Session: s.key.session, Kind: ep.kind, Tool: strings.Join(ep.tools, "→"),
		Start: ep.start, End: ep.end, Calls: ep.calls, FirstRow: ep.first.row, LastRow: ep.last.row,
		Waste: w, WarnAt: ep.warnAt, HardStopAt: ep.stopAt,
		UnfixedWarnAt: ep.uWarnAt, UnfixedHardStopAt: ep.uStopAt,
		Platform: s.platform, HardStopEnabled: t.cfg.HardStopFor(s.platform) || ep.kind == LoopCapBreach,
		WarnCode: ep.warnCode, HardStopCode: ep.stopCode, Period: ep.period,
		DistinctArgs: ep.distinct(), UnfixedUnknown: ep.unknown,
	}
	if ep.turns == 1 {
		l.Turn = ep.turn
	}
	if ep.stopAt > 0 && ep.stopAt < ep.calls {
		l.SavedIfStopped = wasteOf(ep.calls-ep.stop.calls, ep.toolMS-ep.stop.toolMS, ep.cum.sub(ep.stop.cum), ep.end.Sub(ep.stop.end))
	}
	l.Evidence = t.evidenceText(ep)
	return l
}

func round4(f float64) float64 { return float64(int64(f*10000+0.5)) / 10000 }

// excerpt is a short, redacted view of a call's arguments.
func (t *LoopTracker) excerpt(args string) string {
	s, cut := ledger.Truncate(args, 160)
	if cut {
		s += "…"
	}
	return t.red.String(s)
}

func (t *LoopTracker) evidenceText(ep *episode) string {
	tool := strings.Join(ep.tools, "→")
	args := t.excerpt(ep.first.args)
	switch ep.kind {
	case LoopIdentical:
		how := ""
		if tool == "execute_code" {
			how = " (duration_seconds and kernel.execution_count ignored, as Hermes does since PR #124724)"
		}
		return fmt.Sprintf("%d consecutive %s calls with byte-identical arguments returned the same result%s: %s", ep.calls, tool, how, args)
	case LoopKindExactFailure:
		return fmt.Sprintf("%d failures of %s with identical arguments and no progress in between: %s", ep.calls, tool, args)
	case LoopKindSameTool:
		return fmt.Sprintf("%d failures of %s in one turn (%d different argument sets) with no success in between; first: %s", ep.calls, tool, ep.distinct(), args)
	case LoopKindNoProgress:
		return fmt.Sprintf("%d calls to read-only %s with identical arguments returned the same result: %s", ep.calls, tool, args)
	case LoopCycle:
		return fmt.Sprintf("the same %d-call batch (%s) repeated %d times with identical arguments and identical results", ep.period, tool, ep.calls/ep.period)
	case LoopNearDuplicate:
		n := ep.near
		shapes := 0
		first, other := args, ""
		if n != nil {
			shapes = len(n.skels)
			first, other = t.excerpt(n.first), t.excerpt(n.differ)
		}
		more := ""
		if ep.moreArgs {
			more = "+"
		}
		return fmt.Sprintf("%d %s calls, %d%s different texts but %d code shape(s) once comments, whitespace, literals, sleep durations and variable names are normalised, all printing nothing but their own literals (no state change); e.g. %q vs %q",
			ep.calls, tool, ep.distinct(), more, shapes, first, other)
	case LoopCapBreach:
		capKey, what := LoopCapWebSearches, "web searches"
		if tool == "delegate_task" {
			capKey, what = LoopCapSubagents, "sub-agent spawns"
		}
		return fmt.Sprintf("%d %s calls in one turn; the per-turn cap of %d %s refuses call %d onwards", ep.calls, tool, t.cfg.LoopCaps[capKey], what, ep.capBlockAt)
	}
	return args
}

// Loop rules: the posture findings loop forensics adds.
var (
	RuleLoopAmplification = finding.Rule{
		ID: "ASI02-LOOP-AMPLIFICATION", Category: finding.ASI02, Severity: finding.High,
		Title:       "Runaway no-progress tool loop",
		Rationale:   "The agent repeated a call that changed nothing at least 50 times (or burned a million input tokens doing so), past the point where Hermes' tool-loop guardrail would have stopped it. Loop amplification turns one confused turn into hours of model calls.",
		Remediation: "Update Hermes (the volatile-field fix, PR #124724), enable hard stops for unattended platforms (tool_loop_guardrails.non_interactive_hard_stop_enabled) and consider hard_stop_enabled for interactive ones; let turns end and resume on background notifications instead of polling.",
	}
	RuleLoopNoProgress = finding.Rule{
		ID: "ASI02-LOOP-NO-PROGRESS", Category: finding.ASI02, Severity: finding.Medium,
		Title:       "No-progress tool loop past the hard-stop point",
		Rationale:   "The agent repeated a call (or a batch of calls, or reformulations of one no-op) that returned the same result, beyond the configured hard_stop_after threshold.",
		Remediation: "Enable tool_loop_guardrails hard stops, lower hard_stop_after.idempotent_no_progress, and check why the agent kept polling.",
	}
	RuleLoopFailureReplay = finding.Rule{
		ID: "ASI08-LOOP-FAILURE-REPLAY", Category: finding.ASI08, Severity: finding.Medium,
		Title:       "Failing tool call retried past the hard-stop point",
		Rationale:   "The same failing call (or the same tool, failing with different arguments) was retried beyond the configured hard_stop_after threshold without a change in between: a retry storm that cascades cost and can cascade failures.",
		Remediation: "Enable tool_loop_guardrails hard stops and fix the failing dependency; make the agent report a blocker after one diagnostic attempt.",
	}
	RuleLoopTurnCap = finding.Rule{
		ID: "ASI02-LOOP-TURN-CAP", Category: finding.ASI02, Severity: finding.Medium,
		Title:       "Per-turn web search or sub-agent cap exceeded",
		Rationale:   "One turn made more web searches or spawned more sub-agents than Hermes' per-turn loop caps allow: the cap was absent or disabled when this ran.",
		Remediation: "Keep tool_loop_guardrails.loop_caps at their defaults (50) or lower, and update Hermes if the caps did not apply.",
	}
)

// LoopRules lists the rules loop forensics can raise, for `audit --rules`.
func LoopRules() []finding.Rule {
	return []finding.Rule{RuleLoopAmplification, RuleLoopNoProgress, RuleLoopFailureReplay, RuleLoopTurnCap}
}

// Findings are the posture findings of the replay (Report is taken first
// if it has not been).
func (t *LoopTracker) Findings() []finding.Finding {
	t.Report()
	return append([]finding.Finding(nil), t.findings...)
}

func (t *LoopTracker) buildFindings(rep *LoopReport) []finding.Finding {
	var out []finding.Finding
	for i := range rep.Loops {
		l := &rep.Loops[i]
		rule, ok := t.ruleFor(l)
		if !ok {
			continue
		}
		ev := []finding.Evidence{t.findingEvidence(l, l.FirstRow)}
		ep := t.episodeFor(l)
		if ep != nil {
			ev[0] = t.evidenceFromPoint(l, &ep.first)
			if ep.warnAt > 0 && ep.warnPt.row != ep.first.row {
				ev = append(ev, t.evidenceFromPoint(l, &ep.warnPt))
			}
			if ep.last.row != ep.first.row {
				ev = append(ev, t.evidenceFromPoint(l, &ep.last))
			}
		}
		out = append(out, finding.New(rule, t.findingMessage(l), ev...))
	}
	finding.Sort(out)
	return out
}

// ruleFor decides whether a loop is a posture problem: it must have run
// past the point where the configured guardrail stops such a loop.
func (t *LoopTracker) ruleFor(l *Loop) (finding.Rule, bool) {
	limit := l.HardStopAt
	switch l.Kind {
	case LoopCapBreach:
		return RuleLoopTurnCap, true
	case LoopKindExactFailure, LoopKindSameTool:
		if limit == 0 {
			limit = t.cfg.hardStopAfter(l.Kind)
		}
		return RuleLoopFailureReplay, l.Calls > limit
	}
	if limit == 0 {
		limit = t.cfg.hardStopAfter(LoopIdempotentNoProgress)
	}
	if l.Calls <= limit {
		return finding.Rule{}, false
	}
	if l.Calls >= 50 || l.Waste.TokensIn >= 1_000_000 {
		return RuleLoopAmplification, true
	}
	return RuleLoopNoProgress, true
}

func (t *LoopTracker) episodeFor(l *Loop) *episode {
	for _, ep := range t.loops {
		if ep.first.row == l.FirstRow && ep.kind == l.Kind && ep.sess.key.ledger == l.Ledger && ep.sess.key.session == l.Session {
			return ep
		}
	}
	return nil
}

func (t *LoopTracker) evidenceFromPoint(l *Loop, pt *callPoint) finding.Evidence {
	ex, _ := ledger.Truncate(pt.args, 200)
	return finding.Evidence{
		Ledger: l.Ledger, Row: pt.row, CallID: pt.callID, TS: pt.ts, Session: l.Session, Tool: pt.tool,
		Excerpt: t.red.String(ex), Truncated: len(ex) < pt.argsLen,
	}
}

func (t *LoopTracker) findingEvidence(l *Loop, row int64) finding.Evidence {
	return finding.Evidence{Ledger: l.Ledger, Row: row, TS: l.Start, Session: l.Session, Tool: l.Tool}
}

func (t *LoopTracker) findingMessage(l *Loop) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s loop: %d %s calls in session %s from %s to %s", strings.ReplaceAll(l.Kind, "_", " "), l.Calls, l.Tool, l.Session,
		l.Start.UTC().Format("2006-01-02 15:04:05"), l.End.UTC().Format("15:04:05"))
	if l.Waste.LLMCalls > 0 {
		fmt.Fprintf(&b, ", %d model calls, %s input tokens, %.1f s of model latency", l.Waste.LLMCalls, GroupDigits(l.Waste.TokensIn), l.Waste.LatencySeconds)
	}
	b.WriteString(". ")
	if l.WarnAt > 0 {
		fmt.Fprintf(&b, "The guardrail would have warned at call %d", l.WarnAt)
	} else {
		b.WriteString("The guardrail would never have warned")
	}
	if l.HardStopAt > 0 {
		state := "with hard stops on"
		if l.HardStopEnabled {
			state = "as configured"
		}
		fmt.Fprintf(&b, " and stopped at call %d (%s), saving %d calls", l.HardStopAt, state, l.SavedIfStopped.Calls)
		if l.SavedIfStopped.TokensIn > 0 {
			fmt.Fprintf(&b, " and %s input tokens", GroupDigits(l.SavedIfStopped.TokensIn))
		}
	}
	b.WriteString(".")
	if l.WarnAt > 0 && l.UnfixedWarnAt == 0 {
		b.WriteString(" A guardrail without the volatile-field fix stays silent on this loop.")
	}
	return b.String()
}

// GroupDigits renders 31365131 as "31,365,131": token counts are read by
// people, in loop findings and in every report format.
func GroupDigits(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
