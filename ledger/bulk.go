package ledger

import (
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Bulk appends many events quickly: big transactions, one prepared
// statement, no pairing queries. It is for generators and importers that
// know which issued row each outcome closes (they set IssuedID); capture
// uses Append. The hash chain is extended exactly as Append does, so a
// bulk-written ledger verifies like any other.
type Bulk struct {
	w      *Writer
	opt    BulkOptions
	batch  int
	tx     *sql.Tx
	stmt   *sql.Stmt
	n      int // rows in the open transaction
	nextID int64
	prev   string
}

// BulkOptions tune a bulk append.
type BulkOptions struct {
	// Batch is how many rows one transaction holds (default 50000). Other
	// writers wait while a batch is open.
	Batch int
	// NewFile declares that the ledger was just created, is still empty,
	// and nobody else writes to it until Close: a generator or importer
	// filling a fresh file. Bulk then skips the journal and durability
	// syncs and builds the secondary indexes once at the end, several
	// times faster. A crash mid-way leaves a file to throw away.
	NewFile bool
}

var bulkIndexes = []string{"events_issued_id", "events_open", "events_call_id"}

// Bulk starts a bulk append. Ids stay contiguous because each batch
// re-reads the chain head under the write lock.
func (w *Writer) Bulk(o BulkOptions) (*Bulk, error) {
	if o.Batch <= 0 {
		o.Batch = 50000
	}
	b := &Bulk{w: w, opt: o, batch: o.Batch}
	if o.NewFile {
		var n int
		if err := w.db.QueryRow(`SELECT count(*) FROM events`).Scan(&n); err != nil {
			return nil, err
		}
		if n > 0 {
			return nil, fmt.Errorf("%s: bulk NewFile on a ledger that already has %d rows", w.path, n)
		}
		stmts := []string{`PRAGMA journal_mode=OFF`, `PRAGMA synchronous=OFF`}
		for _, ix := range bulkIndexes {
			stmts = append(stmts, `DROP INDEX IF EXISTS `+ix)
		}
		for _, q := range stmts {
			if _, err := w.db.Exec(q); err != nil {
				return nil, err
			}
		}
	}
	if err := b.begin(); err != nil {
		return nil, err
	}
	return b, nil
}

func (b *Bulk) begin() error {
	tx, err := b.w.db.Begin()
	if err != nil {
		return err
	}
	var lastID sql.NullInt64
	var lastHash sql.NullString
	err = tx.QueryRow(`SELECT id, hash FROM events ORDER BY id DESC LIMIT 1`).Scan(&lastID, &lastHash)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		a, aerr := chainAnchor(tx)
		if aerr != nil {
			tx.Rollback()
			return aerr
		}
		b.nextID, b.prev = a.ID+1, a.Hash
	case err != nil:
		tx.Rollback()
		return err
	default:
		b.nextID, b.prev = lastID.Int64+1, lastHash.String
	}
	stmt, err := tx.Prepare(insertSQL)
	if err != nil {
		tx.Rollback()
		return err
	}
	b.tx, b.stmt, b.n = tx, stmt, 0
	return nil
}

const insertSQL = `INSERT INTO events (id, ts, kind, source, session_id, turn_id, call_id, issued_id,
	tool_name, args_json, args_truncated, result_digest, result_hash, error_type, duration_ms,
	policy_rule, policy_action, tokens_in, tokens_out, tokens_cache_read, cwd, prev_hash, hash)
	VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`

// Append adds one event and returns it with ID, PrevHash and Hash set.
// The id is final: an outcome appended later in the same bulk can name it
// as its IssuedID.
func (b *Bulk) Append(e Event) (Event, error) {
	if b.tx == nil {
		return e, errors.New("ledger: bulk append after Close")
	}
	if b.n >= b.batch {
		if err := b.commit(); err != nil {
			return e, err
		}
		if err := b.begin(); err != nil {
			return e, err
		}
	}
	e.ID, e.PrevHash = b.nextID, b.prev
	if e.TS.IsZero() {
		return e, fmt.Errorf("ledger: bulk event %d has no timestamp", e.ID)
	}
	e.TS = e.TS.UTC().Truncate(time.Millisecond)
	e.rawTS = ""
	e.ArgsJSON, e.ArgsTruncated = truncateKeepFlag(e.ArgsJSON, e.ArgsTruncated, MaxArgsChars)
	e.ResultDigest, _ = Truncate(e.ResultDigest, MaxDigestChars)
	e.Hash = RowHash(&e)
	if _, err := b.stmt.Exec(e.ID, FormatTime(e.TS), string(e.Kind), e.Source, e.SessionID, e.TurnID, e.CallID, nullInt(nonZero(e.IssuedID)),
		e.ToolName, e.ArgsJSON, boolInt(e.ArgsTruncated), e.ResultDigest, e.ResultHash, e.ErrorType, nullInt(e.DurationMS),
		e.PolicyRule, e.PolicyAction, nullInt(e.TokensIn), nullInt(e.TokensOut), nullInt(e.TokensCacheRead), e.Cwd,
		e.PrevHash, e.Hash); err != nil {
		return e, err
	}
	b.nextID, b.prev = e.ID+1, e.Hash
	b.n++
	return e, nil
}

func (b *Bulk) commit() error {
	b.stmt.Close()
	err := b.tx.Commit()
	b.tx, b.stmt = nil, nil
	return err
}

// Close commits what is pending and, for a NewFile bulk, rebuilds the
// indexes and returns the file to WAL mode. After an Append error, call
// Abort.
func (b *Bulk) Close() error {
	if b.tx != nil {
		if err := b.commit(); err != nil {
			return err
		}
	}
	if b.opt.NewFile {
		b.opt.NewFile = false
		// The schema is idempotent: it recreates exactly the dropped indexes.
		for _, q := range []string{schemaSQL, `PRAGMA synchronous=NORMAL`, `PRAGMA journal_mode=WAL`} {
			if _, err := b.w.db.Exec(q); err != nil {
				return err
			}
		}
	}
	return nil
}

// Abort discards the open batch (earlier batches stay committed).
func (b *Bulk) Abort() {
	if b.tx != nil {
		b.stmt.Close()
		b.tx.Rollback()
		b.tx, b.stmt = nil, nil
	}
}
