package analyze_test

import (
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/finding"
	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/ledger-audit/ledger-audit/rules/owasp"
)

var (
	weekDB     = filepath.Join("..", "samples", "week-mixed.db")
	incident90 = filepath.Join("..", "samples", "incident-90985.db")
	home90     = filepath.Join("..", "samples", "incident-90985-home")
	auditNow   = time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
)

func audit(t *testing.T, o analyze.AuditOptions, paths ...string) *analyze.Result {
	t.Helper()
	if o.Now.IsZero() {
		o.Now = auditNow
	}
	res, err := analyze.Audit(paths, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func fileHash(t *testing.T, p string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// byRow groups findings by the ledger row of their primary evidence.
func byRow(fs []finding.Finding) map[int64][]finding.Finding {
	m := map[int64][]finding.Finding{}
	for _, f := range fs {
		m[f.Evidence[0].Row] = append(m[f.Evidence[0].Row], f)
	}
	return m
}

// The mixed week holds exactly three risky commands; each must be a
// command finding from the policy packs (not a second rule set), and
// nothing benign may be flagged: every finding sits on a risky row or a
// lost call.
func TestAuditWeekMixed(t *testing.T) {
	before := fileHash(t, weekDB)
	res := audit(t, analyze.AuditOptions{}, weekDB)
	if fileHash(t, weekDB) != before {
		t.Fatal("audit changed the ledger file")
	}
	rows := byRow(res.Findings)
	for row, what := range map[int64]string{177: "rm -rf ~/projects/legacy-api", 241: "curl -fsSL https://install.example.com/setup.sh | sh", 294: "cat ~/.aws/credentials"} {
		pack := 0
		for _, f := range rows[row] {
			if _, own := owasp.Lookup(f.RuleID); !own {
				pack++
			}
			if !strings.Contains(f.Evidence[0].Excerpt, what) {
				t.Errorf("row %d: evidence %q does not show %q", row, f.Evidence[0].Excerpt, what)
			}
		}
		if pack == 0 {
			t.Errorf("row %d (%s): no policy-pack finding; got %v", row, what, ruleIDs(rows[row]))
		}
	}
	if got := ruleIDs(rows[368]); len(got) != 1 || got[0] != owasp.RuleGhostCall.ID {
		t.Errorf("row 368 (lost write_file): got %v, want [%s]", got, owasp.RuleGhostCall.ID)
	}
	if got := ruleIDs(rows[381]); len(got) != 1 || got[0] != owasp.RuleStaleCall.ID {
		t.Errorf("row 381 (stale Bash): got %v, want [%s]", got, owasp.RuleStaleCall.ID)
	}
	if len(rows[141]) != 0 {
		t.Errorf("row 141 is a revived ghost and costs nothing; got %v", ruleIDs(rows[141]))
	}
	for row, fs := range rows {
		switch row {
		case 177, 241, 294, 368, 381:
		default:
			t.Errorf("benign row %d flagged: %v", row, ruleIDs(fs))
		}
	}
	sum := 0
	for _, f := range res.Findings {
		sum += f.Weight
	}
	if want := max(0, 100-sum); res.Score.Score != want || res.Score.Penalty != sum {
		t.Errorf("score %d penalty %d, want %d and %d", res.Score.Score, res.Score.Penalty, want, sum)
	}
	if res.Summary.Calls != 166 || len(res.Summary.Sessions) != 14 || res.TrustModel != analyze.TrustModel || !res.Redacted {
		t.Errorf("summary: calls %d sessions %d trust %q redacted %v", res.Summary.Calls, len(res.Summary.Sessions), res.TrustModel, res.Redacted)
	}
	if len(res.Ledgers) != 1 || res.Ledgers[0].Score == nil || *res.Ledgers[0].Score != res.Score.Score {
		t.Errorf("per-ledger score missing or wrong: %+v", res.Ledgers)
	}
	js, _ := json.Marshal(res)
	if strings.Contains(string(js), "AKIAIOSFODNN7EXAMPLE") {
		t.Error("the AWS example key reached the result unredacted")
	}
}

func ruleIDs(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.RuleID)
	}
	return out
}

// Hermes #90985: the lost cronjob create is an ASI08 HIGH finding, with
// the offline evidence that the job is missing from cron/jobs.json.
func TestAuditIncident90985(t *testing.T) {
	res := audit(t, analyze.AuditOptions{HermesHome: home90}, incident90)
	var ghost *finding.Finding
	for i, f := range res.Findings {
		if f.Evidence[0].Tool == "cronjob" {
			ghost = &res.Findings[i]
		}
	}
	if ghost == nil {
		t.Fatalf("no finding for the lost cronjob; findings: %v", ruleIDs(res.Findings))
	}
	if ghost.RuleID != owasp.RuleGhostScheduler.ID || ghost.Category != finding.ASI08 || ghost.Severity != finding.High {
		t.Errorf("cronjob ghost: got %s %s %s", ghost.RuleID, ghost.Category, ghost.Severity)
	}
	if !ghost.Evidence[0].TS.Equal(time.Date(2026, 11, 30, 20, 39, 7, 0, time.UTC)) || !strings.Contains(ghost.Evidence[0].Excerpt, "morning-digest") {
		t.Errorf("evidence: %+v", ghost.Evidence[0])
	}
	if !strings.Contains(ghost.Message, "morning-digest") || !strings.Contains(ghost.Message, "jobs.json") {
		t.Errorf("message lacks the offline evidence: %q", ghost.Message)
	}
	if len(res.Ghosts) == 0 || res.Ghosts[0].Class != analyze.ClassGhost {
		t.Errorf("ghosts: %+v", res.Ghosts)
	}
}

// Two ledgers given in any order give the same result, ledger by ledger
// in sorted order, and repeated runs are byte-identical.
func TestAuditDeterministic(t *testing.T) {
	a := audit(t, analyze.AuditOptions{}, weekDB, incident90)
	b := audit(t, analyze.AuditOptions{}, incident90, weekDB, incident90)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Fatal("audit output depends on argument order or duplicates")
	}
	if len(a.Ledgers) != 2 || a.Ledgers[0].Path != incident90 || a.Ledgers[1].Path != weekDB {
		t.Fatalf("ledgers: %+v", a.Ledgers)
	}
	sum := 0
	for _, l := range a.Ledgers {
		sum += *l.Penalty
	}
	if sum != a.Score.Penalty {
		t.Errorf("per-ledger penalties %d do not add up to %d", sum, a.Score.Penalty)
	}
	for i := 1; i < len(a.Findings); i++ {
		if a.Findings[i-1].Severity < a.Findings[i].Severity {
			t.Fatal("findings not sorted by severity")
		}
	}
}

func TestAuditWindowAndSession(t *testing.T) {
	all := audit(t, analyze.AuditOptions{}, weekDB)
	day := audit(t, analyze.AuditOptions{Filter: ledger.Filter{
		Since: time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC), Until: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)}}, weekDB)
	if day.Summary.Calls == 0 || day.Summary.Calls >= all.Summary.Calls {
		t.Fatalf("window: %d calls of %d", day.Summary.Calls, all.Summary.Calls)
	}
	for _, f := range day.Findings {
		if d := f.Evidence[0].TS.Day(); d != 26 {
			t.Errorf("finding outside the window: %s at %s", f.RuleID, f.Evidence[0].TS)
		}
	}
	sess := audit(t, analyze.AuditOptions{Filter: ledger.Filter{Session: "20261127_084007_2b9e6c"}}, weekDB)
	if len(sess.Summary.Sessions) != 1 || sess.Summary.Sessions[0].ID != "20261127_084007_2b9e6c" {
		t.Errorf("session filter: %+v", sess.Summary.Sessions)
	}
}

func TestAuditBadLedger(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "notes.txt")
	os.WriteFile(junk, []byte("this is not a database, just text that is long enough to look like a file header"), 0o600)
	before := fileHash(t, junk)
	_, err := analyze.Audit([]string{junk}, analyze.AuditOptions{Now: auditNow})
	if err == nil || !strings.HasPrefix(err.Error(), junk+": ") {
		t.Fatalf("want an error naming %s, got %v", junk, err)
	}
	if fileHash(t, junk) != before {
		t.Fatal("a bad ledger was modified")
	}
	if _, err := analyze.Audit([]string{filepath.Join(dir, "missing.db")}, analyze.AuditOptions{}); err == nil || !strings.Contains(err.Error(), "missing.db") {
		t.Fatalf("missing file: %v", err)
	}
}

// writeLedger builds a small native ledger: each call is issued and then
// confirmed.
func writeLedger(t *testing.T, calls ...[2]string) string {
	t.Helper()
	return writeLedgerKind(t, ledger.KindConfirmed, calls...)
}

// writeLedgerKind is writeLedger with every outcome of the given kind.
func writeLedgerKind(t *testing.T, outcome ledger.Kind, calls ...[2]string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "l.db")
	w, err := ledger.OpenWriter(p, ledger.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for i, c := range calls {
		id := "c" + string(rune('a'+i))
		ts = ts.Add(time.Second)
		if _, err := w.Append(ledger.Event{TS: ts, Kind: ledger.KindIssued, Source: "claude-code", SessionID: "s", CallID: id, ToolName: c[0], ArgsJSON: c[1], Cwd: "/home/dev/proj"}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Append(ledger.Event{TS: ts.Add(100 * time.Millisecond), Kind: outcome, ErrorType: errType(outcome), Source: "claude-code", SessionID: "s", CallID: id, ToolName: c[0]}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

func errType(k ledger.Kind) string {
	if k == ledger.KindError {
		return "exit_1"
	}
	return ""
}

// Loop forensics and the posture rules see the same run of identical
// failures; it is reported once, as the loop finding.
func TestAuditRetryRunReportedOnce(t *testing.T) {
	var calls [][2]string
	for i := 0; i < 7; i++ {
		calls = append(calls, [2]string{"Bash", `{"command":"npm install"}`})
	}
	res := audit(t, analyze.AuditOptions{}, writeLedgerKind(t, ledger.KindError, calls...))
	got := ruleIDs(res.Findings)
	n := map[string]int{}
	for _, id := range got {
		n[id]++
	}
	if n[analyze.RuleLoopFailureReplay.ID] != 1 || n[owasp.RuleRetryStorm.ID] != 0 || n[owasp.RuleErrorStreak.ID] != 0 {
		t.Fatalf("findings %v: want the loop finding alone", got)
	}
	// Three identical failures are below the guardrail's hard stop: the
	// posture rule reports the storm.
	res = audit(t, analyze.AuditOptions{}, writeLedgerKind(t, ledger.KindError, calls[:3]...))
	if got := ruleIDs(res.Findings); len(got) != 1 || got[0] != owasp.RuleRetryStorm.ID {
		t.Fatalf("three failures: %v", got)
	}
}

// Evidence is redacted by default and shown with NoRedact; the
// fingerprint is the same either way, so suppressions keep working.
func TestAuditRedaction(t *testing.T) {
	token := "ghp_" + strings.Repeat("a1B2", 9)
	args, _ := json.Marshal(map[string]string{"command": "echo " + token + " " + strings.Repeat("x", 3800)})
	p := writeLedger(t, [2]string{"Bash", string(args)})
	red := audit(t, analyze.AuditOptions{}, p)
	raw := audit(t, analyze.AuditOptions{NoRedact: true}, p)
	if len(red.Findings) != 1 || len(raw.Findings) != 1 {
		t.Fatalf("want one oversized-argument finding, got %v / %v", ruleIDs(red.Findings), ruleIDs(raw.Findings))
	}
	if strings.Contains(red.Findings[0].Evidence[0].Excerpt, token) || !strings.Contains(red.Findings[0].Evidence[0].Excerpt, "[REDACTED]") {
		t.Errorf("redacted excerpt: %q", red.Findings[0].Evidence[0].Excerpt)
	}
	if !strings.Contains(raw.Findings[0].Evidence[0].Excerpt, token) || raw.Redacted {
		t.Errorf("--no-redact excerpt: %q", raw.Findings[0].Evidence[0].Excerpt)
	}
	if red.Findings[0].Fingerprint != raw.Findings[0].Fingerprint {
		t.Error("fingerprint changes with --no-redact")
	}
}

// A foreign agent-ledger file (one row per call, status column) is
// audited the same way: its risky command becomes a pack finding.
func TestAuditForeignLedger(t *testing.T) {
	p := filepath.Join(t.TempDir(), "agent-ledger.db")
	db, err := sql.Open("sqlite3", "file:"+p)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE ledger (id INTEGER PRIMARY KEY, ts TEXT, session_id TEXT, tool_name TEXT, status TEXT, args_json TEXT)`,
		`INSERT INTO ledger VALUES (1, '2026-11-30T10:00:00Z', 's', 'terminal', 'CONFIRMED', '{"command":"ls"}')`,
		`INSERT INTO ledger VALUES (2, '2026-11-30T10:00:05Z', 's', 'terminal', 'CONFIRMED', '{"command":"rm -rf /srv/data"}')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	res := audit(t, analyze.AuditOptions{}, p)
	if res.Ledgers[0].Format != "agent-ledger" || res.Summary.Calls != 2 {
		t.Fatalf("ledgers %+v calls %d", res.Ledgers, res.Summary.Calls)
	}
	if got := ruleIDs(res.Findings); len(got) != 1 || got[0] != "ASI02-DESTRUCTIVE-DELETE" {
		t.Fatalf("findings %v", got)
	}
}
