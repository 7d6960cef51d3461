package owasp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ledger-audit/ledger-audit/finding"
	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/ledger-audit/ledger-audit/rules/policy"
)

// script builds the calls of one session for a rule test; each call is one
// step later than the previous one.
type script struct {
	t0   time.Time
	step time.Duration
	cwd  string
	turn string
	n    int64
	out  []*ledger.Call
}

func newScript() *script {
	return &script{t0: time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC), step: 10 * time.Second, cwd: "/home/dev/proj"}
}

func (s *script) call(tool string, args map[string]any, st ledger.Status) *ledger.Call {
	s.n++
	b, _ := json.Marshal(args)
	c := &ledger.Call{ID: s.n, Ledger: "test.db", TS: s.t0.Add(time.Duration(s.n) * s.step), SessionID: "s1",
		TurnID: s.turn, CallID: fmt.Sprintf("c%d", s.n), Tool: tool, Args: string(b), Cwd: s.cwd, Status: st}
	s.out = append(s.out, c)
	return c
}

func (s *script) bash(cmd string) *ledger.Call {
	return s.call("Bash", map[string]any{"command": cmd}, ledger.StatusConfirmed)
}
func (s *script) term(cmd string) *ledger.Call {
	return s.call("terminal", map[string]any{"command": cmd}, ledger.StatusConfirmed)
}
func (s *script) fail(cmd string) *ledger.Call {
	c := s.call("Bash", map[string]any{"command": cmd}, ledger.StatusError)
	c.ErrorType = "exit_1"
	return c
}
func (s *script) write(p string) *ledger.Call {
	return s.call("Write", map[string]any{"file_path": p, "content": "x"}, ledger.StatusConfirmed)
}

// findings runs a checker over the calls (with optional per-call policy
// hits) and returns the findings of one rule.
func findings(t *testing.T, o Options, calls []*ledger.Call, hits map[int64][]policy.Hit, ruleID string) []finding.Finding {
	t.Helper()
	k := NewChecker(o)
	var all []finding.Finding
	for _, c := range calls {
		all = append(all, k.Observe(c, hits[c.ID])...)
	}
	all = append(all, k.Finish()...)
	var out []finding.Finding
	for _, f := range all {
		if _, ok := Lookup(f.RuleID); !ok {
			t.Fatalf("finding with unregistered rule %q", f.RuleID)
		}
		if f.Fingerprint == "" || len(f.Evidence) == 0 || f.Weight != f.Severity.Weight() {
			t.Fatalf("incomplete finding %+v", f)
		}
		if f.RuleID == ruleID {
			out = append(out, f)
		}
	}
	return out
}

// ruleCase is one table row: a session script and the number of findings
// of the rule under test it must produce (0 for a non-matching case).
type ruleCase struct {
	name  string
	build func(s *script)
	want  int
	opts  Options
	hits  func(s *script) map[int64][]policy.Hit
	// in, when set, must appear in the first finding's message.
	in string
}

func runCases(t *testing.T, ruleID string, cases []ruleCase) {
	t.Helper()
	pos, neg := 0, 0
	for _, tc := range cases {
		if tc.want > 0 {
			pos++
		} else {
			neg++
		}
		t.Run(tc.name, func(t *testing.T) {
			s := newScript()
			tc.build(s)
			var hits map[int64][]policy.Hit
			if tc.hits != nil {
				hits = tc.hits(s)
			}
			got := findings(t, tc.opts, s.out, hits, ruleID)
			if len(got) != tc.want {
				var msgs []string
				for _, f := range got {
					msgs = append(msgs, f.Message)
				}
				t.Fatalf("%s: got %d findings, want %d: %q", ruleID, len(got), tc.want, msgs)
			}
			if tc.in != "" && !strings.Contains(got[0].Message, tc.in) {
				t.Errorf("message %q lacks %q", got[0].Message, tc.in)
			}
		})
	}
	if pos < 3 || neg < 3 {
		t.Fatalf("%s: need at least 3 matching and 3 non-matching cases, have %d and %d", ruleID, pos, neg)
	}
}
