// Package analyze turns a stream of ledger records into an audit Result:
// call counts, ghosts, loop forensics, posture findings and the score.
// It reads ledgers only through ledger.Open (read-only) and never writes
// to a ledger; rendering the Result is the report package's job.
package analyze
