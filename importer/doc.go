// Package importer turns the session records agents already keep into
// ledger events, so a session that ran without the capture hook can still
// be audited: Claude Code transcripts (~/.claude/projects/<project>/
// <session>.jsonl and the sub-agent files under <session>/subagents/) and
// Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl).
//
// It only ever reads its sources (opened read-only) and only ever appends
// to the target ledger, through ledger.Writer, in transactions of at most
// a thousand events so a capture hook sharing the file is never held up.
// A session's main transcript and its sub-agent files are merged in time
// order before they are written.
//
// # Events
//
//   - a tool call (Claude Code tool_use block; Codex function_call,
//     local_shell_call, custom_tool_call) becomes an issued event: call_id
//     is the client's id (tool_use id / call_id), ts the record's
//     timestamp (UTC).
//   - its result (tool_result / *_output, paired by that id) becomes a
//     confirmed or error event with IssuedID set, result_digest (at most
//     300 characters of the result text), result_hash
//     (ledger.ResultHash over the whole text) and duration_ms (outcome ts
//     minus issue ts, or the duration Codex recorded). A call with no
//     result stays pending: the ghost candidate the audit looks for.
//   - the first record of a session becomes session_start; compaction
//     boundaries become compaction events (Claude Code: system records
//     with subtype compact_boundary, and compact-summary user messages not
//     already preceded by one; Codex: compacted records and
//     context_compacted events). Claude Code "summary" records are resume
//     titles anchored to a message, not compactions, and make no event.
//   - model usage becomes llm_call events: one per Claude Code assistant
//     message id (its records repeat the usage; the last one wins), with
//     call_id = the message id, and one per Codex token_count event whose
//     running total changed. tokens_in counts every input token including
//     cache reads and writes; tokens_cache_read the cache reads.
//
// Source is "import:claude-code" or "import:codex". Sessions are the
// transcript's own ids. Sub-agent transcripts are attributed to their
// parent session (the <session> directory above subagents/, else the
// records' sessionId) and their events carry turn_id "subagent:<agentId>";
// in a main transcript turn_id is the uuid of the user prompt that opened
// the turn. Codex turns use turn_context's turn_id when it has one.
//
// # Tool names
//
// Names are mapped so the capture-side rules apply unchanged:
//
//   - Claude Code names stay as they are (Bash, Write, Edit, MultiEdit,
//     NotebookEdit, Task, mcp__*), except Agent, the name Claude Code gave
//     Task in 2.1.63, which becomes Task.
//   - Codex shell, container.exec, shell_command, exec_command and
//     local_shell_call become terminal with args {"command": "..."}: an
//     argv of the form [bash|sh|zsh, -c|-lc, CMD] gives CMD, any other
//     argv is shell-quoted and joined; the working directory goes to cwd.
//   - Codex apply_patch (function or custom tool) becomes patch with args
//     {"mode": "patch", "patch": TEXT, "path": first file touched}.
//   - Codex MCP tools, named server__tool, become mcp__server__tool.
//   - Everything else keeps its name.
//
// By default only calls for which ledger.Mutating holds after mapping are
// written (Options.AllTools keeps every call), as the capture hook does.
//
// # Idempotence
//
// Before writing, the importer loads the identity of every event its
// source already put in the ledger (ledger.Writer.EventKeys): calls and
// outcomes by call id, llm_call by message id, session_start by session,
// compactions by session and time. Importing the same transcript twice
// adds nothing; importing it again after it grew adds only the new part,
// and a result that arrived since pairs with the call imported before.
//
// # Bad input
//
// A line that is not JSON, a record of an unknown type, a truncated last
// line (a session still being written) are skipped and counted; each file
// with skipped lines gets one warning "<file>: N lines skipped: <first
// reason>". A file with nothing recognisable in it is an error when it was
// named on the command line, and a warning when a directory walk found it.
// No input can make the importer panic: FuzzClaudeLine and FuzzCodexLine
// check that.
package importer
