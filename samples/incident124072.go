package samples

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// The Hermes #124072 incident, as the loop-guardrail article tells it:
// asked to run 10 background sub-agents and synthesise their results, the
// agent kept its turn alive with one no-op execute_code call after another.
// Inside the loop window (22:31:05–23:20:12) the ledger holds exactly the
// article's figures: 190 main-model calls, 31,365,131 input tokens of which
// 31,272,448 cache reads, 25,896 output tokens, 1,869.8 s of latency, 193
// approval-model calls, and 190 byte-identical execute_code calls whose
// results differ only in duration_seconds and kernel.execution_count. The
// whole session (22:09–23:33) has 267 main-model calls, 40,377,600
// cache-read tokens and 73,059 output tokens.
//
// Every result is stored whole (it fits the 300-character digest), so the
// pre-fix result hash can be recomputed offline and compared.

// Incident124072 figures, exported so tests check the ledger against the
// article rather than against themselves.
const (
	Incident124072LoopCalls      = 190
	Incident124072LoopTokensIn   = 31_365_131
	Incident124072LoopCacheRead  = 31_272_448
	Incident124072LoopTokensOut  = 25_896
	Incident124072LoopLatencyMS  = 1_869_800
	Incident124072ApprovalCalls  = 193
	Incident124072SessionCalls   = 267
	Incident124072SessionCache   = 40_377_600
	Incident124072SessionOut     = 73_059
	Incident124072Session        = "20261124_220903_c7e14a"
	incident124072MainModel      = "openrouter/main-model"
	incident124072ApprovalModel  = "openrouter/approval-model"
	incident124072PreCalls       = 60
	incident124072PostCalls      = 17
	incident124072LoopStep       = 15_560 * time.Millisecond
	incident124072IssueOffset    = 5_800 * time.Millisecond
	incident124072ApprovalOffset = 5_700 * time.Millisecond
)

// Incident124072Window is the loop window of the article.
var (
	Incident124072WindowStart = time.Date(2026, 11, 24, 22, 31, 5, 0, time.UTC)
	Incident124072WindowEnd   = time.Date(2026, 11, 24, 23, 20, 12, 0, time.UTC)
)

func init() {
	Register(Sample{
		Name:        "incident-124072",
		Description: "Hermes #124072: 190 identical no-op execute_code calls over 49 minutes that the unfixed guardrail never flagged",
		Build:       buildIncident124072,
	})
}

// spread returns n integers summing exactly to total, growing by step per
// index with a deterministic zero-sum jitter (pairs of +d/-d) so the
// figures look like a real, growing context rather than a constant.
func incidentSpread(n int, total, step, jitterMod int64) []int64 {
	out := make([]int64, n)
	var ramp int64
	for i := 0; i < n; i++ {
		ramp += int64(i) * step
	}
	base := (total - ramp) / int64(n)
	rem := total - ramp - base*int64(n)
	for i := 0; i < n; i++ {
		out[i] = base + int64(i)*step
		if int64(i) < rem {
			out[i]++
		}
	}
	if jitterMod > 0 {
		for i := 0; i+1 < n; i += 2 {
			d := (int64(i) * 37) % jitterMod
			out[i] += d
			out[i+1] -= d
		}
	}
	return out
}

type incidentWriter struct {
	w    *ledger.Writer
	call int
	exec int // the kernel's execution counter
}

func (iw *incidentWriter) add(e ledger.Event) error {
	e.Source = "hermes"
	e.SessionID = Incident124072Session
	_, err := iw.w.Append(e)
	return err
}

func incidentI64(v int64) *int64 { return &v }

func (iw *incidentWriter) llm(ts time.Time, turn string, in, cache, out, latMS int64) error {
	return iw.add(ledger.Event{
		TS: ts, Kind: ledger.KindLLMCall, TurnID: turn,
		ArgsJSON: `{"model":"` + incident124072MainModel + `"}`,
		TokensIn: incidentI64(in), TokensCacheRead: incidentI64(cache), TokensOut: incidentI64(out), DurationMS: incidentI64(latMS),
	})
}

func (iw *incidentWriter) approval(ts time.Time, turn string) error {
	return iw.add(ledger.Event{
		TS: ts, Kind: ledger.KindLLMCall, TurnID: turn,
		ArgsJSON: `{"model":"` + incident124072ApprovalModel + `","role":"approval"}`,
		TokensIn: incidentI64(1_850), TokensOut: incidentI64(12), DurationMS: incidentI64(900),
	})
}

// tool writes one issued row and its outcome.
func (iw *incidentWriter) tool(ts time.Time, turn, name, args, result string, durMS int64) error {
	iw.call++
	id := fmt.Sprintf("call_%04d", iw.call)
	if err := iw.add(ledger.Event{TS: ts, Kind: ledger.KindIssued, TurnID: turn, CallID: id, ToolName: name, ArgsJSON: args, Cwd: "/home/dev/research"}); err != nil {
		return err
	}
	return iw.add(ledger.Event{
		TS: ts.Add(time.Duration(durMS) * time.Millisecond), Kind: ledger.KindConfirmed, TurnID: turn, CallID: id,
		ToolName: name, ResultDigest: result, ResultHash: ledger.ResultHash(name, result), DurationMS: incidentI64(durMS),
	})
}

func (iw *incidentWriter) execResult(output string, durMS int64) string {
	iw.exec++
	b, _ := json.Marshal(map[string]any{
		"status": "success", "output": output, "tool_calls_made": 0,
		"duration_seconds": json.Number(fmt.Sprintf("%.2f", float64(durMS)/1000)),
		"kernel":           map[string]any{"execution_count": iw.exec, "language": "python", "session": "k-7f3a"},
	})
	return string(b)
}

func incidentJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func buildIncident124072(w *ledger.Writer) error {
	iw := &incidentWriter{w: w}
	day := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	at := func(h, m, s, ms int) time.Time {
		return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(s)*time.Second + time.Duration(ms)*time.Millisecond)
	}
	const turn1, turn2 = "turn-0001", "turn-0002"
	if err := iw.add(ledger.Event{TS: at(22, 9, 3, 0), Kind: ledger.KindSessionStart, TurnID: turn1,
		ArgsJSON: `{"model":"` + incident124072MainModel + `","platform":"cli"}`}); err != nil {
		return err
	}

	// Outside the loop: 60 calls before it and 17 after share the rest of
	// the session's cache reads and output tokens.
	outside := incident124072PreCalls + incident124072PostCalls
	postCache := incidentSpread(incident124072PostCalls, 3_298_000, 500, 0)
	preCache := incidentSpread(incident124072PreCalls, Incident124072SessionCache-Incident124072LoopCacheRead-3_298_000, 2_000, 0)
	outTokens := incidentSpread(outside, Incident124072SessionOut-Incident124072LoopTokensOut, 0, 80)

	// Before the loop: research work, then 10 background sub-agents.
	t := at(22, 9, 5, 0)
	for i := 0; i < incident124072PreCalls; i++ {
		lat := int64(9_000 + (i*131)%4_000)
		if err := iw.llm(t, turn1, preCache[i]+1_200+int64(i%9)*40, preCache[i], outTokens[i], lat); err != nil {
			return err
		}
		ts := t.Add(400 * time.Millisecond)
		var err error
		switch {
		case i == incident124072PreCalls-3:
			tasks := make([]map[string]string, 10)
			for k := range tasks {
				tasks[k] = map[string]string{"goal": fmt.Sprintf("Survey source %d of the reading list and summarise its findings", k+1)}
			}
			err = iw.tool(ts, turn1, "delegate_task", incidentJSON(map[string]any{"tasks": tasks, "background": true}),
				`{"status":"started","background":true,"subagents":10,"message":"10 subagents running; you will be notified when they finish."}`, 1_840)
		case i%3 == 0:
			err = iw.tool(ts, turn1, "terminal", incidentJSON(map[string]string{"command": fmt.Sprintf("wc -l sources/part_%02d.md", i)}),
				incidentJSON(map[string]any{"output": fmt.Sprintf("%d sources/part_%02d.md\n", 120+i*7, i), "exit_code": 0}), int64(80+i))
		case i%3 == 1:
			err = iw.tool(ts, turn1, "write_file", incidentJSON(map[string]string{"path": fmt.Sprintf("notes/section_%02d.md", i), "content": fmt.Sprintf("# Section %d\n\nOutline and open questions.\n", i)}),
				incidentJSON(map[string]any{"success": true, "bytes_written": 40 + i}), int64(12+i%5))
		default:
			code := fmt.Sprintf("rows = [l for l in open('data/chunk_%02d.csv')]\nprint(len(rows))", i)
			err = iw.tool(ts, turn1, "execute_code", incidentJSON(map[string]string{"code": code}),
				iw.execResult(fmt.Sprintf("%d\n", 300+i*11), int64(200+i*3)), int64(200+i*3))
		}
		if err != nil {
			return err
		}
		t = t.Add(21_800 * time.Millisecond)
	}

	// The loop: each iteration is a main-model call, an approval-model call
	// and the same execute_code probe.
	loopIn := incidentSpread(Incident124072LoopCalls, Incident124072LoopTokensIn, 300, 200)
	uncached := incidentSpread(Incident124072LoopCalls, Incident124072LoopTokensIn-Incident124072LoopCacheRead, 0, 0)
	loopOut := incidentSpread(Incident124072LoopCalls, Incident124072LoopTokensOut, 0, 40)
	loopLat := incidentSpread(Incident124072LoopCalls, Incident124072LoopLatencyMS, 0, 900)
	probe := incidentJSON(map[string]string{"code": "print(\"Still waiting for the 10 background subagents...\")"})
	extraApprovals := map[int]bool{47: true, 95: true, 143: true}
	for i := 0; i < Incident124072LoopCalls; i++ {
		l := Incident124072WindowStart.Add(time.Duration(i) * incident124072LoopStep)
		if err := iw.llm(l, turn1, loopIn[i], loopIn[i]-uncached[i], loopOut[i], loopLat[i]); err != nil {
			return err
		}
		if err := iw.approval(l.Add(incident124072ApprovalOffset), turn1); err != nil {
			return err
		}
		if extraApprovals[i] {
			if err := iw.approval(l.Add(incident124072ApprovalOffset+50*time.Millisecond), turn1); err != nil {
				return err
			}
		}
		issued := l.Add(incident124072IssueOffset)
		dur := int64(300 + (i*37)%150)
		if i == Incident124072LoopCalls-1 { // the window closes as the last probe returns
			dur = Incident124072WindowEnd.Sub(issued).Milliseconds()
		}
		if err := iw.tool(issued, turn1, "execute_code", probe, iw.execResult("Still waiting for the 10 background subagents...\n", dur), dur); err != nil {
			return err
		}
	}

	// After the user stopped it by hand: a short second turn.
	t = at(23, 20, 40, 0)
	for k := 0; k < incident124072PostCalls; k++ {
		i := incident124072PreCalls + k
		if err := iw.llm(t, turn2, postCache[k]+2_100+int64(k%5)*60, postCache[k], outTokens[i], int64(11_000+(k*173)%5_000)); err != nil {
			return err
		}
		if k < 10 {
			err := iw.tool(t.Add(300*time.Millisecond), turn2, "write_file",
				incidentJSON(map[string]string{"path": fmt.Sprintf("synthesis/part_%02d.md", k+1), "content": fmt.Sprintf("## Findings from source %d\n", k+1)}),
				incidentJSON(map[string]any{"success": true, "bytes_written": 28 + k}), int64(10+k))
			if err != nil {
				return err
			}
		}
		t = t.Add(44_000 * time.Millisecond)
	}
	return iw.add(ledger.Event{TS: at(23, 33, 10, 0), Kind: ledger.KindSessionEnd, TurnID: turn2})
}
