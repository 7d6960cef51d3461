package analyze_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/ledger"
)

// book writes a real ledger for a test, one session at a time.
type book struct {
	t    testing.TB
	w    *ledger.Writer
	path string
	ts   time.Time
	n    int
	sess string
	turn string
}

func newBook(t testing.TB) *book {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ledger.db")
	w, err := ledger.OpenWriter(p, ledger.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return &book{t: t, w: w, path: p, ts: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), sess: "s1", turn: "t1"}
}

func (b *book) add(e ledger.Event) {
	b.t.Helper()
	e.SessionID, e.Source = b.sess, "hermes"
	if e.TurnID == "" {
		e.TurnID = b.turn
	}
	if _, err := b.w.Append(e); err != nil {
		b.t.Fatal(err)
	}
}

func (b *book) tick() time.Time {
	b.ts = b.ts.Add(10 * time.Second)
	return b.ts
}

func ptr(v int64) *int64 { return &v }

func (b *book) start(platform string) {
	b.add(ledger.Event{TS: b.tick(), Kind: ledger.KindSessionStart, ArgsJSON: fmt.Sprintf(`{"platform":%q,"model":"m"}`, platform)})
}

func (b *book) llm(in, cache, out, ms int64) {
	b.add(ledger.Event{TS: b.tick(), Kind: ledger.KindLLMCall, ArgsJSON: `{"model":"m"}`,
		TokensIn: ptr(in), TokensCacheRead: ptr(cache), TokensOut: ptr(out), DurationMS: ptr(ms)})
}

// call records one call; kind is the outcome (confirmed, error, or "" for
// none). The stored result hash is computed as the capture hook does.
func (b *book) call(tool, args, result string, kind ledger.Kind) {
	b.t.Helper()
	b.n++
	id := fmt.Sprintf("c%d", b.n)
	b.add(ledger.Event{TS: b.tick(), Kind: ledger.KindIssued, CallID: id, ToolName: tool, ArgsJSON: args})
	if kind == "" {
		return
	}
	e := ledger.Event{TS: b.ts.Add(time.Second), Kind: kind, CallID: id, ToolName: tool, ResultDigest: result,
		ResultHash: ledger.ResultHash(tool, result), DurationMS: ptr(1000)}
	if kind == ledger.KindError {
		e.ErrorType = "tool_error"
	}
	b.add(e)
}

func loopsOf(t testing.TB, cfg analyze.LoopConfig, paths ...string) []analyze.Loop {
	t.Helper()
	return replay(t, cfg, paths...).Report().Loops
}

func only(t testing.TB, loops []analyze.Loop, kind string) analyze.Loop {
	t.Helper()
	var got []analyze.Loop
	for _, l := range loops {
		if l.Kind == kind {
			got = append(got, l)
		}
	}
	if len(got) != 1 {
		t.Fatalf("want exactly one %s loop, got %d in %s", kind, len(got), dump(loops))
	}
	return got[0]
}

func dump(v any) string {
	b, _ := json.MarshalIndent(v, "", " ")
	return string(b)
}

func execResult(output string, n int, dur float64) string {
	return fmt.Sprintf(`{"status":"success","output":%q,"duration_seconds":%.2f,"kernel":{"execution_count":%d,"language":"python"}}`, output, dur, n)
}

func TestVolatileStripAppliesToExecuteCodeOnly(t *testing.T) {
	for _, tc := range []struct {
		tool string
		want int // identical loops
	}{
		{"execute_code", 1},
		{"terminal", 0},      // the same keys are real output for terminal
		{"mcp__lab__run", 0}, // ... and for any other tool
	} {
		t.Run(tc.tool, func(t *testing.T) {
			b := newBook(t)
			for i := 0; i < 8; i++ {
				b.call(tc.tool, `{"code":"pass"}`, execResult("", i+1, 0.1+float64(i)/10), ledger.KindConfirmed)
			}
			loops := loopsOf(t, analyze.DefaultLoopConfig(), b.path)
			n := 0
			for _, l := range loops {
				if l.Kind == analyze.LoopIdentical {
					n++
					if l.Calls != 8 || l.WarnAt != 3 || l.UnfixedWarnAt != 0 {
						t.Errorf("loop = %s", dump(l))
					}
				}
			}
			if n != tc.want {
				t.Fatalf("identical loops = %d, want %d: %s", n, tc.want, dump(loops))
			}
		})
	}
	// The hash functions themselves: stripping is keyed on the tool name.
	a, c := execResult("x", 1, 0.1), execResult("x", 2, 0.2)
	if ledger.ResultHash("execute_code", a) != ledger.ResultHash("execute_code", c) {
		t.Error("execute_code results differing only in volatile fields hash differently")
	}
	if ledger.ResultHash("terminal", a) == ledger.ResultHash("terminal", c) {
		t.Error("terminal results lost their duration_seconds / execution_count")
	}
	if ledger.ResultHashUnfixed(a) == ledger.ResultHashUnfixed(c) {
		t.Error("unfixed hash stripped volatile fields")
	}
}

func TestNonJSONResultHashesAsRawText(t *testing.T) {
	raw := "Still waiting...\n  (not JSON)"
	sum := sha256.Sum256([]byte(raw))
	if got := ledger.ResultHash("execute_code", raw); got != hex.EncodeToString(sum[:]) {
		t.Fatalf("ResultHash(non-JSON) = %s, want sha256 of the raw text", got)
	}
	// Raw text is compared exactly: whitespace matters, unlike JSON.
	if ledger.ResultHash("terminal", "a  b") == ledger.ResultHash("terminal", "a b") {
		t.Fatal("raw text results were normalised")
	}
	b := newBook(t)
	for i := 0; i < 4; i++ {
		b.call("terminal", `{"command":"tail -1 build.log"}`, raw, ledger.KindConfirmed)
	}
	for i := 0; i < 4; i++ { // same command, changing raw output: progress
		b.call("terminal", `{"command":"tail -2 build.log"}`, fmt.Sprintf("step %d of 9", i), ledger.KindConfirmed)
	}
	loops := loopsOf(t, analyze.DefaultLoopConfig(), b.path)
	l := only(t, loops, analyze.LoopIdentical)
	if l.Calls != 4 || l.WarnAt != 3 || l.UnfixedWarnAt != 3 {
		t.Fatalf("raw-text loop = %s", dump(l))
	}
	if len(loops) != 1 {
		t.Fatalf("changing raw output was flagged: %s", dump(loops))
	}
}

// A model that reformulates each no-op probe: new print text, whitespace,
// comments, renamed variables, other sleep durations.
func reformulated(i int) string {
	switch i % 5 {
	case 0:
		return fmt.Sprintf("print(\"still waiting (%d)\")", i)
	case 1:
		return fmt.Sprintf("# check on the subagents\nprint('waiting for results, attempt %d')", i)
	case 2:
		return fmt.Sprintf("import time\ntime.sleep(%d)\nprint(\"zz %d\")", 5+i, i)
	case 3:
		return fmt.Sprintf("msg_%d = \"no news yet %d\"\nprint(msg_%d)", i, i, i)
	default:
		return fmt.Sprintf("print(   \"waiting\"  )   # attempt %d   ", i)
	}
}

func TestNearDuplicateNoOpLoop(t *testing.T) {
	b := newBook(t)
	b.call("write_file", `{"path":"plan.md","content":"x"}`, `{"success":true}`, ledger.KindConfirmed)
	for i := 0; i < 20; i++ {
		code := reformulated(i)
		// The output is only what the code itself prints.
		out := ""
		for _, q := range []string{`"`, `'`} {
			if s := strings.Index(code, q); s >= 0 && out == "" {
				e := strings.Index(code[s+1:], q)
				out = code[s+1:s+1+e] + "\n"
			}
		}
		args, _ := json.Marshal(map[string]string{"code": code})
		b.llm(1000, 900, 10, 500)
		b.call("execute_code", string(args), execResult(out, i+1, 0.3), ledger.KindConfirmed)
	}
	b.call("write_file", `{"path":"plan.md","content":"y"}`, `{"success":true}`, ledger.KindConfirmed)
	loops := loopsOf(t, analyze.DefaultLoopConfig(), b.path)
	l := only(t, loops, analyze.LoopNearDuplicate)
	if l.Calls != 20 || l.DistinctArgs != 20 || l.Waste.LLMCalls != 20 || l.Waste.TokensIn != 20_000 {
		t.Fatalf("near-duplicate loop = %s", dump(l))
	}
	if l.WarnAt != 0 {
		t.Errorf("the exact guardrail cannot see reformulations, yet warn_at = %d", l.WarnAt)
	}
	if !strings.Contains(l.Evidence, "code shape") || !strings.Contains(l.Evidence, "still waiting") {
		t.Errorf("evidence does not show the reformulation: %s", l.Evidence)
	}
	if len(loops) != 1 {
		t.Errorf("expected only the near-duplicate loop: %s", dump(loops))
	}
	tr := replay(t, analyze.DefaultLoopConfig(), b.path)
	fs := tr.Findings()
	if len(fs) != 1 || fs[0].RuleID != "ASI02-LOOP-NO-PROGRESS" {
		t.Fatalf("findings = %s", dump(fs))
	}
}

func TestPollingWithChangingResultsIsNotALoop(t *testing.T) {
	b := newBook(t)
	for i := 0; i < 30; i++ {
		// Identical code, and also reformulated waits: the observed state
		// (percent done) changes, so this is progress, not a loop.
		code := "print(open('/tmp/job.status').read())"
		if i%2 == 1 {
			code = fmt.Sprintf("import time\ntime.sleep(%d)\nprint(open('/tmp/job.status').read())", i)
		}
		args, _ := json.Marshal(map[string]string{"code": code})
		b.call("execute_code", string(args), execResult(fmt.Sprintf("running: %d%% done\n", i*3), i+1, 0.2), ledger.KindConfirmed)
		b.call("terminal", `{"command":"sleep 30"}`, fmt.Sprintf(`{"output":"","exit_code":0,"at":"10:%02d"}`, i), ledger.KindConfirmed)
	}
	tr := replay(t, analyze.DefaultLoopConfig(), b.path)
	if loops := tr.Report().Loops; len(loops) != 0 {
		t.Fatalf("a poll with changing results was flagged: %s", dump(loops))
	}
	if fs := tr.Findings(); len(fs) != 0 {
		t.Fatalf("findings on a healthy poll: %s", dump(fs))
	}
}

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConfigChangesWarnAndStopPoints(t *testing.T) {
	b := newBook(t)
	for i := 0; i < 9; i++ {
		b.call("patch", `{"path":"a.go","old":"x","new":"y"}`, `{"error":"old text not found"}`, ledger.KindError)
	}
	b.call("write_file", `{"path":"b.go"}`, `{"success":true}`, ledger.KindConfirmed)
	for i := 0; i < 12; i++ {
		b.call("execute_code", `{"code":"print(1)"}`, execResult("1\n", i+1, 0.1), ledger.KindConfirmed)
	}

	def := loopsOf(t, analyze.DefaultLoopConfig(), b.path)
	ef, id := only(t, def, analyze.LoopKindExactFailure), only(t, def, analyze.LoopIdentical)
	if ef.WarnAt != 2 || ef.HardStopAt != 5 || id.WarnAt != 3 || id.HardStopAt != 5 || id.HardStopEnabled {
		t.Fatalf("defaults: exact %d/%d identical %d/%d (enabled %v)", ef.WarnAt, ef.HardStopAt, id.WarnAt, id.HardStopAt, id.HardStopEnabled)
	}
	if ef.SavedIfStopped.Calls != 4 || id.SavedIfStopped.Calls != 7 {
		t.Fatalf("saved: exact %d identical %d", ef.SavedIfStopped.Calls, id.SavedIfStopped.Calls)
	}

	p := writeConfig(t, `model: x
tool_loop_guardrails:
  hard_stop_enabled: true
  warn_after:
    exact_failure: 3
  hard_stop_after:
    exact_failure: 4
    idempotent_no_progress: 8
`)
	cfg, err := analyze.LoadLoopConfig(p, true)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Source != p || cfg.WarnAfter[analyze.LoopSameToolFailure] != 3 || cfg.LoopCaps[analyze.LoopCapWebSearches] != 50 {
		t.Fatalf("unset keys must keep their defaults: %s", dump(cfg))
	}
	got := loopsOf(t, cfg, b.path)
	ef, id = only(t, got, analyze.LoopKindExactFailure), only(t, got, analyze.LoopIdentical)
	if ef.WarnAt != 3 || ef.HardStopAt != 4 || id.WarnAt != 3 || id.HardStopAt != 8 || !id.HardStopEnabled {
		t.Fatalf("config: exact %d/%d identical %d/%d (enabled %v)", ef.WarnAt, ef.HardStopAt, id.WarnAt, id.HardStopAt, id.HardStopEnabled)
	}
}

func TestLoadLoopConfig(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.yaml")
	cfg, err := analyze.LoadLoopConfig(missing, false)
	if err != nil || cfg.Source != "defaults" || cfg.HardStopAfter[analyze.LoopSameToolFailure] != 8 {
		t.Fatalf("absent default config: %v %s", err, dump(cfg))
	}
	if _, err := analyze.LoadLoopConfig(missing, true); err == nil || !strings.HasPrefix(err.Error(), missing+": ") {
		t.Fatalf("a named config that is missing must fail naming it: %v", err)
	}
	legacy := writeConfig(t, "tool_loop_guardrails:\n  exact_failure_block_after: 7\n  hard_stop_after: {idempotent_no_progress: 6}\n  no_progress_block_after: 9\n  loop_caps: {max_web_searches: 0}\n  hard_stop_enabled: 'on'\n")
	cfg, err = analyze.LoadLoopConfig(legacy, true)
	if err != nil {
		t.Fatal(err)
	}
	// Nested keys win over flat legacy ones, as in Hermes; 0 disables a cap.
	if cfg.HardStopAfter[analyze.LoopExactFailure] != 7 || cfg.HardStopAfter[analyze.LoopIdempotentNoProgress] != 6 ||
		cfg.LoopCaps[analyze.LoopCapWebSearches] != 0 || !cfg.HardStopEnabled {
		t.Fatalf("legacy/nested: %s", dump(cfg))
	}
	for name, body := range map[string]string{
		"syntax":    "tool_loop_guardrails:\n  warn_after: [1, 2\n",
		"not int":   "tool_loop_guardrails:\n  warn_after:\n    exact_failure: often\n",
		"below min": "tool_loop_guardrails:\n  hard_stop_after:\n    exact_failure: 0\n",
		"not bool":  "tool_loop_guardrails:\n  hard_stop_enabled: maybe\n",
		"not map":   "tool_loop_guardrails: [1]\n",
		"top list":  "- a\n- b\n",
	} {
		p := writeConfig(t, body)
		_, err := analyze.LoadLoopConfig(p, false)
		if err == nil || !strings.HasPrefix(err.Error(), p+": ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: want one line naming the file, got %v", name, err)
		}
	}
}

func TestCycleOfTwo(t *testing.T) {
	b := newBook(t)
	for i := 0; i < 6; i++ {
		b.call("terminal", `{"command":"git stash"}`, `{"output":"Saved","exit_code":0}`, ledger.KindConfirmed)
		b.call("terminal", `{"command":"git stash pop"}`, `{"output":"Restored","exit_code":0}`, ledger.KindConfirmed)
	}
	loops := loopsOf(t, analyze.DefaultLoopConfig(), b.path)
	l := only(t, loops, analyze.LoopCycle)
	if l.Period != 2 || l.Calls != 12 || l.WarnAt != 6 || l.HardStopAt != 10 || l.DistinctArgs != 2 {
		t.Fatalf("cycle = %s", dump(l))
	}
}

func TestFailureStreaks(t *testing.T) {
	b := newBook(t)
	for i := 0; i < 9; i++ { // same tool, different args, all failing
		b.call("cronjob_manage", fmt.Sprintf(`{"action":"create","name":"job%d"}`, i), `{"error":"scheduler unavailable"}`, ledger.KindError)
	}
	loops := loopsOf(t, analyze.DefaultLoopConfig(), b.path)
	l := only(t, loops, analyze.LoopKindSameTool)
	if l.Calls != 9 || l.WarnAt != 3 || l.HardStopAt != 8 || l.WarnCode != "same_tool_failure_warning" {
		t.Fatalf("same-tool failure = %s", dump(l))
	}
	tr := replay(t, analyze.DefaultLoopConfig(), b.path)
	if fs := tr.Findings(); len(fs) != 1 || fs[0].RuleID != "ASI08-LOOP-FAILURE-REPLAY" || len(fs[0].Evidence) != 3 {
		t.Fatalf("findings = %s", dump(fs))
	}
	// failure-tolerant tools (terminal) never hard-stop on same-tool failures
	b2 := newBook(t)
	for i := 0; i < 9; i++ {
		b2.call("terminal", fmt.Sprintf(`{"command":"make test%d"}`, i), `{"output":"FAIL","exit_code":1}`, ledger.KindError)
	}
	l = only(t, loopsOf(t, analyze.DefaultLoopConfig(), b2.path), analyze.LoopKindSameTool)
	if l.HardStopAt != 0 || l.WarnAt != 3 {
		t.Fatalf("terminal same-tool failures = %s", dump(l))
	}
}

func TestTurnCaps(t *testing.T) {
	b := newBook(t)
	b.start("telegram")
	for i := 0; i < 55; i++ {
		b.call("web_search", fmt.Sprintf(`{"query":"q%d"}`, i), fmt.Sprintf(`{"results":["r%d"]}`, i), ledger.KindConfirmed)
	}
	b.turn = "t2"
	for i := 0; i < 40; i++ { // a new turn resets the cap
		b.call("web_search", fmt.Sprintf(`{"query":"z%d"}`, i), fmt.Sprintf(`{"results":["z%d"]}`, i), ledger.KindConfirmed)
	}
	b.turn = "t3"
	b.call("delegate_task", `{"tasks":[`+strings.Repeat(`{"goal":"g"},`, 29)+`{"goal":"g"}]}`, `{"status":"started"}`, ledger.KindConfirmed)
	b.call("delegate_task", `{"action":"list"}`, `{"running":30}`, ledger.KindConfirmed)
	b.call("delegate_task", `{"tasks":[`+strings.Repeat(`{"goal":"h"},`, 24)+`{"goal":"h"}]}`, `{"status":"started"}`, ledger.KindConfirmed)
	b.call("delegate_task", `{"goal":"one more"}`, `{"status":"started"}`, ledger.KindConfirmed)
	loops := loopsOf(t, analyze.DefaultLoopConfig(), b.path)
	var caps []analyze.Loop
	for _, l := range loops {
		if l.Kind == analyze.LoopCapBreach {
			caps = append(caps, l)
		}
	}
	if len(caps) != 2 {
		t.Fatalf("cap breaches = %s", dump(loops))
	}
	if w := caps[0]; w.Tool != "web_search" || w.Calls != 55 || w.HardStopAt != 50 || w.SavedIfStopped.Calls != 5 || !w.HardStopEnabled || w.Turn != "t1" || w.Platform != "telegram" {
		t.Fatalf("web_search cap = %s", dump(w))
	}
	// 30 spawned, list spawns nothing, 25 more reach 55 ≥ 50: the 4th call is refused.
	if d := caps[1]; d.Tool != "delegate_task" || d.Calls != 3 || d.HardStopAt != 2 {
		t.Fatalf("delegate cap = %s", dump(d))
	}
}

func TestStreakAcrossTurnsIsInvisibleToThePerTurnGuardrail(t *testing.T) {
	b := newBook(t)
	for i := 0; i < 6; i++ {
		b.turn = fmt.Sprintf("t%d", i)
		b.call("execute_code", `{"code":"print(0)"}`, execResult("0\n", i+1, 0.1), ledger.KindConfirmed)
	}
	l := only(t, loopsOf(t, analyze.DefaultLoopConfig(), b.path), analyze.LoopIdentical)
	if l.Calls != 6 || l.WarnAt != 0 || l.HardStopAt != 0 || l.Turn != "" {
		t.Fatalf("cross-turn streak = %s", dump(l))
	}
}

func TestUnfixedHashNeedsTheWholeResult(t *testing.T) {
	b := newBook(t)
	long := strings.Repeat("x", 400)
	for i := 0; i < 5; i++ {
		b.call("execute_code", `{"code":"print('x'*400)"}`, execResult(long, i+1, 0.1), ledger.KindConfirmed)
	}
	tr := replay(t, analyze.DefaultLoopConfig(), b.path)
	rep := tr.Report()
	l := only(t, rep.Loops, analyze.LoopIdentical)
	if l.WarnAt != 3 || l.UnfixedWarnAt != 0 || l.UnfixedUnknown != 5 || len(rep.Notes) != 1 {
		t.Fatalf("long results: %s", dump(rep))
	}
}

func TestSessionsAndLedgersAreSeparate(t *testing.T) {
	b1, b2 := newBook(t), newBook(t)
	for _, b := range []*book{b1, b2} {
		for i := 0; i < 2; i++ {
			b.call("execute_code", `{"code":"1"}`, execResult("", i+1, 0.1), ledger.KindConfirmed)
		}
	}
	b1.sess = "s2"
	b1.call("execute_code", `{"code":"1"}`, execResult("", 9, 0.1), ledger.KindConfirmed)
	// 2 + 2 in two ledgers, and one in another session: never 3 in a row.
	if loops := loopsOf(t, analyze.DefaultLoopConfig(), b1.path, b2.path); len(loops) != 0 {
		t.Fatalf("state leaked across ledgers or sessions: %s", dump(loops))
	}
}

func TestPendingCallBreaksStreak(t *testing.T) {
	b := newBook(t)
	for i := 0; i < 4; i++ {
		if i == 2 {
			b.call("execute_code", `{"code":"1"}`, "", "")
		}
		b.call("execute_code", `{"code":"1"}`, execResult("", i+1, 0.1), ledger.KindConfirmed)
	}
	if loops := loopsOf(t, analyze.DefaultLoopConfig(), b.path); len(loops) != 0 {
		t.Fatalf("a call without a result joined a streak: %s", dump(loops))
	}
}

func TestLoopRulesMetadata(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range analyze.LoopRules() {
		if !strings.HasPrefix(r.ID, "ASI02-LOOP-") && !strings.HasPrefix(r.ID, "ASI08-LOOP-") {
			t.Errorf("rule %s lacks the loop prefix", r.ID)
		}
		if seen[r.ID] || !r.Category.Valid() || r.Severity == 0 || r.Title == "" || r.Rationale == "" || r.Remediation == "" {
			t.Errorf("incomplete or duplicate rule %+v", r)
		}
		seen[r.ID] = true
	}
	if len(seen) != 4 {
		t.Fatalf("rules = %v", seen)
	}
}

func TestNearDuplicateShellWait(t *testing.T) {
	b := newBook(t)
	words := []string{"waiting", "still waiting", "no news", "checking again", "zzz"}
	for i := 0; i < 10; i++ {
		w := words[i%len(words)]
		cmd := fmt.Sprintf("sleep %d && echo %s", 10*(i+1), w)
		if i%2 == 1 {
			cmd = fmt.Sprintf("sleep %d; echo '%s'  # poll", 5+i, w)
		}
		args, _ := json.Marshal(map[string]string{"command": cmd})
		b.call("terminal", string(args), fmt.Sprintf(`{"output":%q,"exit_code":0}`, w+"\n"), ledger.KindConfirmed)
	}
	l := only(t, loopsOf(t, analyze.DefaultLoopConfig(), b.path), analyze.LoopNearDuplicate)
	if l.Calls != 10 || l.DistinctArgs != 10 || l.Tool != "terminal" {
		t.Fatalf("shell near-duplicate = %s", dump(l))
	}
}
