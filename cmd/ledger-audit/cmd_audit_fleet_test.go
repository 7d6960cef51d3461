package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/samples"
)

func fleetDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range []string{"week-mixed", "incident-90985", "incident-124072"} {
		if err := samples.Generate(n, filepath.Join(dir, n+".db")); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A directory of ledgers is one fleet audit: per-ledger scores that match
// auditing each ledger alone, a fleet summary, and the same bytes whatever
// --jobs is.
func TestAuditFleetDirectory(t *testing.T) {
	dir := fleetDir(t)
	now := "--now=2026-12-01T08:00:00Z"
	out1, errOut, code := runCLI(t, "", "audit", now, "--format", "json", "--jobs", "1", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	out2, _, _ := runCLI(t, "", "audit", now, "--format", "json", "--jobs", "3", dir)
	if out1 != out2 {
		t.Fatal("fleet output depends on --jobs")
	}
	var res analyze.Result
	if err := json.Unmarshal([]byte(out1), &res); err != nil {
		t.Fatal(err)
	}
	if res.Fleet == nil || res.Fleet.Ledgers != 3 || len(res.Ledgers) != 3 {
		t.Fatalf("fleet summary: %+v", res.Fleet)
	}
	for _, l := range res.Ledgers {
		alone, _, code := runCLI(t, "", "audit", now, "--format", "json", l.Path)
		if code != 0 {
			t.Fatalf("%s alone: exit %d", l.Path, code)
		}
		var one analyze.Result
		json.Unmarshal([]byte(alone), &one)
		if l.Score == nil || *l.Score != one.Score.Score {
			t.Errorf("%s: fleet per-ledger score %v, alone %d", l.Path, l.Score, one.Score.Score)
		}
		if one.Fleet != nil {
			t.Errorf("%s: a single ledger must not carry a fleet summary", l.Path)
		}
	}
	table, _, _ := runCLI(t, "", "audit", now, dir)
	if !strings.Contains(table, "Fleet: 3 ledgers") || !strings.Contains(table, filepath.Join(dir, "week-mixed.db")) {
		t.Fatalf("table lacks the fleet section:\n%s", table)
	}
}

func TestAuditFleetJSONL(t *testing.T) {
	dir := fleetDir(t)
	out := filepath.Join(t.TempDir(), "findings.jsonl")
	if _, errOut, code := runCLI(t, "", "audit", "--now=2026-12-01T08:00:00Z", "-o", out, dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	perLedger := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var row struct {
			Ledger string `json:"ledger"`
			RuleID string `json:"rule_id"`
			Weight int    `json:"weight"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		if row.Ledger == "" || row.RuleID == "" || row.Weight == 0 {
			t.Fatalf("incomplete line %q", sc.Text())
		}
		perLedger[filepath.Base(row.Ledger)]++
	}
	if perLedger["week-mixed.db"] != 6 || perLedger["incident-90985.db"] != 1 || perLedger["incident-124072.db"] != 1 {
		t.Fatalf("findings per ledger: %v", perLedger)
	}
}
