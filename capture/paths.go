package capture

import (
	"errors"
	"os"
	"path/filepath"
)

// DefaultPath is where a client's ledger lives unless --db says otherwise:
// $LEDGER_AUDIT_DB; for Hermes <hermes_home>/plugin-data/agent-ledger/
// ledger.db ($HERMES_HOME, default ~/.hermes) — the same file the Hermes
// plugin writes; for Claude Code and generic ~/.claude/ledger-audit/ledger.db.
func DefaultPath(c Client, getenv func(string) string) (string, error) {
	if p := getenv("LEDGER_AUDIT_DB"); p != "" {
		return p, nil
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", errors.New("no home directory and no --db or $LEDGER_AUDIT_DB")
		}
		home = h
	}
	if c == Hermes {
		hh := getenv("HERMES_HOME")
		if hh == "" {
			hh = filepath.Join(home, ".hermes")
		}
		return filepath.Join(hh, "plugin-data", "agent-ledger", "ledger.db"), nil
	}
	return filepath.Join(home, ".claude", "ledger-audit", "ledger.db"), nil
}
