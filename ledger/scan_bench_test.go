package ledger_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/ledger-audit/ledger-audit/samples"
)

// BenchmarkScan streams a whole synthetic ledger through Reader.Scan: the
// floor under every analysis command. LEDGER_BENCH_FILE points it at an
// existing ledger (bench/run.sh does, for each size); otherwise it builds
// a 20k-call one.
func BenchmarkScan(b *testing.B) {
	path := os.Getenv("LEDGER_BENCH_FILE")
	if path == "" {
		path = filepath.Join(b.TempDir(), "synth.db")
		if err := samples.Synth(path, samples.SynthOptions{Calls: 20000, Sessions: 40, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	var calls, records int
	for b.Loop() {
		r, err := ledger.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		calls, records = 0, 0
		err = r.Scan(ledger.Filter{}, func(rec ledger.Record) error {
			records++
			if rec.Call != nil {
				calls++
			}
			return nil
		})
		r.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(calls), "calls")
	b.ReportMetric(float64(calls)*float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}
