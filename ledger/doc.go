// Package ledger owns the on-disk ledger: its schema (embedded schema.sql,
// versioned with PRAGMA user_version), the Event and Call types, the
// append API used by capture and the streaming, read-only API used by
// analysis. It also reads foreign agent-ledger-style databases.
//
// Two rules hold everywhere in this package: writers only ever INSERT
// (nothing already written is rewritten), and readers open files read-only
// so analysis can never change the evidence it is judging.
package ledger
