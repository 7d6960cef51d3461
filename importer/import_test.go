package importer

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
)

const (
	projDir        = "testdata/claude/projects/-home-dev-shop"
	normalFile     = projDir + "/5f0c2b7e-8d41-4c2a-9b0e-3e1f6a9d2c11.jsonl"
	compactionFile = projDir + "/a41d9e07-2f6b-4b8e-8c3d-7d0b5e2f9a64.jsonl"
	parentSession  = "0b7e3c55-91a2-4f0d-8e6b-c2d4a1f3e980"
	parentFile     = projDir + "/" + parentSession + ".jsonl"
	hugeFile       = "testdata/claude/huge/e2c8a1f0-6b3d-4d59-a7e1-90f4c3b2d817.jsonl"
	brokenFile     = "testdata/claude/broken/77d1c0aa-3e5f-4c6b-b8a9-1f2e3d4c5b6a.jsonl"
	notTranscript  = "testdata/claude/notatranscript/app-log.jsonl"
	codexFile      = "testdata/codex/sessions/2026/11/30/rollout-2026-11-30T14-00-00-019a7c3e-5b21-7d40-9e8f-2c6a1b0d4e93.jsonl"
	codexSession   = "019a7c3e-5b21-7d40-9e8f-2c6a1b0d4e93"
	codexBroken    = "testdata/codex/broken/rollout-2026-11-30T15-00-00-019a7d01-0c3f-7a55-b2d1-8e9f0a1b2c3d.jsonl"
)

func importInto(t *testing.T, from string, opts Options, paths ...string) (string, Summary, string) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "imported.db")
	var warn bytes.Buffer
	opts.Warn = &warn
	sum, err := Import(from, paths, db, opts)
	if err != nil {
		t.Fatalf("import %v: %v", paths, err)
	}
	return db, sum, warn.String()
}

type scanned struct {
	calls  []*ledger.Call
	events []*ledger.Event
}

func (s scanned) call(id string) *ledger.Call {
	for _, c := range s.calls {
		if c.CallID == id {
			return c
		}
	}
	return nil
}

func (s scanned) kinds(k ledger.Kind) []*ledger.Event {
	var out []*ledger.Event
	for _, e := range s.events {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

func scan(t *testing.T, path string) scanned {
	t.Helper()
	r, err := ledger.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var s scanned
	err = r.Scan(ledger.Filter{}, func(rec ledger.Record) error {
		if rec.Call != nil {
			s.calls = append(s.calls, rec.Call)
		} else {
			s.events = append(s.events, rec.Event)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func countRows(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM events`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// toolu mirrors the fixture generator's tool_use ids.
func toolu(t *testing.T, s scanned, tool, argSubstr string) *ledger.Call {
	t.Helper()
	for _, c := range s.calls {
		if c.Tool == tool && strings.Contains(c.Args, argSubstr) {
			return c
		}
	}
	t.Fatalf("no %s call with %q in its args", tool, argSubstr)
	return nil
}

func TestClaudeNormalSession(t *testing.T) {
	db, sum, warn := importInto(t, FromClaudeCode, Options{}, normalFile)
	if warn != "" {
		t.Errorf("unexpected warnings: %s", warn)
	}
	s := scan(t, db)
	// Read is read-only: 5 Bash + 1 Edit are kept.
	if len(s.calls) != 5 || sum.ReadOnly != 1 {
		t.Fatalf("calls = %d (read-only skipped %d), want 5 and 1", len(s.calls), sum.ReadOnly)
	}
	for _, c := range s.calls {
		if c.Source != SourceClaudeCode || c.SessionID != "5f0c2b7e-8d41-4c2a-9b0e-3e1f6a9d2c11" {
			t.Errorf("call %s: source %q session %q", c.CallID, c.Source, c.SessionID)
		}
		if c.Status == ledger.StatusPending {
			t.Errorf("call %s %s is pending; every call in this session was answered", c.Tool, c.Args)
		}
	}
	edit := toolu(t, s, "Edit", "checkout.test.ts")
	if edit.Status != ledger.StatusConfirmed || edit.DurationMS == nil || *edit.DurationMS != 361 {
		t.Errorf("Edit: status %s duration %v, want confirmed in 361 ms", edit.Status, edit.DurationMS)
	}
	if want := time.Date(2026, 11, 30, 9, 0, 38, 250e6, time.UTC); !edit.TS.Equal(want) {
		t.Errorf("Edit issued at %s, want %s (the record's timestamp)", edit.TS, want)
	}
	tsc := toolu(t, s, "Bash", "tsc --noEmit")
	if tsc.Status != ledger.StatusError || tsc.ErrorType != "tool_error" || !strings.Contains(tsc.ResultDigest, "TS2322") {
		t.Errorf("tsc: %s/%s %q", tsc.Status, tsc.ErrorType, tsc.ResultDigest)
	}
	push := toolu(t, s, "Bash", "--force")
	if push.Status != ledger.StatusError || push.ErrorType != "user_rejected" {
		t.Errorf("rejected push: %s/%s", push.Status, push.ErrorType)
	}
	// The turn changes at the user's second prompt.
	branch := toolu(t, s, "Bash", "git switch -c")
	if branch.TurnID == "" || branch.TurnID == edit.TurnID {
		t.Errorf("turns: edit %q, branch %q; want two distinct prompt uuids", edit.TurnID, branch.TurnID)
	}
	if got := len(s.kinds(ledger.KindSessionStart)); got != 1 {
		t.Errorf("session_start events = %d, want 1", got)
	}
	// 7 assistant messages, some split over two records: one llm_call each.
	llm := s.kinds(ledger.KindLLMCall)
	if len(llm) != 7 || sum.LLMCalls != 7 {
		t.Fatalf("llm_call events = %d (summary %d), want 7", len(llm), sum.LLMCalls)
	}
	first := llm[0]
	if *first.TokensIn != 4+14210 || *first.TokensOut != 96 || *first.TokensCacheRead != 0 {
		t.Errorf("first llm_call tokens in/out/cache = %d/%d/%d", *first.TokensIn, *first.TokensOut, *first.TokensCacheRead)
	}
	if sum.Confirmed != 3 || sum.Errors != 2 || sum.Pending != 0 {
		t.Errorf("summary outcomes %+v", sum)
	}
}

func TestClaudeCompactionLeavesPendingCallNextToCompaction(t *testing.T) {
	db, sum, _ := importInto(t, FromClaudeCode, Options{}, compactionFile)
	s := scan(t, db)
	migrate := toolu(t, s, "Bash", "db:migrate")
	if migrate.Status != ledger.StatusPending {
		t.Fatalf("migration call is %s, want pending (its result was never written)", migrate.Status)
	}
	comps := s.kinds(ledger.KindCompaction)
	if len(comps) != 1 {
		t.Fatalf("compaction events = %d, want 1 (boundary and summary message are one compaction)", len(comps))
	}
	gap := comps[0].TS.Sub(migrate.TS)
	if gap < 0 || gap > time.Minute {
		t.Errorf("compaction %s is not right after the lost call %s", comps[0].TS, migrate.TS)
	}
	if !strings.Contains(comps[0].ArgsJSON, `"trigger":"auto"`) {
		t.Errorf("compaction metadata not kept: %q", comps[0].ArgsJSON)
	}
	// The session went on: a later call was answered (with an error).
	run := toolu(t, s, "Bash", "backfill_loyalty")
	if run.Status != ledger.StatusError || !run.TS.After(migrate.TS.Add(15*time.Minute)) {
		t.Errorf("later call %s at %s", run.Status, run.TS)
	}
	if sum.Pending != 1 || sum.Compactions != 1 {
		t.Errorf("summary pending %d compactions %d", sum.Pending, sum.Compactions)
	}
}

func TestClaudeSubagentsAttributedToParent(t *testing.T) {
	db, sum, _ := importInto(t, FromClaudeCode, Options{}, projDir)
	s := scan(t, db)
	bySession := map[string]int{}
	for _, c := range s.calls {
		bySession[c.SessionID]++
	}
	// Parent: Task + Agent(->Task); agent a3f9c2e: 1 Bash (Grep is read-only); agent b81d044: 2 Bash.
	if bySession[parentSession] != 5 {
		t.Errorf("calls of the parent session = %d, want 5 (2 Task + 3 sub-agent Bash): %v", bySession[parentSession], bySession)
	}
	turns := map[string]int{}
	for _, c := range s.calls {
		if c.SessionID == parentSession {
			turns[c.TurnID]++
			if c.Tool != "Task" && c.Tool != "Bash" {
				t.Errorf("unexpected tool %q", c.Tool)
			}
		}
	}
	if turns["subagent:a3f9c2e"] != 1 || turns["subagent:b81d044"] != 2 {
		t.Errorf("sub-agent turns = %v", turns)
	}
	for _, c := range s.calls {
		if c.SessionID == parentSession && strings.Contains(c.Args, "Bump lodash") && c.Tool != "Task" {
			t.Errorf("Agent tool mapped to %q, want Task", c.Tool)
		}
	}
	// Sub-agent files do not start sessions of their own.
	starts := 0
	for _, e := range s.kinds(ledger.KindSessionStart) {
		if e.SessionID == parentSession {
			starts++
		}
	}
	if starts != 1 {
		t.Errorf("session_start for the parent = %d, want 1", starts)
	}
	// Events are in time order across the parent and its sub-agent files.
	var prev time.Time
	for _, c := range s.calls {
		if c.SessionID != parentSession {
			continue
		}
		if c.TS.Before(prev) {
			t.Errorf("call %s at %s is before the previous call at %s", c.CallID, c.TS, prev)
		}
		prev = c.TS
	}
	if sum.Files != 5 {
		t.Errorf("files = %d, want 5 (3 sessions + 2 sub-agent files; the .meta.json is not a transcript)", sum.Files)
	}
}

func TestClaudeHugeToolResult(t *testing.T) {
	db, _, _ := importInto(t, FromClaudeCode, Options{}, hugeFile)
	s := scan(t, db)
	cat := toolu(t, s, "Bash", "nightly.log")
	if cat.Status != ledger.StatusConfirmed {
		t.Fatalf("status %s", cat.Status)
	}
	if n := len([]rune(cat.ResultDigest)); n != ledger.MaxDigestChars {
		t.Errorf("digest is %d characters, want %d", n, ledger.MaxDigestChars)
	}
	// The hash covers the whole result, not the digest.
	raw, err := os.ReadFile(hugeFile)
	if err != nil {
		t.Fatal(err)
	}
	full := extractResult(t, raw)
	if len(full) < 250000 {
		t.Fatalf("fixture result only %d bytes", len(full))
	}
	if cat.ResultHash != ledger.ResultHash("Bash", full) {
		t.Errorf("result hash is not the hash of the full result")
	}
}

func TestClaudeIdempotent(t *testing.T) {
	db, first, _ := importInto(t, FromClaudeCode, Options{}, projDir)
	n := countRows(t, db)
	if n == 0 || first.Written != n {
		t.Fatalf("first import wrote %d, ledger has %d rows", first.Written, n)
	}
	second, err := Import(FromClaudeCode, []string{projDir}, db, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := countRows(t, db); got != n {
		t.Fatalf("second import changed the row count %d -> %d", n, got)
	}
	if second.Written != 0 || second.Present != n {
		t.Errorf("second import: written %d, present %d; want 0 and %d", second.Written, second.Present, n)
	}
	if second.Calls != first.Calls || second.Pending != first.Pending || second.Sessions != first.Sessions {
		t.Errorf("call statistics differ between imports: %+v vs %+v", first, second)
	}
	// Single files imported again, in another order: still nothing new.
	if _, err := Import(FromClaudeCode, []string{compactionFile, normalFile}, db, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := countRows(t, db); got != n {
		t.Fatalf("third import changed the row count %d -> %d", n, got)
	}
}

// A transcript imported while the agent was still writing it, then again
// once it finished: the second import adds only the new part, and the
// result that arrived meanwhile closes the call imported the first time.
func TestClaudeGrowingTranscript(t *testing.T) {
	full, err := os.ReadFile(compactionFile)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(full), "\n")
	dir := t.TempDir()
	path := filepath.Join(dir, "a41d9e07-2f6b-4b8e-8c3d-7d0b5e2f9a64.jsonl")
	// Cut right after the first Write's tool_use (line 3), before its result.
	if err := os.WriteFile(path, []byte(strings.Join(lines[:2], "")), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "l.db")
	if _, err := Import(FromClaudeCode, []string{path}, db, Options{}); err != nil {
		t.Fatal(err)
	}
	s := scan(t, db)
	if len(s.calls) != 1 || s.calls[0].Status != ledger.StatusPending {
		t.Fatalf("after the partial import: %d calls, first %+v", len(s.calls), s.calls)
	}
	if err := os.WriteFile(path, full, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Import(FromClaudeCode, []string{path}, db, Options{}); err != nil {
		t.Fatal(err)
	}
	s = scan(t, db)
	w := toolu(t, s, "Write", "0042_loyalty_points.sql")
	if w.Status != ledger.StatusConfirmed {
		t.Errorf("the call imported first was not closed by its later result: %s", w.Status)
	}
	n := 0
	for _, c := range s.calls {
		if strings.Contains(c.Args, "0042_loyalty_points.sql") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the Write call is in the ledger %d times", n)
	}
}

func TestAllToolsKeepsReadOnlyCalls(t *testing.T) {
	db, sum, _ := importInto(t, FromClaudeCode, Options{AllTools: true}, normalFile)
	s := scan(t, db)
	if len(s.calls) != 6 || sum.ReadOnly != 0 {
		t.Fatalf("calls = %d, read-only skipped %d; want 6 and 0", len(s.calls), sum.ReadOnly)
	}
	toolu(t, s, "Read", "checkout.test.ts")
}

func TestWindowAndSession(t *testing.T) {
	since := time.Date(2026, 11, 30, 9, 0, 40, 0, time.UTC)
	until := time.Date(2026, 11, 30, 9, 1, 25, 0, time.UTC)
	db, _, _ := importInto(t, FromClaudeCode, Options{Since: since, Until: until}, projDir)
	s := scan(t, db)
	if len(s.calls) != 3 {
		t.Fatalf("calls in window = %d, want 3 (tsc, force push, branch push)", len(s.calls))
	}
	for _, c := range s.calls {
		if c.TS.Before(since) || !c.TS.Before(until) {
			t.Errorf("call at %s outside the window", c.TS)
		}
		if c.Open() {
			t.Errorf("call %s lost its outcome to the window", c.CallID)
		}
	}
	db2, _, _ := importInto(t, FromClaudeCode, Options{Session: parentSession}, projDir)
	for _, c := range scan(t, db2).calls {
		if c.SessionID != parentSession {
			t.Errorf("session filter let %s through", c.SessionID)
		}
	}
}

func TestSkippedLineWarnings(t *testing.T) {
	db, sum, warn := importInto(t, FromClaudeCode, Options{}, brokenFile)
	want := brokenFile + ": 3 lines skipped: line 2: not JSON\n"
	if warn != want {
		t.Errorf("warning = %q, want %q", warn, want)
	}
	if sum.SkippedLines != 3 || sum.FilesWithSkips != 1 {
		t.Errorf("summary skipped %d in %d files", sum.SkippedLines, sum.FilesWithSkips)
	}
	s := scan(t, db)
	rm := toolu(t, s, "Bash", "rm -rf ./build")
	if rm.Status != ledger.StatusConfirmed {
		t.Errorf("rm: %s", rm.Status)
	}
	// The truncated last line held the result of mkdir: still pending.
	if mk := toolu(t, s, "Bash", "mkdir -p build"); mk.Status != ledger.StatusPending {
		t.Errorf("mkdir: %s", mk.Status)
	}
	// Each reason on its own, through the reader.
	p := newClaudeReader()
	st, err := readLines(strings.NewReader("{\"type\":\"user\",\"timestamp\":\"2026-11-30T13:00:00Z\",\"message\":{\"content\":\"hi\"}}\n{\"type\":\"beacon\"}\n{\"type\":\"user\""), p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Skipped != 2 || st.FirstSkip != `line 2: unknown record type "beacon"` {
		t.Errorf("stats %+v", st)
	}
	st, _ = readLines(strings.NewReader(`{"type":"user"`), newClaudeReader())
	if st.FirstSkip != "line 1: truncated last line (file still being written?)" {
		t.Errorf("truncated: %+v", st)
	}
}

func TestNotATranscript(t *testing.T) {
	db := filepath.Join(t.TempDir(), "l.db")
	_, err := Import(FromClaudeCode, []string{normalFile, notTranscript}, db, Options{})
	var fe *FileError
	if !errors.As(err, &fe) || fe.Path != notTranscript || !strings.Contains(fe.Problem, "not a Claude Code transcript") {
		t.Fatalf("err = %v", err)
	}
	if _, serr := os.Stat(db); !os.IsNotExist(serr) {
		t.Errorf("a failed import left a ledger behind")
	}
	// A Codex rollout given as Claude Code says what it probably is.
	_, err = Import(FromClaudeCode, []string{codexFile}, db, Options{})
	if err == nil || !strings.Contains(err.Error(), "use --from codex") {
		t.Errorf("codex file as claude-code: %v", err)
	}
	// Found by a walk, it is only a warning.
	var warn bytes.Buffer
	sum, err := Import(FromClaudeCode, []string{"testdata/claude/notatranscript", normalFile}, db, Options{Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	if sum.FilesSkipped != 1 || !strings.Contains(warn.String(), notTranscript+": not a Claude Code transcript (line 1: record without a type), skipped") {
		t.Errorf("walk: skipped %d, warnings %q", sum.FilesSkipped, warn.String())
	}
	// Nothing recognisable at all: an error.
	_, err = Import(FromClaudeCode, []string{"testdata/claude/notatranscript"}, filepath.Join(t.TempDir(), "x.db"), Options{Warn: &warn})
	if err == nil {
		t.Error("a directory with no transcript imported without error")
	}
	empty := filepath.Join(t.TempDir(), "empty.jsonl")
	os.WriteFile(empty, nil, 0o600)
	if _, err := Import(FromClaudeCode, []string{empty}, db, Options{}); err == nil || !strings.Contains(err.Error(), "empty file") {
		t.Errorf("empty file: %v", err)
	}
	if _, err := Import(FromClaudeCode, []string{"testdata/nope.jsonl"}, db, Options{}); err == nil || !strings.Contains(err.Error(), "testdata/nope.jsonl: no such file") {
		t.Errorf("missing file: %v", err)
	}
}

func TestSourceFilesUntouched(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "s.jsonl")
	data, _ := os.ReadFile(normalFile)
	if err := os.WriteFile(src, data, 0o400); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(src)
	if _, err := Import(FromClaudeCode, []string{src}, filepath.Join(dir, "l.db"), Options{}); err != nil {
		t.Fatalf("a read-only transcript could not be imported: %v", err)
	}
	after, _ := os.Stat(src)
	got, _ := os.ReadFile(src)
	if !bytes.Equal(got, data) || !after.ModTime().Equal(before.ModTime()) {
		t.Error("the import changed its source file")
	}
}

func TestDefaultPaths(t *testing.T) {
	home := t.TempDir()
	cfg := t.TempDir()
	for _, d := range []string{filepath.Join(home, ".claude", "projects"), filepath.Join(cfg, "projects"), filepath.Join(home, ".codex", "sessions")} {
		os.MkdirAll(d, 0o700)
	}
	env := map[string]string{"HOME": home, "CLAUDE_CONFIG_DIR": cfg}
	got := DefaultPaths(FromClaudeCode, func(k string) string { return env[k] })
	want := []string{filepath.Join(cfg, "projects"), filepath.Join(home, ".claude", "projects")}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("claude-code paths %v, want %v (~/.config/claude/projects does not exist)", got, want)
	}
	got = DefaultPaths(FromCodex, func(k string) string { return env[k] })
	if len(got) != 1 || got[0] != filepath.Join(home, ".codex", "sessions") {
		t.Errorf("codex paths %v", got)
	}
}

func TestImportToTemp(t *testing.T) {
	path, cleanup, err := ImportToTemp(FromClaudeCode, []string{compactionFile}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(scan(t, path).calls) == 0 {
		t.Error("temporary ledger holds no calls")
	}
	cleanup()
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Error("cleanup left the temporary directory")
	}
	// Nothing mutating: the ledger still exists, empty, so an audit can open it.
	path, cleanup, err = ImportToTemp(FromClaudeCode, []string{hugeFile}, Options{Since: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if s := scan(t, path); len(s.calls) != 0 {
		t.Errorf("calls outside the window were imported")
	}
	if _, _, err := ImportToTemp(FromClaudeCode, []string{notTranscript}, Options{}); err == nil {
		t.Error("ImportToTemp accepted a file that is not a transcript")
	}
}

// extractResult pulls the tool_result text out of the huge fixture with
// plain encoding/json, independently of the importer's own decoding.
func extractResult(t *testing.T, raw []byte) string {
	t.Helper()
	for _, l := range strings.Split(string(raw), "\n") {
		if !strings.Contains(l, `"tool_result"`) {
			continue
		}
		var rec struct {
			Message struct {
				Content []struct {
					Content string `json:"content"`
				} `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		return rec.Message.Content[0].Content
	}
	t.Fatal("no tool_result in fixture")
	return ""
}

// A session bigger than one write batch: calls and outcomes that straddle
// a batch boundary still pair, and nothing is written twice.
func TestLargeSessionSpansBatches(t *testing.T) {
	dir := t.TempDir()
	src := writeBigTranscript(t, dir, 700) // 2,100 events + session_start
	db := filepath.Join(dir, "l.db")
	sum, err := Import(FromClaudeCode, []string{src}, db, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Written != 2101 || sum.Calls != 700 || sum.Confirmed != 700 || sum.Pending != 0 {
		t.Fatalf("summary %+v", sum)
	}
	for _, c := range scan(t, db).calls {
		if c.Status != ledger.StatusConfirmed {
			t.Fatalf("call %s is %s", c.CallID, c.Status)
		}
	}
	if again, err := Import(FromClaudeCode, []string{src}, db, Options{}); err != nil || again.Written != 0 || countRows(t, db) != 2101 {
		t.Fatalf("re-import wrote %d (%v)", again.Written, err)
	}
	// The hash chain runs unbroken across the batches.
	res, err := ledger.Verify(db, nil)
	if err != nil || !res.OK() || res.Rows != 2101 {
		t.Fatalf("verify: %+v %v", res, err)
	}
}

func TestClaudeCompactionMarkers(t *testing.T) {
	lines := []string{
		`{"type":"user","sessionId":"s","uuid":"u1","timestamp":"2026-11-30T10:00:00Z","message":{"role":"user","content":"go"}}`,
		`{"type":"system","subtype":"compact_boundary","sessionId":"s","timestamp":"2026-11-30T10:01:00Z","compactMetadata":{"trigger":"manual","preTokens":90000}}`,
		`{"type":"user","sessionId":"s","isMeta":true,"timestamp":"2026-11-30T10:01:00Z","message":{"role":"user","content":"<local-command-stdout>Compacted</local-command-stdout>"}}`,
		`{"type":"user","sessionId":"s","timestamp":"2026-11-30T10:01:00.001Z","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued from a previous conversation..."}}`,
		`{"type":"assistant","sessionId":"s","timestamp":"2026-11-30T10:02:00Z","message":{"id":"m1","content":[{"type":"text","text":"ok"}]}}`,
		// Older CLIs: no boundary record, no flag, only the summary text.
		`{"type":"user","sessionId":"s","timestamp":"2026-11-30T10:30:00Z","message":{"role":"user","content":[{"type":"text","text":"This session is being continued from a previous conversation that ran out of context."}]}}`,
		`{"type":"summary","summary":"Title only","leafUuid":"u1"}`,
	}
	p := newClaudeReader()
	st, err := readLines(strings.NewReader(strings.Join(lines, "\n")), p)
	if err != nil || st.Skipped != 0 {
		t.Fatalf("%+v %v", st, err)
	}
	var comps []ledger.Event
	for _, e := range p.result() {
		if e.Kind == ledger.KindCompaction {
			comps = append(comps, e)
		}
	}
	if len(comps) != 2 || comps[0].TS.Minute() != 1 || comps[1].TS.Minute() != 30 || !strings.Contains(comps[0].ArgsJSON, `"trigger":"manual"`) {
		t.Fatalf("compactions = %+v; want one at 10:01 (boundary + summary) and one at 10:30, none for the title", comps)
	}
	if comps[0].TurnID != "u1" {
		t.Errorf("compaction turn %q, want the prompt's uuid", comps[0].TurnID)
	}
}

func TestClaudeOddShapes(t *testing.T) {
	lines := []string{
		// Odd usage: the tool call survives, no llm_call is made up.
		`{"type":"assistant","sessionId":"s","timestamp":"2026-11-30T10:00:00Z","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"a"}},{"type":"tool_use","id":"t2","name":"Bash"}],"usage":{"input_tokens":"lots"}}}`,
		// A block of the wrong shape does not hide the result next to it.
		`{"type":"user","sessionId":"s","timestamp":"2026-11-30T10:00:01Z","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"ok"},{"type":"image","source":{}}]},{"type":"tool_result","tool_use_id":7}]}}`,
		`{"type":"user","sessionId":"s","timestamp":"2026-11-30T10:00:02Z","message":{"content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":"[Request interrupted by user for tool use]"}]}}`,
		// Synthetic assistant messages (API errors) carry no real usage.
		`{"type":"assistant","sessionId":"s","timestamp":"2026-11-30T10:00:03Z","message":{"id":"m2","model":"<synthetic>","content":[{"type":"text","text":"API Error"}],"usage":{"input_tokens":0,"output_tokens":0}}}`,
	}
	p := newClaudeReader()
	st, _ := readLines(strings.NewReader(strings.Join(lines, "\n")), p)
	if st.Skipped != 0 {
		t.Fatalf("skipped: %+v", st)
	}
	got := map[string]ledger.Event{}
	for _, e := range p.result() {
		got[string(e.Kind)+":"+e.CallID] = e
		if e.Kind == ledger.KindLLMCall {
			t.Errorf("llm_call from unusable usage: %+v", e)
		}
	}
	if e, ok := got["issued:t2"]; !ok || e.ArgsJSON != "{}" {
		t.Errorf("call without input: %+v", e)
	}
	if e := got["confirmed:t1"]; e.ResultDigest != "ok\n[image]" || e.ToolName != "Write" {
		t.Errorf("t1 result: %+v", e)
	}
	if e := got["error:t2"]; e.ErrorType != "interrupted" {
		t.Errorf("t2 result: %+v", e)
	}
}
