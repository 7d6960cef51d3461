package ledger

import (
	"strings"
	"time"
)

// Mutating reports whether a tool changes state and so is recorded by
// default. The list is DESIGN.md §4: Hermes' state-changing tools and
// Claude Code's, every MCP tool (mcp__ prefix), and kanban mutations.
// Read-only tools cost nothing because they are never written. "Agent" is
// Claude Code's newer name for Task (since 2.1.63).
func Mutating(tool string) bool {
	switch tool {
	case "write_file", "patch", "terminal", "execute_code", "delegate_task",
		"Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "Task", "Agent":
		return true
	}
	switch {
	case strings.HasPrefix(tool, "cronjob"), strings.HasPrefix(tool, "mcp__"):
		return true
	case strings.HasPrefix(tool, "kanban"):
		// kanban_list / kanban_get / kanban_show / kanban_search only read.
		for _, ro := range []string{"_list", "_get", "_show", "_search", "_read", "_view"} {
			if strings.HasSuffix(tool, ro) {
				return false
			}
		}
		return true
	}
	return false
}

// Grace periods: how long a call may stay unconfirmed before it counts as a
// ghost. Long-running tools get longer windows so they are not mislabelled.
const (
	DefaultGrace  = 2 * time.Minute
	TerminalGrace = 15 * time.Minute
	DelegateGrace = 30 * time.Minute
)

// GraceFor returns the grace period for a tool, honouring overrides keyed
// by exact tool name.
func GraceFor(tool string, overrides map[string]time.Duration) time.Duration {
	if d, ok := overrides[tool]; ok {
		return d
	}
	switch tool {
	case "terminal", "Bash":
		return TerminalGrace
	case "delegate_task", "Task", "Agent":
		return DelegateGrace
	}
	return DefaultGrace
}
