package owasp

import (
	"path"
	"strings"
	"unicode/utf8"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// callArgs is the decoded argument object of a call. Truncated or
// non-JSON arguments decode to an empty map: rules then fall back to the
// raw text where it makes sense (an excerpt) and skip otherwise.
type callArgs map[string]any

func decodeArgs(c *ledger.Call) callArgs {
	return callArgs(ledger.DecodeArgs(c.Args))
}

func (a callArgs) str(keys ...string) string {
	for _, k := range keys {
		if s, ok := a[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// shellTools run their "command" argument through a shell.
var shellTools = map[string]bool{"terminal": true, "Bash": true, "bash": true, "shell": true, "run_shell_command": true}

// commandOf is the shell command a call runs, or "".
func commandOf(c *ledger.Call, a callArgs) string {
	if runsShell(c.Tool) {
		return a.str("command", "cmd", "script")
	}
	return ""
}

// runsShell reports tools whose "command" argument runs through a shell.
func runsShell(tool string) bool {
	return shellTools[tool] || strings.HasPrefix(tool, "mcp__") && strings.Contains(strings.ToLower(tool), "shell")
}

// fileWriteTools name the path argument of tools that write one file.
var fileWriteTools = map[string][]string{
	"write_file":   {"path", "file_path"},
	"patch":        {"path", "file_path"},
	"Write":        {"file_path", "path"},
	"Edit":         {"file_path", "path"},
	"MultiEdit":    {"file_path", "path"},
	"NotebookEdit": {"notebook_path", "file_path"},
}

// writtenPath is the file a file-writing tool changes, or "".
func writtenPath(c *ledger.Call, a callArgs) string {
	if keys, ok := fileWriteTools[c.Tool]; ok {
		return a.str(keys...)
	}
	return ""
}

// fileReadTools name the path argument of tools that read one file (seen
// only when capture records read-only tools too).
var fileReadTools = map[string][]string{
	"read_file": {"path", "file_path"},
	"Read":      {"file_path", "path"},
}

func readPath(c *ledger.Call, a callArgs) string {
	if keys, ok := fileReadTools[c.Tool]; ok {
		return a.str(keys...)
	}
	return ""
}

// isDelegation reports tools that start another agent.
func isDelegation(tool string) bool {
	return tool == "delegate_task" || tool == "Task" || tool == "Agent"
}

// isCron reports Hermes' scheduler tool under its current and legacy names.
func isCron(tool string) bool { return strings.HasPrefix(tool, "cronjob") }

// excerpt clips s to n runes around nothing in particular: the start of
// the argument is what a reader needs to recognise the call.
func excerpt(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s // n bytes are at most n runes
	}
	if !utf8.ValidString(s) { // []rune repairs bad bytes: keep doing so
		r := []rune(s)
		if len(r) <= n {
			return s
		}
		return string(r[:n]) + "…"
	}
	// Arguments run to thousands of characters: find the n-th rune's
	// offset rather than converting the whole string.
	count := 0
	for i := range s {
		if count == n {
			return s[:i] + "…"
		}
		count++
	}
	return s
}

// excerptOf is the evidence text of a call: its command, the path it
// writes, or the raw arguments.
func excerptOf(c *ledger.Call, a callArgs) string {
	if cmd := commandOf(c, a); cmd != "" {
		return excerpt(cmd, excerptRunes)
	}
	if p := writtenPath(c, a); p != "" {
		return excerpt(p, excerptRunes)
	}
	return excerpt(c.Args, excerptRunes)
}

const excerptRunes = 240

// homeOf guesses the agent's home directory from a working directory
// ("/home/ana/src/x" → "/home/ana"), since ledgers do not record $HOME.
func homeOf(cwd string) string {
	parts := strings.Split(path.Clean(cwd), "/")
	switch {
	case len(parts) >= 3 && (parts[1] == "home" || parts[1] == "Users"):
		return "/" + parts[1] + "/" + parts[2]
	case len(parts) >= 2 && parts[1] == "root":
		return "/root"
	}
	return ""
}

// absPath resolves p against cwd and home ("~"); it returns "" when p is
// relative and cwd is unknown, or when p is "~" based and home unknown.
func absPath(p, cwd, home string) string {
	switch {
	case p == "":
		return ""
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home == "" {
			return ""
		}
		return path.Clean(home + p[1:])
	case strings.HasPrefix(p, "$HOME/") || strings.HasPrefix(p, "${HOME}/"):
		if home == "" {
			return ""
		}
		return path.Clean(home + "/" + p[strings.Index(p, "/")+1:])
	case path.IsAbs(p):
		return path.Clean(p)
	case cwd == "":
		return ""
	}
	return path.Join(cwd, p)
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	if dir == "" || p == "" {
		return false
	}
	dir = path.Clean(dir)
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}
