package analyze_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/ledger-audit/ledger-audit/samples"
)

// replay runs a tracker over ledgers with the given config.
func replay(t testing.TB, cfg analyze.LoopConfig, paths ...string) *analyze.LoopTracker {
	t.Helper()
	tr := analyze.NewLoopTracker(cfg)
	for _, p := range paths {
		r, err := ledger.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		tr.BeginLedger(p)
		if err := r.Scan(ledger.Filter{}, func(rec ledger.Record) error { tr.Observe(rec); return nil }); err != nil {
			t.Fatal(err)
		}
		r.Close()
	}
	return tr
}

var incidentDB = filepath.Join("..", "samples", "incident-124072.db")

// The committed sample holds the article's figures: checked here with
// plain SQL, independently of the tracker.
func TestIncident124072SampleFigures(t *testing.T) {
	db, err := sql.Open("sqlite3", "file:"+incidentDB+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n, in, cache, out, lat, aux int64
	main := `kind='llm_call' AND json_extract(args_json,'$.model')='openrouter/main-model'`
	win := ` AND ts >= '2026-11-24T22:31:05.000Z' AND ts <= '2026-11-24T23:20:12.000Z'`
	if err := db.QueryRow(`SELECT count(*), sum(tokens_in), sum(tokens_cache_read), sum(tokens_out), sum(duration_ms) FROM events WHERE `+main+win).Scan(&n, &in, &cache, &out, &lat); err != nil {
		t.Fatal(err)
	}
	if n != 190 || in != 31_365_131 || cache != 31_272_448 || out != 25_896 || lat != 1_869_800 {
		t.Fatalf("loop window: %d calls, %d in, %d cache, %d out, %d ms", n, in, cache, out, lat)
	}
	if err := db.QueryRow(`SELECT count(*) FROM events WHERE kind='llm_call' AND json_extract(args_json,'$.role')='approval'` + win).Scan(&aux); err != nil || aux != 193 {
		t.Fatalf("approval calls in window = %d (%v)", aux, err)
	}
	if err := db.QueryRow(`SELECT count(*), sum(tokens_cache_read), sum(tokens_out), min(ts), max(ts) FROM events WHERE `+main).Scan(&n, &cache, &out, new(string), new(string)); err != nil {
		t.Fatal(err)
	}
	if n != 267 || cache != 40_377_600 || out != 73_059 {
		t.Fatalf("session: %d calls, %d cache, %d out", n, cache, out)
	}
	var distinctArgs, distinctDigest, distinctHash int
	if err := db.QueryRow(`SELECT count(DISTINCT i.args_json), count(DISTINCT o.result_digest), count(DISTINCT o.result_hash)
		FROM events i JOIN events o ON o.issued_id=i.id WHERE i.tool_name='execute_code'`+
		` AND i.ts >= '2026-11-24T22:31:05.000Z' AND i.ts <= '2026-11-24T23:20:12.000Z'`).Scan(&distinctArgs, &distinctDigest, &distinctHash); err != nil {
		t.Fatal(err)
	}
	// byte-identical args, 190 different raw results, one fixed hash
	if distinctArgs != 1 || distinctDigest != 190 || distinctHash != 1 {
		t.Fatalf("probe calls: %d args, %d digests, %d hashes", distinctArgs, distinctDigest, distinctHash)
	}
}

func TestIncident124072Loop(t *testing.T) {
	tr := replay(t, analyze.DefaultLoopConfig(), incidentDB)
	rep := tr.Report()
	if len(rep.Loops) != 1 {
		t.Fatalf("want the one loop, got %s", dump(rep.Loops))
	}
	l := rep.Loops[0]
	w := l.Waste
	if l.Kind != analyze.LoopIdentical || l.Tool != "execute_code" || l.Calls != samples.Incident124072LoopCalls ||
		!l.Start.Equal(samples.Incident124072WindowStart) || !l.End.Equal(samples.Incident124072WindowEnd) {
		t.Fatalf("loop = %s", dump(l))
	}
	if w.LLMCalls != 190 || w.TokensIn != 31_365_131 || w.TokensCacheRead != 31_272_448 || w.TokensOut != 25_896 ||
		w.LatencySeconds != 1869.8 || w.AuxLLMCalls != 193 || w.WallSeconds != 2947 {
		t.Fatalf("waste = %s", dump(w))
	}
	if w.ShareOfCalls != 0.7116 { // 190 of 267: the article's 71 %
		t.Errorf("share of calls = %v", w.ShareOfCalls)
	}
	// With the fix: the notice on the 3rd identical call; the interactive
	// CLI session does not hard-stop by default, but would at call 5.
	if l.WarnAt != 3 || l.WarnCode != "identical_call_streak" || l.HardStopAt != 5 || l.HardStopEnabled || l.Platform != "cli" {
		t.Fatalf("guardrail points = %s", dump(l))
	}
	// Without the fix: silent from start to end.
	if l.UnfixedWarnAt != 0 || l.UnfixedHardStopAt != 0 || l.UnfixedUnknown != 0 {
		t.Fatalf("unfixed = %s", dump(l))
	}
	s := l.SavedIfStopped
	if s.Calls != 185 || s.LLMCalls != 185 || s.TokensIn >= w.TokensIn || s.TokensIn <= 30_000_000 {
		t.Fatalf("saved = %s", dump(s))
	}
	fs := tr.Findings()
	if len(fs) != 1 || fs[0].RuleID != "ASI02-LOOP-AMPLIFICATION" || fs[0].Evidence[1].Row == fs[0].Evidence[0].Row {
		t.Fatalf("findings = %s", dump(fs))
	}
}

// Hard stops on (a gateway session or hard_stop_enabled): the stop point
// follows hard_stop_after.idempotent_no_progress.
func TestIncident124072HardStopConfig(t *testing.T) {
	cfg := analyze.DefaultLoopConfig()
	cfg.HardStopEnabled = true
	cfg.HardStopAfter[analyze.LoopIdempotentNoProgress] = 10
	l := replay(t, cfg, incidentDB).Report().Loops[0]
	if !l.HardStopEnabled || l.HardStopAt != 10 || l.SavedIfStopped.Calls != 180 || l.WarnAt != 3 {
		t.Fatalf("loop = %s", dump(l))
	}
}
