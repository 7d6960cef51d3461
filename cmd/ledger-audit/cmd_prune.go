package main

import (
	"fmt"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// prune is the only command that deletes rows. It keeps the newest rows,
// records a chain checkpoint so what remains still verifies, and refuses a
// ledger whose chain is already broken unless forced.
func init() {
	c := &command{name: "prune", summary: "delete the oldest rows of a ledger, keeping its hash chain verifiable", usage: "--keep N [--dry-run] [--force] [--vacuum] LEDGER"}
	c.run = func(e *env, args []string) error {
		fs := newFlags(e, c)
		keep := fs.Int64("keep", -1, "number of newest rows to keep (required)")
		dry := fs.Bool("dry-run", false, "show what would be deleted, change nothing")
		force := fs.Bool("force", false, "prune even if the hash chain does not verify (destroys the evidence of tampering)")
		vacuum := fs.Bool("vacuum", false, "shrink the file afterwards (rewrites it; takes an exclusive lock)")
		nowFlag := fs.String("now", "", "the time recorded as the prune time (RFC 3339; default: current time)")
		if err := parseFlags(e, c, fs, args); err != nil {
			return err
		}
		if err := needLedgers(fs.Args()); err != nil {
			return err
		}
		if fs.NArg() != 1 {
			return usagef("prune takes one ledger; got %d", fs.NArg())
		}
		if !fs.Changed("keep") {
			return usagef("--keep N is required")
		}
		if *keep < 0 {
			return usagef("--keep: want 0 or more rows, not %d", *keep)
		}
		w := window{now: *nowFlag}
		now, _, err := w.resolve()
		if err != nil {
			return err
		}
		res, err := ledger.Prune(fs.Arg(0), ledger.PruneOptions{Keep: *keep, DryRun: *dry, Force: *force, Vacuum: *vacuum, Now: now})
		if err != nil {
			return err
		}
		verb := "pruned"
		if res.DryRun {
			verb = "would prune"
		}
		if res.Deleted == 0 {
			fmt.Fprintf(e.stdout, "%s: nothing to prune (%d rows)", res.Path, res.Kept)
		} else {
			fmt.Fprintf(e.stdout, "%s: %s %d rows (%d–%d), kept %d; checkpoint %d:%s",
				res.Path, verb, res.Deleted, res.FirstDeleted, res.LastDeleted, res.Kept, res.AnchorID, res.AnchorHash)
		}
		fmt.Fprintln(e.stdout)
		if res.HeldFor != 0 {
			fmt.Fprintf(e.stdout, "%s: kept %d more rows than --keep so call row %d keeps its outcome\n", res.Path, res.HeldBack, res.HeldFor)
		}
		return nil
	}
	register(c)
}
