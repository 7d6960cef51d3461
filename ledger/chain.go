package ledger

import (
	"strconv"
	"strings"
)

// RowHash is the tamper-evidence hash of one row: sha256 over prev_hash and
// every content column, joined with unit separators. The Python Hermes
// plugin computes exactly the same string (see integrations/hermes), so
// both writers extend one chain. NULL integers are empty strings.
func RowHash(e *Event) string {
	fields := []string{
		e.PrevHash,
		strconv.FormatInt(e.ID, 10),
		e.tsText(),
		string(e.Kind),
		e.Source,
		e.SessionID,
		e.TurnID,
		e.CallID,
		optInt(nonZero(e.IssuedID)),
		e.ToolName,
		e.ArgsJSON,
		boolInt(e.ArgsTruncated),
		e.ResultDigest,
		e.ResultHash,
		e.ErrorType,
		optInt(e.DurationMS),
		e.PolicyRule,
		e.PolicyAction,
		optInt(e.TokensIn),
		optInt(e.TokensOut),
		optInt(e.TokensCacheRead),
		e.Cwd,
	}
	return sha256Hex(strings.Join(fields, "\x1f"))
}

func nonZero(v int64) *int64 {
	if v == 0 {
		return nil
	}
	return &v
}

func optInt(v *int64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatInt(*v, 10)
}

func boolInt(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// Int64 returns a pointer to v, for the optional integer columns.
func Int64(v int64) *int64 { return &v }

// tsText is the ts column as stored: verification must hash the text that
// is on disk, not a re-rendering of it.
func (e *Event) tsText() string {
	if e.rawTS != "" {
		return e.rawTS
	}
	return FormatTime(e.TS)
}
