package importer

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ledger-audit/ledger-audit/ledger"
)

func TestCodexPairing(t *testing.T) {
	db, sum, warn := importInto(t, FromCodex, Options{}, codexFile)
	if warn != "" {
		t.Errorf("warnings: %s", warn)
	}
	s := scan(t, db)
	want := map[string]struct {
		tool   string
		args   string
		status ledger.Status
		digest string
	}{
		"call_a1": {"terminal", `{"command":"ls -la logs && du -sh logs"}`, ledger.StatusConfirmed, "total 48\n"},
		"call_b2": {"terminal", `{"command":"gzip -9 logs/app.log"}`, ledger.StatusConfirmed, ""},
		"call_c3": {"terminal", `{"command":"go test ./internal/health/..."}`, ledger.StatusError, "--- FAIL: TestHealthz"},
		"call_d4": {"patch", `"path":"internal/health/health.go"`, ledger.StatusConfirmed, "Success. Updated the following files:"},
		"call_f6": {"mcp__github__create_pull_request", `"title":"Fix healthz when DB not ready"`, ledger.StatusConfirmed, `"number": 418`},
		"call_g7": {"terminal", `{"command":"sed -i 's/0.9.3/0.9.4/' VERSION && git commit -am 'bump 0.9.4'"}`, ledger.StatusPending, ""},
	}
	if len(s.calls) != len(want) {
		t.Errorf("calls = %d, want %d (update_plan is read-only)", len(s.calls), len(want))
	}
	for id, w := range want {
		c := s.call(id)
		if c == nil {
			t.Errorf("%s missing", id)
			continue
		}
		if c.Tool != w.tool || !strings.Contains(c.Args, w.args) || c.Status != w.status || !strings.Contains(c.ResultDigest, w.digest) {
			t.Errorf("%s = %s %s %s %q; want %s %s %s %q", id, c.Tool, c.Args, c.Status, c.ResultDigest, w.tool, w.args, w.status, w.digest)
		}
		if c.SessionID != codexSession || c.Source != SourceCodex {
			t.Errorf("%s: session %q source %q", id, c.SessionID, c.Source)
		}
		if c.Cwd != "/home/dev/api" {
			t.Errorf("%s: cwd %q", id, c.Cwd)
		}
	}
	// Durations come from what Codex measured, not from line timestamps.
	if d := s.call("call_a1").DurationMS; d == nil || *d != 182 {
		t.Errorf("call_a1 duration %v, want 182 ms from exec_command_end", d)
	}
	if d := s.call("call_b2").DurationMS; d == nil || *d != 1400 {
		t.Errorf("call_b2 duration %v, want 1400 ms from the output metadata", d)
	}
	// The volatile wrapper is not hashed: equal outputs hash equal.
	if h := s.call("call_a1").ResultHash; h != ledger.ResultHash("terminal", "total 48\n-rw-r--r-- 1 dev dev 41M app.log\n41M\tlogs\n") {
		t.Errorf("call_a1 hash covers more than the output")
	}
	if turn := s.call("call_g7").TurnID; turn != "turn-2" {
		t.Errorf("call_g7 turn %q", turn)
	}
	// token_count repeated on a rate-limit refresh is one model call.
	llm := s.kinds(ledger.KindLLMCall)
	if len(llm) != 3 || *llm[1].TokensIn != 9290 || *llm[1].TokensCacheRead != 8192 || *llm[1].TokensOut != 86 {
		t.Errorf("llm calls: %d", len(llm))
	}
	if !strings.Contains(llm[0].ArgsJSON, "gpt-5.1-codex") {
		t.Errorf("llm_call model: %s", llm[0].ArgsJSON)
	}
	if c := s.kinds(ledger.KindCompaction); len(c) != 1 {
		t.Errorf("compactions = %d, want 1 (compacted + context_compacted)", len(c))
	}
	if st := s.kinds(ledger.KindSessionStart); len(st) != 1 || st[0].SessionID != codexSession {
		t.Errorf("session_start: %+v", st)
	}
	if sum.Calls != 6 || sum.Confirmed != 4 || sum.Errors != 1 || sum.Pending != 1 || sum.ReadOnly != 1 {
		t.Errorf("summary %+v", sum)
	}
}

func TestCodexIdempotent(t *testing.T) {
	db, first, _ := importInto(t, FromCodex, Options{}, "testdata/codex/sessions")
	n := countRows(t, db)
	second, err := Import(FromCodex, []string{codexFile}, db, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := countRows(t, db); got != n || second.Written != 0 || first.Written != n {
		t.Errorf("rows %d -> %d, second import wrote %d", n, got, second.Written)
	}
}

func TestCodexBrokenLines(t *testing.T) {
	db, sum, warn := importInto(t, FromCodex, Options{}, codexBroken)
	if want := codexBroken + ": 3 lines skipped: line 2: not JSON\n"; warn != want {
		t.Errorf("warning %q, want %q", warn, want)
	}
	c := scan(t, db).call("call_x1")
	if c == nil || c.Args != `{"command":"rm -rf 'tmp/cache dir'"}` || c.Status != ledger.StatusConfirmed {
		t.Errorf("call_x1 = %+v", c)
	}
	if sum.SkippedLines != 3 {
		t.Errorf("skipped %d", sum.SkippedLines)
	}
	_, err := Import(FromCodex, []string{normalFile}, db, Options{})
	if err == nil || !strings.Contains(err.Error(), "use --from claude-code") {
		t.Errorf("claude transcript as codex: %v", err)
	}
}

func TestCodexLegacyAndEdgeShapes(t *testing.T) {
	in := strings.Join([]string{
		`{"id":"0c1d2e3f-0000-4000-8000-000000000001","timestamp":"2025-05-01T10:00:00.000Z","instructions":""}`,
		`{"record_type":"state"}`,
		`{"type":"function_call","name":"shell","arguments":"{\"command\":[\"git\",\"push\",\"--force\"]}","call_id":"call_l1"}`,
		`{"type":"function_call_output","call_id":"call_l1","output":"{\"output\":\"rejected\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":0.3}}"}`,
		`{"timestamp":"2025-05-01T10:00:05.000Z","type":"response_item","payload":{"type":"local_shell_call","id":"lsh_1","status":"completed","action":{"type":"exec","command":["touch","a b"]}}}`,
		`{"timestamp":"2025-05-01T10:00:06.000Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"lsh_1","exit_code":2,"duration":{"secs":1,"nanos":500000000},"aggregated_output":"touch: cannot touch"}}`,
		`{"timestamp":"2025-05-01T10:00:07.000Z","type":"response_item","payload":{"type":"function_call","name":"apply_patch","arguments":"{\"input\":\"*** Begin Patch\\n*** Add File: notes.md\\n+hi\\n*** End Patch\"}","call_id":"call_p"}}`,
		`{"timestamp":"2025-05-01T10:00:07.500Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_p","output":{"content":"apply_patch verification failed: file exists","success":false}}}`,
		// Newer item kinds with object arguments must not cost the line.
		`{"timestamp":"2025-05-01T10:00:08.000Z","type":"response_item","payload":{"type":"tool_search_call","call_id":"ts1","status":"completed","execution":"server","arguments":{"query":"deploy"}}}`,
		`{"timestamp":"2025-05-01T10:00:09.000Z","type":"response_item","payload":{"type":"function_call","name":"mcp__kb__put","arguments":{"k":"v"},"call_id":"call_o"}}`,
	}, "\n")
	p := newCodexReader()
	st, err := readLines(strings.NewReader(in), p)
	if err != nil || st.Skipped != 0 {
		t.Fatalf("stats %+v err %v", st, err)
	}
	byID := map[string][]ledger.Event{}
	for _, e := range p.result() {
		byID[e.CallID] = append(byID[e.CallID], e)
	}
	if e := byID["call_l1"]; len(e) != 2 || e[0].ArgsJSON != `{"command":"git push --force"}` || e[1].Kind != ledger.KindError || *e[1].DurationMS != 300 {
		t.Errorf("legacy call: %+v", e)
	}
	if e := byID["lsh_1"]; len(e) != 2 || e[0].ArgsJSON != `{"command":"touch 'a b'"}` || e[1].Kind != ledger.KindError || *e[1].DurationMS != 1500 || e[1].ResultDigest != "touch: cannot touch" {
		t.Errorf("local shell with only an end event: %+v", e)
	}
	if e := byID["call_p"]; len(e) != 2 || e[0].ToolName != "patch" || !strings.Contains(e[0].ArgsJSON, `"path":"notes.md"`) || e[1].Kind != ledger.KindError {
		t.Errorf("apply_patch function: %+v", e)
	}
	if e := byID["call_o"]; len(e) != 1 || e[0].ArgsJSON != `{"k":"v"}` {
		t.Errorf("object arguments: %+v", e)
	}
	for _, e := range p.result() {
		if e.SessionID != "0c1d2e3f-0000-4000-8000-000000000001" || e.TS.IsZero() {
			t.Errorf("event %s %s: session %q ts %s", e.Kind, e.CallID, e.SessionID, e.TS)
		}
	}
}

func TestCodexShellResult(t *testing.T) {
	for _, c := range []struct {
		in, out string
		exit    int // -99: none
	}{
		{"Exit code: 0\nWall time: 0.1 seconds\nOutput:\nok\n", "ok\n", 0},
		{"Process exited with code 3\nOutput:\n", "", 3},
		{"plain text\nOutput:\nnot a header", "plain text\nOutput:\nnot a header", -99},
		{`{"output":"x","metadata":{"exit_code":7}}`, "x", 7},
		{`{"unrelated":true}`, `{"unrelated":true}`, -99},
	} {
		out, exit, _ := codexShellResult(c.in)
		got := -99
		if exit != nil {
			got = *exit
		}
		if out != c.out || got != c.exit {
			t.Errorf("codexShellResult(%q) = %q, %d; want %q, %d", c.in, out, got, c.out, c.exit)
		}
	}
}

func TestToolMapping(t *testing.T) {
	for _, c := range []struct {
		name, args string
		want       mappedCall
	}{
		{"shell", `{"command":["bash","-lc","echo hi > /tmp/x"]}`, mappedCall{"terminal", `{"command":"echo hi > /tmp/x"}`, ""}},
		{"shell", `{"command":["/bin/zsh","-c","ls"],"workdir":"/w"}`, mappedCall{"terminal", `{"command":"ls"}`, "/w"}},
		{"shell", `{"command":["python3","-c","print('a b')"]}`, mappedCall{"terminal", `{"command":"python3 -c 'print('\\''a b'\\'')'"}`, ""}},
		{"exec_command", `{"cmd":"rm -rf /","workdir":"/"}`, mappedCall{"terminal", `{"command":"rm -rf /"}`, "/"}},
		{"shell", `not json`, mappedCall{"terminal", `not json`, ""}},
		{"mcp__fs__write", `{"path":"a"}`, mappedCall{"mcp__fs__write", `{"path":"a"}`, ""}},
		{"view_image", `{"path": "a.png"}`, mappedCall{"view_image", `{"path":"a.png"}`, ""}},
		{"__weird", `{}`, mappedCall{"__weird", `{}`, ""}},
	} {
		if got := codexFunction(c.name, c.args); got != c.want {
			t.Errorf("codexFunction(%s, %s) = %+v, want %+v", c.name, c.args, got, c.want)
		}
	}
	if claudeTool("Agent") != "Task" || claudeTool("Bash") != "Bash" || claudeTool("mcp__x__y") != "mcp__x__y" {
		t.Error("claude tool mapping")
	}
	if !ledger.Mutating(codexFunction("shell", `{"command":"ls"}`).tool) || !ledger.Mutating(codexCustom("apply_patch", "").tool) {
		t.Error("mapped Codex tools must be ones ledger.Mutating records")
	}
	if got := codexCustom("freeform", "a < b"); got.args != `{"input":"a \u003c b"}` && got.args != `{"input":"a < b"}` {
		t.Errorf("custom tool args %s", got.args)
	}
	var b bytes.Buffer
	b.WriteString(patchArgs("*** Begin Patch\n*** Update File: a.go\n*** Move to: b.go\n*** End Patch"))
	if !strings.Contains(b.String(), `"path":"a.go"`) || !strings.Contains(b.String(), `"mode":"patch"`) {
		t.Errorf("patch args %s", b.String())
	}
}
