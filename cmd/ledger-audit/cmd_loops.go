package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/finding"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// loops replays Hermes' tool-loop guardrails over recorded calls and
// prices each loop: where the configured guardrail would have warned and
// stopped, what stopping there would have saved, and what a guardrail
// without the volatile-field fix would have done.
func init() {
	c := &command{name: "loops", summary: "replay the tool-loop guardrails over a ledger and price the waste", usage: "[flags] LEDGER..."}
	c.run = func(e *env, args []string) error {
		fs := newFlags(e, c)
		var win window
		win.add(fs)
		hermesConfig := fs.String("hermes-config", "", "Hermes config.yaml whose tool_loop_guardrails to replay (default $HERMES_HOME/config.yaml, else ~/.hermes/config.yaml; documented defaults when absent)")
		var lf listFlags
		lf.add(fs, "show argument excerpts without masking secrets", "table", "md", "json")
		paths, err := lf.parse(e, c, fs, args)
		if err != nil {
			return err
		}
		_, filter, err := win.resolve()
		if err != nil {
			return err
		}
		cfgPath, required := *hermesConfig, true
		if cfgPath == "" {
			cfgPath, required = analyze.HermesConfigPath(e.getenv), false
		}
		cfg, err := analyze.LoadLoopConfig(cfgPath, required)
		if err != nil {
			return err
		}

		tr := analyze.NewLoopTracker(cfg)
		tr.SetRedact(!lf.noRedact)
		for _, p := range paths {
			if err := streamLedger(e, tr, p, filter); err != nil {
				return err
			}
		}
		res := loopsOutput{LoopReport: tr.Report(), Ledgers: paths, Findings: tr.Findings(), Redacted: !lf.noRedact}
		return writeOutput(e, lf.out, func(w io.Writer) error {
			switch lf.format {
			case "json":
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			case "md":
				return renderLoopsMarkdown(w, &res)
			}
			return renderLoopsTable(w, &res)
		})
	}
	register(c)
}

// loopsOutput is the JSON shape of `loops --format json`.
type loopsOutput struct {
	*analyze.LoopReport
	Ledgers  []string          `json:"ledgers"`
	Findings []finding.Finding `json:"findings"`
	Redacted bool              `json:"redacted"`
}

func thresholdsText(c analyze.LoopConfig) string {
	return fmt.Sprintf("warn after %d exact / %d same-tool failures / %d no-progress repeats (identical calls: %d); hard stop after %d / %d / %d; per-turn caps: %s web searches, %s sub-agents",
		c.WarnAfter[analyze.LoopExactFailure], c.WarnAfter[analyze.LoopSameToolFailure], c.WarnAfter[analyze.LoopIdempotentNoProgress], analyze.IdenticalCallThreshold,
		c.HardStopAfter[analyze.LoopExactFailure], c.HardStopAfter[analyze.LoopSameToolFailure], c.HardStopAfter[analyze.LoopIdempotentNoProgress],
		capText(c.LoopCaps[analyze.LoopCapWebSearches]), capText(c.LoopCaps[analyze.LoopCapSubagents]))
}

func capText(n int) string {
	if n == 0 {
		return "no cap on"
	}
	return strconv.Itoa(n)
}

func hardStopText(c analyze.LoopConfig) string {
	return fmt.Sprintf("hard stops: interactive %s, unattended %s", onOff(c.HardStopEnabled), onOff(c.HardStopFor("cron")))
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func windowText(l *analyze.Loop) string {
	return l.Start.UTC().Format("2006-01-02 15:04:05") + "–" + l.End.UTC().Format("15:04:05")
}

func atText(n int) string {
	if n == 0 {
		return "never"
	}
	return "call " + strconv.Itoa(n)
}

func stopText(l *analyze.Loop) string {
	if l.HardStopAt == 0 {
		return "never"
	}
	if !l.HardStopEnabled {
		return fmt.Sprintf("call %d (if on)", l.HardStopAt)
	}
	return "call " + strconv.Itoa(l.HardStopAt)
}

func tokensText(w analyze.Waste) string {
	if w.LLMCalls == 0 && w.TokensIn == 0 {
		return "-"
	}
	return fmt.Sprintf("%s (%s cached)", digits(w.TokensIn), digits(w.TokensCacheRead))
}

func digits(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func secs(s float64) string { return strconv.FormatFloat(s, 'f', 1, 64) + " s" }

func savedText(w analyze.Waste) string {
	if w.Calls == 0 {
		return "-"
	}
	s := fmt.Sprintf("%d calls, %s wall", w.Calls, secs(w.WallSeconds))
	if w.LLMCalls > 0 {
		s += fmt.Sprintf(", %d model calls, %s input tokens, %s latency", w.LLMCalls, digits(w.TokensIn), secs(w.LatencySeconds))
	}
	return s
}

func renderLoopsTable(w io.Writer, r *loopsOutput) error {
	ew := &loopsWriter{w: w}
	ew.printf("Loop replay: %d ledger(s), %d session(s), %d calls; guardrails from %s\n", len(r.Ledgers), r.Sessions, r.Calls, r.Config.Source)
	ew.printf("  %s\n  %s\n\n", thresholdsText(r.Config), hardStopText(r.Config))
	if len(r.Loops) == 0 {
		ew.printf("No loops found.\n")
		return ew.err
	}
	tb := tablewriter.NewTable(ew,
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithTrimSpace(tw.On),
	)
	tb.Header("#", "KIND", "TOOL", "SESSION", "WINDOW (UTC)", "CALLS", "MODEL CALLS", "INPUT TOKENS", "OUTPUT", "LATENCY", "WARN", "HARD STOP", "UNFIXED WARN")
	for i := range r.Loops {
		l := &r.Loops[i]
		if err := tb.Append(strconv.Itoa(i+1), l.Kind, l.Tool, l.Session, windowText(l), strconv.Itoa(l.Calls),
			modelCallsText(l.Waste), tokensText(l.Waste), digits(l.Waste.TokensOut), secs(l.Waste.LatencySeconds),
			atText(l.WarnAt), stopText(l), atText(l.UnfixedWarnAt)); err != nil {
			return err
		}
	}
	if err := tb.Render(); err != nil {
		return err
	}
	for i := range r.Loops {
		l := &r.Loops[i]
		ew.printf("\n#%d %s %s, rows %d–%d of %s\n", i+1, l.Kind, l.Tool, l.FirstRow, l.LastRow, l.Ledger)
		ew.printf("  %s\n", l.Evidence)
		ew.printf("  wall %s, tool time %s", secs(l.Waste.WallSeconds), secs(l.Waste.ToolSeconds))
		if l.Waste.LLMCalls > 0 {
			ew.printf(", %.1f%% of the session's model calls and %.1f%% of its input tokens", 100*l.Waste.ShareOfCalls, 100*l.Waste.ShareOfTokens)
		}
		ew.printf("\n")
		ew.printf("  guardrail: %s; %s\n", guardrailText(l), savedLine(l))
		ew.printf("  without the volatile-field fix: %s", unfixedText(l))
		if l.UnfixedUnknown > 0 {
			ew.printf(" (%d results too long to recompute)", l.UnfixedUnknown)
		}
		ew.printf("\n")
	}
	renderNotes(ew, r)
	return ew.err
}

// guardrailText says where the configured guardrail fires on a loop.
func guardrailText(l *analyze.Loop) string {
	warn := "never warns"
	if l.WarnAt > 0 {
		warn = "warns at call " + strconv.Itoa(l.WarnAt) + codeText(l.WarnCode)
	}
	if l.HardStopAt == 0 {
		return warn + ", never hard-stops"
	}
	stop := fmt.Sprintf("hard-stops at call %d%s", l.HardStopAt, codeText(l.HardStopCode))
	if !l.HardStopEnabled {
		platform := "interactive sessions"
		if l.Platform != "" {
			platform = "platform " + l.Platform
		}
		stop += " if hard stops are on (they are off for " + platform + ")"
	}
	return warn + ", " + stop
}

func savedLine(l *analyze.Loop) string {
	if l.SavedIfStopped.Calls == 0 {
		return "nothing to save"
	}
	return "stopping there saves " + savedText(l.SavedIfStopped)
}

func unfixedText(l *analyze.Loop) string {
	if l.UnfixedWarnAt == 0 && l.UnfixedHardStopAt == 0 {
		return "silent (never warns, never stops)"
	}
	return fmt.Sprintf("warns at %s, hard-stops at %s", atText(l.UnfixedWarnAt), atText(l.UnfixedHardStopAt))
}

func modelCallsText(w analyze.Waste) string {
	if w.AuxLLMCalls > 0 {
		return fmt.Sprintf("%d (+%d aux)", w.LLMCalls, w.AuxLLMCalls)
	}
	return strconv.Itoa(w.LLMCalls)
}

func codeText(code string) string {
	if code == "" {
		return ""
	}
	return " (" + code + ")"
}

func renderNotes(ew *loopsWriter, r *loopsOutput) {
	if len(r.Findings) > 0 {
		ew.printf("\nFindings:\n")
		for _, f := range r.Findings {
			ew.printf("  %-8s %s: %s\n", f.Severity, f.RuleID, f.Message)
		}
	}
	for _, n := range r.Notes {
		ew.printf("\nnote: %s\n", n)
	}
}

func renderLoopsMarkdown(w io.Writer, r *loopsOutput) error {
	ew := &loopsWriter{w: w}
	ew.printf("# Loop replay\n\n%d ledger(s), %d session(s), %d calls. Guardrails from `%s`: %s; %s.\n\n",
		len(r.Ledgers), r.Sessions, r.Calls, r.Config.Source, thresholdsText(r.Config), hardStopText(r.Config))
	if len(r.Loops) == 0 {
		ew.printf("No loops found.\n")
		return ew.err
	}
	ew.printf("| # | Kind | Tool | Session | Window (UTC) | Calls | Model calls | Input tokens | Output | Latency | Warn | Hard stop | Unfixed warn |\n")
	ew.printf("|---|---|---|---|---|--:|--:|--:|--:|--:|---|---|---|\n")
	for i := range r.Loops {
		l := &r.Loops[i]
		ew.printf("| %d | %s | `%s` | `%s` | %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", i+1, l.Kind, mdEscape(l.Tool), mdEscape(l.Session),
			windowText(l), l.Calls, modelCallsText(l.Waste), tokensText(l.Waste), digits(l.Waste.TokensOut), secs(l.Waste.LatencySeconds),
			atText(l.WarnAt), stopText(l), atText(l.UnfixedWarnAt))
	}
	for i := range r.Loops {
		l := &r.Loops[i]
		ew.printf("\n## #%d %s `%s`\n\n", i+1, l.Kind, mdEscape(l.Tool))
		ew.printf("- Rows %d–%d of `%s`\n", l.FirstRow, l.LastRow, mdEscape(l.Ledger))
		ew.printf("- Evidence: %s\n", mdEscape(l.Evidence))
		ew.printf("- Wall %s, tool time %s", secs(l.Waste.WallSeconds), secs(l.Waste.ToolSeconds))
		if l.Waste.LLMCalls > 0 {
			ew.printf("; %.1f%% of the session's model calls and %.1f%% of its input tokens", 100*l.Waste.ShareOfCalls, 100*l.Waste.ShareOfTokens)
		}
		ew.printf("\n- Guardrail: %s; %s\n", guardrailText(l), savedLine(l))
		ew.printf("- Without the volatile-field fix: %s\n", unfixedText(l))
	}
	if len(r.Findings) > 0 {
		ew.printf("\n## Findings\n\n")
		for _, f := range r.Findings {
			ew.printf("- **%s** `%s`: %s\n", f.Severity, f.RuleID, mdEscape(f.Message))
		}
	}
	for _, n := range r.Notes {
		ew.printf("\n> %s\n", mdEscape(n))
	}
	return ew.err
}

// mdEscape keeps table cells and list items intact.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "`", "'").Replace(s)
}

// loopsWriter keeps the first write error.
type loopsWriter struct {
	w   io.Writer
	err error
}

func (e *loopsWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *loopsWriter) printf(format string, a ...any) { fmt.Fprintf(e, format, a...) }
