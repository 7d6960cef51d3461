package ledger

// Helpers the capture hook needs beyond Append. Kept in their own file so
// the core writer stays small; everything here still only INSERTs.

// SchemaSQL is the embedded schema text. The Hermes plugin ships a copy
// that must stay byte-identical (selftest and a test check it).
func SchemaSQL() string { return schemaSQL }

// RecentCalls lists at most n of the newest calls of one session, oldest
// first, with their outcomes. Enforce mode replays them into the policy
// engine so cross-call state (exported variables, scripts written then
// run) survives the one-shot hook process; the bound keeps that cheap.
func (w *Writer) RecentCalls(session string, n int) ([]Call, error) {
	return w.queryCalls(`SELECT * FROM (`+callSelect+` WHERE i.kind='issued' AND i.session_id=?
		ORDER BY i.id DESC LIMIT ?) ORDER BY 1`, session, n)
}

// AppendWithOutcome writes an issued event and the outcome that closes it
// (a call refused by policy before it ran) in one transaction, so a crash
// can never leave the refused call looking like a ghost.
func (w *Writer) AppendWithOutcome(issued, outcome Event) (Event, Event, error) {
	tx, err := w.db.Begin()
	if err != nil {
		return issued, outcome, err
	}
	defer tx.Rollback()
	if err := insert(tx, &issued); err != nil {
		return issued, outcome, err
	}
	outcome.IssuedID = issued.ID
	if err := insert(tx, &outcome); err != nil {
		return issued, outcome, err
	}
	return issued, outcome, tx.Commit()
}

// Checkpoint folds the WAL into the database file and truncates it. The
// one-shot capture hook exits without closing (closing the last connection
// checkpoints on every event, two fsyncs each), so it calls this itself
// once the WAL has grown: the next process then has a short WAL to recover.
func (w *Writer) Checkpoint() error {
	_, err := w.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	return err
}
