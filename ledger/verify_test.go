package ledger

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// chainLedger writes n rows (issued/confirmed pairs plus an llm_call every
// few rows) and returns the path and the rows as written.
func chainLedger(t *testing.T, n int) (string, []Event) {
	t.Helper()
	w, path := mustWriter(t)
	t0 := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	var out []Event
	for i := 0; len(out) < n; i++ {
		e := Event{TS: t0.Add(time.Duration(len(out)) * time.Second), SessionID: "s1", ToolName: "terminal",
			CallID: fmt.Sprintf("c%d", i), ArgsJSON: fmt.Sprintf(`{"command":"echo %d"}`, i)}
		switch len(out) % 3 {
		case 0:
			e.Kind = KindIssued
		case 1:
			e.Kind, e.ResultDigest, e.CallID = KindConfirmed, "ok", fmt.Sprintf("c%d", i-1)
		default:
			e.Kind, e.ToolName, e.ArgsJSON, e.TokensIn, e.TokensOut = KindLLMCall, "", "", Int64(100), Int64(20)
		}
		got, err := w.Append(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, got)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path, out
}

// rawSQL tampers with a ledger the way an attacker with file access would.
func rawSQL(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+escapePath(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func mustVerify(t *testing.T, path string, expect *Expect) VerifyResult {
	t.Helper()
	res, err := Verify(path, expect)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func wantBreak(t *testing.T, res VerifyResult, row int64, kind BreakKind) {
	t.Helper()
	if res.Break == nil {
		t.Fatalf("chain verified, want a break at row %d (%s)", row, kind)
	}
	if res.Break.Row != row || res.Break.Kind != kind {
		t.Fatalf("break %v, want row %d %s", res.Break, row, kind)
	}
}

func TestVerifyIntact(t *testing.T) {
	path, rows := chainLedger(t, 10)
	res := mustVerify(t, path, nil)
	if !res.OK() || res.Rows != 10 || res.FirstID != 1 || res.LastID != 10 || res.HeadHash != rows[9].Hash {
		t.Fatalf("intact ledger: %+v", res)
	}
	// The head anchored earlier still matches.
	if res := mustVerify(t, path, &Expect{ID: 7, Hash: rows[6].Hash}); !res.OK() {
		t.Fatalf("expected head rejected: %v", res.Break)
	}
}

func TestVerifyDetectsEdit(t *testing.T) {
	path, _ := chainLedger(t, 10)
	rawSQL(t, path, `UPDATE events SET args_json='{"command":"echo harmless"}' WHERE id=4`)
	wantBreak(t, mustVerify(t, path, nil), 4, BreakEdited)
}

func TestVerifyDetectsEditWithRecomputedHash(t *testing.T) {
	path, rows := chainLedger(t, 10)
	e := rows[3]
	e.ArgsJSON = `{"command":"echo harmless"}`
	e.Hash = RowHash(&e)
	rawSQL(t, path, fmt.Sprintf(`UPDATE events SET args_json='%s', hash='%s' WHERE id=4`, e.ArgsJSON, e.Hash))
	// Row 4 is self-consistent now; its successor no longer links to it.
	wantBreak(t, mustVerify(t, path, nil), 5, BreakRelinked)
}

func TestVerifyDetectsDelete(t *testing.T) {
	for _, id := range []int64{1, 5, 6} {
		t.Run(fmt.Sprint(id), func(t *testing.T) {
			path, _ := chainLedger(t, 10)
			rawSQL(t, path, fmt.Sprintf(`DELETE FROM events WHERE id=%d`, id))
			res := mustVerify(t, path, nil)
			wantBreak(t, res, id+1, BreakDeleted)
			if res.Break.FirstMissing != id || res.Break.LastMissing != id {
				t.Fatalf("missing %d–%d, want %d", res.Break.FirstMissing, res.Break.LastMissing, id)
			}
		})
	}
}

func TestVerifyDetectsDeleteWithRenumbering(t *testing.T) {
	path, _ := chainLedger(t, 10)
	// Hide the gap by shifting later ids down.
	rawSQL(t, path, `DELETE FROM events WHERE id=5`, `UPDATE events SET id = id - 1 WHERE id > 5`)
	res := mustVerify(t, path, nil)
	if res.Break == nil || res.Break.Row != 5 {
		t.Fatalf("break %v, want one at row 5", res.Break)
	}
}

// shiftFrom makes room for a row at id by renumbering id.. upwards.
func shiftFrom(id int) []string {
	return []string{
		fmt.Sprintf(`UPDATE events SET id = id + 1000000 WHERE id >= %d`, id),
		fmt.Sprintf(`UPDATE events SET id = id - 1000000 + 1 WHERE id >= 1000000`),
	}
}

func TestVerifyDetectsInsertedUnchainedRow(t *testing.T) {
	path, _ := chainLedger(t, 10)
	stmts := append(shiftFrom(5), `INSERT INTO events(id, ts, kind, session_id, tool_name, args_json)
		VALUES (5, '2026-11-30T08:00:04.500Z', 'issued', 's1', 'terminal', '{"command":"echo planted"}')`)
	rawSQL(t, path, stmts...)
	wantBreak(t, mustVerify(t, path, nil), 5, BreakInserted)
}

func TestVerifyDetectsInsertedChainedRow(t *testing.T) {
	path, rows := chainLedger(t, 10)
	// A forger who knows the algorithm links the planted row to row 4 and
	// hashes it correctly; row 5 (now 6) still points at row 4.
	e := Event{ID: 5, TS: rows[3].TS.Add(time.Millisecond), Kind: KindIssued, SessionID: "s1", ToolName: "terminal",
		ArgsJSON: `{"command":"echo planted"}`, PrevHash: rows[3].Hash}
	e.Hash = RowHash(&e)
	stmts := append(shiftFrom(5), fmt.Sprintf(`INSERT INTO events(id, ts, kind, session_id, tool_name, args_json, prev_hash, hash)
		VALUES (5, '%s', 'issued', 's1', 'terminal', '%s', '%s', '%s')`, FormatTime(e.TS), e.ArgsJSON, e.PrevHash, e.Hash))
	rawSQL(t, path, stmts...)
	wantBreak(t, mustVerify(t, path, nil), 5, BreakInserted)
}

func TestVerifyDetectsAppendedUnchainedRow(t *testing.T) {
	path, _ := chainLedger(t, 10)
	rawSQL(t, path, `INSERT INTO events(id, ts, kind, session_id, tool_name) VALUES (11, '2026-11-30T09:00:00.000Z', 'issued', 's1', 'terminal')`)
	wantBreak(t, mustVerify(t, path, nil), 11, BreakInserted)
}

func TestVerifyExpectedHeadCatchesTailTruncation(t *testing.T) {
	path, rows := chainLedger(t, 10)
	head := Expect{ID: 10, Hash: rows[9].Hash}
	rawSQL(t, path, `DELETE FROM events WHERE id >= 9`)
	// Without the external anchor the shorter chain is consistent...
	if res := mustVerify(t, path, nil); !res.OK() || res.LastID != 8 {
		t.Fatalf("truncated chain: %+v", res)
	}
	// ...with it, the missing tail is reported.
	wantBreak(t, mustVerify(t, path, &head), 10, BreakExpected)
}

func TestVerifyExpectedHeadCatchesRewrite(t *testing.T) {
	path, rows := chainLedger(t, 6)
	// Rewrite row 6 and re-hash it: internally consistent, externally not.
	e := rows[5]
	e.ResultDigest = "forged"
	e.Hash = RowHash(&e)
	rawSQL(t, path, fmt.Sprintf(`UPDATE events SET result_digest='forged', hash='%s' WHERE id=6`, e.Hash))
	if res := mustVerify(t, path, nil); !res.OK() {
		t.Fatalf("rewritten head should be self-consistent: %v", res.Break)
	}
	wantBreak(t, mustVerify(t, path, &Expect{ID: 6, Hash: rows[5].Hash}), 6, BreakExpected)
}

// A foreign writer (the Python plugin) may store ts in another RFC 3339
// shape; the hash covers the text as stored, so it still verifies.
func TestVerifyHashesStoredTimestampText(t *testing.T) {
	path, rows := chainLedger(t, 3)
	ts := "2026-11-30T08:00:03.000+00:00"
	e := Event{ID: 4, Kind: KindSessionEnd, SessionID: "s1", PrevHash: rows[2].Hash, rawTS: ts}
	e.Hash = RowHash(&e)
	rawSQL(t, path, fmt.Sprintf(`INSERT INTO events(id, ts, kind, session_id, prev_hash, hash) VALUES (4, '%s', 'session_end', 's1', '%s', '%s')`, ts, e.PrevHash, e.Hash))
	if res := mustVerify(t, path, nil); !res.OK() || res.Rows != 4 {
		t.Fatalf("foreign ts shape: %+v %v", res, res.Break)
	}
}

func TestVerifyNonIntegerColumnIsAnEdit(t *testing.T) {
	path, _ := chainLedger(t, 5)
	rawSQL(t, path, `UPDATE events SET duration_ms='slow' WHERE id=3`)
	wantBreak(t, mustVerify(t, path, nil), 3, BreakEdited)
}

func TestVerifyRefusesForeignLedger(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.db")
	rawSQL(t, path, `CREATE TABLE ledger (id INTEGER PRIMARY KEY, ts TEXT, tool_name TEXT, status TEXT)`)
	_, err := Verify(path, nil)
	if err == nil {
		t.Fatal("verify accepted an agent-ledger table")
	}
	if _, ok := err.(*Error); !ok {
		t.Fatalf("error %T %v, want *ledger.Error", err, err)
	}
}

func TestHeadMatchesVerify(t *testing.T) {
	path, rows := chainLedger(t, 7)
	h, err := Head(path)
	if err != nil {
		t.Fatal(err)
	}
	v := mustVerify(t, path, nil)
	if h.Rows != v.Rows || h.LastID != v.LastID || h.FirstID != v.FirstID || h.HeadHash != rows[6].Hash {
		t.Fatalf("head %+v, verify %+v", h, v)
	}
	if _, err := Prune(path, PruneOptions{Keep: 0}); err != nil {
		t.Fatal(err)
	}
	if h, err := Head(path); err != nil || h.Rows != 0 || h.HeadHash != rows[6].Hash || h.AnchorID != 7 {
		t.Fatalf("head of an emptied ledger: %+v %v", h, err)
	}
}
