package main

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/spf13/pflag"
)

// fleetFlags are the options that turn audit and posture into fleet
// audits: many ledgers (paths, globs, directories of *.db) on a worker
// pool, merged into one result with a score per ledger.
type fleetFlags struct {
	jobs      int
	keepGoing bool
}

func (f *fleetFlags) add(fs *pflag.FlagSet) {
	fs.IntVar(&f.jobs, "jobs", 0, "ledgers audited in parallel (default: one per CPU core)")
	fs.BoolVar(&f.keepGoing, "keep-going", false, "skip a ledger that cannot be read (it is named in the warnings) instead of failing the whole audit")
}

// audit expands the LEDGER arguments and audits them. One ledger gives
// exactly what analyze.Audit gives; several are audited in parallel and
// merged in path order, so the output does not depend on --jobs.
func (f *fleetFlags) audit(args []string, o analyze.AuditOptions) (*analyze.Result, error) {
	if f.jobs < 0 {
		return nil, usagef("--jobs: want 1 or more (0 means one per core), not %d", f.jobs)
	}
	paths, err := analyze.ExpandLedgers(args)
	if err != nil {
		return nil, err
	}
	return analyze.AuditFleet(paths, o, analyze.FleetOptions{Jobs: f.jobs, KeepGoing: f.keepGoing})
}

// isJSONL reports whether the output is JSON Lines (--format jsonl, or
// -o FILE.jsonl without --format). It is handled before report.New: it
// is an export of the findings, not a rendering of the whole result.
func isJSONL(format, out string) bool {
	if format != "" {
		return strings.EqualFold(format, "jsonl")
	}
	return strings.EqualFold(filepath.Ext(out), ".jsonl")
}

// writeJSONL writes one finding per line to -o (atomically) or stdout.
func writeJSONL(e *env, out string, res *analyze.Result) error {
	return writeOutput(e, out, func(w io.Writer) error { return analyze.WriteJSONL(w, res) })
}
