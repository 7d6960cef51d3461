// Package policy owns policy packs: the YAML format, the embedded default
// packs, the shell-aware matcher (through package shell), per-session
// state that catches a dangerous action split across calls, and replay of
// packs over a ledger in dry-run. It never writes to a ledger: capture
// records what enforce mode decided.
package policy
