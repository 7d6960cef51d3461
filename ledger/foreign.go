package ledger

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// foreignTable describes an agent-ledger-style `ledger` table: one row per
// call with a status column. Columns beyond ts, tool_name and status are
// optional and found with PRAGMA table_info, since the plugin's schema has
// changed between releases.
type foreignTable struct {
	cols map[string]string // our field -> the column that holds it
}

// candidate column names for each field, in order of preference.
var foreignColumns = map[string][]string{
	"id":       {"id", "rowid"},
	"ts":       {"ts", "timestamp", "created_at"},
	"tool":     {"tool_name", "tool"},
	"status":   {"status"},
	"session":  {"session_id", "session"},
	"args":     {"args_json", "args", "arguments"},
	"call_id":  {"tool_call_id", "call_id"},
	"digest":   {"result_digest", "result"},
	"turn":     {"turn_id"},
	"duration": {"duration_ms"},
	"updated":  {"updated_at", "confirmed_at"},
}

func discoverForeign(db *sql.DB) (*foreignTable, error) {
	have, err := tableColumns(db, "ledger")
	if err != nil {
		return nil, err
	}
	ft := &foreignTable{cols: map[string]string{}}
	for field, names := range foreignColumns {
		for _, n := range names {
			if have[n] {
				ft.cols[field] = n
				break
			}
		}
	}
	for _, req := range []string{"ts", "tool", "status"} {
		if ft.cols[req] == "" {
			return nil, fmt.Errorf("table `ledger` lacks a %s column", map[string]string{"ts": "ts", "tool": "tool_name", "status": "status"}[req])
		}
	}
	if ft.cols["id"] == "" {
		ft.cols["id"] = "rowid"
	}
	return ft, nil
}

func (ft *foreignTable) expr(field string) string {
	if c := ft.cols[field]; c != "" {
		return `CAST("` + c + `" AS TEXT)`
	}
	return "''"
}

func (r *Reader) scanForeign(f Filter, fn func(Record) error) error {
	ft := r.foreign
	idCol := `"` + ft.cols["id"] + `"`
	if ft.cols["id"] == "rowid" {
		idCol = "rowid"
	}
	q := fmt.Sprintf(`SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s FROM ledger ORDER BY %s`,
		idCol, ft.expr("ts"), ft.expr("tool"), ft.expr("status"), ft.expr("session"), ft.expr("args"),
		ft.expr("call_id"), ft.expr("digest"), ft.expr("turn"), ft.expr("duration"), ft.expr("updated"), idCol)
	rows, err := r.db.Query(q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id sql.NullInt64
		var ts, tool, status, session, args, callID, digest, turn, dur, updated sql.NullString
		if err := rows.Scan(&id, &ts, &tool, &status, &session, &args, &callID, &digest, &turn, &dur, &updated); err != nil {
			return err
		}
		t := r.parseTS(id.Int64, ts.String)
		if !f.match(t, session.String) {
			continue
		}
		c := &Call{
			ID: id.Int64, Ledger: r.path, Source: "import:agent-ledger", TS: t,
			SessionID: session.String, TurnID: turn.String, CallID: callID.String, Tool: tool.String,
			ResultDigest: digest.String,
		}
		c.Args, c.ArgsTruncated = Truncate(args.String, MaxArgsChars)
		var d int64
		if _, err := fmt.Sscan(dur.String, &d); err == nil {
			c.DurationMS = &d
		}
		outcomeTS, _ := ParseTime(updated.String)
		st := strings.TrimSpace(status.String)
		switch {
		case strings.EqualFold(st, "PENDING"):
			c.Status = StatusPending
		case strings.EqualFold(st, "CONFIRMED"):
			c.Status, c.OutcomeTS = StatusConfirmed, outcomeTS
		case strings.EqualFold(st, "BLOCKED"):
			c.Status, c.OutcomeTS = StatusBlocked, outcomeTS
		case strings.EqualFold(st, "GHOST_REPORTED"):
			// The plugin flips the row when it reports it; when it happened
			// is not kept, so the issue time is the best lower bound.
			c.Status, c.GhostReportedAt = StatusPending, t
		case len(st) >= 6 && strings.EqualFold(st[:6], "ERROR:"):
			c.Status, c.ErrorType, c.OutcomeTS = StatusError, st[6:], outcomeTS
		case strings.EqualFold(st, "ERROR"):
			c.Status, c.ErrorType, c.OutcomeTS = StatusError, "error", outcomeTS
		default:
			r.warn(fmt.Sprintf("row %d: unknown status %q, read as pending", id.Int64, st))
			c.Status = StatusPending
		}
		if err := fn(Record{Call: c}); err != nil {
			return callbackError{err}
		}
	}
	return rows.Err()
}

// chainAnchor is where the hash chain starts: the last row removed by prune
// (id and hash), or zero values for a ledger that was never pruned.
type anchor struct {
	ID   int64
	Hash string
}

func chainAnchor(q interface {
	QueryRow(string, ...any) *sql.Row
}) (anchor, error) {
	var a anchor
	var id sql.NullString
	err := q.QueryRow(`SELECT value FROM meta WHERE key='chain_anchor_id'`).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return a, nil
	}
	if err != nil {
		return a, err
	}
	fmt.Sscan(id.String, &a.ID)
	err = q.QueryRow(`SELECT value FROM meta WHERE key='chain_anchor_hash'`).Scan(&a.Hash)
	if errors.Is(err, sql.ErrNoRows) {
		err = nil
	}
	return a, err
}
