package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ledger-audit/ledger-audit/analyze"
)

const compactionTranscript = "../../importer/testdata/claude/projects/-home-dev-shop/a41d9e07-2f6b-4b8e-8c3d-7d0b5e2f9a64.jsonl"

// A Claude Code transcript audited directly: the tool_use that never got a
// tool_result, next to a compaction, is reported as a ghost near it.
func TestAuditFromClaudeCodeTranscript(t *testing.T) {
	out, errOut, code := runCLI(t, "", "audit", "--from", "claude-code", "--now", "2026-11-30T12:00:00Z", "--format", "json", compactionTranscript)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res analyze.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Ghosts) != 1 {
		t.Fatalf("ghosts: %+v", res.Ghosts)
	}
	g := res.Ghosts[0]
	if g.Class != analyze.ClassGhost || !g.NearCompaction || !strings.Contains(g.Args, "db:migrate") {
		t.Fatalf("ghost: %+v", g)
	}
	if !strings.HasPrefix(g.Ledger, "import:claude-code:") || strings.Contains(out, "ledger-audit-import") {
		t.Fatalf("temporary ledger path leaked into the result: %q", g.Ledger)
	}
	found := false
	for _, f := range res.Findings {
		if f.Category == "ASI08" && strings.Contains(f.Message, "compaction") {
			found = true
		}
	}
	if !found {
		t.Fatalf("no ASI08 ghost finding naming the compaction: %+v", res.Findings)
	}
}

func TestAuditFromBadInput(t *testing.T) {
	if _, errOut, code := runCLI(t, "", "audit", "--from", "gemini", "x.jsonl"); code != 2 || !strings.Contains(errOut, "unknown transcript format") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, errOut, code := runCLI(t, "", "audit", "--all-tools", "../../samples/week-mixed.db"); code != 2 || !strings.Contains(errOut, "--from only") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, errOut, code := runCLI(t, "", "audit", "--from", "claude-code", "/nonexistent/t.jsonl"); code != 2 || !strings.Contains(errOut, "/nonexistent/t.jsonl") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}
