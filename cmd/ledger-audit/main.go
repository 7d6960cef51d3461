// Command ledger-audit audits what AI agents actually did, from the
// ledger its capture hook writes. main only wires the process to run;
// everything is testable in-process through run.
package main

import (
	"os"
	"runtime/pprof"
)

func main() {
	// LEDGER_AUDIT_CPUPROFILE=FILE writes a CPU profile of the whole
	// process (reading, analysis and rendering) for bench/ work: the
	// go test benchmarks only see the analysis.
	if p := os.Getenv("LEDGER_AUDIT_CPUPROFILE"); p != "" {
		if f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
				pprof.StopCPUProfile()
				f.Close()
				os.Exit(code)
			}
			f.Close()
		}
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
