package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/redact"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// ghosts lists state-changing calls whose result never landed: ghost (the
// session went on without it), stale (nothing followed) and, with --all,
// revived false ghosts. It exits 0 whether or not it finds any: it is a
// report, not a gate (audit's --fail-on covers gating).
func init() {
	c := &command{name: "ghosts", summary: "list calls issued but never confirmed (ghost / stale / revived)", usage: "[flags] LEDGER..."}
	c.run = func(e *env, args []string) error {
		fs := newFlags(e, c)
		var win window
		win.add(fs)
		graces := fs.StringArray("grace", nil, "grace period for one tool, as tool=duration (e.g. terminal=30m); repeatable")
		home := fs.String("hermes-home", "", "check ghosts against this Hermes home: cron/jobs.json for cronjob creates, the files of write_file/Write calls")
		all := fs.Bool("all", false, "also list revived calls (reported as ghosts, confirmed later)")
		var lf listFlags
		lf.add(fs, "show arguments and evidence without masking secrets", "table", "json")
		paths, err := lf.parse(e, c, fs, args)
		if err != nil {
			return err
		}
		grace, err := parseGraceFlags(*graces)
		if err != nil {
			return err
		}
		now, filter, err := win.resolve()
		if err != nil {
			return err
		}

		tr := analyze.NewGhostTracker(analyze.GhostOptions{
			Now: now, Grace: grace, HermesHome: *home, Redact: redact.Redactor{Off: lf.noRedact},
		})
		for _, p := range paths {
			if err := streamLedger(e, tr, p, filter); err != nil {
				return err
			}
		}
		res := ghostsOutput{SchemaVersion: analyze.SchemaVersion, Now: now, Ledgers: paths, Ghosts: []analyze.Ghost{}, Redacted: !lf.noRedact}
		for _, g := range tr.Ghosts() {
			switch g.Class {
			case analyze.ClassGhost:
				res.Counts.Ghost++
			case analyze.ClassStale:
				res.Counts.Stale++
			case analyze.ClassRevived:
				res.Counts.Revived++
				if !*all {
					continue
				}
			}
			res.Ghosts = append(res.Ghosts, g)
		}
		return writeOutput(e, lf.out, func(w io.Writer) error {
			if lf.format == "json" {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false) // keep "&&" in commands readable
				return enc.Encode(res)
			}
			return renderGhostsTable(w, &res, *all)
		})
	}
	register(c)
}

// parseGraceFlags reads repeated --grace tool=duration flags.
func parseGraceFlags(specs []string) (map[string]time.Duration, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	m := map[string]time.Duration{}
	for _, s := range specs {
		tool, dur, ok := strings.Cut(s, "=")
		tool = strings.TrimSpace(tool)
		if !ok || tool == "" {
			return nil, usagef("--grace: want tool=duration (e.g. terminal=30m), not %q", s)
		}
		d, err := time.ParseDuration(strings.TrimSpace(dur))
		if err != nil || d < 0 {
			return nil, usagef("--grace %s: %q is not a duration such as 90s, 15m or 1h", tool, dur)
		}
		m[tool] = d
	}
	return m, nil
}

// ghostsOutput is the JSON shape of `ghosts --format json` (schema 1).
type ghostsOutput struct {
	SchemaVersion int             `json:"schema_version"`
	Now           time.Time       `json:"now"`
	Ledgers       []string        `json:"ledgers"`
	Counts        ghostCounts     `json:"counts"`
	Ghosts        []analyze.Ghost `json:"ghosts"`
	Redacted      bool            `json:"redacted"`
}

// ghostCounts: ghost and stale are lost calls; revived are counted even
// when not listed, so the JSON says what --all would add.
type ghostCounts struct {
	Ghost   int `json:"ghost"`
	Stale   int `json:"stale"`
	Revived int `json:"revived"`
}

// ghostStamp renders a time as RFC 3339 UTC with seconds, the form every
// ghosts output uses (e.g. 2026-11-30T20:39:07Z).
func ghostStamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// ghostAge keeps ages short: seconds below a day, days and hours above.
func ghostAge(d time.Duration) string {
	if d < 0 {
		return "-" + ghostAge(-d)
	}
	if d >= 24*time.Hour {
		days := int(d / (24 * time.Hour))
		return fmt.Sprintf("%dd%dh", days, int((d%(24*time.Hour))/time.Hour))
	}
	return d.Truncate(time.Second).String()
}

// ghostArgs flattens an argument excerpt for a table cell.
func ghostArgs(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

type ghostsWriter struct {
	w   io.Writer
	err error
}

func (g *ghostsWriter) Write(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.w.Write(p)
	g.err = err
	return n, err
}

func (g *ghostsWriter) printf(format string, a ...any) { fmt.Fprintf(g, format, a...) }

func renderGhostsTable(w io.Writer, r *ghostsOutput, all bool) error {
	gw := &ghostsWriter{w: w}
	gw.printf("Ghosts at %s in %d ledger(s): %d ghost, %d stale", ghostStamp(r.Now), len(r.Ledgers), r.Counts.Ghost, r.Counts.Stale)
	if all {
		gw.printf(", %d revived (shown, not counted)", r.Counts.Revived)
	}
	gw.printf("\n\n")
	if len(r.Ghosts) == 0 {
		gw.printf("No unconfirmed calls past their grace period.\n")
	} else {
		tb := tablewriter.NewTable(gw,
			tablewriter.WithRowAutoWrap(tw.WrapNone),
			tablewriter.WithHeaderAutoFormat(tw.Off),
			tablewriter.WithTrimSpace(tw.On),
		)
		tb.Header("#", "ISSUED (UTC)", "CLASS", "TOOL", "SESSION", "ROW", "AGE", "SESSION WENT ON", "ARGS")
		for i, g := range r.Ghosts {
			went := "no"
			switch {
			case g.Class == analyze.ClassRevived:
				went = "confirmed " + ghostStamp(g.ConfirmedAt)
			case !g.NextActivity.IsZero():
				went = ghostStamp(g.NextActivity)
			}
			if err := tb.Append(strconv.Itoa(i+1), ghostStamp(g.IssuedAt), string(g.Class), g.Tool, g.Session,
				strconv.FormatInt(g.Row, 10), ghostAge(time.Duration(g.Age)), went, ghostArgs(g.Args, 60)); err != nil {
				return err
			}
		}
		if err := tb.Render(); err != nil {
			return err
		}
		for i, g := range r.Ghosts {
			gw.printf("\n#%d %s %s: row %d of %s, session %s\n", i+1, g.Class, g.Tool, g.Row, g.Ledger, g.Session)
			gw.printf("  issued %s, grace %s, age %s at %s\n", ghostStamp(g.IssuedAt), time.Duration(g.Grace), ghostAge(time.Duration(g.Age)), ghostStamp(r.Now))
			switch g.Class {
			case analyze.ClassGhost:
				gw.printf("  the session went on at %s without its result: a swallowed turn\n", ghostStamp(g.NextActivity))
			case analyze.ClassStale:
				gw.printf("  nothing followed in the session after issue + grace: the session may have died\n")
			case analyze.ClassRevived:
				gw.printf("  confirmed at %s after being reported: a false ghost\n", ghostStamp(g.ConfirmedAt))
			}
			if !g.ReportedAt.IsZero() {
				gw.printf("  reported to the agent as a ghost at %s\n", ghostStamp(g.ReportedAt))
			}
			if g.NearCompaction {
				gw.printf("  near a context compaction\n")
			}
			gw.printf("  args: %s\n", ghostArgs(g.Args, 300))
			for _, ev := range g.Evidence {
				gw.printf("  evidence: %s\n", ev)
			}
		}
	}
	if !all && r.Counts.Revived > 0 {
		gw.printf("\n%d revived call(s) not shown (confirmed after being reported); --all lists them.\n", r.Counts.Revived)
	}
	return gw.err
}
