package importer

import (
	"strings"
	"testing"
	"time"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/ledger"
)

// The point of importing: the lost migration in the compaction fixture is
// found by the same ghost detection that runs on captured ledgers, and is
// marked as lost next to a compaction.
func TestCompactionFixtureGhostNearCompaction(t *testing.T) {
	path, cleanup, err := ImportToTemp(FromClaudeCode, []string{compactionFile}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	r, err := ledger.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	g := analyze.NewGhostTracker(analyze.GhostOptions{Now: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)})
	g.BeginLedger(path)
	if err := r.Scan(ledger.Filter{}, func(rec ledger.Record) error { g.Observe(rec); return nil }); err != nil {
		t.Fatal(err)
	}
	ghosts := g.Ghosts()
	if len(ghosts) != 1 {
		t.Fatalf("ghosts = %d, want 1: %+v", len(ghosts), ghosts)
	}
	gh := ghosts[0]
	if gh.Tool != "Bash" || !strings.Contains(gh.Args, "db:migrate") || gh.Class != analyze.ClassGhost || !gh.NearCompaction {
		t.Errorf("ghost = %s %q class %s near compaction %v; want the migration, class ghost, near a compaction", gh.Tool, gh.Args, gh.Class, gh.NearCompaction)
	}
}
