package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/finding"
	"github.com/ledger-audit/ledger-audit/importer"
	"github.com/ledger-audit/ledger-audit/report"
	"github.com/ledger-audit/ledger-audit/rules/owasp"
	"github.com/spf13/pflag"
)

// audit and posture score a ledger against the OWASP Agentic categories.
// audit reports everything (score, findings, ghosts, loops, policy
// replay); posture only the score, its categories and the findings. Both
// can gate a CI job with --fail-under and --fail-on.
func init() {
	register(&command{name: "audit", summary: "audit ledgers: posture score, findings, ghosts, loops and policy replay",
		usage: "[flags] LEDGER...", run: func(e *env, args []string) error { return runAudit(e, commands["audit"], args, false) }})
	register(&command{name: "posture", summary: "OWASP Agentic posture score with per-category subtotals and the finding list",
		usage: "[flags] LEDGER...", run: func(e *env, args []string) error { return runAudit(e, commands["posture"], args, true) }})
	dailyAudit = func(req dailyAuditRequest) (*analyze.Result, error) {
		return analyze.Audit(req.Paths, analyze.AuditOptions{Now: req.Now, Filter: req.Filter, NoRedact: !req.Redact,
			Tool: analyze.ToolInfo{Name: "ledger-audit", Version: version}, TrimMemory: true})
	}
}

type auditFlags struct {
	win                    window
	format, out, color     string
	failUnder, failOn      string
	rules, noRedact        bool
	ignore                 string
	hermesHome, hermesConf string
	graces                 []string
	agencyTools            int
	agencyTargets          int
	from                   string
	allTools               bool
	fleet                  fleetFlags
}

func (a *auditFlags) add(fs *pflag.FlagSet) {
	a.win.add(fs)
	fs.StringVar(&a.format, "format", "", "table, md, json, pdf, sarif, junit, or jsonl (one finding per line, for warehouses) (default: from the -o extension, else table)")
	fs.StringVarP(&a.out, "output", "o", "", "write to `FILE` instead of stdout (atomically)")
	fs.StringVar(&a.failUnder, "fail-under", "", "exit 1 when the score is below `N` (0-100)")
	fs.StringVar(&a.failOn, "fail-on", "", "exit 1 when any unsuppressed finding is at or above `SEVERITY` (low, medium, high, critical)")
	fs.BoolVar(&a.rules, "rules", false, "list every rule with its category, severity and weight, and exit")
	fs.BoolVar(&a.noRedact, "no-redact", false, "show evidence without masking secrets")
	fs.StringVar(&a.ignore, "ignore", "", "suppression `FILE` (default: "+analyze.DefaultSuppressionFile+" in the current directory, if present)")
	fs.StringVar(&a.hermesHome, "hermes-home", "", "Hermes home `DIR` for offline ghost evidence (cron/jobs.json, written files) and its config.yaml")
	fs.StringVar(&a.hermesConf, "hermes-config", "", "Hermes config `FILE` whose tool_loop_guardrails are replayed (default: $HERMES_HOME/config.yaml, else ~/.hermes/config.yaml, if present)")
	fs.StringArrayVar(&a.graces, "grace", nil, "grace period for one tool, as tool=duration (e.g. terminal=30m); repeatable")
	fs.IntVar(&a.agencyTools, "agency-tools", owasp.DefaultOptions.AgencyTools, "ASI11 (community extension): flag a session that changes state through more than `N` distinct tools")
	fs.IntVar(&a.agencyTargets, "agency-targets", owasp.DefaultOptions.AgencyTargets, "ASI11 (community extension): flag a session that changes more than `N` distinct targets (files, hosts, jobs)")
	fs.StringVar(&a.color, "color", "auto", "colour in the table format: auto (only on a terminal), always or never")
	fs.StringVar(&a.from, "from", "", "audit agent transcripts instead of ledgers: claude-code or codex (PATHs are transcript files or directories; default: the agent's own transcript folders)")
	fs.BoolVar(&a.allTools, "all-tools", false, "with --from: import read-only tool calls too")
	a.fleet.add(fs)
}

// gates are the CI thresholds, parsed before any work so a typo fails fast.
type gates struct {
	underSet bool
	under    int
	onSet    bool
	on       finding.Severity
}

func (a *auditFlags) gates() (gates, error) {
	var g gates
	if a.failUnder != "" {
		n, err := strconv.Atoi(strings.TrimSpace(a.failUnder))
		if err != nil || n < 0 || n > 100 {
			return g, usagef("--fail-under: want a whole number from 0 to 100, not %q", a.failUnder)
		}
		g.underSet, g.under = true, n
	}
	if a.failOn != "" {
		s, err := finding.ParseSeverity(a.failOn)
		if err != nil {
			return g, usagef("--fail-on: %v", err)
		}
		g.onSet, g.on = true, s
	}
	return g, nil
}

// check returns the gate failure for a result, or nil.
func (g gates) check(r *analyze.Result) error {
	var why []string
	if g.underSet && r.Score.Score < g.under {
		why = append(why, fmt.Sprintf("score %d is below --fail-under %d", r.Score.Score, g.under))
	}
	if g.onSet {
		n := 0
		for _, f := range r.Findings {
			if !f.Suppressed && f.Severity >= g.on {
				n++
			}
		}
		if n > 0 {
			why = append(why, fmt.Sprintf("%d unsuppressed finding(s) at or above %s (--fail-on)", n, g.on))
		}
	}
	if len(why) == 0 {
		return nil
	}
	return gateError{"gate failed: " + strings.Join(why, "; ")}
}

func runAudit(e *env, c *command, args []string, posture bool) error {
	fs := newFlags(e, c)
	var a auditFlags
	a.add(fs)
	if err := parseFlags(e, c, fs, args); err != nil {
		return err
	}
	g, err := a.gates()
	if err != nil {
		return err
	}
	if a.rules {
		return listRules(e, a.format, a.out)
	}
	paths := fs.Args()
	if a.from == "" {
		if a.allTools {
			return usagef("--all-tools applies to --from only")
		}
		if err := needLedgers(paths); err != nil {
			return err
		}
	}
	// JSON Lines is an export of the findings, not a rendering of the
	// whole result, so it bypasses the report formats.
	jsonl := isJSONL(a.format, a.out)
	format, useColor := "", false
	if !jsonl {
		var err error
		if format, err = resolveFormat(a.format, a.out); err != nil {
			return err
		}
		if format == "pdf" && (a.out == "" || a.out == "-") && writerIsTTY(e.stdout) {
			return usagef("refusing to write a PDF to a terminal; use -o FILE")
		}
		if useColor, err = colorFlag(a.color, e.stdout, a.out); err != nil {
			return err
		}
	}
	grace, err := parseGraceFlags(a.graces)
	if err != nil {
		return err
	}
	now, filter, err := a.win.resolve()
	if err != nil {
		return err
	}
	if a.agencyTools < 1 || a.agencyTargets < 1 {
		return usagef("--agency-tools and --agency-targets must be at least 1")
	}
	opts := analyze.AuditOptions{Now: now, Filter: filter, Grace: grace, HermesHome: a.hermesHome,
		Rules:    owasp.Options{AgencyTools: a.agencyTools, AgencyTargets: a.agencyTargets},
		NoRedact: a.noRedact, Tool: analyze.ToolInfo{Name: "ledger-audit", Version: version},
		TrimMemory: true}
	if opts.Loops, err = a.loopConfig(e); err != nil {
		return err
	}
	if opts.Suppressions, err = a.suppressions(); err != nil {
		return err
	}
	// The process is ours: keep the audit's memory limit through the
	// merge and the rendering too (see analyze.HoldMemoryLimit).
	defer analyze.HoldMemoryLimit()()
	var res *analyze.Result
	if a.from != "" {
		res, err = auditTranscripts(e, a, paths, opts)
	} else {
		res, err = a.fleet.audit(paths, opts)
	}
	if err != nil {
		return err
	}
	if len(res.Ledgers) > 1 {
		s := analyze.SummarizeFleet(res)
		res.Fleet = &s
	}
	for _, w := range opts.Suppressions.Expired(now) {
		fmt.Fprintf(e.stderr, "ledger-audit: warning: %s\n", w)
	}
	if jsonl {
		if err := writeJSONL(e, a.out, res); err != nil {
			return err
		}
		return g.check(res)
	}
	if posture {
		res.Ghosts, res.Loops, res.Policy = []analyze.Ghost{}, nil, nil
	}
	rep, err := report.New(format, report.Options{Color: useColor, Width: terminalWidth(e.stdout)})
	if err != nil {
		return usagef("--format: %v", err)
	}
	if err := writeOutput(e, a.out, func(w io.Writer) error { return rep.Render(w, res) }); err != nil {
		return err
	}
	return g.check(res)
}

// loopConfig reads the guardrails to replay: --hermes-config (must
// exist), else config.yaml in --hermes-home or the environment's Hermes
// home (used when present).
func (a *auditFlags) loopConfig(e *env) (*analyze.LoopConfig, error) {
	path, required := a.hermesConf, true
	switch {
	case path != "":
	case a.hermesHome != "":
		path, required = filepath.Join(a.hermesHome, "config.yaml"), false
	default:
		path, required = analyze.HermesConfigPath(e.getenv), false
	}
	cfg, err := analyze.LoadLoopConfig(path, required)
	if err != nil {
		return nil, err
	}
	return &cfg, nil
}

func (a *auditFlags) suppressions() (*analyze.Suppressions, error) {
	path, required := a.ignore, a.ignore != ""
	if path == "" {
		path = analyze.DefaultSuppressionFile
	}
	known, err := analyze.KnownRule()
	if err != nil {
		return nil, err
	}
	return analyze.LoadSuppressions(path, required, known)
}

// listRules prints every rule an audit can raise.
func listRules(e *env, format, out string) error {
	rules, err := analyze.AllRules()
	if err != nil {
		return err
	}
	type row struct {
		finding.Rule
		Weight    int  `json:"weight"`
		Extension bool `json:"extension,omitempty"`
	}
	rows := make([]row, len(rules))
	for i, r := range rules {
		rows[i] = row{Rule: r, Weight: r.Severity.Weight(), Extension: r.Category.Extension()}
	}
	return writeOutput(e, out, func(w io.Writer) error {
		switch strings.ToLower(format) {
		case "json":
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(rows)
		case "", "table":
		default:
			return usagef("--rules: --format must be table or json, not %q", format)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "RULE\tCATEGORY\tSEVERITY\tWEIGHT\tTITLE")
		for _, r := range rows {
			cat := string(r.Category)
			if r.Extension {
				cat += " (community extension)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", r.ID, cat, r.Severity, r.Weight, r.Title)
		}
		return tw.Flush()
	})
}

// auditTranscripts imports agent transcripts into a temporary ledger,
// audits it, and removes it. The temporary file's name means nothing to
// the reader, so every mention of it in the result is replaced by a label
// naming where the calls came from.
func auditTranscripts(e *env, a auditFlags, paths []string, opts analyze.AuditOptions) (*analyze.Result, error) {
	if a.from != importer.FromClaudeCode && a.from != importer.FromCodex {
		return nil, usagef("--from: unknown transcript format %q (want claude-code or codex)", a.from)
	}
	if len(paths) == 0 {
		paths = importer.DefaultPaths(a.from, e.getenv)
		if len(paths) == 0 {
			return nil, usagef("--from %s: no transcript path given and none of the default folders exists", a.from)
		}
	}
	tmp, cleanup, err := importer.ImportToTemp(a.from, paths, importer.Options{AllTools: a.allTools, Warn: e.stderr})
	if err != nil {
		return nil, err
	}
	defer cleanup()
	res, err := analyze.Audit([]string{tmp}, opts)
	if err != nil {
		return nil, err
	}
	return relabelLedger(res, tmp, "import:"+a.from+":"+strings.Join(paths, ","))
}

// relabelLedger swaps one ledger path for a label throughout a Result.
// Going through the canonical JSON (which round-trips losslessly, see the
// report tests) reaches every field that names a ledger without this
// command knowing them all.
func relabelLedger(res *analyze.Result, from, to string) (*analyze.Result, error) {
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	q := func(s string) string { j, _ := json.Marshal(s); return string(j) }
	b = []byte(strings.ReplaceAll(string(b), q(from), q(to)))
	var out analyze.Result
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
