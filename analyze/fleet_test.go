package analyze_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/samples"
)

// fleetDir holds a small fleet: the bundled samples plus synthetic ledgers.
func fleetDir(t *testing.T) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for _, n := range samples.Names() {
		p := filepath.Join(dir, n+".db")
		if err := samples.Generate(n, p); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	for i, calls := range []int{150, 250} {
		p := filepath.Join(dir, "synth-"+string(rune('a'+i))+".db")
		if err := samples.Synth(p, samples.SynthOptions{Calls: calls, Sessions: 3, Seed: int64(i + 1)}); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return dir, paths
}

func resultJSON(t *testing.T, r *analyze.Result) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A fleet audit is the sequential audit, only faster: byte-identical
// output whatever the pool size.
func TestAuditFleetMatchesAudit(t *testing.T) {
	_, paths := fleetDir(t)
	o := analyze.AuditOptions{Now: auditNow}
	want := resultJSON(t, audit(t, o, paths...))
	for _, jobs := range []int{1, 4} {
		res, err := analyze.AuditFleet(paths, o, analyze.FleetOptions{Jobs: jobs})
		if err != nil {
			t.Fatal(err)
		}
		if got := resultJSON(t, res); got != want {
			t.Fatalf("jobs=%d: fleet result differs from the sequential audit", jobs)
		}
		if len(res.Ledgers) != len(paths) {
			t.Fatalf("%d ledger summaries for %d ledgers", len(res.Ledgers), len(paths))
		}
		for _, l := range res.Ledgers {
			if l.Score == nil || l.Penalty == nil {
				t.Fatalf("%s has no per-ledger score", l.Path)
			}
		}
	}
}

func TestAuditFleetBadLedger(t *testing.T) {
	dir, paths := fleetDir(t)
	bad := filepath.Join(dir, "0-broken.db") // sorts first
	os.WriteFile(bad, []byte("not sqlite at all, just text"), 0o600)
	all := append([]string{bad}, paths...)
	_, err := analyze.AuditFleet(all, analyze.AuditOptions{Now: auditNow}, analyze.FleetOptions{Jobs: 3})
	if err == nil || !strings.HasPrefix(err.Error(), bad+": not a SQLite database") {
		t.Fatalf("error %v, want the broken ledger named", err)
	}
	res, err := analyze.AuditFleet(all, analyze.AuditOptions{Now: auditNow}, analyze.FleetOptions{Jobs: 3, KeepGoing: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Ledgers) != len(paths) || len(res.Warnings) == 0 || res.Warnings[0] != bad+": not a SQLite database (skipped)" {
		t.Fatalf("%d ledgers, warnings %q", len(res.Ledgers), res.Warnings)
	}
	if s := analyze.SummarizeFleet(res); s.Skipped != 1 {
		t.Fatalf("summary skipped %d", s.Skipped)
	}
	if _, err := analyze.AuditFleet([]string{bad}, analyze.AuditOptions{Now: auditNow}, analyze.FleetOptions{KeepGoing: true}); err == nil {
		t.Fatal("a fleet with nothing readable passed")
	}
}

func TestExpandLedgers(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.db", "a.db", "notes.txt", "a.db-wal", "odd[1].db"} {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o600)
	}
	os.Mkdir(filepath.Join(dir, "sub.db"), 0o700) // a directory named like a ledger
	got, err := analyze.ExpandLedgers([]string{dir, filepath.Join(dir, "a.db"), filepath.Join(dir, "*.txt"), filepath.Join(dir, "odd[1].db")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.db", "b.db", "notes.txt", "odd[1].db"}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if got[i] != filepath.Join(dir, want[i]) {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	empty := t.TempDir()
	for _, args := range [][]string{{empty}, {filepath.Join(dir, "*.sqlite")}} {
		if _, err := analyze.ExpandLedgers(args); err == nil {
			t.Errorf("%q expanded to nothing without an error", args)
		}
	}
	// A plain path is passed through, even when missing: Open reports it.
	if got, err := analyze.ExpandLedgers([]string{"missing.db"}); err != nil || len(got) != 1 {
		t.Fatalf("%q %v", got, err)
	}
}

// One fleet result feeds both the summary and the JSON Lines checks.
func TestSummarizeFleetAndJSONL(t *testing.T) {
	_, paths := fleetDir(t)
	res, err := analyze.AuditFleet(paths, analyze.AuditOptions{Now: auditNow}, analyze.FleetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkSummary(t, res, paths)
	checkJSONL(t, res)
}

func checkSummary(t *testing.T, res *analyze.Result, paths []string) {
	t.Helper()
	s := analyze.SummarizeFleet(res)
	if s.Ledgers != len(paths) || len(s.Worst) != len(paths) {
		t.Fatalf("%+v", s)
	}
	banded, calls, findings := 0, 0, 0
	for _, b := range s.Bands {
		banded += b.Ledgers
	}
	for _, l := range res.Ledgers {
		calls += l.Calls
		findings += l.Findings
	}
	if banded != len(paths) || s.Calls != calls || s.Findings != findings || s.Findings != len(res.Findings) {
		t.Fatalf("summary %+v does not add up (calls %d, findings %d)", s, calls, findings)
	}
	if *s.Worst[0].Score != s.ScoreMin || s.ScoreMedian < s.ScoreMin || float64(s.ScoreMin) > s.ScoreMean {
		t.Fatalf("%+v", s)
	}
	for i := 1; i < len(s.Worst); i++ {
		if *s.Worst[i].Score < *s.Worst[i-1].Score {
			t.Fatalf("worst list not sorted: %+v", s.Worst)
		}
	}
}

func checkJSONL(t *testing.T, res *analyze.Result) {
	t.Helper()
	if len(res.Findings) == 0 {
		t.Fatal("the fleet has no findings to export")
	}
	var buf bytes.Buffer
	if err := analyze.WriteJSONL(&buf, res); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<20)
	var keys string
	n := 0
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %d is not JSON: %v", n+1, err)
		}
		names := make([]string, 0, len(m))
		for k := range m {
			names = append(names, k)
		}
		sort.Strings(names)
		if n == 0 {
			keys = strings.Join(names, ",")
		} else if strings.Join(names, ",") != keys {
			t.Fatalf("line %d has columns %v, line 1 had %s", n+1, names, keys)
		}
		f := res.Findings[n]
		if m["ledger"] != f.Evidence[0].Ledger || m["rule_id"] != f.RuleID || m["fingerprint"] != f.Fingerprint {
			t.Fatalf("line %d: %v does not match finding %+v", n+1, m, f)
		}
		if m["ledger_score"] == nil {
			t.Fatalf("line %d lacks the ledger's score", n+1)
		}
		n++
	}
	if n != len(res.Findings) {
		t.Fatalf("%d lines for %d findings", n, len(res.Findings))
	}
}
