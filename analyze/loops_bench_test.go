package analyze_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/ledger"
)

// syntheticRecords builds n calls across 50 sessions (with a model call
// before each): mostly distinct work, with identical no-op runs, failing
// retries and reformulated probes mixed in, so every detector does work.
func syntheticRecords(n int) []ledger.Record {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	recs := make([]ledger.Record, 0, 2*n)
	for i := 0; i < n; i++ {
		ts := t0.Add(time.Duration(i) * time.Second)
		sess := fmt.Sprintf("s%02d", (i/200)%50)
		turn := fmt.Sprintf("t%d", i/500)
		in, out, ms := int64(1000+i%700), int64(50), int64(900)
		recs = append(recs, ledger.Record{Event: &ledger.Event{ID: int64(2 * i), TS: ts, Kind: ledger.KindLLMCall, SessionID: sess,
			TurnID: turn, ArgsJSON: `{"model":"m"}`, TokensIn: &in, TokensOut: &out, DurationMS: &ms}})
		c := &ledger.Call{ID: int64(2*i + 1), Ledger: "bench.db", TS: ts, OutcomeTS: ts.Add(time.Second), SessionID: sess, TurnID: turn,
			CallID: fmt.Sprint(i), Status: ledger.StatusConfirmed, DurationMS: &ms}
		switch k := (i / 20) % 10; {
		case k < 6: // distinct work
			c.Tool, c.Args = "terminal", fmt.Sprintf(`{"command":"make target%d"}`, i)
			c.ResultDigest = fmt.Sprintf(`{"output":"built %d","exit_code":0}`, i)
		case k < 8: // the #124072 probe
			c.Tool, c.Args = "execute_code", `{"code":"print(\"waiting\")"}`
			c.ResultDigest = fmt.Sprintf(`{"status":"success","output":"waiting\n","duration_seconds":0.%02d,"kernel":{"execution_count":%d}}`, i%100, i)
		case k < 9: // reformulated probes
			c.Tool, c.Args = "execute_code", fmt.Sprintf(`{"code":"# poll %d\nprint('still waiting %d')"}`, i, i)
			c.ResultDigest = fmt.Sprintf(`{"status":"success","output":"still waiting %d\n","duration_seconds":0.1,"kernel":{"execution_count":%d}}`, i, i)
		default: // a failing retry
			c.Tool, c.Args = "patch", `{"path":"a.go","old":"x"}`
			c.Status, c.ResultDigest = ledger.StatusError, `{"error":"old text not found"}`
		}
		c.ResultHash = ledger.ResultHash(c.Tool, c.ResultDigest)
		recs = append(recs, ledger.Record{Call: c})
	}
	return recs
}

func BenchmarkLoopTracker100k(b *testing.B) {
	recs := syntheticRecords(100_000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tr := analyze.NewLoopTracker()
		for _, r := range recs {
			tr.Observe(r)
		}
		if len(tr.Report().Loops) == 0 {
			b.Fatal("no loops found in the synthetic stream")
		}
	}
	b.ReportMetric(float64(100_000*b.N)/b.Elapsed().Seconds(), "calls/s")
}
