package ledger

import (
	"database/sql"
	"fmt"
	"strconv"
)

// BreakKind says how the hash chain was broken.
type BreakKind string

// The ways verification can fail.
const (
	// BreakEdited: the row links to its predecessor but its content no
	// longer matches its own hash.
	BreakEdited BreakKind = "edited"
	// BreakDeleted: ids jump; the rows in between are gone.
	BreakDeleted BreakKind = "deleted"
	// BreakInserted: a row that the chain skips over, or one that does not
	// extend the chain at all.
	BreakInserted BreakKind = "inserted"
	// BreakRelinked: the row does not point at its predecessor's hash: the
	// predecessor was rewritten together with its hash, or this row's
	// prev_hash was edited.
	BreakRelinked BreakKind = "relinked"
	// BreakAnchor: the prune checkpoint in meta does not fit the rows.
	BreakAnchor BreakKind = "anchor"
	// BreakExpected: the chain is internally consistent but does not
	// contain the head hash the caller anchored elsewhere earlier.
	BreakExpected BreakKind = "expected-head"
)

// ChainBreak is the first place where the hash chain does not hold.
type ChainBreak struct {
	Row  int64 // events.id of the first row that fails
	Kind BreakKind
	// FirstMissing..LastMissing are the deleted ids for BreakDeleted.
	FirstMissing, LastMissing int64
	Detail                    string
}

func (b *ChainBreak) String() string {
	return fmt.Sprintf("row %d: %s: %s", b.Row, b.Kind, b.Detail)
}

// VerifyResult is the outcome of walking the chain. Head is what to anchor
// elsewhere (a daily report, a ticket, another machine): any later rewrite
// of rows up to LastID changes it.
type VerifyResult struct {
	Path       string
	Rows       int64 // rows checked
	FirstID    int64 // 0 when there are no rows
	LastID     int64
	HeadHash   string // hash of the last row (the anchor's when there are none)
	AnchorID   int64  // last row removed by prune; 0 if never pruned
	AnchorHash string
	Break      *ChainBreak // nil when the chain holds
}

// OK reports whether the chain verified.
func (v *VerifyResult) OK() bool { return v.Break == nil }

// Expect is a head recorded earlier (from a previous verify or a daily
// report). Verify then also checks that row ID still has Hash, which
// catches a truncated tail and a rewrite of the whole chain up to ID.
type Expect struct {
	ID   int64
	Hash string
}

// Verify opens a ledger read-only and walks its events in id order,
// checking every row's hash and its link to the previous row. It stops at
// the first break. The error is non-nil only when the file cannot be read
// as a ledger-audit ledger (agent-ledger tables carry no chain).
func Verify(path string, expect *Expect) (VerifyResult, error) {
	res := VerifyResult{Path: path}
	err := inChainSnapshot(path, " to verify", func(tx *sql.Tx) error {
		return verifyChain(tx, &res, expect)
	})
	return res, err
}

// inChainSnapshot opens a native ledger read-only and runs fn in one read
// transaction, so that the anchor and the rows come from the same
// snapshot even while capture keeps appending. A foreign ledger is
// refused (its tables carry no chain; what adds to the message). Errors
// from fn are reported against the file.
func inChainSnapshot(path, what string, fn func(*sql.Tx) error) error {
	r, err := Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	if r.Format() != FormatNative {
		return &Error{Path: path, Problem: "not a ledger-audit ledger (" + string(r.Format()) + " tables carry no hash chain" + what + ")"}
	}
	tx, err := r.db.Begin()
	if err != nil {
		return tidyErr(fileErr(path, err))
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return tidyErr(fileErr(path, err))
	}
	return nil
}

const verifySelect = `SELECT id, ts, kind, source, session_id, turn_id, call_id, issued_id, tool_name,
	args_json, args_truncated, result_digest, result_hash, error_type, duration_ms, policy_rule,
	policy_action, tokens_in, tokens_out, tokens_cache_read, cwd, prev_hash, hash
	FROM events ORDER BY id`

// chainRow is one row as stored, with the problem found reading it (a
// non-integer in an integer column can never have been hashed by us).
type chainRow struct {
	e   Event
	bad string
}

func readChainRow(rows *sql.Rows) (chainRow, error) {
	var cr chainRow
	var id int64
	var ts, kind, source, session, turn, callID, tool, args, digest, rhash, etype, prule, paction, cwd, prev, hash sql.NullString
	var issued, trunc, dur, tin, tout, tcache sql.NullString
	if err := rows.Scan(&id, &ts, &kind, &source, &session, &turn, &callID, &issued, &tool,
		&args, &trunc, &digest, &rhash, &etype, &dur, &prule,
		&paction, &tin, &tout, &tcache, &cwd, &prev, &hash); err != nil {
		return cr, err
	}
	e := &cr.e
	e.ID, e.rawTS = id, ts.String
	e.Kind, e.Source, e.SessionID, e.TurnID, e.CallID = Kind(kind.String), source.String, session.String, turn.String, callID.String
	e.ToolName, e.ArgsJSON, e.ResultDigest, e.ResultHash, e.ErrorType = tool.String, args.String, digest.String, rhash.String, etype.String
	e.PolicyRule, e.PolicyAction, e.Cwd, e.PrevHash, e.Hash = prule.String, paction.String, cwd.String, prev.String, hash.String
	if e.rawTS == "" {
		// tsText falls back to rendering TS; an empty stored ts must hash
		// as empty, which no writer of ours produces, so flag it instead.
		cr.bad = "empty ts"
	}
	intCol := func(name string, v sql.NullString) *int64 {
		if !v.Valid {
			return nil
		}
		n, err := strconv.ParseInt(v.String, 10, 64)
		if err != nil {
			if cr.bad == "" {
				cr.bad = fmt.Sprintf("%s holds %q, not an integer", name, v.String)
			}
			return nil
		}
		return &n
	}
	if p := intCol("issued_id", issued); p != nil {
		e.IssuedID = *p
	}
	if p := intCol("args_truncated", trunc); p != nil {
		e.ArgsTruncated = *p != 0
	}
	e.DurationMS = intCol("duration_ms", dur)
	e.TokensIn = intCol("tokens_in", tin)
	e.TokensOut = intCol("tokens_out", tout)
	e.TokensCacheRead = intCol("tokens_cache_read", tcache)
	return cr, nil
}

// selfValid reports whether a row's stored hash matches its content.
func (cr *chainRow) selfValid() bool {
	return cr.bad == "" && cr.e.Hash != "" && RowHash(&cr.e) == cr.e.Hash
}

func verifyChain(tx *sql.Tx, res *VerifyResult, expect *Expect) error {
	a, err := chainAnchor(tx)
	if err != nil {
		return err
	}
	res.AnchorID, res.AnchorHash = a.ID, a.Hash
	res.HeadHash = a.Hash
	rows, err := tx.Query(verifySelect)
	if err != nil {
		return err
	}
	defer rows.Close()

	var (
		expectedID = a.ID + 1
		prevHash   = a.Hash // hash of the last good row
		prevPrev   string   // hash of the good row before that
		havePrev2  bool
		expectSeen bool
	)
	next := func() (*chainRow, error) {
		if !rows.Next() {
			return nil, rows.Err()
		}
		cr, err := readChainRow(rows)
		return &cr, err
	}
	for {
		cur, err := next()
		if err != nil {
			return err
		}
		if cur == nil {
			break
		}
		e := &cur.e
		if res.Rows == 0 {
			res.FirstID = e.ID
		}
		if b := classify(cur, expectedID, prevHash, prevPrev, havePrev2, a, next); b != nil {
			res.Break = b
			return nil
		}
		res.Rows++
		res.LastID = e.ID
		res.HeadHash = e.Hash
		prevPrev, havePrev2 = prevHash, true
		prevHash = e.Hash
		expectedID = e.ID + 1
		if expect != nil && e.ID == expect.ID {
			expectSeen = true
			if e.Hash != expect.Hash {
				res.Break = &ChainBreak{Row: e.ID, Kind: BreakExpected,
					Detail: fmt.Sprintf("hash is %s, but %s was anchored for this row: the chain up to here was rewritten", short(e.Hash), short(expect.Hash))}
				return nil
			}
		}
	}
	if expect != nil && !expectSeen {
		switch {
		case expect.ID == a.ID && expect.Hash == a.Hash:
			// Anchored exactly at the prune checkpoint: still provable.
		case expect.ID <= a.ID:
			res.Break = &ChainBreak{Row: expect.ID, Kind: BreakExpected,
				Detail: fmt.Sprintf("the anchored row was pruned (checkpoint is row %d), so the anchor can no longer be checked", a.ID)}
		default:
			res.Break = &ChainBreak{Row: expect.ID, Kind: BreakExpected,
				Detail: fmt.Sprintf("the anchored row is gone: the ledger ends at row %d (rows were removed from the end)", res.LastID)}
		}
	}
	return rows.Err()
}

// classify decides whether cur breaks the chain and how. It may read one
// row ahead (through next) to tell an inserted row from a relinked one.
func classify(cur *chainRow, expectedID int64, prevHash, prevPrev string, havePrev2 bool, a anchor, next func() (*chainRow, error)) *ChainBreak {
	e := &cur.e
	if e.ID < expectedID {
		// Only possible for the first row: ids are unique and ordered.
		return &ChainBreak{Row: e.ID, Kind: BreakAnchor,
			Detail: fmt.Sprintf("row precedes the prune checkpoint (row %d): the checkpoint in meta or the rows were edited", a.ID)}
	}
	if e.ID > expectedID {
		return &ChainBreak{Row: e.ID, Kind: BreakDeleted, FirstMissing: expectedID, LastMissing: e.ID - 1,
			Detail: fmt.Sprintf("%s missing before it (deleted)", idRange(expectedID, e.ID-1))}
	}
	if e.PrevHash == prevHash {
		if cur.selfValid() {
			return nil
		}
		why := "content does not match its hash (edited after it was written)"
		if cur.bad != "" {
			why = cur.bad + ": content does not match its hash (edited)"
		}
		return &ChainBreak{Row: e.ID, Kind: BreakEdited, Detail: why}
	}
	// The link is broken. If this row points two rows back, the previous
	// row is one the chain never contained.
	if havePrev2 && e.PrevHash == prevPrev && e.PrevHash != "" {
		return &ChainBreak{Row: e.ID - 1, Kind: BreakInserted,
			Detail: fmt.Sprintf("inserted: row %d links past it to row %d", e.ID, e.ID-2)}
	}
	// If the next row links to our predecessor, this row was slipped in.
	nx, err := next()
	if err == nil && nx != nil && nx.e.PrevHash == prevHash {
		return &ChainBreak{Row: e.ID, Kind: BreakInserted,
			Detail: fmt.Sprintf("inserted: it does not extend the chain and row %d links past it", nx.e.ID)}
	}
	if nx == nil && err == nil && !cur.selfValid() {
		return &ChainBreak{Row: e.ID, Kind: BreakInserted,
			Detail: "the last row does not extend the chain (appended by a writer that does not hash, or rewritten)"}
	}
	return &ChainBreak{Row: e.ID, Kind: BreakRelinked,
		Detail: fmt.Sprintf("prev_hash %s does not match the previous row's hash %s (that row was rewritten with a new hash, or this link was edited)", short(e.PrevHash), short(prevHash))}
}

func idRange(a, b int64) string {
	if a == b {
		return fmt.Sprintf("row %d", a)
	}
	return fmt.Sprintf("rows %d–%d", a, b)
}

// short abbreviates a hash for messages; the full value is in the result.
func short(h string) string {
	if h == "" {
		return `""`
	}
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}

// Head reads where the chain ends (last row id and hash, row count, prune
// checkpoint) without checking any hash: cheap on any size, for printing
// what a writer just produced. Only Verify proves anything.
func Head(path string) (VerifyResult, error) {
	res := VerifyResult{Path: path}
	err := inChainSnapshot(path, "", func(tx *sql.Tx) error {
		a, err := chainAnchor(tx)
		if err != nil {
			return err
		}
		res.AnchorID, res.AnchorHash, res.HeadHash = a.ID, a.Hash, a.Hash
		var first, last sql.NullInt64
		if err := tx.QueryRow(`SELECT count(*), min(id), max(id) FROM events`).Scan(&res.Rows, &first, &last); err != nil {
			return err
		}
		if last.Valid {
			res.FirstID, res.LastID = first.Int64, last.Int64
			return tx.QueryRow(`SELECT hash FROM events WHERE id = ?`, last.Int64).Scan(&res.HeadHash)
		}
		return nil
	})
	return res, err
}
