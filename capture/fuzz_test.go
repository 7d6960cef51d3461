package capture

import "testing"

// FuzzParse feeds arbitrary bytes to every client's payload parser: hook
// payloads are untrusted input, and a panic here would be a crash inside
// the agent's hook. Accepted payloads must satisfy the invariants Handle
// relies on.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		claude("PreToolUse", "s", "Bash", "t", `"tool_input":{"command":"ls"}`),
		claude("PostToolUse", "s", "Bash", "t", `"tool_input":{},"tool_response":"x"`),
		claude("PostToolUseFailure", "s", "Bash", "t", `"error":"e","is_interrupt":true`),
		claude("UserPromptSubmit", "s", "", "", `"prompt":"p"`),
		`{"event":"pre_tool","session_id":"s","tool":"t","args":[1,2],"ts":"2026-01-01T00:00:00Z"}`,
		`{"event":"llm_call","session_id":"s","tokens_in":1e3}`,
		`{"hook":"post_tool_call","tool_name":"x","result":{"a":1},"session_id":"s","duration_ms":1.5,"turn_id":7}`,
		`{"hook":"pre_tool_call","tool_name":"x","args":"not a dict","task_id":"t"}`,
		`null`, `[]`, `{"hook_event_name":5}`, "\x00\xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		for _, c := range Clients {
			h, err := Parse(c, []byte(data))
			if err != nil {
				continue
			}
			if h.Type == Ignored {
				continue
			}
			if h.SessionID == "" {
				t.Fatalf("%s accepted an event without a session: %q", c, data)
			}
			if h.Type.isTool() && h.Tool == "" {
				t.Fatalf("%s accepted a tool event without a tool: %q", c, data)
			}
		}
	})
}
