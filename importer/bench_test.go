package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeBigTranscript writes a Claude Code transcript with n Bash calls and
// their results, the shape of a long real session.
func writeBigTranscript(tb testing.TB, dir string, n int) string {
	tb.Helper()
	var b strings.Builder
	for i := 0; i < n; i++ {
		ts := fmt.Sprintf("2026-11-30T%02d:%02d:%02d.%03dZ", 8+i/3600%12, i/60%60, i%60, i%1000)
		fmt.Fprintf(&b, `{"type":"assistant","sessionId":"big","timestamp":%q,"uuid":"a%d","message":{"id":"msg_%d","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"grep -rn TODO src/module%d | wc -l","description":"count"}}],"usage":{"input_tokens":5,"output_tokens":40,"cache_read_input_tokens":20000}}}`+"\n", ts, i, i, i, i)
		fmt.Fprintf(&b, `{"type":"user","sessionId":"big","timestamp":%q,"uuid":"u%d","message":{"role":"user","content":[{"tool_use_id":"toolu_%d","type":"tool_result","content":"%d\nsrc/module%d/a.go:12: TODO remove"}]}}`+"\n", ts, i, i, i%17, i)
	}
	path := filepath.Join(dir, "big.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// BenchmarkImportClaude10k imports a 10,000-call transcript into a fresh
// ledger (30,000 events: issued, outcome, llm_call).
func BenchmarkImportClaude10k(b *testing.B) {
	dir := b.TempDir()
	src := writeBigTranscript(b, dir, 10000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		db := filepath.Join(dir, fmt.Sprintf("l%d.db", i))
		sum, err := Import(FromClaudeCode, []string{src}, db, Options{})
		if err != nil || sum.Written != 30001 {
			b.Fatalf("%v, wrote %d", err, sum.Written)
		}
	}
}

// BenchmarkReimportClaude10k is the idempotent path: everything is there.
func BenchmarkReimportClaude10k(b *testing.B) {
	dir := b.TempDir()
	src := writeBigTranscript(b, dir, 10000)
	db := filepath.Join(dir, "l.db")
	if _, err := Import(FromClaudeCode, []string{src}, db, Options{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sum, err := Import(FromClaudeCode, []string{src}, db, Options{})
		if err != nil || sum.Written != 0 {
			b.Fatalf("%v, wrote %d", err, sum.Written)
		}
	}
}
