package owasp

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/ledger-audit/ledger-audit/finding"
	"github.com/ledger-audit/ledger-audit/internal/refilter"
	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/ledger-audit/ledger-audit/rules/policy"
	"github.com/ledger-audit/ledger-audit/rules/shell"
)

// ASI10 Rogue Agents: an agent acting beyond, or against, its mandate.
var (
	RuleActionRate = rule(finding.Rule{
		ID: "ASI10-ACTION-RATE", Category: finding.ASI10, Severity: finding.Medium,
		Title:       "Unusual action rate",
		Rationale:   "A burst of calls far above the session's own baseline is how a runaway or hijacked agent looks from the outside.",
		Remediation: "Look at what the burst did; set per-turn call caps and rate limits on the tool layer.",
	})
	RuleFanOut = rule(finding.Rule{
		ID: "ASI10-DELEGATION-FANOUT", Category: finding.ASI10, Severity: finding.High,
		Title:       "Delegation fan-out",
		Rationale:   "Starting many sub-agents at once multiplies cost and blast radius, and each sub-agent acts with the parent's authority.",
		Remediation: "Confirm the fan-out was requested; cap sub-agents per turn (Hermes loop_caps.max_subagents).",
	})
	RuleSecretExfil = rule(finding.Rule{
		ID: "ASI10-SECRET-EXFIL", Category: finding.ASI10, Severity: finding.Critical,
		Title:       "Secret read followed by an outbound send",
		Rationale:   "A credential or secret file's content (or a file or variable derived from it) reached a network command: the secret may have left the machine.",
		Remediation: "Treat the secret as leaked: rotate it now, then find out what instruction led the agent there (prompt injection is the usual cause).",
	})
	RuleSelfReplication = rule(finding.Rule{
		ID: "ASI10-SELF-REPLICATION", Category: finding.ASI10, Severity: finding.High,
		Title:       "Self-replication",
		Rationale:   "The agent scheduled or detached new runs of an agent (cron, at, nohup, tmux) or told a scheduled job to schedule more: work that outlives the session and its oversight.",
		Remediation: "List and remove the scheduled or detached runs the user did not ask for; require confirmation for scheduling tools.",
	})
	RuleOutsideCwd = rule(finding.Rule{
		ID: "ASI10-OUTSIDE-CWD", Category: finding.ASI10, Severity: finding.Medium,
		Title:       "Change outside the working directory",
		Rationale:   "A state-changing call touched a path outside the session's working directory (and outside temp dirs): the agent reached beyond the project it was given.",
		Remediation: "Check the change; confine the agent to its project (sandbox, permission rules, allowed directories).",
	})
	RuleSelfModification = rule(finding.Rule{
		ID: "ASI10-SELF-MODIFICATION", Category: finding.ASI10, Severity: finding.Critical,
		Title:       "Self-modification: the agent changed its own configuration or guardrails",
		Rationale:   "Writing to the agent's own config, plugins, hooks, instructions, shell startup files, the ledger or the policy means the audited party edited the audit or its own rules.",
		Remediation: "Diff the file against a known-good copy and revert; make agent configuration, hooks and the ledger read-only to the agent.",
	})
)

func (k *Checker) asi10(s *session, v *view, hits []policy.Hit) []finding.Finding {
	var out []finding.Finding
	k.rate(s, v)
	out = append(out, k.fanOut(s, v)...)
	out = append(out, k.selfReplication(v)...)
	out = append(out, k.pathRules(s, v, hits)...)
	return out
}

// rate counts calls per minute; Finish compares the busiest minutes with
// the session's median.
func (k *Checker) rate(s *session, v *view) {
	m := v.c.TS.Unix() / 60
	if m != s.minute {
		k.closeMinute(s)
		s.minute, s.minuteN, s.minuteMark = m, 0, markOf(v.c, v.ex(), "")
	}
	s.minuteN++
}

func (k *Checker) closeMinute(s *session) {
	if s.minuteN == 0 {
		return
	}
	s.hist[s.minuteN]++
	if s.minuteN < k.o.RateFloor {
		return
	}
	s.candidates = append(s.candidates, rateCandidate{minute: s.minute, n: s.minuteN, first: s.minuteMark})
	if len(s.candidates) > maxCandidates {
		// Keep the busiest: those are the ones that can exceed a baseline.
		sort.SliceStable(s.candidates, func(i, j int) bool { return s.candidates[i].n > s.candidates[j].n })
		s.candidates = s.candidates[:maxCandidates]
	}
}

func (k *Checker) finishRate(s *session) []finding.Finding {
	k.closeMinute(s)
	s.minuteN = 0
	median := histMedian(s.hist)
	var out []finding.Finding
	sort.Slice(s.candidates, func(i, j int) bool { return s.candidates[i].minute < s.candidates[j].minute })
	for _, c := range s.candidates {
		if float64(c.n) < k.o.RateFactor*float64(median) {
			continue
		}
		msg := fmt.Sprintf("%d calls in the minute from %s, against a median of %d per active minute in session %s",
			c.n, ledger.FormatTime(time.Unix(c.minute*60, 0)), median, s.id)
		out = append(out, finding.New(RuleActionRate, msg, c.first.ev))
	}
	s.candidates = nil
	return out
}

// histMedian is the median of a histogram of per-minute counts.
func histMedian(h map[int]int) int {
	total := 0
	keys := make([]int, 0, len(h))
	for n, c := range h {
		keys = append(keys, n)
		total += c
	}
	sort.Ints(keys)
	seen := 0
	for _, n := range keys {
		seen += h[n]
		if 2*seen >= total {
			return n
		}
	}
	return 0
}

// fanOut counts delegated agents per turn (or per window when the ledger
// has no turn ids) and fires once when the count passes the bound.
func (k *Checker) fanOut(s *session, v *view) []finding.Finding {
	if !isDelegation(v.c.Tool) {
		return nil
	}
	key := v.c.TurnID
	if key == "" {
		if s.fanStart.IsZero() || v.c.TS.Sub(s.fanStart) > k.o.FanOutWindow {
			s.fanStart = v.c.TS
			s.fanKey = "" // force a reset below
		}
		key = "window:" + ledger.FormatTime(s.fanStart)
	}
	if key != s.fanKey {
		s.fanKey, s.fanN, s.fanFired = key, 0, false
	}
	n := 1
	if tasks, ok := v.a()["tasks"].([]any); ok && len(tasks) > 0 {
		n = len(tasks) // Hermes batch delegation: one call, many agents
	}
	s.fanN += n
	if s.fanFired || s.fanN <= k.o.FanOut {
		return nil
	}
	s.fanFired = true
	scope := "turn " + v.c.TurnID
	if v.c.TurnID == "" {
		scope = "a " + k.o.FanOutWindow.String() + " window"
	}
	msg := fmt.Sprintf("%d sub-agents delegated in %s of session %s (bound %d)", s.fanN, scope, s.id, k.o.FanOut)
	return []finding.Finding{finding.New(RuleFanOut, msg, evidence(v.c, v.ex()))}
}

// agentCLIs are programs that start an AI agent.
var agentCLIs = map[string]bool{
	"hermes": true, "claude": true, "codex": true, "aider": true, "gemini": true, "opencode": true,
	"goose": true, "openhands": true, "cursor-agent": true, "amp": true, "crush": true,
}

// selfPropagation matches instructions, inside a scheduled job's prompt
// or a delegated task, to schedule or spawn further agents.
var selfPropagation = refilter.MustCompile(`(?i)\b(cronjob(_manage)?\s*(\(|create|add)|delegate_task|(create|schedule|add|register|set up)\s+(another|a new|new|more|further|an?)\s+(cron\s*jobs?|scheduled\s+jobs?|(sub-?)?agents?)|spawn\s+(another|more|new|\d+)?\s*(sub-?)?agents?|cop(y|ies) of (yourself|itself)|re-?schedule yourself|run yourself)\b`)

// selfReplication: a shell command that schedules or detaches an agent
// CLI, a cron job or delegated task whose text asks for more of the same,
// or a crontab/unit file written with an agent CLI in it.
func (k *Checker) selfReplication(v *view) []finding.Finding {
	var why string
	switch {
	case isCron(v.c.Tool):
		action := strings.ToLower(v.a().str("action"))
		if action != "" && action != "create" && action != "add" && action != "update" {
			return nil
		}
		// A prompt is natural language: only an instruction to schedule or
		// spawn more counts. A command job is shell: it counts when it
		// runs an agent CLI.
		if selfPropagation.MatchString(v.a().str("prompt", "task")) {
			why = "a scheduled job whose prompt schedules or spawns further agents"
		}
		if cmd := v.a().str("command", "script"); cmd != "" {
			cmds, _ := shell.Parse(cmd, nil)
			for _, c := range cmds {
				if agentCLIs[c.Name] {
					why = "a scheduled job that runs the agent CLI " + c.Name
				}
			}
		}
	case isDelegation(v.c.Tool):
		text := v.a().str("goal", "task", "prompt", "context")
		if m := selfPropagation.FindString(text); m != "" && !strings.EqualFold(m, "delegate_task") {
			why = "a delegated task told to schedule or spawn further agents"
		}
	case v.written != "":
		if schedulerPath(v.written) && mentionsAgentCLI(v.a().str("content", "new_string", "new_source")) {
			why = "an agent CLI written into a scheduler file " + v.written
		}
	default:
		if f := v.facts(); f != nil && f.agentLaunch != "" {
			why = f.agentLaunch
		}
	}
	if why == "" {
		return nil
	}
	return []finding.Finding{finding.New(RuleSelfReplication, why, evidence(v.c, v.ex()))}
}

var wordRE = refilter.MustCompile(`[A-Za-z0-9_./-]+`)

func mentionsAgentCLI(text string) bool {
	for _, w := range wordRE.FindAllString(text, -1) {
		if agentCLIs[path.Base(w)] {
			return true
		}
	}
	return false
}

// schedulerPath: files a scheduler reads jobs from.
func schedulerPath(p string) bool {
	for _, pre := range []string{"/etc/cron", "/var/spool/cron", "/etc/systemd/", "/Library/LaunchAgents", "/Library/LaunchDaemons"} {
		if strings.Contains(p, pre) {
			return true
		}
	}
	return strings.Contains(p, "/.config/systemd/user/") || strings.Contains(p, "/Library/LaunchAgents/")
}

// tempDirs are places where writing outside the project is normal.
var tempDirs = []string{"/tmp", "/var/tmp", "/private/tmp", "/private/var/folders", "/var/folders", "/dev", "/proc/self"}

// pathRules judges every path the call changes: self-modification first
// (CRITICAL), else outside the working directory.
//
// Shell startup files and the ledger are also pack rules
// (ASI10-SHELL-RC-WRITE, ASI10-HISTORY-TAMPER): when a pack hit with that
// tag is on the call, the pack's finding stands alone.
func (k *Checker) pathRules(s *session, v *view, hits []policy.Hit) []finding.Finding {
	if v.c.Status == ledger.StatusBlocked {
		return nil // refused: nothing changed
	}
	var out []finding.Finding
	var outside []string
	for _, p := range v.writes() {
		if what := selfTarget(p, v.c.Ledger); what != "" {
			if what == whatRC && hasTag(hits, "persistence") || what == whatLedger && hasTag(hits, "history-tamper") {
				continue
			}
			msg := fmt.Sprintf("%s wrote %s (%s)", v.c.Tool, p, what)
			out = append(out, finding.New(RuleSelfModification, msg, evidence(v.c, v.ex())))
			continue
		}
		if !path.IsAbs(p) || v.cwd == "" || within(p, v.cwd) {
			continue
		}
		temp := false
		for _, t := range tempDirs {
			if within(p, t) {
				temp = true
			}
		}
		if !temp {
			outside = append(outside, p)
		}
	}
	if len(outside) > 0 {
		msg := fmt.Sprintf("%s changed %s, outside the working directory %s", v.c.Tool, strings.Join(outside, ", "), v.cwd)
		out = append(out, finding.New(RuleOutsideCwd, msg, evidence(v.c, v.ex())))
	}
	return out
}

const (
	whatLedger = "the ledger being audited"
	whatRC     = "a shell startup file"
)

// nextToLedger reports whether p is in the ledger's directory, where
// capture reads policy_mode and the user's policy.yaml.
func nextToLedger(p, ledgerPath string) bool {
	if ledgerPath == "" {
		return false
	}
	dir := path.Dir(path.Clean(ledgerPath))
	if path.IsAbs(dir) {
		return path.Dir(p) == dir
	}
	return dir != "." && strings.HasSuffix(path.Dir(p), "/"+dir)
}

var rcFiles = map[string]bool{
	".bashrc": true, ".bash_profile": true, ".bash_login": true, ".profile": true, ".zshrc": true,
	".zprofile": true, ".zshenv": true, ".zlogin": true, ".kshrc": true, ".cshrc": true, ".tcshrc": true,
}

// selfTarget names what p is to the agent when it is part of its own
// configuration, guardrails or audit trail, else "".
func selfTarget(p, ledgerPath string) string {
	p = path.Clean(p)
	base := path.Base(p)
	dir := "/" + strings.TrimPrefix(path.Dir(p), "/") + "/"
	switch {
	case strings.Contains(dir, "/.hermes/") && base == "config.yaml":
		return "Hermes config.yaml"
	case strings.Contains(dir+base+"/", "/.hermes/plugins/"):
		return "a Hermes plugin"
	case ledgerPath != "" && (p == path.Clean(ledgerPath) || strings.TrimSuffix(strings.TrimSuffix(p, "-wal"), "-shm") == path.Clean(ledgerPath)):
		return whatLedger
	case ledgerPath != "" && !path.IsAbs(ledgerPath) && path.IsAbs(p) && strings.HasSuffix(p, "/"+path.Clean(ledgerPath)):
		return whatLedger
	case base == "policy_mode":
		return "the ledger-audit policy mode"
	case base == "policy.yaml" && nextToLedger(p, ledgerPath):
		return "the policy pack enforced on this ledger"
	case base == ".ledger-audit-ignore.yaml":
		return "the audit's suppression file"
	case strings.Contains(dir, "/ledger-audit/") && (strings.HasSuffix(base, ".yaml") || strings.HasSuffix(base, ".yml") || strings.HasSuffix(base, ".db")):
		return "ledger-audit's policy pack or ledger"
	case strings.Contains(dir, "/.claude/") && strings.HasPrefix(base, "settings") && strings.HasSuffix(base, ".json"):
		return "Claude Code settings"
	case strings.Contains(dir, "/.claude/hooks/"):
		return "a Claude Code hook"
	case base == ".claude.json":
		return "Claude Code user config"
	case base == ".mcp.json":
		return "the MCP server configuration"
	case base == "CLAUDE.md" || base == "AGENTS.md":
		return "the agent's standing instructions"
	case rcFiles[base], base == "config.fish" && strings.Contains(dir, "/fish/"):
		return whatRC
	}
	return ""
}
