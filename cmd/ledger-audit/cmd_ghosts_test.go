package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"time"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/ledger-audit/ledger-audit/redact"
)

// ghostsCLI runs `ledger-audit ghosts ARGS...` in-process.
func ghostsCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runEnv(&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }},
		append([]string{"ghosts"}, args...))
	return out.String(), errb.String(), code
}

const (
	incidentDB   = "../../samples/incident-90985.db"
	incidentHome = "../../samples/incident-90985-home"
	weekDB       = "../../samples/week-mixed.db"
	ghostsNow    = "2026-12-01T08:00:00Z"
)

func TestGhostsTableShowsIncidentCronjob(t *testing.T) {
	out, errOut, code := ghostsCLI(t, "--now", ghostsNow, "--hermes-home", incidentHome, incidentDB)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		"1 ghost, 0 stale",
		"2026-11-30T20:39:07Z",
		"cronjob",
		"the session went on at 2026-11-30T20:41:30Z",
		"near a context compaction",
		"evidence: job morning-digest not found in cron/jobs.json (2 jobs)",
		"evidence: context compaction at 2026-11-30T20:39:09Z, 2s after the issue",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// Without a clock the sample is still past every grace period.
	if out, _, code := ghostsCLI(t, incidentDB); code != 0 || !strings.Contains(out, "2026-11-30T20:39:07Z") {
		t.Fatalf("default --now: exit %d\n%s", code, out)
	}
}

func TestGhostsJSONIsStable(t *testing.T) {
	out, _, code := ghostsCLI(t, "--now", ghostsNow, "--format", "json", "--all", weekDB)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var res struct {
		SchemaVersion int             `json:"schema_version"`
		Ghosts        []analyze.Ghost `json:"ghosts"`
		Counts        map[string]int  `json:"counts"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.SchemaVersion != 1 || len(res.Ghosts) != 3 || res.Counts["ghost"] != 1 || res.Counts["stale"] != 1 || res.Counts["revived"] != 1 {
		t.Fatalf("%+v", res)
	}
	want := []struct {
		row   int64
		class analyze.GhostClass
	}{{141, analyze.ClassRevived}, {368, analyze.ClassGhost}, {381, analyze.ClassStale}}
	for i, w := range want {
		if res.Ghosts[i].Row != w.row || res.Ghosts[i].Class != w.class {
			t.Errorf("ghost %d: row %d %s, want row %d %s", i, res.Ghosts[i].Row, res.Ghosts[i].Class, w.row, w.class)
		}
	}
	again, _, _ := ghostsCLI(t, "--now", ghostsNow, "--format", "json", "--all", weekDB)
	if again != out {
		t.Error("two runs gave different JSON")
	}
	if !strings.Contains(out, `"issued_at": "2026-11-29T21:52:10Z"`) {
		t.Errorf("timestamps must be RFC 3339 UTC:\n%s", out)
	}

	// Without --all the revived call is counted but not listed.
	out, _, _ = ghostsCLI(t, "--now", ghostsNow, "--format", "json", weekDB)
	json.Unmarshal([]byte(out), &res)
	if len(res.Ghosts) != 2 || res.Counts["revived"] != 1 {
		t.Errorf("without --all: %+v", res)
	}
	table, _, _ := ghostsCLI(t, "--now", ghostsNow, weekDB)
	if !strings.Contains(table, "1 revived call(s) not shown") || strings.Contains(table, "make integration-test") {
		t.Errorf("table without --all:\n%s", table)
	}
}

func TestGhostsFilters(t *testing.T) {
	// --session narrows to one session.
	out, _, code := ghostsCLI(t, "--now", ghostsNow, "--format", "json", "--all", "--session", "20261125_093011_f4a7d0", weekDB)
	if code != 0 || strings.Count(out, `"row":`) != 1 || !strings.Contains(out, `"class": "revived"`) {
		t.Fatalf("--session: exit %d\n%s", code, out)
	}
	// --until before the end of the week hides Sunday's calls.
	out, _, _ = ghostsCLI(t, "--now", ghostsNow, "--format", "json", "--until", "2026-11-29T00:00:00Z", weekDB)
	if strings.Count(out, `"row":`) != 0 {
		t.Fatalf("--until: %s", out)
	}
	// --now right after the write_file: still within its 2 min grace.
	out, _, _ = ghostsCLI(t, "--now", "2026-11-29T21:53:00Z", "--until", "2026-11-29T21:53:00Z", "--format", "json", weekDB)
	if strings.Count(out, `"row":`) != 0 {
		t.Fatalf("within grace: %s", out)
	}
	// --grace lengthens write_file's grace past the session's later activity.
	out, _, _ = ghostsCLI(t, "--now", ghostsNow, "--format", "json", "--grace", "write_file=10m", "--session", "20261129_214003_9a4d2e", weekDB)
	if !strings.Contains(out, `"class": "stale"`) || !strings.Contains(out, `"grace": "10m0s"`) {
		t.Fatalf("--grace write_file=10m: %s", out)
	}
}

func TestGhostsOutputFileAndRedaction(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "l.db")
	w, err := ledger.OpenWriter(db, ledger.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789AB"
	_, err = w.Append(ledger.Event{TS: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), Kind: ledger.KindIssued, Source: "hermes",
		SessionID: "s1", CallID: "c1", ToolName: "terminal", ArgsJSON: `{"command":"git push https://x:` + token + `@github.com/dev/repo.git"}`})
	w.Close()
	if err != nil {
		t.Fatal(err)
	}

	outFile := filepath.Join(dir, "ghosts.json")
	out, _, code := ghostsCLI(t, "--now", ghostsNow, "--format", "json", "-o", outFile, db)
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	b, err := os.ReadFile(outFile)
	if err != nil || !strings.Contains(string(b), `"class": "stale"`) {
		t.Fatalf("-o file: %v\n%s", err, b)
	}
	if strings.Contains(string(b), token) || !strings.Contains(string(b), redact.Mask) {
		t.Errorf("token not redacted:\n%s", b)
	}
	out, _, _ = ghostsCLI(t, "--now", ghostsNow, "--no-redact", db)
	if !strings.Contains(out, token) {
		t.Errorf("--no-redact hides the token:\n%s", out)
	}
}

func TestGhostsBadInput(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.txt")
	os.WriteFile(notDB, []byte("this is not a ledger\n"), 0o600)
	empty := filepath.Join(dir, "empty.db")
	os.WriteFile(empty, nil, 0o600)
	truncated := filepath.Join(dir, "truncated.db")
	full, _ := os.ReadFile(incidentDB)
	os.WriteFile(truncated, full[:len(full)/3], 0o600)

	for _, p := range []string{notDB, empty, truncated, filepath.Join(dir, "missing.db")} {
		before := fileHash(t, p)
		outFile := filepath.Join(dir, "out.json")
		out, errOut, code := ghostsCLI(t, "--now", ghostsNow, "-o", outFile, incidentDB, p)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2", p, code)
		}
		if !strings.HasPrefix(errOut, "ledger-audit: "+p+": ") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: stderr %q, want one line naming the file", p, errOut)
		}
		if out != "" {
			t.Errorf("%s: stdout %q", p, out)
		}
		if _, err := os.Stat(outFile); err == nil {
			t.Errorf("%s: a partial output file was left behind", p)
		}
		if after := fileHash(t, p); after != before {
			t.Errorf("%s: the file changed", p)
		}
	}

	for _, args := range [][]string{
		{},
		{"--grace", "terminal", incidentDB},
		{"--grace", "terminal=soon", incidentDB},
		{"--format", "xml", incidentDB},
		{"--now", "yesterday", incidentDB},
		{"--bogus", incidentDB},
	} {
		if _, errOut, code := ghostsCLI(t, args...); code != 2 || !strings.Contains(errOut, "usage: ledger-audit ghosts") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

func TestGhostsLeavesSampleUntouched(t *testing.T) {
	before := fileHash(t, incidentDB)
	if _, _, code := ghostsCLI(t, "--now", ghostsNow, incidentDB); code != 0 {
		t.Fatal(code)
	}
	if fileHash(t, incidentDB) != before {
		t.Fatal("ghosts changed the ledger")
	}
	for _, side := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(incidentDB + side); err == nil {
			t.Errorf("reading left %s%s behind", incidentDB, side)
		}
	}
}

func fileHash(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return "absent"
	}
	sum := sha256.Sum256(b)
	return string(sum[:])
}

var updateGhosts = flag.Bool("update-ghosts", false, "rewrite testdata/ghosts golden files")

// TestGhostsGolden pins the rendered table and JSON on the bundled
// samples; run with -update-ghosts after an intended change.
func TestGhostsGolden(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"incident-90985.txt", []string{"--now", ghostsNow, "--hermes-home", incidentHome, incidentDB}},
		{"week-mixed-all.txt", []string{"--now", ghostsNow, "--all", weekDB}},
		{"week-mixed-all.json", []string{"--now", ghostsNow, "--all", "--format", "json", weekDB}},
	} {
		out, errOut, code := ghostsCLI(t, tc.args...)
		if code != 0 || errOut != "" {
			t.Fatalf("%s: exit %d, stderr %q", tc.golden, code, errOut)
		}
		path := filepath.Join("testdata", "ghosts", tc.golden)
		if *updateGhosts {
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./cmd/ledger-audit -run TestGhostsGolden -update-ghosts)", err)
		}
		if out != string(want) {
			t.Errorf("%s differs from the golden file (run with -update-ghosts if intended):\n%s", tc.golden, out)
		}
	}
}
