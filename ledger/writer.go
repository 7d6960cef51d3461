package ledger

import (
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "github.com/mattn/go-sqlite3" // the SQLite driver, registered as "sqlite3"
)

//go:embed schema.sql
var schemaSQL string

// SchemaVersion is the PRAGMA user_version this package writes and the
// newest it can read.
const SchemaVersion = 1

// AppName is stored in meta so a file can be recognised as ours.
const AppName = "ledger-audit"

// Writer appends events to a ledger. Each Append is one short IMMEDIATE
// transaction, so several capture processes can write one file at once.
type Writer struct {
	db   *sql.DB
	path string
}

// WriterOptions tune how long a writer waits for the file lock.
type WriterOptions struct {
	// BusyTimeout bounds the wait for another writer; capture keeps it
	// short because it must never hold the agent up.
	BusyTimeout time.Duration
}

// OpenWriter opens (creating if needed, mode 0600, parent dir 0700) a
// ledger for appending, in WAL mode, and applies the schema.
func OpenWriter(path string, opt WriterOptions) (*Writer, error) {
	if opt.BusyTimeout <= 0 {
		opt.BusyTimeout = 2 * time.Second
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
	}
	// Create the file ourselves so it is 0600 from the first byte; SQLite
	// gives the -wal and -shm files the same mode as the database.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	f.Close()

	q := url.Values{}
	q.Set("_busy_timeout", fmt.Sprint(opt.BusyTimeout.Milliseconds()))
	q.Set("_txlock", "immediate")
	q.Set("_synchronous", "NORMAL")
	db, err := sql.Open("sqlite3", "file:"+escapePath(path)+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	w := &Writer{db: db, path: path}
	if err := w.init(); err != nil {
		db.Close()
		return nil, err
	}
	return w, nil
}

func (w *Writer) init() error {
	var v int
	if err := w.db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	if v == SchemaVersion {
		return nil
	}
	if v > SchemaVersion {
		return fmt.Errorf("ledger schema version %d is newer than this ledger-audit supports (%d)", v, SchemaVersion)
	}
	// Refuse a foreign database before anything can change its header:
	// switching to WAL rewrites the file, so it comes after this check.
	if err := w.refuseForeign(w.db); err != nil {
		return err
	}
	if _, err := w.db.Exec("PRAGMA journal_mode=WAL"); err != nil {
		return err
	}
	tx, err := w.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// Re-check under the write lock: another process may have initialised it.
	if err := tx.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	if v == SchemaVersion {
		return nil
	}
	if err := w.refuseForeign(tx); err != nil {
		return err
	}
	if _, err := tx.Exec(schemaSQL); err != nil {
		return err
	}
	if _, err := tx.Exec(`INSERT OR IGNORE INTO meta(key, value) VALUES ('app', ?), ('created', ?)`, AppName, FormatTime(time.Now())); err != nil {
		return err
	}
	if _, err := tx.Exec(fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion)); err != nil {
		return err
	}
	return tx.Commit()
}

// refuseForeign fails when the file holds tables that are not ours: a
// writer must never mix its rows into someone else's database.
func (w *Writer) refuseForeign(q interface {
	QueryRow(string, ...any) *sql.Row
}) error {
	var tables int
	if err := q.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type='table' AND name NOT IN ('meta','events')`).Scan(&tables); err != nil {
		return err
	}
	if tables > 0 {
		return errors.New("not a ledger-audit ledger (it holds other tables); refusing to write into it")
	}
	return nil
}

// Path is the ledger file.
func (w *Writer) Path() string { return w.path }

// Close releases the file.
func (w *Writer) Close() error { return w.db.Close() }

// Append writes one event and returns it with ID, PrevHash and Hash set.
// For an outcome or ghost_reported event with IssuedID 0 it pairs the event
// with its issued row inside the same transaction (see Pair).
func (w *Writer) Append(e Event) (Event, error) {
	tx, err := w.db.Begin()
	if err != nil {
		return e, err
	}
	defer tx.Rollback()
	if (e.Kind.IsOutcome() || e.Kind == KindGhostReported) && e.IssuedID == 0 {
		id, err := pair(tx, e)
		if err != nil {
			return e, err
		}
		e.IssuedID = id
	}
	if err := insert(tx, &e); err != nil {
		return e, err
	}
	return e, tx.Commit()
}

// insert assigns the next id, chains the hash and inserts e.
func insert(tx *sql.Tx, e *Event) error {
	var lastID sql.NullInt64
	var lastHash sql.NullString
	err := tx.QueryRow(`SELECT id, hash FROM events ORDER BY id DESC LIMIT 1`).Scan(&lastID, &lastHash)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		anchor, aerr := chainAnchor(tx)
		if aerr != nil {
			return aerr
		}
		e.ID, e.PrevHash = anchor.ID+1, anchor.Hash
	case err != nil:
		return err
	default:
		e.ID, e.PrevHash = lastID.Int64+1, lastHash.String
	}
	if e.TS.IsZero() {
		e.TS = time.Now()
	}
	e.TS = e.TS.UTC().Truncate(time.Millisecond)
	e.rawTS = ""
	e.ArgsJSON, e.ArgsTruncated = truncateKeepFlag(e.ArgsJSON, e.ArgsTruncated, MaxArgsChars)
	e.ResultDigest, _ = Truncate(e.ResultDigest, MaxDigestChars)
	e.Hash = RowHash(e)
	_, err = tx.Exec(`INSERT INTO events (id, ts, kind, source, session_id, turn_id, call_id, issued_id,
		tool_name, args_json, args_truncated, result_digest, result_hash, error_type, duration_ms,
		policy_rule, policy_action, tokens_in, tokens_out, tokens_cache_read, cwd, prev_hash, hash)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		e.ID, FormatTime(e.TS), string(e.Kind), e.Source, e.SessionID, e.TurnID, e.CallID, nullInt(nonZero(e.IssuedID)),
		e.ToolName, e.ArgsJSON, boolInt(e.ArgsTruncated), e.ResultDigest, e.ResultHash, e.ErrorType, nullInt(e.DurationMS),
		e.PolicyRule, e.PolicyAction, nullInt(e.TokensIn), nullInt(e.TokensOut), nullInt(e.TokensCacheRead), e.Cwd,
		e.PrevHash, e.Hash)
	return err
}

func truncateKeepFlag(s string, already bool, n int) (string, bool) {
	t, cut := Truncate(s, n)
	return t, cut || already
}

func nullInt(v *int64) any {
	if v == nil {
		return nil
	}
	return *v
}

// Pair finds the issued row an outcome belongs to: by the client's call id
// when it gave one (the newest issued row of the session with that id),
// otherwise the oldest still-open call of the same session and tool
// ("fallback confirmation by tool name"). A ghost-reported call is still
// open, so a late confirmation revives it instead of duplicating it.
// It returns 0 when nothing matches; the outcome is then stored unpaired.
func pair(tx *sql.Tx, e Event) (int64, error) {
	var id int64
	var err error
	if e.CallID != "" {
		err = tx.QueryRow(`SELECT id FROM events WHERE kind='issued' AND session_id=? AND call_id=? ORDER BY id DESC LIMIT 1`,
			e.SessionID, e.CallID).Scan(&id)
		if err == nil || !errors.Is(err, sql.ErrNoRows) {
			return id, err
		}
	}
	err = tx.QueryRow(`SELECT i.id FROM events i
		WHERE i.kind='issued' AND i.session_id=? AND i.tool_name=?
		  AND NOT EXISTS (SELECT 1 FROM events o WHERE o.issued_id=i.id AND o.kind IN ('confirmed','error','blocked'))
		ORDER BY i.id LIMIT 1`, e.SessionID, e.ToolName).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return id, err
}

// OpenCalls lists the calls of one session that have no outcome yet, oldest
// first. Capture uses it to warn a session about its own ghosts.
func (w *Writer) OpenCalls(session string) ([]Call, error) {
	return w.queryCalls(callSelect+` WHERE i.kind='issued' AND i.session_id=?
		AND NOT EXISTS (SELECT 1 FROM events o WHERE o.issued_id=i.id AND o.kind IN ('confirmed','error','blocked'))
		ORDER BY i.id`, session)
}

// queryCalls runs a query built on callSelect and collects its calls.
// Only for small, bounded result sets (one session's open or recent calls).
func (w *Writer) queryCalls(q string, args ...any) ([]Call, error) {
	rows, err := w.db.Query(q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Call
	for rows.Next() {
		c, err := scanCall(rows, w.path)
		if err != nil {
			return nil, err
		}
		out = append(out, *c)
	}
	return out, rows.Err()
}

// LastActivity is the newest event timestamp of a session (zero if none).
func (w *Writer) LastActivity(session string) (time.Time, error) {
	var ts sql.NullString
	if err := w.db.QueryRow(`SELECT max(ts) FROM events WHERE session_id=?`, session).Scan(&ts); err != nil {
		return time.Time{}, err
	}
	t, _ := ParseTime(ts.String)
	return t, nil
}

// escapePath makes a file path safe inside a file: URI.
func escapePath(p string) string {
	return (&url.URL{Path: p}).EscapedPath()
}
