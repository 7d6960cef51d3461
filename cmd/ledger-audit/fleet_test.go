package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/samples"
	"github.com/spf13/pflag"
)

func TestFleetFlagsAuditADirectory(t *testing.T) {
	dir := t.TempDir()
	for i, calls := range []int{60, 90, 120} {
		p := filepath.Join(dir, string(rune('a'+i))+".db")
		if err := samples.Synth(p, samples.SynthOptions{Calls: calls, Sessions: 2, Seed: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "broken.db"), []byte("junk"), 0o600)
	var f fleetFlags
	fs := pflag.NewFlagSet("audit", pflag.ContinueOnError)
	f.add(fs)
	if err := fs.Parse([]string{"--jobs", "2", "--keep-going"}); err != nil {
		t.Fatal(err)
	}
	o := analyze.AuditOptions{Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	res, err := f.audit([]string{dir}, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Ledgers) != 3 || res.Summary.Calls != 270 || len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "broken.db: not a SQLite database (skipped)") {
		t.Fatalf("%d ledgers, %d calls, warnings %q", len(res.Ledgers), res.Summary.Calls, res.Warnings)
	}
	// Without --keep-going the broken ledger is the error (exit 2).
	f.keepGoing = false
	if _, err := f.audit([]string{filepath.Join(dir, "*.db")}, o); err == nil || exitCode(err) != exitInput {
		t.Fatalf("broken ledger: %v", err)
	}
	f.jobs = -1
	if _, err := f.audit([]string{dir}, o); err == nil || !strings.Contains(err.Error(), "--jobs") {
		t.Fatalf("--jobs -1: %v", err)
	}
}

func TestFleetJSONLOutput(t *testing.T) {
	if !isJSONL("jsonl", "") || !isJSONL("", "out.JSONL") || isJSONL("json", "x.jsonl") || isJSONL("", "x.json") {
		t.Fatal("isJSONL")
	}
	path := filepath.Join(t.TempDir(), "a.db")
	if err := samples.Synth(path, samples.SynthOptions{Calls: 3000, Sessions: 4, Seed: 2}); err != nil {
		t.Fatal(err)
	}
	var f fleetFlags
	res, err := f.audit([]string{path}, analyze.AuditOptions{Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := writeJSONL(&env{stdout: &out}, "", res); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(res.Findings) == 0 || len(lines) != len(res.Findings) {
		t.Fatalf("%d lines for %d findings", len(lines), len(res.Findings))
	}
	var row analyze.FindingRow
	if err := json.Unmarshal([]byte(lines[0]), &row); err != nil || row.Ledger != path || row.RuleID == "" {
		t.Fatalf("%v %+v", err, row)
	}
}
