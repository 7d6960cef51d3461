package samples

import (
	"bytes"
	"database/sql"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/ledger-audit/ledger-audit/ledger"
	_ "github.com/mattn/go-sqlite3"
)

var update = flag.Bool("update", false, "rewrite the committed samples/*.db files and companion home dirs from their generators")

const regenerateHint = "run `go test ./samples -run TestSamples -update` and commit the result"

// homeDir is where a sample's companion files are committed.
func homeDir(name string) string { return name + "-home" }

// TestSamples regenerates every registered sample and compares it with the
// committed file row for row (every column of events, hashes included),
// and its companion home directory file by file. The committed files can
// therefore never drift from their generators.
func TestSamples(t *testing.T) {
	if len(Names()) == 0 {
		t.Fatal("no samples registered")
	}
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			s, _ := Get(name)
			tmp := t.TempDir()
			gen := filepath.Join(tmp, name+".db")
			if err := Generate(name, gen); err != nil {
				t.Fatalf("generate: %v", err)
			}
			// Committed samples use a rollback journal: a read-only open of
			// a WAL database leaves -wal/-shm files next to it, which
			// would litter the checkout on every analysis run.
			if err := rollbackJournal(gen); err != nil {
				t.Fatal(err)
			}
			var genHome string
			if s.Home != nil {
				genHome = filepath.Join(tmp, "home")
				if err := s.Home(genHome); err != nil {
					t.Fatalf("home: %v", err)
				}
			}
			if *update {
				if err := replaceFile(gen, name+".db"); err != nil {
					t.Fatal(err)
				}
				if s.Home != nil {
					if err := replaceDir(genHome, homeDir(name)); err != nil {
						t.Fatal(err)
					}
				}
			}
			compareLedgers(t, name+".db", gen)
			if s.Home != nil {
				compareDirs(t, homeDir(name), genHome)
			}
		})
	}
}

func rollbackJournal(path string) error {
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec("PRAGMA journal_mode=DELETE")
	return err
}

func replaceFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	os.Remove(dst + "-wal")
	os.Remove(dst + "-shm")
	return os.Rename(tmp, dst)
}

func replaceDir(src, dst string) error {
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}

// tableRows reads every row of a table, all columns, in id order.
func tableRows(t *testing.T, path, query string) ([]string, [][]any) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatalf("%s: %v (%s)", path, err, regenerateHint)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				vals[i] = string(b)
			}
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return cols, out
}

func compareLedgers(t *testing.T, committed, generated string) {
	t.Helper()
	if _, err := os.Stat(committed); err != nil {
		t.Fatalf("samples/%s is missing: %s", committed, regenerateHint)
	}
	for _, q := range []string{
		"SELECT * FROM events ORDER BY id",
		"SELECT key, value FROM meta WHERE key <> 'created' ORDER BY key", // created is the generation time
		"PRAGMA user_version",
	} {
		ccols, crows := tableRows(t, committed, q)
		gcols, grows := tableRows(t, generated, q)
		if !reflect.DeepEqual(ccols, gcols) {
			t.Fatalf("samples/%s: columns differ for %q: committed %v, generated %v; %s", committed, q, ccols, gcols, regenerateHint)
		}
		for i := 0; i < len(crows) && i < len(grows); i++ {
			for j := range ccols {
				if !reflect.DeepEqual(crows[i][j], grows[i][j]) {
					t.Fatalf("samples/%s differs from its generator at row %d (%s), column %s: committed %v, generated %v; %s",
						committed, i+1, q, ccols[j], crows[i][j], grows[i][j], regenerateHint)
				}
			}
		}
		if len(crows) != len(grows) {
			t.Fatalf("samples/%s: %d rows committed, %d generated for %q; %s", committed, len(crows), len(grows), q, regenerateHint)
		}
	}
}

func compareDirs(t *testing.T, committed, generated string) {
	t.Helper()
	list := func(root string) map[string][]byte {
		files := map[string][]byte{}
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			b, _ := os.ReadFile(p)
			files[filepath.ToSlash(rel)] = b
			return nil
		})
		return files
	}
	c, g := list(committed), list(generated)
	if len(c) == 0 {
		t.Fatalf("samples/%s is missing or empty: %s", committed, regenerateHint)
	}
	names := map[string]bool{}
	for n := range c {
		names[n] = true
	}
	for n := range g {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		cb, inC := c[n]
		gb, inG := g[n]
		switch {
		case !inC:
			t.Errorf("samples/%s/%s: generated but not committed; %s", committed, n, regenerateHint)
		case !inG:
			t.Errorf("samples/%s/%s: committed but no longer generated; %s", committed, n, regenerateHint)
		case !bytes.Equal(cb, gb):
			t.Errorf("samples/%s/%s differs from its generator; %s", committed, n, regenerateHint)
		}
	}
}

// TestGenerateIsDeterministic builds each sample twice and compares the
// two results row for row, independently of the committed files.
func TestGenerateIsDeterministic(t *testing.T) {
	for _, name := range Names() {
		dir := t.TempDir()
		a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
		if err := Generate(name, a); err != nil {
			t.Fatal(err)
		}
		if err := Generate(name, b); err != nil {
			t.Fatal(err)
		}
		compareLedgers(t, a, b)
	}
}

// scanCalls reads the calls of a committed sample through the analysis
// reader, the way every command sees them.
func scanCalls(t *testing.T, path string) []*ledger.Call {
	t.Helper()
	r, err := ledger.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var calls []*ledger.Call
	if err := r.Scan(ledger.Filter{}, func(rec ledger.Record) error {
		if rec.Call != nil {
			calls = append(calls, rec.Call)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return calls
}

func TestIncident90985Shape(t *testing.T) {
	calls := scanCalls(t, "incident-90985.db")
	var cron *ledger.Call
	later := 0
	for _, c := range calls {
		if c.Tool == "cronjob" {
			cron = c
		}
	}
	if cron == nil {
		t.Fatal("no cronjob call")
	}
	if got := ledger.FormatTime(cron.TS); got != "2026-11-30T20:39:07.000Z" {
		t.Errorf("cronjob issued at %s, want 2026-11-30T20:39:07.000Z", got)
	}
	if !cron.Open() || cron.GhostReportedAt.IsZero() {
		t.Errorf("cronjob should be pending and ghost-reported, got status %s reported %v", cron.Status, cron.GhostReportedAt)
	}
	if !strings.Contains(cron.Args, `"action":"create"`) || !strings.Contains(cron.Args, `"name":"morning-digest"`) {
		t.Errorf("cronjob args %s", cron.Args)
	}
	for _, c := range calls {
		if c.TS.After(cron.TS.Add(ledger.DefaultGrace)) {
			later++
			if c.Status != ledger.StatusConfirmed {
				t.Errorf("later call %d is %s", c.ID, c.Status)
			}
		}
	}
	if later < 2 {
		t.Errorf("the session must go on after the cronjob's grace: %d later calls", later)
	}
	b, err := os.ReadFile(filepath.Join(homeDir(Incident90985), "cron", "jobs.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "morning-digest") || !strings.Contains(string(b), `"jobs"`) {
		t.Error("jobs.json must hold other jobs and not morning-digest")
	}
}

// TestWeekMixedRiskyRows keeps README.md and WeekMixedRisky honest: each
// documented row holds its command, each command occurs exactly once, and
// README.md lists every row id.
func TestWeekMixedRiskyRows(t *testing.T) {
	calls := scanCalls(t, "week-mixed.db")
	if n := len(calls); n < 150 || n > 300 {
		t.Errorf("week-mixed has %d calls, want 150-300", n)
	}
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := []byte(strings.ReplaceAll(string(raw), `\|`, "|")) // Markdown tables escape pipes
	seen := map[string]int{}
	byID := map[int64]*ledger.Call{}
	for _, c := range calls {
		byID[c.ID] = c
		for _, cmd := range WeekMixedRisky {
			if strings.Contains(c.Args, argText(cmd)) {
				seen[cmd]++
			}
		}
	}
	for id, cmd := range WeekMixedRisky {
		c := byID[id]
		if c == nil || !strings.Contains(c.Args, argText(cmd)) {
			t.Errorf("row %d should hold %q", id, cmd)
		}
		if seen[cmd] != 1 {
			t.Errorf("%q occurs %d times, want exactly once", cmd, seen[cmd])
		}
		if !regexp.MustCompile(fmt.Sprintf(`\b%d\b`, id)).Match(readme) || !strings.Contains(string(readme), cmd) {
			t.Errorf("README.md does not document row %d (%s)", id, cmd)
		}
	}
	// README.md also names the rows the strict pack flags besides these.
	for id, cmd := range map[int64]string{80: "npm install", 82: "npm install", 205: "npm install i18next react-i18next"} {
		if c := byID[id]; c == nil || !strings.Contains(c.Args, `"command":`+argText(cmd)) {
			t.Errorf("README.md says row %d is %q", id, cmd)
		}
	}
	var revived, pending, errs int
	for _, c := range calls {
		switch {
		case !c.Open() && !c.GhostReportedAt.IsZero():
			revived++
		case c.Open():
			pending++
		case c.Status == ledger.StatusError:
			errs++
		}
	}
	if revived != 1 || pending != 2 || errs < 5 {
		t.Errorf("revived %d (want 1), pending %d (want 2), errors %d (want several)", revived, pending, errs)
	}
}

// argText is how a command appears inside args_json.
func argText(s string) string { return tapeJSON(s) }
