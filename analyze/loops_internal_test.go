package analyze

import (
	"fmt"
	"testing"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
)

func TestSkeletonIgnoresWhatDoesNotMatter(t *testing.T) {
	same := [][]string{
		{`print("still waiting")`, `print( 'waiting, attempt 7' )   # poll`, "# comment only line\nprint(\"x\")\n\n"},
		{"import time\ntime.sleep(5)\nprint('zz')", "import time; time.sleep(30.5); print(\"other\")"},
		{"msg = \"a\"\nprint(msg)", "note='b'; print(note)", "x_1 = 'c'\nprint( x_1 )"},
		{`print(f"done {n}")`, `print(rb'raw')`},
		{"sleep 10 && echo 'waiting'", "sleep 300 &&   echo 'still waiting'   # again"},
	}
	for _, group := range same {
		want, _ := skeleton(group[0])
		for _, code := range group[1:] {
			if got, _ := skeleton(code); got != want {
				t.Errorf("skeleton(%q) = %q, want %q (as for %q)", code, got, want, group[0])
			}
		}
	}
	differ := [][2]string{
		{`print("a")`, `print(compute())`},
		{"import time", "importtime"},
		{"x = 1\nprint(x)", "x = 1\nprint(y)"},
		{`print(len(rows))`, `print(len(cols))`}, // only assigned names are renamed
	}
	for _, d := range differ {
		a, _ := skeleton(d[0])
		b, _ := skeleton(d[1])
		if a == b {
			t.Errorf("skeleton(%q) == skeleton(%q) = %q", d[0], d[1], a)
		}
	}
	_, lits := skeleton(`print("waiting for subagents", 'x')`)
	if len(lits) != 2 || lits[0] != "waiting for subagents" || lits[1] != "x" {
		t.Errorf("literals = %q", lits)
	}
}

func TestNoOpCandidate(t *testing.T) {
	for code, want := range map[string]bool{
		`print("waiting")`:                    true,
		`print(open('status.txt').read())`:    true,
		`open('f.txt', 'w').write('x')`:       false,
		`with open("log", "a") as f: pass`:    false,
		"import os\nos.remove('x')":           false,
		"import subprocess; subprocess.run()": false,
		`requests.post(url, json=data)`:       false,
	} {
		if got := noOpCandidate("execute_code", code); got != want {
			t.Errorf("execute_code %q: %v, want %v", code, got, want)
		}
	}
	for cmd, want := range map[string]bool{
		"sleep 30; echo waiting": true,
		"ps aux | grep worker":   true,
		"echo hi > f":            false,
		"rm -rf build":           false,
		"echo $(date)":           false,
		"sleep 5 && make":        false,
	} {
		if got := noOpCandidate("terminal", cmd); got != want {
			t.Errorf("terminal %q: %v, want %v", cmd, got, want)
		}
	}
}

// A turn with more distinct failing signatures than the tables hold keeps
// memory bounded and says so.
func TestPerTurnTablesAreBounded(t *testing.T) {
	tr := NewLoopTracker()
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	n := maxTurnKeys + 500
	for i := 0; i < n; i++ {
		tr.Observe(ledger.Record{Call: &ledger.Call{ID: int64(i + 1), Ledger: "l.db", TS: t0.Add(time.Duration(i) * time.Second),
			SessionID: "s", TurnID: "t", Tool: fmt.Sprintf("mcp__svc__op%d", i), Args: `{"x":1}`,
			Status: ledger.StatusError, ResultDigest: `{"error":"down"}`}})
	}
	s := tr.sessions[sessKey{"l.db", "s"}]
	if len(s.fixed.exact) > maxTurnKeys || len(s.fixed.same) > maxTurnKeys || len(s.exactEp) > maxTurnKeys || len(s.sameEp) > maxTurnKeys {
		t.Fatalf("tables grew past the bound: %d %d %d %d", len(s.fixed.exact), len(s.fixed.same), len(s.exactEp), len(s.sameEp))
	}
	rep := tr.Report()
	if len(rep.Notes) != 1 || rep.Calls != n {
		t.Fatalf("report = %+v", rep)
	}
}

func TestShellEchoWordsAreLiterals(t *testing.T) {
	a, _ := skeleton(quoteEchoArgs("sleep 10 && echo waiting"))
	b, lits := skeleton(quoteEchoArgs("sleep 300 &&   echo 'still waiting'   # again"))
	if a != b || len(lits) != 1 || lits[0] != "still waiting" {
		t.Fatalf("%q vs %q (%q)", a, b, lits)
	}
	if got := quoteEchoArgs("echo done; ls -la"); got != "echo 'done'; ls -la" {
		t.Fatalf("quoteEchoArgs = %q", got)
	}
}
