// Command ledger-audit audits what AI agents actually did, from the
// ledger its capture hook writes. main only wires the process to run;
// everything is testable in-process through run.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
