package ledger

import (
	"database/sql"
	"time"
)

// This file serves bulk importers (package importer): they must know what
// a ledger already holds so a re-import adds nothing, and they write a
// whole transcript in one transaction so a failure leaves no half-imported
// session behind. Everything here is additive to the Writer API.

// EventKey is the identity of a stored event as an importer sees it.
type EventKey struct {
	ID        int64
	Kind      Kind
	SessionID string
	TurnID    string
	CallID    string
	ToolName  string
	TS        time.Time
}

// EventKeys streams the identity of every event written by source, in id
// order. One query, so an importer can load what is there once instead of
// asking row by row.
func (w *Writer) EventKeys(source string, fn func(EventKey) error) error {
	rows, err := w.db.Query(`SELECT id, kind, session_id, turn_id, call_id, tool_name, ts
		FROM events WHERE source = ? ORDER BY id`, source)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k EventKey
		var kind, ts string
		if err := rows.Scan(&k.ID, &kind, &k.SessionID, &k.TurnID, &k.CallID, &k.ToolName, &ts); err != nil {
			return err
		}
		k.Kind = Kind(kind)
		k.TS, _ = ParseTime(ts)
		if err := fn(k); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Batch is one write transaction. Appends made through it are committed
// together when the function given to Writer.Batch returns nil, and not at
// all otherwise.
type Batch struct {
	tx *sql.Tx
}

// Batch runs fn inside one IMMEDIATE transaction. Keep batches to one
// transcript or session: other writers (capture hooks) wait for the lock.
func (w *Writer) Batch(fn func(b *Batch) error) error {
	tx, err := w.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(&Batch{tx: tx}); err != nil {
		return err
	}
	return tx.Commit()
}

// Append writes one event inside the batch, exactly as Writer.Append does
// (pairing an outcome with IssuedID 0, chaining the hash).
func (b *Batch) Append(e Event) (Event, error) {
	if (e.Kind.IsOutcome() || e.Kind == KindGhostReported) && e.IssuedID == 0 {
		id, err := pair(b.tx, e)
		if err != nil {
			return e, err
		}
		e.IssuedID = id
	}
	if err := insert(b.tx, &e); err != nil {
		return e, err
	}
	return e, nil
}
