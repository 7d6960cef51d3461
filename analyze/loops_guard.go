package analyze

import "strings"

// This file replays Hermes' per-turn tool-call guardrail controller
// (agent/tool_guardrails.py) over recorded calls: the same counters, the
// same thresholds and the same decision codes, fed from the ledger instead
// of live tool results. It decides nothing about the agent; it only says
// on which recorded call Hermes would have warned or stopped.

// Tool sets as Hermes defines them.
var (
	idempotentTools = toolSet("read_file", "search_files", "web_search", "web_extract", "session_search", "skill_view",
		"skills_list", "browser_snapshot", "browser_console", "browser_get_images", "mcp_filesystem_read_file",
		"mcp_filesystem_read_text_file", "mcp_filesystem_read_multiple_files", "mcp_filesystem_list_directory",
		"mcp_filesystem_list_directory_with_sizes", "mcp_filesystem_directory_tree", "mcp_filesystem_get_file_info",
		"mcp_filesystem_search_files")
	mutatingTools = toolSet("terminal", "execute_code", "write_file", "patch", "todo_list", "memory", "skill_manage",
		"browser_click", "browser_type", "browser_press", "browser_scroll", "browser_navigate", "send_message",
		"cronjob_manage", "delegate_task", "process_manage")
	// Failing is normal work output for these: same_tool_failure never halts them.
	failureTolerantTools = toolSet("terminal", "execute_code", "process_manage", "process", "browser_navigate", "web_extract")
	// A success of one of these is progress for every failing signature of the turn.
	progressResetTools = toolSet("write_file", "patch", "terminal", "execute_code", "browser_click", "browser_type",
		"browser_press", "browser_navigate", "process_manage", "process", "delegate_task", "send_message", "cronjob",
		"cronjob_manage", "todo", "todo_list", "memory", "skill_manage")
)

func toolSet(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// repeatableTool: pollers legitimately re-invoked with identical args;
// the identical-call notice never fires for them.
func repeatableTool(tool string) bool {
	return tool == "process_manage" || tool == "process" ||
		strings.HasSuffix(tool, "_get_result") || strings.HasSuffix(tool, "_poll")
}

func idempotentTool(tool string) bool { return idempotentTools[tool] && !mutatingTools[tool] }

// Decision actions.
const (
	actWarn  = "warn"
	actBlock = "block" // refuses the call it is decided on: the previous call was the last to run
	actHalt  = "halt"  // the call runs, then the turn stops
)

// decision is one guardrail verdict on one call.
type decision struct {
	action, code string
}

// cycleHistory bounds the per-turn call history, as Hermes does.
const cycleHistory = 64

// maxCyclePeriod is the longest repeating batch detected.
const maxCyclePeriod = 4

// histEntry is one call in the cycle history.
type histEntry struct {
	sig, hash  string
	repeatable bool
}

// ring is the history of the latest calls (at most cycleHistory), as far
// as cycle detection can still use it. A cycle of period p found later
// ends at a later call and repeats over its whole span, so the part of
// that span already in the history lies within the trailing run of calls
// equal to the call p before them (runs[p-2]), plus one lap: detectCycle
// never looks further back than that (its lap comparison stops where the
// run stops). Older entries are dropped as soon as they fall out of every
// period's reach, which in ordinary work keeps a handful of calls instead
// of 64 per session and per guard, with exactly the same detections.
type ring struct {
	buf  []histEntry // oldest first
	runs [maxCyclePeriod - 1]int
}

func (r *ring) push(e histEntry) {
	r.buf = append(r.buf, e)
	n := len(r.buf)
	need := 0
	for p := 2; p <= maxCyclePeriod; p++ {
		run := &r.runs[p-2]
		if n > p && r.buf[n-1-p].sig == e.sig && r.buf[n-1-p].hash == e.hash {
			*run++
		} else {
			*run = 0
		}
		need = max(need, *run+p)
	}
	if drop := n - min(need, cycleHistory); drop > 0 {
		k := copy(r.buf, r.buf[drop:])
		clear(r.buf[k:]) // release the strings
		r.buf = r.buf[:k]
	}
}

func (r *ring) len() int { return len(r.buf) }

func (r *ring) at(i int) *histEntry { return &r.buf[i] }

func (r *ring) clear() {
	clear(r.buf)
	r.buf = r.buf[:0]
	r.runs = [maxCyclePeriod - 1]int{}
}

// detectCycle finds the smallest period 2..4 whose trailing laps (same
// signature and result at every position) number at least
// IdenticalCallThreshold, ending at the latest call. A lap made only of
// pollers is exempt, and a constant lap is the identical streak's job.
func (r *ring) detectCycle() (period, laps int) {
	for p := 2; p <= maxCyclePeriod; p++ {
		n := r.len()
		if n < p*IdenticalCallThreshold {
			continue
		}
		l := 1
		for {
			base := n - p*(l+1)
			if base < 0 {
				break
			}
			equal := true
			for i := 0; i < p; i++ {
				a, b := r.at(base+i), r.at(n-p+i)
				if a.sig != b.sig || a.hash != b.hash {
					equal = false
					break
				}
			}
			if !equal {
				break
			}
			l++
		}
		if l < IdenticalCallThreshold {
			continue
		}
		allRepeatable, constant := true, true
		first := r.at(n - p)
		for i := 0; i < p; i++ {
			e := r.at(n - p + i)
			allRepeatable = allRepeatable && e.repeatable
			constant = constant && e.sig == first.sig && e.hash == first.hash
		}
		if allRepeatable || constant {
			continue
		}
		return p, l
	}
	return 0, 0
}

// guardCall is what the controller needs to know about one call.
type guardCall struct {
	tool       string
	sig        string // tool + args hash
	hash       string // result hash (fixed or unfixed, per guard)
	hasResult  bool   // false for a call with no recorded outcome
	failed     bool
	spawns     int // subagents a delegate_task call starts
	repeatable bool
	idempotent bool
}

type noProgress struct {
	hash  string
	count int
}

// guard is one per-turn Hermes controller. Hard stops are always
// evaluated so the report can say where one would have happened; whether
// the session's configuration had them on is reported beside it.
type guard struct {
	cfg *LoopConfig

	exact    map[string]int
	same     map[string]int
	progress map[string]bool
	noProg   map[string]noProgress

	streakSig, streakHash string
	streakCount           int
	history               ring

	webSearches, subagents int

	// capped is set once a per-turn table was full and a new signature
	// went uncounted (see maxTurnKeys).
	capped bool
}

// maxTurnKeys bounds each per-turn table (failing signatures, failing
// tools, no-progress signatures). Hermes' tables grow without bound
// within a turn; a turn with thousands of distinct failing calls is
// pathological, and past this size new signatures are not counted, so
// memory stays bounded whatever the ledger holds.
const maxTurnKeys = 4096

func room[V any](m map[string]V, k string) bool {
	if _, ok := m[k]; ok {
		return true
	}
	return len(m) < maxTurnKeys
}

func newGuard(cfg *LoopConfig) *guard {
	g := &guard{cfg: cfg}
	g.reset()
	return g
}

// reset starts a new turn.
func (g *guard) reset() {
	g.exact = map[string]int{}
	g.same = map[string]int{}
	g.progress = map[string]bool{}
	g.noProg = map[string]noProgress{}
	g.streakSig, g.streakHash, g.streakCount = "", "", 0
	g.history.clear()
	g.webSearches, g.subagents = 0, 0
}

// observe runs before_call, after_call and observe_call for one recorded
// call and returns every decision Hermes would have made on it.
func (g *guard) observe(c guardCall, out []decision) []decision {
	cfg := g.cfg
	// before_call: loop caps first (they fire whatever hard_stop_enabled says).
	switch {
	case c.tool == "web_search":
		if capN := cfg.LoopCaps[LoopCapWebSearches]; capN > 0 && g.webSearches >= capN {
			out = append(out, decision{actBlock, "loop_web_search_cap"})
		} else {
			g.webSearches++
		}
	case c.tool == "delegate_task" && c.spawns > 0:
		if capN := cfg.LoopCaps[LoopCapSubagents]; capN > 0 && g.subagents >= capN {
			out = append(out, decision{actBlock, "loop_subagent_cap"})
		} else {
			g.subagents += c.spawns
		}
	}
	exactCount := g.exact[c.sig]
	if g.progress[c.sig] {
		exactCount = 0
	}
	if exactCount >= cfg.hardStopAfter(LoopExactFailure) {
		out = append(out, decision{actBlock, "repeated_exact_failure_block"})
	} else if rec, ok := g.noProg[c.sig]; ok && c.idempotent && rec.count >= cfg.hardStopAfter(LoopIdempotentNoProgress) {
		out = append(out, decision{actBlock, "idempotent_no_progress_block"})
	}

	if c.hasResult {
		out = g.afterCall(c, out)
	}
	return g.observeCall(c, out)
}

func (g *guard) afterCall(c guardCall, out []decision) []decision {
	cfg := g.cfg
	if c.failed {
		if g.progress[c.sig] {
			delete(g.progress, c.sig)
			delete(g.exact, c.sig)
		}
		if room(g.exact, c.sig) {
			g.exact[c.sig]++
		} else {
			g.capped = true
		}
		if room(g.same, c.tool) {
			g.same[c.tool]++
		} else {
			g.capped = true
		}
		delete(g.noProg, c.sig)
		exact, same := g.exact[c.sig], g.same[c.tool]
		if !failureTolerantTools[c.tool] && same >= cfg.hardStopAfter(LoopSameToolFailure) {
			out = append(out, decision{actHalt, "same_tool_failure_halt"})
		}
		if cfg.WarningsEnabled {
			if exact >= cfg.warnAfter(LoopExactFailure) {
				out = append(out, decision{actWarn, "repeated_exact_failure_warning"})
			} else if same >= cfg.warnAfter(LoopSameToolFailure) {
				out = append(out, decision{actWarn, "same_tool_failure_warning"})
			}
		}
		return out
	}
	delete(g.exact, c.sig)
	delete(g.same, c.tool)
	if progressResetTools[c.tool] {
		for sig := range g.exact {
			g.progress[sig] = true
		}
		clear(g.same)
	}
	if !c.idempotent {
		delete(g.noProg, c.sig)
		return out
	}
	rec := g.noProg[c.sig]
	n := 1
	if rec.count > 0 && rec.hash == c.hash {
		n = rec.count + 1
	}
	if _, ok := g.noProg[c.sig]; !ok && len(g.noProg) >= maxTurnKeys {
		g.capped = true
		return out
	}
	g.noProg[c.sig] = noProgress{c.hash, n}
	if cfg.WarningsEnabled && n >= cfg.warnAfter(LoopIdempotentNoProgress) {
		out = append(out, decision{actWarn, "idempotent_no_progress_warning"})
	}
	return out
}

// observeCall is the identical-call streak and the batch-cycle detector.
// Hermes appends its notice whatever warnings_enabled says.
func (g *guard) observeCall(c guardCall, out []decision) []decision {
	if c.hasResult && g.streakCount > 0 && c.sig == g.streakSig && c.hash == g.streakHash {
		g.streakCount++
	} else if c.hasResult {
		g.streakSig, g.streakHash, g.streakCount = c.sig, c.hash, 1
	} else {
		g.streakSig, g.streakHash, g.streakCount = "", "", 0
	}
	noticed := false
	if !c.repeatable && g.streakCount >= IdenticalCallThreshold {
		noticed = true
		out = append(out, decision{actWarn, "identical_call_streak"})
		if g.streakCount >= g.cfg.hardStopAfter(LoopIdempotentNoProgress) {
			out = append(out, decision{actHalt, "identical_call_streak_halt"})
		}
	}
	if !c.hasResult {
		g.history.clear()
		return out
	}
	g.history.push(histEntry{c.sig, c.hash, c.repeatable})
	if !noticed {
		if _, laps := g.history.detectCycle(); laps > 0 {
			out = append(out, decision{actWarn, "identical_cycle"})
			if laps >= g.cfg.hardStopAfter(LoopIdempotentNoProgress) {
				out = append(out, decision{actHalt, "identical_cycle_halt"})
			}
		}
	}
	return out
}
