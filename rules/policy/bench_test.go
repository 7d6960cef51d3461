package policy

import (
	"fmt"
	"testing"
)

// cmd200 is a realistic 200-character agent command: a chain with a
// pipeline, a substitution and a nested shell.
const cmd200 = `cd /home/dev/projects/api && export GOFLAGS=-mod=mod && go test ./... 2>&1 | tee /tmp/test.log | grep -v '^ok' ; bash -c "rm -rf ./build && mkdir -p build" && echo "$(date +%s) done" >> ci.log`

func BenchmarkCheck200(b *testing.B) {
	e := defaultEngine(b)
	args := commandJSON(cmd200)
	if len(cmd200) < 190 || len(cmd200) > 210 {
		b.Fatalf("command is %d characters", len(cmd200))
	}
	b.ReportAllocs()
	for b.Loop() {
		e.Check("terminal", args)
	}
}

// BenchmarkReplay measures replay throughput over a session of mixed
// everyday calls (commands per second is reported as cmds/s).
func BenchmarkReplay(b *testing.B) {
	e := defaultEngine(b)
	var calls []string
	for _, c := range loadEval(b) {
		if !c.block {
			calls = append(calls, c.example)
		}
	}
	n := 0
	b.ResetTimer()
	for b.Loop() {
		rep := e.NewReplay()
		for i, ex := range calls {
			for _, c := range SplitCalls(ex) {
				c.SessionID = fmt.Sprint(i % 8)
				rep.Observe(&c)
				n++
			}
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "cmds/s")
}
