package capture

import (
	"fmt"
	"strings"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/ledger-audit/ledger-audit/redact"
)

// maxListed bounds the context text: it is injected into the agent's
// prompt on every turn that has news, and must stay short.
const maxListed = 10

// reportGhosts finds this session's calls that are past their grace with
// no outcome and were never reported, records one ghost_reported row per
// call (so each ghost is reported once), and returns the context text.
// Only the session's own calls are considered: a session never hears about
// another's ghosts.
func (c *Capturer) reportGhosts(session string, now time.Time) (string, error) {
	open, err := c.openCalls(session)
	if err != nil {
		return "", err
	}
	var ghosts []ledger.Call
	for _, call := range open {
		if !call.GhostReportedAt.IsZero() || now.Sub(call.TS) < ledger.GraceFor(call.Tool, nil) {
			continue
		}
		ghosts = append(ghosts, call)
	}
	for _, g := range ghosts {
		err := c.append(ledger.Event{TS: now, Kind: ledger.KindGhostReported, Source: string(c.opt.Client),
			SessionID: session, TurnID: g.TurnID, CallID: g.CallID, IssuedID: g.ID, ToolName: g.Tool})
		if err != nil {
			return "", err
		}
	}
	return ContextText(ghosts, now), nil
}

// ContextText is the warning handed to the agent about its own ghosts, or
// "" when there are none. The Hermes plugin renders the same wording.
func ContextText(ghosts []ledger.Call, now time.Time) string {
	if len(ghosts) == 0 {
		return ""
	}
	var b strings.Builder
	if len(ghosts) == 1 {
		b.WriteString("[ledger-audit] 1 tool call in this session was issued but never confirmed; it may not have taken effect:\n")
	} else {
		fmt.Fprintf(&b, "[ledger-audit] %d tool calls in this session were issued but never confirmed; they may not have taken effect:\n", len(ghosts))
	}
	for i, g := range ghosts {
		if i == maxListed {
			fmt.Fprintf(&b, "- ... and %d more\n", len(ghosts)-maxListed)
			break
		}
		fmt.Fprintf(&b, "- %s at %s", g.Tool, g.TS.UTC().Format(time.RFC3339))
		if g.CallID != "" {
			fmt.Fprintf(&b, " (call %s)", g.CallID)
		}
		fmt.Fprintf(&b, ", no result after %s", ageText(now.Sub(g.TS)))
		if a := argsExcerpt(g.Args); a != "" {
			fmt.Fprintf(&b, ": %s", a)
		}
		b.WriteByte('\n')
	}
	b.WriteString("Check whether these actions really happened before relying on them, and redo them if needed.")
	return b.String()
}

// argsExcerpt is a one-line, redacted, bounded view of the arguments.
func argsExcerpt(args string) string {
	s := strings.Join(strings.Fields(args), " ")
	s = redact.String(s)
	if t, cut := ledger.Truncate(s, 160); cut {
		s = t + "…"
	}
	return s
}

func ageText(d time.Duration) string {
	if d < time.Hour {
		return fmt.Sprintf("%dm", int(d/time.Minute))
	}
	return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}
