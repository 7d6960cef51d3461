package owasp

import (
	"crypto/sha256"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ledger-audit/ledger-audit/finding"
	"github.com/ledger-audit/ledger-audit/ledger"
)

// ASI08 Cascading Failures: one failure feeding the next.
var (
	RuleErrorStreak = rule(finding.Rule{
		ID: "ASI08-ERROR-STREAK", Category: finding.ASI08, Severity: finding.Medium,
		Title:       "Error streak",
		Rationale:   "Many consecutive failed calls in one session mean the agent kept acting on a broken premise instead of stopping to re-plan or ask.",
		Remediation: "Find the first failure of the streak and fix its cause; enable Hermes tool_loop_guardrails hard stops so a streak ends the turn.",
	})
	RuleRetryStorm = rule(finding.Rule{
		ID: "ASI08-RETRY-STORM", Category: finding.ASI08, Severity: finding.High,
		Title:       "Retry storm: the same failing call repeated",
		Rationale:   "Repeating an identical call that keeps failing amplifies load on the tool or remote service and burns tokens without progress.",
		Remediation: "Cap identical retries (exact_failure guardrail) and make the agent change approach after a failure.",
	})
	RuleErrorCascade = rule(finding.Rule{
		ID: "ASI08-ERROR-CASCADE", Category: finding.ASI08, Severity: finding.Medium,
		Title:       "Error cascade across tools",
		Rationale:   "Failures spreading across several different tools within minutes show one fault propagating through the session.",
		Remediation: "Trace the cascade back to the first failing tool; add a guard that stops the session when several tools fail together.",
	})
	RuleGhostScheduler = rule(finding.Rule{
		ID: "ASI08-GHOST-SCHEDULER", Category: finding.ASI08, Severity: finding.High,
		Title:       "Lost scheduling or delegation call (ghost)",
		Rationale:   "A cron job or sub-agent whose creation was never confirmed may or may not exist: it can run later unseen, or the work the user expects never happens (Hermes #90985).",
		Remediation: "Check whether the job or sub-agent exists (cron/jobs.json, running agents) and confirm or remove it; keep the ghost warning hook enabled.",
	})
	RuleGhostCall = rule(finding.Rule{
		ID: "ASI08-GHOST-CALL", Category: finding.ASI08, Severity: finding.Medium,
		Title:       "Lost state-changing call (ghost)",
		Rationale:   "A state-changing call with no result while the session went on: the agent continued without knowing whether the change happened.",
		Remediation: "Verify the call's effect by hand (file content, command side effects) and re-run or revert it.",
	})
	RuleStaleCall = rule(finding.Rule{
		ID: "ASI08-STALE-CALL", Category: finding.ASI08, Severity: finding.Low,
		Title:       "Unconfirmed call at the end of a session (stale)",
		Rationale:   "A state-changing call with no result and no later activity: the session may have died mid-call, leaving its effect unknown.",
		Remediation: "Check whether the call took effect; look for a crash or kill of the agent at that time.",
	})
)

func (k *Checker) asi08(s *session, v *view) []finding.Finding {
	c := v.c
	var out []finding.Finding
	switch c.Status {
	case ledger.StatusError:
		out = append(out, k.errorStreak(s, v)...)
		out = append(out, k.retryStorm(s, v)...)
		out = append(out, k.errorCascade(s, v)...)
	case ledger.StatusConfirmed:
		s.streak, s.streakFired = s.streak[:0], false
		if s.retries.len() > 0 { // hashing the arguments is the costly part
			s.retries.del(signature(v))
		}
	}
	return out
}

// errorStreak fires once per run of ErrorStreak consecutive failures; the
// run must end with a success before it can fire again.
func (k *Checker) errorStreak(s *session, v *view) []finding.Finding {
	if len(s.streak) < k.o.ErrorStreak {
		s.streak = append(s.streak, markOf(v.c, v.ex(), ""))
	}
	if s.streakFired || len(s.streak) < k.o.ErrorStreak {
		return nil
	}
	s.streakFired = true
	ev := []finding.Evidence{s.streak[0].ev, s.streak[len(s.streak)-1].ev}
	tools := map[string]bool{}
	for _, m := range s.streak {
		tools[m.tool] = true
	}
	msg := fmt.Sprintf("%d consecutive failed calls in session %s (tools: %s), the first at %s",
		len(s.streak), s.id, strings.Join(sortedKeys(tools), ", "), ledger.FormatTime(s.streak[0].ts))
	return []finding.Finding{finding.New(RuleErrorStreak, msg, ev...)}
}

// signature identifies "the same call": tool plus the digest of the
// canonical arguments. It is only a map key, so it keeps the digest's
// first 16 raw bytes rather than hex.
func signature(v *view) string {
	if v.sum != nil {
		return v.c.Tool + "\x00" + string(v.sum[:16])
	}
	args := v.canon
	if !v.hasCanon {
		args = v.c.Args
		if canon, ok := ledger.CanonicalJSON(args); ok {
			args = canon
		}
	}
	h := sha256.Sum256([]byte(args))
	return v.c.Tool + "\x00" + string(h[:16])
}

func (k *Checker) retryStorm(s *session, v *view) []finding.Finding {
	sig := signature(v)
	st, ok := s.retries.get(sig)
	if !ok {
		st = retryState{first: markOf(v.c, v.ex(), sig)}
	}
	st.n++
	var out []finding.Finding
	if st.n >= k.o.RetryStorm && !st.fired {
		st.fired = true
		msg := fmt.Sprintf("the same %s call failed %d times (%s); first failure at %s",
			v.c.Tool, st.n, v.c.ErrorType, ledger.FormatTime(st.first.ts))
		out = append(out, finding.New(RuleRetryStorm, msg, st.first.ev, evidence(v.c, v.ex())))
	}
	s.retries.put(sig, st)
	return out
}

func (k *Checker) errorCascade(s *session, v *view) []finding.Finding {
	cut := v.c.TS.Add(-k.o.CascadeWindow)
	kept := s.errWindow[:0]
	for _, m := range s.errWindow {
		if !m.ts.Before(cut) {
			kept = append(kept, m)
		}
	}
	s.errWindow = append(kept, markOf(v.c, v.ex(), ""))
	if len(s.errWindow) > maxWindow {
		s.errWindow = s.errWindow[len(s.errWindow)-maxWindow:]
	}
	tools := map[string]bool{}
	var ev []finding.Evidence
	for _, m := range s.errWindow {
		if !tools[m.tool] {
			tools[m.tool] = true
			ev = append(ev, m.ev)
		}
	}
	if len(tools) < k.o.CascadeTools {
		return nil
	}
	s.errWindow = s.errWindow[:0] // the next cascade needs fresh failures
	msg := fmt.Sprintf("%d different tools failed within %s in session %s: %s",
		len(tools), k.o.CascadeWindow, s.id, strings.Join(sortedKeys(tools), ", "))
	return []finding.Finding{finding.New(RuleErrorCascade, msg, ev...)}
}

// GhostInput is what GhostFinding needs of a ghost; analyze fills it from
// its Ghost type (rules cannot import analyze).
type GhostInput struct {
	Ledger   string
	Row      int64
	CallID   string
	Session  string
	Tool     string
	IssuedAt time.Time
	Class    string // "ghost" | "stale" | "revived"
	Age      time.Duration
	Args     string
	Evidence []string // offline checks, e.g. "job absent from cron/jobs.json"
}

// GhostFinding scores a ghost by its tool and class: a lost cron job or
// sub-agent is HIGH, another lost call MEDIUM, a stale one LOW; a revived
// ghost (confirmed after all) is no finding.
func GhostFinding(g GhostInput) (finding.Finding, bool) {
	var r finding.Rule
	switch {
	case g.Class == "revived":
		return finding.Finding{}, false
	case g.Class == "ghost" && (isCron(g.Tool) || isDelegation(g.Tool)):
		r = RuleGhostScheduler
	case g.Class == "ghost":
		r = RuleGhostCall
	case g.Class == "stale":
		r = RuleStaleCall
	default:
		return finding.Finding{}, false
	}
	msg := fmt.Sprintf("%s call issued at %s never got a result (%s, %s old)",
		g.Tool, ledger.FormatTime(g.IssuedAt), g.Class, g.Age.Round(time.Second))
	if len(g.Evidence) > 0 {
		msg += "; " + strings.Join(g.Evidence, "; ")
	}
	ev := finding.Evidence{Ledger: g.Ledger, Row: g.Row, CallID: g.CallID, TS: g.IssuedAt,
		Session: g.Session, Tool: g.Tool, Excerpt: ghostExcerpt(g.Tool, g.Args)}
	return finding.New(r, msg, ev), true
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ghostExcerpt shows what the lost call was about — its command, path or
// job — rather than the first bytes of its JSON (keys sort "content"
// before "path").
func ghostExcerpt(tool, args string) string {
	c := &ledger.Call{Tool: tool, Args: args}
	a := decodeArgs(c)
	if isCron(tool) {
		if name := a.str("name", "job_id"); name != "" {
			return excerpt(strings.TrimSpace(a.str("action")+" "+name+" "+a.str("schedule")), excerptRunes)
		}
	}
	return excerptOf(c, a)
}
