package main

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	importFixtures  = "../../importer/testdata"
	importProject   = importFixtures + "/claude/projects/-home-dev-shop"
	importCompacted = importProject + "/a41d9e07-2f6b-4b8e-8c3d-7d0b5e2f9a64.jsonl"
	importBroken    = importFixtures + "/claude/broken/77d1c0aa-3e5f-4c6b-b8a9-1f2e3d4c5b6a.jsonl"
	importCodexDir  = importFixtures + "/codex/sessions"
)

func runImport(t *testing.T, envv map[string]string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runEnv(&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return envv[k] }}, append([]string{"import"}, args...))
	return out.String(), errb.String(), code
}

func importedRows(t *testing.T, path string) int {
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

func TestImportClaudeCodeSummaryAndIdempotence(t *testing.T) {
	db := filepath.Join(t.TempDir(), "imported.db")
	out, errOut, code := runImport(t, nil, "--from", "claude-code", importProject, "-o", db)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"imported 5 Claude Code transcript files into " + db,
		"sessions:     3",
		"tool calls:   14 (10 confirmed, 3 error, 1 pending)",
		"not recorded: 8 read-only calls (--all-tools keeps them)",
		"compactions:  1",
		"already in the ledger",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	n := importedRows(t, db)
	out, _, code = runImport(t, nil, "--from", "claude-code", importProject, "-o", db)
	if code != 0 || importedRows(t, db) != n {
		t.Fatalf("second import: exit %d, rows %d -> %d", code, n, importedRows(t, db))
	}
	if !strings.Contains(out, "events:       0 written, ") {
		t.Errorf("second summary:\n%s", out)
	}
}

func TestImportCodex(t *testing.T) {
	db := filepath.Join(t.TempDir(), "codex.db")
	out, errOut, code := runImport(t, nil, "--from", "codex", importCodexDir, "-o", db)
	if code != 0 || !strings.Contains(out, "tool calls:   6 (4 confirmed, 1 error, 1 pending)") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}

func TestImportWarningsAndBadInput(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "l.db")
	out, errOut, code := runImport(t, nil, "--from", "claude-code", importBroken, "-o", db)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := importBroken + ": 3 lines skipped: line 2: not JSON\n"; errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	if !strings.Contains(out, "skipped:      3 lines in 1 file") {
		t.Errorf("summary:\n%s", out)
	}

	// A walk: the stray log file is a warning, not a failure.
	out, errOut, code = runImport(t, nil, "--from", "claude-code", importFixtures+"/claude", "-o", filepath.Join(dir, "walk.db"))
	if code != 0 || !strings.Contains(out, "skipped:      3 lines in 1 file, 1 file not recognised (warnings on stderr)") ||
		!strings.Contains(errOut, "app-log.jsonl: not a Claude Code transcript (line 1: record without a type), skipped\n") {
		t.Errorf("walk: exit %d\n%s%s", code, out, errOut)
	}

	notT := importFixtures + "/claude/notatranscript/app-log.jsonl"
	fresh := filepath.Join(dir, "fresh.db")
	_, errOut, code = runImport(t, nil, "--from", "claude-code", notT, "-o", fresh)
	if code != 2 || errOut != "ledger-audit: "+notT+": not a Claude Code transcript (line 1: record without a type)\n" {
		t.Errorf("not a transcript: exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Error("a failed import created the ledger")
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{importBroken, "-o", db}, "--from is required"},
		{[]string{"--from", "cursor", importBroken, "-o", db}, `--from "cursor"`},
		{[]string{"--from", "codex", importBroken}, "-o LEDGER is required"},
		{[]string{"--from", "codex", importBroken, "-o", db, "--tz", "Mars/Olympus"}, "unknown time zone"},
		{[]string{"--from", "codex", importBroken, "-o", db, "--since", "yesterday-ish"}, "--since"},
	} {
		_, errOut, code := runImport(t, nil, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "usage: ledger-audit import") {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, errOut)
		}
	}
	// A ledger path that is not a ledger: one line naming it, exit 2.
	bogus := filepath.Join(dir, "bogus.db")
	os.WriteFile(bogus, []byte("this is not sqlite, just text long enough to matter............"), 0o600)
	_, errOut, code = runImport(t, nil, "--from", "claude-code", importCompacted, "-o", bogus)
	if code != 2 || !strings.HasPrefix(errOut, "ledger-audit: "+bogus+": ") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("bogus ledger: exit %d, stderr %q", code, errOut)
	}
}

func TestImportDefaultPaths(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, ".claude", "projects", "-home-dev-shop")
	os.MkdirAll(proj, 0o700)
	data, err := os.ReadFile(importCompacted)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(proj, "a41d9e07-2f6b-4b8e-8c3d-7d0b5e2f9a64.jsonl"), data, 0o600)
	db := filepath.Join(t.TempDir(), "l.db")
	out, errOut, code := runImport(t, map[string]string{"HOME": home}, "--from", "claude-code", "-o", db)
	if code != 0 || !strings.Contains(out, "imported 1 Claude Code transcript file") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = runImport(t, map[string]string{"HOME": t.TempDir()}, "--from", "codex", "-o", db)
	if code != 2 || !strings.Contains(errOut, "no codex directory found") {
		t.Errorf("no default dir: exit %d %q", code, errOut)
	}
}

func TestImportWindowWithTimeZone(t *testing.T) {
	// 10:00 Paris is 09:00 UTC in winter: the normal session's calls run
	// 09:00:06-09:01:24 UTC, so an until of 10:00:45 Paris keeps the first
	// three state-changing calls (the loop test, the Edit, tsc).
	db := filepath.Join(t.TempDir(), "l.db")
	out, errOut, code := runImport(t, nil, "--from", "claude-code", importProject+"/5f0c2b7e-8d41-4c2a-9b0e-3e1f6a9d2c11.jsonl",
		"-o", db, "--since", "2026-11-30T10:00", "--until", "2026-11-30 10:00:45", "--tz", "Europe/Paris")
	if code != 0 || !strings.Contains(out, "tool calls:   3 ") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	loc, _ := time.LoadLocation("Europe/Paris")
	if got, ok := parseTimeIn("2026-11-30", loc); !ok || !got.Equal(time.Date(2026, 11, 29, 23, 0, 0, 0, time.UTC)) {
		t.Errorf("date in Paris = %s", got)
	}
	if got, ok := parseTimeIn("2026-11-30T10:00:00+05:00", loc); !ok || got.Hour() != 5 {
		t.Errorf("explicit offset ignored: %s", got)
	}
}
