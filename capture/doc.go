// Package capture is the hook side of ledger-audit: it turns one hook
// event from an agent (Claude Code, Hermes, or any agent speaking the
// generic JSON shape below) into ledger rows, tells a session about its own
// ghosts, and — when a policy_mode file next to the ledger says so — asks
// the policy engine whether a tool call may run.
//
// Three rules shape everything here:
//
//   - Fail open. The agent must never be held up or blocked by a problem
//     of ours: bad JSON, an unwritable directory, a ledger locked past a
//     short busy timeout, a foreign database. Such problems become one line
//     in a side log (ledger-audit-errors.log next to the ledger, mode 0600,
//     never arguments or secrets) and the hook prints nothing and exits 0.
//     The only refusal is a deliberate policy block in enforce mode.
//   - Append only. Capture INSERTs rows through ledger.Writer; it never
//     rewrites what is already written. Outcomes are paired with their
//     issued row inside the same transaction (ledger.Writer.Append).
//   - Record what changes state. Only tools for which ledger.Mutating is
//     true are written unless Options.AllTools is set (a read-only call
//     that a policy rule matched is recorded too, so refusals are visible).
//
// Capture never imports the analysis packages.
//
// # Generic JSON shape
//
// Any agent can feed `ledger-audit capture --client generic` one JSON
// object per event on stdin:
//
//	{
//	  "event":      "pre_tool",           // required, see below
//	  "session_id": "s-42",               // required
//	  "turn_id":    "t-7",                // optional
//	  "call_id":    "call_1",             // optional; pairs outcome with call
//	  "tool":       "terminal",           // required for tool events
//	  "args":       {"command": "ls"},    // any JSON value, stored verbatim
//	  "result":     "output or JSON",     // outcome events; a JSON string is unwrapped
//	  "error_type": "timeout",            // tool_error events (default "tool_error")
//	  "duration_ms": 120,                 // optional
//	  "cwd":        "/home/me/project",   // optional
//	  "ts":         "2026-11-30T20:39:07Z", // optional, default now
//	  "tokens_in": 1200, "tokens_out": 80, "tokens_cache_read": 1000 // llm_call
//	}
//
// event is one of: pre_tool (a call is about to run: issued), post_tool
// (it succeeded: confirmed), tool_error (it failed: error), tool_blocked
// (the agent refused it: blocked), prompt (a new user turn: prints ghost
// context), session_start (records the start and prints ghost context),
// session_end, compaction, llm_call. An outcome without call_id pairs with
// the oldest open call of the same session and tool. On prompt and
// session_start the hook prints {"context": "..."} when this session has
// unreported ghosts; on pre_tool in enforce mode it prints
// {"decision": "block", "reason": "...", "rule": "..."} for a refused call.
//
// # Hermes kwargs JSON
//
// `--client hermes` reads the keyword arguments Hermes passes to a plugin
// hook as one JSON object plus "hook" naming the hook (pre_tool_call,
// post_tool_call, pre_llm_call, on_session_start). The Hermes plugin in
// integrations/hermes writes rows itself; it uses this adapter only with
// --decide, to ask for a policy decision in enforce mode.
package capture
