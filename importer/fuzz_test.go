package importer

import (
	"bytes"
	"testing"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// The seed corpora (testdata/fuzz/Fuzz*Line) are lines of the fixtures
// and their near misses; they run with every go test.

func FuzzClaudeLine(f *testing.F) {
	f.Add([]byte(`{"type":"assistant","message":{"id":"m","usage":{"input_tokens":1},"content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls"}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := newClaudeReader()
		p.line(data)
		st, err := readLines(bytes.NewReader(data), newClaudeReader())
		if err != nil {
			t.Fatal(err)
		}
		if st.Recognised+st.Skipped != st.Lines {
			t.Fatalf("lines %d != recognised %d + skipped %d", st.Lines, st.Recognised, st.Skipped)
		}
		p.finish()
		checkEvents(t, p.result())
	})
}

func FuzzCodexLine(f *testing.F) {
	f.Add([]byte(`{"timestamp":"2026-11-30T14:00:07.010Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := newCodexReader()
		p.line(data)
		st, err := readLines(bytes.NewReader(data), newCodexReader())
		if err != nil {
			t.Fatal(err)
		}
		if st.Recognised+st.Skipped != st.Lines {
			t.Fatalf("lines %d != recognised %d + skipped %d", st.Lines, st.Recognised, st.Skipped)
		}
		p.finish()
		checkEvents(t, p.result())
	})
}

// checkEvents holds what the writer relies on, whatever the input.
func checkEvents(t *testing.T, events []ledger.Event) {
	t.Helper()
	for _, e := range events {
		if (e.Kind == ledger.KindIssued || e.Kind.IsOutcome()) && e.CallID == "" {
			t.Fatalf("%s event without a call id: %+v", e.Kind, e)
		}
		if len([]rune(e.ResultDigest)) > ledger.MaxDigestChars {
			t.Fatalf("digest of %d characters", len([]rune(e.ResultDigest)))
		}
	}
}
