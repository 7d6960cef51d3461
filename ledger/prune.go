package ledger

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"
)

// PruneOptions controls Prune.
type PruneOptions struct {
	Keep   int64     // newest rows to keep (at least; see PruneResult.HeldBack)
	DryRun bool      // compute what would go, change nothing
	Force  bool      // prune even when the chain does not verify
	Vacuum bool      // give the freed pages back to the file system afterwards
	Now    time.Time // recorded as meta last_prune; default: the current time
	// Chunk is how many rows one transaction deletes. Small chunks keep the
	// write lock short so capture hooks writing meanwhile are not held up
	// past their busy timeout. Default 20000.
	Chunk int64
}

// PruneResult says what Prune removed and where the chain now starts.
type PruneResult struct {
	Path                      string
	Deleted                   int64
	FirstDeleted, LastDeleted int64 // id range removed; 0 when nothing was
	Kept                      int64
	AnchorID                  int64 // the checkpoint: last removed id and its hash
	AnchorHash                string
	// HeldBack is how many rows beyond Keep were kept so that no kept
	// outcome or ghost report loses the issued row it belongs to;
	// HeldFor is the oldest such issued row.
	HeldBack int64
	HeldFor  int64
	DryRun   bool
}

// Prune deletes the oldest events of a ledger-audit ledger, keeping the
// newest o.Keep rows, and records a checkpoint (meta chain_anchor_id and
// chain_anchor_hash: the id and hash of the last deleted row) in the same
// transaction as each delete, so the remaining chain verifies on its own
// and the next append extends it.
//
// The cut never separates a call from its outcome: if a kept outcome (or
// ghost report) refers to an issued row older than the cut, the cut moves
// back to keep that row, and the rows in between are kept too. Calls left
// without an outcome at the cut are simply forgotten with their rows — so
// audit before pruning if old ghosts matter. A late outcome arriving after
// its issued row was pruned is stored unpaired (issued_id NULL) when no
// issued row with its call id remains; readers never stream outcome rows
// on their own, so it is ignored by analysis rather than misread. (Without
// a call id the writer's fallback pairing by tool name applies as usual.)
//
// Prune refuses a ledger whose chain does not verify unless o.Force is
// set: pruning the broken part would launder the evidence.
func Prune(path string, o PruneOptions) (PruneResult, error) {
	res := PruneResult{Path: path, DryRun: o.DryRun}
	if o.Keep < 0 {
		return res, &Error{Path: path, Problem: "keep must not be negative"}
	}
	if o.Chunk <= 0 {
		o.Chunk = 20000
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	// Verify first, without holding the write lock (it reads every row).
	v, err := Verify(path, nil)
	if err != nil {
		return res, err
	}
	if v.Break != nil && !o.Force {
		return res, &Error{Path: path, Problem: fmt.Sprintf("hash chain is broken at %s; refusing to prune (it would erase the evidence) — run `ledger-audit verify`, or pass --force", v.Break)}
	}
	// Only rows the verification saw may go; rows appended since are new.
	limit := v.LastID
	if v.Break != nil {
		limit = int64(1<<62 - 1)
	}

	q := url.Values{}
	q.Set("_busy_timeout", "10000")
	q.Set("_txlock", "immediate")
	mode := "rw"
	if o.DryRun {
		mode = "ro"
	}
	q.Set("mode", mode)
	db, err := sql.Open("sqlite3", "file:"+escapePath(path)+"?"+q.Encode())
	if err != nil {
		return res, tidyErr(fileErr(path, err))
	}
	defer db.Close()
	db.SetMaxOpenConns(1)

	target, err := pruneTarget(db, o.Keep, limit)
	if err != nil {
		return res, tidyErr(fileErr(path, err))
	}
	a, err := chainAnchor(db)
	if err != nil {
		return res, tidyErr(fileErr(path, err))
	}
	res.AnchorID, res.AnchorHash = a.ID, a.Hash

	if o.DryRun {
		cut, held, err := pinCut(db, target)
		if err != nil {
			return res, tidyErr(fileErr(path, err))
		}
		if err := fillDryRun(db, &res, a, target, cut, held); err != nil {
			return res, tidyErr(fileErr(path, err))
		}
		return res, nil
	}

	for end := a.ID; end < target; {
		step := min(end+o.Chunk, target)
		pinned, err := pruneChunk(db, &res, step, target, o.Now)
		if err != nil {
			return res, tidyErr(fileErr(path, err))
		}
		if pinned {
			break
		}
		end = step
	}
	if err := db.QueryRow(`SELECT count(*) FROM events`).Scan(&res.Kept); err != nil {
		return res, tidyErr(fileErr(path, err))
	}
	if o.Vacuum && res.Deleted > 0 {
		if _, err := db.Exec(`VACUUM`); err != nil {
			return res, tidyErr(fileErr(path, err))
		}
	}
	return res, nil
}

// pruneTarget is the newest id to delete so that keep rows remain, never
// past limit; 0 when nothing needs to go.
func pruneTarget(db *sql.DB, keep, limit int64) (int64, error) {
	var id int64
	err := db.QueryRow(`SELECT id FROM events ORDER BY id DESC LIMIT 1 OFFSET ?`, keep).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return min(id, limit), nil
}

// pinCut moves cut back until no row after it refers (issued_id) to a row
// at or before it. held is the oldest issued row that forced a move.
func pinCut(q interface {
	QueryRow(string, ...any) *sql.Row
}, cut int64) (int64, int64, error) {
	var held int64
	for cut > 0 {
		var m sql.NullInt64
		err := q.QueryRow(`SELECT min(issued_id) FROM events WHERE issued_id IS NOT NULL AND issued_id <= ? AND id > ?`, cut, cut).Scan(&m)
		if err != nil {
			return 0, 0, err
		}
		if !m.Valid {
			break
		}
		held, cut = m.Int64, m.Int64-1
	}
	return cut, held, nil
}

func fillDryRun(db *sql.DB, res *PruneResult, a anchor, target, cut, held int64) error {
	var n, lo, hi sql.NullInt64
	var hash sql.NullString
	if err := db.QueryRow(`SELECT count(*), min(id), max(id) FROM events WHERE id <= ?`, cut).Scan(&n, &lo, &hi); err != nil {
		return err
	}
	res.Deleted, res.FirstDeleted, res.LastDeleted = n.Int64, lo.Int64, hi.Int64
	if held != 0 {
		res.HeldFor = held
		if err := db.QueryRow(`SELECT count(*) FROM events WHERE id > ? AND id <= ?`, cut, target).Scan(&res.HeldBack); err != nil {
			return err
		}
	}
	if hi.Valid {
		if err := db.QueryRow(`SELECT hash FROM events WHERE id = ?`, hi.Int64).Scan(&hash); err != nil {
			return err
		}
		res.AnchorID, res.AnchorHash = hi.Int64, hash.String
	} else {
		res.AnchorID, res.AnchorHash = a.ID, a.Hash
	}
	return db.QueryRow(`SELECT count(*) FROM events WHERE id > ?`, cut).Scan(&res.Kept)
}

// pruneChunk deletes rows up to step (pinned) in one transaction and
// moves the checkpoint with them. pinned is true when a kept outcome
// stopped the cut short, so later chunks must not go further.
func pruneChunk(db *sql.DB, res *PruneResult, step, target int64, now time.Time) (bool, error) {
	tx, err := db.Begin()
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	cut, held, err := pinCut(tx, step)
	if err != nil {
		return false, err
	}
	// Only the last chunk's pin is a real hold-back; a chunk boundary that
	// splits a pair just leaves the pair to the next chunk.
	pinned := held != 0 && step == target
	if pinned {
		res.HeldFor = held
		if err := tx.QueryRow(`SELECT count(*) FROM events WHERE id > ? AND id <= ?`, cut, target).Scan(&res.HeldBack); err != nil {
			return false, err
		}
	}
	var lastID, n, lo sql.NullInt64
	if err := tx.QueryRow(`SELECT max(id), count(*), min(id) FROM events WHERE id <= ?`, cut).Scan(&lastID, &n, &lo); err != nil {
		return false, err
	}
	if !lastID.Valid {
		return pinned, nil // an id gap (forced prune of a broken chain)
	}
	var hash string
	if err := tx.QueryRow(`SELECT hash FROM events WHERE id = ?`, lastID.Int64).Scan(&hash); err != nil {
		return false, err
	}
	if _, err := tx.Exec(`DELETE FROM events WHERE id <= ?`, cut); err != nil {
		return false, err
	}
	var total int64
	var prev sql.NullString
	if err := tx.QueryRow(`SELECT value FROM meta WHERE key='pruned_rows'`).Scan(&prev); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, err
	}
	total, _ = strconv.ParseInt(prev.String, 10, 64)
	total += n.Int64
	if _, err := tx.Exec(`INSERT INTO meta(key, value) VALUES
		('chain_anchor_id', ?), ('chain_anchor_hash', ?), ('pruned_rows', ?), ('last_prune', ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
		strconv.FormatInt(lastID.Int64, 10), hash, strconv.FormatInt(total, 10), FormatTime(now)); err != nil {
		return false, err
	}
	if err := tx.Commit(); err != nil {
		return false, err
	}
	if res.FirstDeleted == 0 {
		res.FirstDeleted = lo.Int64
	}
	res.LastDeleted = lastID.Int64
	res.Deleted += n.Int64
	res.AnchorID, res.AnchorHash = lastID.Int64, hash
	return pinned, nil
}
