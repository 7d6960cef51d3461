package ledger

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"time"
)

// Format names the shape of a ledger file.
type Format string

// Formats the reader understands.
const (
	FormatNative      Format = "ledger-audit" // our events table
	FormatAgentLedger Format = "agent-ledger" // a foreign `ledger` table: one row per call
)

// Reader streams a ledger for analysis. It opens the file read-only: no
// analysis path can change a ledger.
type Reader struct {
	db       *sql.DB
	path     string
	format   Format
	foreign  *foreignTable
	warnings []string
}

// Open opens a ledger read-only and identifies its format. Every error is
// an *Error naming the file and the problem.
func Open(path string) (*Reader, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fileErr(path, err)
	}
	if st.IsDir() {
		return nil, &Error{Path: path, Problem: "is a directory, not a ledger file"}
	}
	if st.Size() == 0 {
		return nil, notALedger(path, "empty file")
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("_query_only", "1")
	q.Set("_busy_timeout", "5000")
	db, err := sql.Open("sqlite3", "file:"+escapePath(path)+"?"+q.Encode())
	if err != nil {
		return nil, fileErr(path, err)
	}
	db.SetMaxOpenConns(1)
	r := &Reader{db: db, path: path}
	if err := r.identify(); err != nil {
		db.Close()
		return nil, fileErr(path, err)
	}
	return r, nil
}

func (r *Reader) identify() error {
	var v int
	if err := r.db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	// Reading the schema forces SQLite to parse page 1 and the catalogue,
	// which is where truncated and foreign files fail.
	tables := map[string]string{}
	rows, err := r.db.Query(`SELECT name, type FROM sqlite_master WHERE type IN ('table','view')`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			rows.Close()
			return err
		}
		tables[name] = typ
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if tables["events"] == "table" {
		if v > SchemaVersion {
			return &Error{Path: r.path, Problem: fmt.Sprintf("ledger schema version %d is newer than this ledger-audit supports (%d); upgrade ledger-audit", v, SchemaVersion)}
		}
		if v < 1 {
			return notALedger(r.path, "an events table without a ledger-audit schema version")
		}
		cols, err := tableColumns(r.db, "events")
		if err != nil {
			return err
		}
		for _, c := range []string{"id", "ts", "kind", "session_id", "tool_name", "args_json", "issued_id", "hash"} {
			if !cols[c] {
				return notALedger(r.path, "events table lacks column "+c)
			}
		}
		r.format = FormatNative
		return nil
	}
	if tables["ledger"] == "table" {
		ft, err := discoverForeign(r.db)
		if err != nil {
			return notALedger(r.path, err.Error())
		}
		r.format, r.foreign = FormatAgentLedger, ft
		return nil
	}
	if len(tables) == 0 {
		return notALedger(r.path, "SQLite database with no tables")
	}
	return notALedger(r.path, "no events table and no agent-ledger `ledger` table")
}

func tableColumns(db *sql.DB, table string) (map[string]bool, error) {
	rows, err := db.Query(`SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		cols[n] = true
	}
	return cols, rows.Err()
}

// Path is the ledger file.
func (r *Reader) Path() string { return r.path }

// Format is the detected shape of the file.
func (r *Reader) Format() Format { return r.format }

// Warnings lists rows the reader could read only partly (bad timestamps,
// unknown statuses), in order; analysis shows them rather than failing.
func (r *Reader) Warnings() []string { return r.warnings }

// Close releases the file.
func (r *Reader) Close() error { return r.db.Close() }

// Scan streams the ledger in id order: one Record per call (issued row
// joined with its outcome) or per non-call event. Memory stays bounded:
// nothing is collected. fn returning an error stops the scan with it.
func (r *Reader) Scan(f Filter, fn func(Record) error) error {
	var err error
	if r.format == FormatAgentLedger {
		err = r.scanForeign(f, fn)
	} else {
		err = r.scanNative(f, fn)
	}
	var cbErr callbackError
	if errors.As(err, &cbErr) {
		return cbErr.err
	}
	return fileErr(r.path, err)
}

// callbackError carries an error returned by the caller's fn through Scan
// untouched, so it is not mistaken for a problem with the file.
type callbackError struct{ err error }

func (c callbackError) Error() string { return c.err.Error() }

const callSelect = `SELECT i.id, i.ts, i.kind, i.source, i.session_id, i.turn_id, i.call_id, i.tool_name,
	i.args_json, i.args_truncated, i.cwd, i.policy_rule, i.policy_action,
	i.duration_ms, i.tokens_in, i.tokens_out, i.tokens_cache_read, i.result_digest, i.result_hash, i.error_type,
	o.id, o.ts, o.kind, o.error_type, o.result_digest, o.result_hash, o.duration_ms, o.policy_rule, o.policy_action,
	(SELECT min(g.ts) FROM events g WHERE i.kind='issued' AND g.issued_id=i.id AND g.kind='ghost_reported')
	FROM events i
	LEFT JOIN events o ON i.kind='issued' AND o.id = (SELECT min(x.id) FROM events x WHERE x.issued_id=i.id AND x.kind IN ('confirmed','error','blocked'))`

func (r *Reader) scanNative(f Filter, fn func(Record) error) error {
	q := callSelect + ` WHERE i.kind NOT IN ('confirmed','error','blocked','ghost_reported')`
	var args []any
	if !f.Since.IsZero() {
		q += ` AND i.ts >= ?`
		args = append(args, FormatTime(f.Since))
	}
	if !f.Until.IsZero() {
		q += ` AND i.ts < ?`
		args = append(args, FormatTime(f.Until))
	}
	if f.Session != "" {
		q += ` AND i.session_id = ?`
		args = append(args, f.Session)
	}
	q += ` ORDER BY i.id`
	rows, err := r.db.Query(q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		rec, err := r.scanRecord(rows)
		if err != nil {
			return err
		}
		if err := fn(rec); err != nil {
			return callbackError{err}
		}
	}
	return rows.Err()
}

type scanner interface{ Scan(dest ...any) error }

type rowCols struct {
	id                                                  int64
	ts, kind, source, session, turn, callID, tool, args sql.NullString
	truncated                                           sql.NullInt64
	cwd, prule, paction                                 sql.NullString
	dur, tin, tout, tcache                              sql.NullInt64
	digest, rhash, etype                                sql.NullString
	oid                                                 sql.NullInt64
	ots, okind, oetype, odigest, ohash                  sql.NullString
	odur                                                sql.NullInt64
	oprule, opaction, ghostTS                           sql.NullString
}

func (c *rowCols) scan(s scanner) error {
	return s.Scan(&c.id, &c.ts, &c.kind, &c.source, &c.session, &c.turn, &c.callID, &c.tool,
		&c.args, &c.truncated, &c.cwd, &c.prule, &c.paction,
		&c.dur, &c.tin, &c.tout, &c.tcache, &c.digest, &c.rhash, &c.etype,
		&c.oid, &c.ots, &c.okind, &c.oetype, &c.odigest, &c.ohash, &c.odur, &c.oprule, &c.opaction, &c.ghostTS)
}

func (r *Reader) parseTS(id int64, s string) time.Time {
	t, ok := ParseTime(s)
	if !ok {
		r.warn(fmt.Sprintf("row %d: unreadable timestamp %q", id, s))
	}
	return t
}

func (r *Reader) warn(msg string) {
	// Bounded: a pathological file must not grow memory through warnings.
	if len(r.warnings) < 100 {
		r.warnings = append(r.warnings, msg)
	} else if len(r.warnings) == 100 {
		r.warnings = append(r.warnings, "further warnings suppressed")
	}
}

func (r *Reader) scanRecord(s scanner) (Record, error) {
	var c rowCols
	if err := c.scan(s); err != nil {
		return Record{}, err
	}
	ts := r.parseTS(c.id, c.ts.String)
	if Kind(c.kind.String) != KindIssued {
		return Record{Event: &Event{
			ID: c.id, TS: ts, Kind: Kind(c.kind.String), Source: c.source.String,
			SessionID: c.session.String, TurnID: c.turn.String, CallID: c.callID.String,
			ToolName: c.tool.String, ArgsJSON: c.args.String, ArgsTruncated: c.truncated.Int64 != 0,
			ResultDigest: c.digest.String, ResultHash: c.rhash.String, ErrorType: c.etype.String,
			DurationMS: ptr(c.dur), TokensIn: ptr(c.tin), TokensOut: ptr(c.tout), TokensCacheRead: ptr(c.tcache),
			Cwd: c.cwd.String, PolicyRule: c.prule.String, PolicyAction: c.paction.String,
		}}, nil
	}
	call := &Call{
		ID: c.id, Ledger: r.path, Source: c.source.String, TS: ts,
		SessionID: c.session.String, TurnID: c.turn.String, CallID: c.callID.String, Tool: c.tool.String,
		Args: c.args.String, ArgsTruncated: c.truncated.Int64 != 0, Cwd: c.cwd.String,
		PolicyRule: c.prule.String, PolicyAction: c.paction.String, Status: StatusPending,
	}
	if c.oid.Valid {
		call.OutcomeID = c.oid.Int64
		call.OutcomeTS = r.parseTS(c.oid.Int64, c.ots.String)
		call.ErrorType, call.ResultDigest, call.ResultHash = c.oetype.String, c.odigest.String, c.ohash.String
		call.DurationMS = ptr(c.odur)
		switch Kind(c.okind.String) {
		case KindConfirmed:
			call.Status = StatusConfirmed
		case KindError:
			call.Status = StatusError
		case KindBlocked:
			call.Status = StatusBlocked
		}
		if c.oprule.String != "" {
			call.PolicyRule, call.PolicyAction = c.oprule.String, c.opaction.String
		}
	}
	if c.ghostTS.Valid {
		call.GhostReportedAt = r.parseTS(c.id, c.ghostTS.String)
	}
	return Record{Call: call}, nil
}

func scanCall(s scanner, path string) (*Call, error) {
	r := &Reader{path: path}
	rec, err := r.scanRecord(s)
	if err != nil {
		return nil, err
	}
	if rec.Call == nil {
		return nil, errors.New("not a call row")
	}
	return rec.Call, nil
}

func ptr(v sql.NullInt64) *int64 {
	if !v.Valid {
		return nil
	}
	x := v.Int64
	return &x
}
