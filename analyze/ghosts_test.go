package analyze

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/ledger-audit/ledger-audit/redact"
)

var ghostEpoch = time.Date(2026, 11, 30, 20, 0, 0, 0, time.UTC)

func gmin(min float64) time.Time { return ghostEpoch.Add(time.Duration(min * float64(time.Minute))) }

// ghostLedger writes events into a real ledger file.
type ghostLedger struct {
	t *testing.T
	w *ledger.Writer
	n int
}

func newGhostLedger(t *testing.T, name string) *ghostLedger {
	t.Helper()
	w, err := ledger.OpenWriter(filepath.Join(t.TempDir(), name), ledger.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return &ghostLedger{t: t, w: w}
}

func (b *ghostLedger) add(e ledger.Event) ledger.Event {
	b.t.Helper()
	if e.Source == "" {
		e.Source = "hermes"
	}
	out, err := b.w.Append(e)
	if err != nil {
		b.t.Fatal(err)
	}
	return out
}

// issue writes an issued call and returns its call id.
func (b *ghostLedger) issue(ts time.Time, session, tool, args string) string {
	b.n++
	id := fmt.Sprintf("call_%04d", b.n)
	b.add(ledger.Event{TS: ts, Kind: ledger.KindIssued, SessionID: session, CallID: id, ToolName: tool, ArgsJSON: args})
	return id
}

func (b *ghostLedger) outcome(ts time.Time, kind ledger.Kind, session, tool, callID string) {
	b.add(ledger.Event{TS: ts, Kind: kind, SessionID: session, CallID: callID, ToolName: tool})
}

func (b *ghostLedger) event(ts time.Time, kind ledger.Kind, session string) {
	b.add(ledger.Event{TS: ts, Kind: kind, SessionID: session})
}

// track scans the given ledgers through the read-only reader into one
// tracker, the way the audit's single pass does.
func trackGhosts(t *testing.T, o GhostOptions, paths ...string) []Ghost {
	t.Helper()
	g := NewGhostTracker(o)
	for _, p := range paths {
		r, err := ledger.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		g.BeginLedger(p)
		if err := r.Scan(ledger.Filter{}, func(rec ledger.Record) error { g.Observe(rec); return nil }); err != nil {
			t.Fatal(err)
		}
		r.Close()
	}
	return g.Ghosts()
}

func ghostsByTool(gs []Ghost) map[string]Ghost {
	m := map[string]Ghost{}
	for _, g := range gs {
		m[g.Tool] = g
	}
	return m
}

func TestGhostClassification(t *testing.T) {
	b := newGhostLedger(t, "l.db")
	// Session A goes on after the write_file's grace: ghost.
	b.issue(gmin(0), "A", "write_file", `{"path":"/tmp/x","content":"hi"}`)
	b.event(gmin(1), ledger.KindLLMCall, "A") // within grace: does not count
	b.event(gmin(5), ledger.KindLLMCall, "A") // after grace: the session went on
	// Session B dies after its patch call: stale.
	b.event(gmin(0), ledger.KindSessionStart, "B")
	b.issue(gmin(0.5), "B", "patch", `{"path":"/tmp/y"}`)
	b.event(gmin(1.5), ledger.KindLLMCall, "B") // within the 2 min grace only
	// Session C: a confirmed call and a call reported then confirmed.
	id := b.issue(gmin(2), "C", "terminal", `{"command":"make test"}`)
	b.outcome(gmin(2.1), ledger.KindConfirmed, "C", "terminal", id)
	slow := b.issue(gmin(3), "C", "execute_code", `{"code":"sleep(300)"}`)
	b.outcome(gmin(6), ledger.KindGhostReported, "C", "execute_code", slow)
	b.outcome(gmin(8), ledger.KindConfirmed, "C", "execute_code", slow)
	// Session D: a terminal call 10 min old at Now, within its 15 min grace.
	b.issue(gmin(20), "D", "terminal", `{"command":"make integration"}`)
	b.event(gmin(29), ledger.KindLLMCall, "D")

	now := gmin(30)
	gs := trackGhosts(t, GhostOptions{Now: now}, b.w.Path())
	m := ghostsByTool(gs)
	if len(gs) != 3 {
		t.Fatalf("got %d ghosts, want 3 (ghost, stale, revived): %+v", len(gs), gs)
	}
	if g := m["write_file"]; g.Class != ClassGhost || !g.NextActivity.Equal(gmin(5)) || g.Age != Duration(30*time.Minute) || g.Grace != Duration(2*time.Minute) {
		t.Errorf("write_file: %+v", g)
	}
	if g := m["patch"]; g.Class != ClassStale || !g.NextActivity.IsZero() {
		t.Errorf("patch: %+v", g)
	}
	if g := m["execute_code"]; g.Class != ClassRevived || !g.ReportedAt.Equal(gmin(6)) || !g.ConfirmedAt.Equal(gmin(8)) {
		t.Errorf("execute_code: %+v", g)
	}
	if _, ok := m["terminal"]; ok {
		t.Error("a terminal call within its 15 min grace or confirmed must not be reported")
	}
	if CountLost(gs) != 2 {
		t.Errorf("CountLost = %d, want 2 (revived is not counted)", CountLost(gs))
	}
	// Sorted by issue time.
	for i := 1; i < len(gs); i++ {
		if gs[i].IssuedAt.Before(gs[i-1].IssuedAt) {
			t.Fatalf("not sorted: %v", gs)
		}
	}

	// The same terminal call is a ghost-to-be once Now passes its grace,
	// and stale because nothing in D followed 20+15 min.
	gs = trackGhosts(t, GhostOptions{Now: gmin(36)}, b.w.Path())
	if g := ghostsByTool(gs)["terminal"]; g.Class != ClassStale || g.Row == 0 {
		t.Errorf("terminal at +36m: %+v", g)
	}
	// A --grace override shortens it: now 10 min old against a 5 min
	// grace, and D's llm_call at +29 is after issue + grace: a ghost.
	gs = trackGhosts(t, GhostOptions{Now: now, Grace: map[string]time.Duration{"terminal": 5 * time.Minute}}, b.w.Path())
	if g := ghostsByTool(gs)["terminal"]; g.Class != ClassGhost || !g.NextActivity.Equal(gmin(29)) || g.Grace != Duration(5*time.Minute) {
		t.Errorf("terminal with --grace terminal=5m: %+v", g)
	}
	// And an override can lengthen a default: write_file within 1 h grace.
	gs = trackGhosts(t, GhostOptions{Now: now, Grace: map[string]time.Duration{"write_file": time.Hour}}, b.w.Path())
	if _, ok := ghostsByTool(gs)["write_file"]; ok {
		t.Error("write_file within an overridden 1h grace must not be reported")
	}
}

func TestGhostExactGraceBoundary(t *testing.T) {
	b := newGhostLedger(t, "l.db")
	b.issue(gmin(0), "S", "write_file", `{}`)
	if gs := trackGhosts(t, GhostOptions{Now: gmin(2)}, b.w.Path()); len(gs) != 0 {
		t.Errorf("a call exactly as old as its grace is not older than it: %+v", gs)
	}
	if gs := trackGhosts(t, GhostOptions{Now: gmin(2).Add(time.Millisecond)}, b.w.Path()); len(gs) != 1 || gs[0].Class != ClassStale {
		t.Errorf("one millisecond past grace: %+v", gs)
	}
}

func TestGhostActivityFromOtherCallsOutcome(t *testing.T) {
	// A long call issued before the ghost but confirmed after its grace is
	// activity too, although its row comes earlier in id order.
	b := newGhostLedger(t, "l.db")
	long := b.issue(gmin(0), "S", "terminal", `{"command":"make"}`)
	b.issue(gmin(1), "S", "write_file", `{}`)
	b.outcome(gmin(10), ledger.KindConfirmed, "S", "terminal", long)
	gs := trackGhosts(t, GhostOptions{Now: gmin(60)}, b.w.Path())
	if len(gs) != 1 || gs[0].Class != ClassGhost || !gs[0].NextActivity.Equal(gmin(10)) {
		t.Fatalf("%+v", gs)
	}
}

func TestGhostLoopToolsAndDelegate(t *testing.T) {
	b := newGhostLedger(t, "l.db")
	for _, tool := range []string{"todo_list", "todo", "memory", "session_search"} {
		b.issue(gmin(0), "S", tool, `{}`)
	}
	b.issue(gmin(0), "S", "delegate_task", `{"goal":"research"}`)
	b.event(gmin(45), ledger.KindLLMCall, "S")
	gs := trackGhosts(t, GhostOptions{Now: gmin(60)}, b.w.Path())
	if len(gs) != 1 || gs[0].Tool != "delegate_task" {
		t.Fatalf("want only delegate_task, got %+v", gs)
	}
	if gs[0].Class != ClassGhost || gs[0].Grace != Duration(30*time.Minute) {
		t.Errorf("delegate_task: %+v", gs[0])
	}
	if len(gs[0].Evidence) != 1 || !strings.Contains(gs[0].Evidence[0], "post_tool_call") {
		t.Errorf("delegate_task needs the agent-loop note: %q", gs[0].Evidence)
	}
}

func TestGhostNearCompaction(t *testing.T) {
	b := newGhostLedger(t, "l.db")
	b.event(gmin(0), ledger.KindCompaction, "before")
	b.issue(gmin(3), "before", "write_file", `{}`) // compaction 3 min earlier
	b.issue(gmin(0), "after", "cronjob", `{"action":"create"}`)
	b.event(gmin(0.04), ledger.KindCompaction, "after") // 2.4 s later
	b.issue(gmin(0), "far", "patch", `{}`)
	b.event(gmin(20), ledger.KindCompaction, "far") // too far away
	b.event(gmin(0), ledger.KindCompaction, "other")
	b.issue(gmin(0), "unrelated", "Write", `{}`) // compaction in another session
	m := ghostsByTool(trackGhosts(t, GhostOptions{Now: gmin(60)}, b.w.Path()))
	if !m["write_file"].NearCompaction || !m["cronjob"].NearCompaction {
		t.Errorf("compaction before and after the issue must both count: %+v %+v", m["write_file"], m["cronjob"])
	}
	if !strings.Contains(strings.Join(m["cronjob"].Evidence, "\n"), "2s after the issue") {
		t.Errorf("cronjob evidence: %q", m["cronjob"].Evidence)
	}
	if m["patch"].NearCompaction || m["Write"].NearCompaction {
		t.Errorf("distant or other-session compactions must not count: %+v %+v", m["patch"], m["Write"])
	}
}

func TestGhostSessionsKeyedByLedger(t *testing.T) {
	a, b := newGhostLedger(t, "a.db"), newGhostLedger(t, "b.db")
	a.issue(gmin(0), "same", "write_file", `{}`)
	b.event(gmin(30), ledger.KindLLMCall, "same") // another machine's session with the same id
	gs := trackGhosts(t, GhostOptions{Now: gmin(60)}, a.w.Path(), b.w.Path())
	if len(gs) != 1 || gs[0].Class != ClassStale || gs[0].Ledger != a.w.Path() {
		t.Fatalf("activity in another ledger must not make a ghost: %+v", gs)
	}
}

func TestGhostArgsRedacted(t *testing.T) {
	b := newGhostLedger(t, "l.db")
	b.issue(gmin(0), "S", "terminal", `{"command":"curl -H 'Authorization: Bearer sk-ant-abcdefghijklmnopqrstuvwxyz123456' https://api.example.com"}`)
	gs := trackGhosts(t, GhostOptions{Now: gmin(60)}, b.w.Path())
	if len(gs) != 1 || strings.Contains(gs[0].Args, "abcdefghijklmnop") || !strings.Contains(gs[0].Args, redact.Mask) {
		t.Fatalf("args not redacted: %+v", gs)
	}
	gs = trackGhosts(t, GhostOptions{Now: gmin(60), Redact: redact.Redactor{Off: true}}, b.w.Path())
	if !strings.Contains(gs[0].Args, "abcdefghijklmnop") {
		t.Fatalf("--no-redact must keep args: %q", gs[0].Args)
	}
}

// TestGhostTrackerMemoryBounded checks that confirmed calls leave nothing
// behind: the tracker keeps open calls only.
func TestGhostTrackerMemoryBounded(t *testing.T) {
	g := NewGhostTracker(GhostOptions{Now: gmin(600)})
	for i := 0; i < 5000; i++ {
		g.Observe(ledger.Record{Call: &ledger.Call{
			ID: int64(i + 1), Ledger: "x", TS: gmin(float64(i) / 10), SessionID: "S", Tool: "write_file",
			Status: ledger.StatusConfirmed, OutcomeTS: gmin(float64(i)/10 + 0.01),
		}})
		if i == 10 {
			g.Observe(ledger.Record{Call: &ledger.Call{ID: 100000, Ledger: "x", TS: gmin(1), SessionID: "S", Tool: "patch", Status: ledger.StatusPending}})
		}
	}
	open := 0
	for _, s := range g.sessions {
		open += len(s.open) + len(s.waiting)
	}
	if len(g.sessions) != 1 || open != 1 { // the one open call; later activity took it off the waiting heap
		t.Fatalf("sessions %d, open entries %d", len(g.sessions), open)
	}
	if gs := g.Ghosts(); len(gs) != 1 || gs[0].Class != ClassGhost || !gs[0].NextActivity.Equal(gmin(float64(30)/10+0.01)) {
		t.Fatalf("%+v", gs)
	}
}

func writeCronJobs(t *testing.T, home, text string) {
	t.Helper()
	os.MkdirAll(filepath.Join(home, "cron"), 0o755)
	if err := os.WriteFile(filepath.Join(home, "cron", "jobs.json"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestGhostCronEvidence(t *testing.T) {
	b := newGhostLedger(t, "l.db")
	b.issue(gmin(0), "S", "cronjob", `{"action":"create","name":"morning-digest","schedule":"0 8 * * *","prompt":"digest"}`)
	b.issue(gmin(0), "S", "cronjob_manage", `{"action":"create","prompt":"Check the backups and report anything unusual.","schedule":"0 9 * * 0"}`)
	b.issue(gmin(0), "S", "cronjob_create", `{"schedule":"*/5 * * * *"}`)
	b.issue(gmin(0), "S", "cronjob_list", `{"action":"list"}`) // not a create: no evidence
	jobs := `{"jobs":[{"id":"aaa","name":"inbox","prompt":"x"},{"id":"bbb","name":"Check the backups and report anything unusual.","prompt":"Check the backups and report anything unusual.","schedule":{"kind":"cron","expr":"0 9 * * 0"}},{"id":"ccc","name":"poll","schedule_display":"*/5 * * * *"}],"updated_at":"2026-11-30T07:00:00+00:00"}`
	home := t.TempDir()
	writeCronJobs(t, home, jobs)
	m := ghostsByTool(trackGhosts(t, GhostOptions{Now: gmin(60), HermesHome: home}, b.w.Path()))
	if ev := m["cronjob"].Evidence; len(ev) != 1 || ev[0] != "job morning-digest not found in cron/jobs.json (3 jobs)" {
		t.Errorf("cronjob: %q", ev)
	}
	if ev := strings.Join(m["cronjob_manage"].Evidence, "|"); !strings.Contains(ev, "found in cron/jobs.json (id bbb)") || !strings.Contains(ev, "only the confirmation was lost") {
		t.Errorf("cronjob_manage matched by prompt: %q", ev)
	}
	if ev := strings.Join(m["cronjob_create"].Evidence, "|"); !strings.Contains(ev, "(id ccc)") {
		t.Errorf("cronjob_create matched by schedule: %q", ev)
	}
	if ev := m["cronjob_list"].Evidence; len(ev) != 0 {
		t.Errorf("cronjob_list: %q", ev)
	}

	// Without --hermes-home nothing is checked.
	if ev := ghostsByTool(trackGhosts(t, GhostOptions{Now: gmin(60)}, b.w.Path()))["cronjob"].Evidence; len(ev) != 0 {
		t.Errorf("no home: %q", ev)
	}
	// A missing jobs.json means no jobs at all.
	if ev := ghostsByTool(trackGhosts(t, GhostOptions{Now: gmin(60), HermesHome: t.TempDir()}, b.w.Path()))["cronjob"].Evidence; len(ev) != 1 || !strings.Contains(ev[0], "not found in cron/jobs.json (file absent") {
		t.Errorf("absent jobs.json: %q", ev)
	}
	// An unreadable jobs.json is a note, not a failure.
	bad := t.TempDir()
	writeCronJobs(t, bad, `{"jobs": [`)
	gs := trackGhosts(t, GhostOptions{Now: gmin(60), HermesHome: bad}, b.w.Path())
	if ev := ghostsByTool(gs)["cronjob"].Evidence; len(ev) != 1 || !strings.HasPrefix(ev[0], "cannot check cron/jobs.json: not valid JSON") {
		t.Errorf("corrupt jobs.json: %q", ev)
	}
	if len(gs) != 4 {
		t.Errorf("a bad jobs.json must not hide ghosts: %d", len(gs))
	}
}

func TestGhostFileEvidence(t *testing.T) {
	dir := t.TempDir()
	same := filepath.Join(dir, "same.md")
	other := filepath.Join(dir, "other.md")
	os.WriteFile(same, []byte("hello\n"), 0o644)
	os.WriteFile(other, []byte("goodbye\n"), 0o644)
	b := newGhostLedger(t, "l.db")
	args := func(key, path, content string) string {
		return `{"` + key + `":"` + path + `","content":"` + content + `"}`
	}
	b.issue(gmin(0), "missing", "write_file", args("path", filepath.Join(dir, "missing.md"), `x`))
	b.issue(gmin(0), "same", "write_file", args("path", same, `hello\n`))
	b.issue(gmin(0), "other", "Write", args("file_path", other, `hello\n`))
	b.issue(gmin(0), "relative", "write_file", args("path", "notes/x.md", `x`))
	// Claude Code records its cwd: a relative path resolves against it.
	b.add(ledger.Event{TS: gmin(0), Kind: ledger.KindIssued, SessionID: "cwd", CallID: "c1", ToolName: "Write", Cwd: dir, ArgsJSON: args("file_path", "same.md", `hello\n`)})
	gs := trackGhosts(t, GhostOptions{Now: gmin(60), HermesHome: t.TempDir()}, b.w.Path())
	ev := map[string]string{}
	for _, g := range gs {
		ev[g.Session] = strings.Join(g.Evidence, "|")
	}
	for session, want := range map[string]string{
		"missing":  "does not exist: the write never landed",
		"same":     "holds exactly the content the call wrote: the write landed, only its confirmation was lost",
		"other":    "holds other content (8 bytes, the call wrote 6)",
		"relative": "is relative and the call recorded no working directory",
		"cwd":      "holds exactly the content",
	} {
		if !strings.Contains(ev[session], want) {
			t.Errorf("%s: evidence %q lacks %q", session, ev[session], want)
		}
	}
}

func TestGhostsOnIncidentSample(t *testing.T) {
	gs := trackGhosts(t, GhostOptions{Now: time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC), HermesHome: "../samples/incident-90985-home"}, "../samples/incident-90985.db")
	if len(gs) != 1 {
		t.Fatalf("want exactly the cronjob ghost, got %+v", gs)
	}
	g := gs[0]
	if g.Tool != "cronjob" || g.Class != ClassGhost || !g.NearCompaction || g.IssuedAt.Format(time.RFC3339) != "2026-11-30T20:39:07Z" {
		t.Errorf("%+v", g)
	}
	if !g.ReportedAt.Equal(time.Date(2026, 11, 30, 20, 41, 30, 0, time.UTC)) || !g.NextActivity.Equal(g.ReportedAt) {
		t.Errorf("reported %v, next activity %v", g.ReportedAt, g.NextActivity)
	}
	if !strings.Contains(strings.Join(g.Evidence, "\n"), "job morning-digest not found in cron/jobs.json (2 jobs)") {
		t.Errorf("evidence %q", g.Evidence)
	}
}

func TestGhostsOnWeekSample(t *testing.T) {
	gs := trackGhosts(t, GhostOptions{Now: time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)}, "../samples/week-mixed.db")
	got := map[int64]GhostClass{}
	for _, g := range gs {
		got[g.Row] = g.Class
	}
	want := map[int64]GhostClass{141: ClassRevived, 368: ClassGhost, 381: ClassStale}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for row, class := range want {
		if got[row] != class {
			t.Errorf("row %d: %s, want %s", row, got[row], class)
		}
	}
}

// BenchmarkGhostTracker feeds a day of one busy session: 100,000 confirmed
// calls with one open call in every thousand.
func BenchmarkGhostTracker(b *testing.B) {
	calls := make([]ledger.Call, 100000)
	for i := range calls {
		calls[i] = ledger.Call{ID: int64(i + 1), Ledger: "x", TS: ghostEpoch.Add(time.Duration(i) * time.Second), SessionID: "S",
			Tool: "terminal", Status: ledger.StatusConfirmed, OutcomeTS: ghostEpoch.Add(time.Duration(i)*time.Second + 500*time.Millisecond)}
		if i%1000 == 0 {
			calls[i].Status, calls[i].OutcomeTS, calls[i].Tool = ledger.StatusPending, time.Time{}, "write_file"
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		g := NewGhostTracker(GhostOptions{Now: ghostEpoch.Add(48 * time.Hour)})
		for i := range calls {
			g.Observe(ledger.Record{Call: &calls[i]})
		}
		if n := len(g.Ghosts()); n != 100 {
			b.Fatalf("%d ghosts", n)
		}
	}
}
