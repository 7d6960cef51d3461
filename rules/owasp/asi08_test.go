package owasp

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
)

func TestErrorStreak(t *testing.T) {
	runCases(t, RuleErrorStreak.ID, []ruleCase{
		{name: "five failures in a row", want: 1, in: "5 consecutive", build: func(s *script) {
			for i := 0; i < 5; i++ {
				s.fail(fmt.Sprintf("make target%d", i))
			}
		}},
		{name: "nine failures are still one streak", want: 1, build: func(s *script) {
			for i := 0; i < 9; i++ {
				s.fail(fmt.Sprintf("make t%d", i))
			}
		}},
		{name: "two streaks split by a success", want: 2, build: func(s *script) {
			for i := 0; i < 5; i++ {
				s.fail(fmt.Sprintf("a%d", i))
			}
			s.bash("true")
			for i := 0; i < 5; i++ {
				s.fail(fmt.Sprintf("b%d", i))
			}
		}},
		{name: "four failures", build: func(s *script) {
			for i := 0; i < 4; i++ {
				s.fail(fmt.Sprintf("x%d", i))
			}
		}},
		{name: "failures interleaved with successes", build: func(s *script) {
			for i := 0; i < 10; i++ {
				s.fail(fmt.Sprintf("x%d", i))
				s.bash("ls")
			}
		}},
		{name: "blocked calls are not failures", build: func(s *script) {
			for i := 0; i < 6; i++ {
				s.call("Bash", map[string]any{"command": "rm -rf /"}, ledger.StatusBlocked)
			}
		}},
	})
}

func TestRetryStorm(t *testing.T) {
	runCases(t, RuleRetryStorm.ID, []ruleCase{
		{name: "same failing call three times", want: 1, in: "failed 3 times", build: func(s *script) {
			for i := 0; i < 3; i++ {
				s.fail("npm install")
			}
		}},
		{name: "same failing call with another call between", want: 1, build: func(s *script) {
			s.fail("npm install")
			s.bash("cat package.json")
			s.fail("npm install")
			s.fail("npm install")
		}},
		{name: "two different storms", want: 2, build: func(s *script) {
			for i := 0; i < 3; i++ {
				s.fail("npm install")
				s.fail("pip install x")
			}
		}},
		{name: "same call twice", build: func(s *script) { s.fail("npm install"); s.fail("npm install") }},
		{name: "success resets the count", build: func(s *script) {
			s.fail("go test ./...")
			s.fail("go test ./...")
			s.call("Bash", map[string]any{"command": "go test ./..."}, ledger.StatusConfirmed)
			s.fail("go test ./...")
		}},
		{name: "different arguments each time", build: func(s *script) {
			s.fail("curl a")
			s.fail("curl b")
			s.fail("curl c")
		}},
	})
}

func TestErrorCascade(t *testing.T) {
	errCall := func(s *script, tool string) {
		c := s.call(tool, map[string]any{"path": "x"}, ledger.StatusError)
		c.ErrorType = "tool_error"
	}
	runCases(t, RuleErrorCascade.ID, []ruleCase{
		{name: "three tools fail within a minute", want: 1, in: "3 different tools", build: func(s *script) {
			errCall(s, "terminal")
			errCall(s, "write_file")
			errCall(s, "patch")
		}},
		{name: "with successes in between", want: 1, build: func(s *script) {
			errCall(s, "terminal")
			s.term("ls")
			errCall(s, "execute_code")
			s.term("ls")
			errCall(s, "write_file")
		}},
		{name: "six tools make two cascades", want: 2, build: func(s *script) {
			for _, tool := range []string{"a", "b", "c", "d", "e", "f"} {
				errCall(s, tool)
			}
		}},
		{name: "one tool failing repeatedly", build: func(s *script) {
			for i := 0; i < 6; i++ {
				errCall(s, "terminal")
			}
		}},
		{name: "two tools", build: func(s *script) { errCall(s, "terminal"); errCall(s, "patch") }},
		{name: "three tools spread over an hour", build: func(s *script) {
			s.step = 20 * time.Minute
			errCall(s, "terminal")
			errCall(s, "write_file")
			errCall(s, "patch")
		}},
	})
}

func TestGhostFinding(t *testing.T) {
	ts := time.Date(2026, 11, 30, 20, 39, 7, 0, time.UTC)
	cases := []struct {
		tool, class string
		rule        string
	}{
		{"cronjob", "ghost", RuleGhostScheduler.ID},
		{"cronjob_manage", "ghost", RuleGhostScheduler.ID},
		{"delegate_task", "ghost", RuleGhostScheduler.ID},
		{"Task", "ghost", RuleGhostScheduler.ID},
		{"write_file", "ghost", RuleGhostCall.ID},
		{"terminal", "ghost", RuleGhostCall.ID},
		{"Bash", "stale", RuleStaleCall.ID},
		{"cronjob", "stale", RuleStaleCall.ID},
		{"terminal", "revived", ""},
		{"cronjob", "revived", ""},
		{"write_file", "unknown-class", ""},
	}
	for _, tc := range cases {
		f, ok := GhostFinding(GhostInput{Ledger: "l.db", Row: 17, Session: "s", Tool: tc.tool, IssuedAt: ts, Class: tc.class, Age: time.Hour, Args: `{"action":"create"}`,
			Evidence: []string{"job morning-digest not found in cron/jobs.json"}})
		if ok != (tc.rule != "") || f.RuleID != tc.rule {
			t.Errorf("%s/%s: got %q (ok %v), want %q", tc.tool, tc.class, f.RuleID, ok, tc.rule)
			continue
		}
		if ok && (f.Category != "ASI08" || f.Evidence[0].Row != 17 || !strings.Contains(f.Message, "cron/jobs.json")) {
			t.Errorf("%s/%s: bad finding %+v", tc.tool, tc.class, f)
		}
	}
	if RuleGhostScheduler.Severity.String() != "HIGH" || RuleStaleCall.Severity.String() != "LOW" {
		t.Error("ghost severities changed: a lost cronjob or delegate_task must be HIGH, a stale call LOW")
	}
}
