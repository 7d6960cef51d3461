package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/ledger-audit/ledger-audit/redact"
	"github.com/ledger-audit/ledger-audit/rules/policy"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/spf13/pflag"
)

// policy groups the policy-pack subcommands: replay (dry run over
// ledgers), check (one command or tool call, explained), test (a pack's
// examples) and list (packs and rules).
//
// Exit codes: 0 ok (check: allowed or only warned); 1 check decided
// "block" or test found failing examples; 2 usage or input error,
// including a bad pack ("<file>:<line>: <problem>").
func init() {
	c := &command{name: "policy", summary: "policy packs: replay over ledgers, check a command, test and list packs",
		usage: "replay|check|test|list [flags] ..."}
	c.run = func(e *env, args []string) error {
		if len(args) == 0 {
			return usagef("want a subcommand: replay, check, test or list")
		}
		sub, rest := args[0], args[1:]
		switch sub {
		case "replay":
			return policyReplay(e, rest)
		case "check":
			return policyCheck(e, rest)
		case "test":
			return policyTest(e, rest)
		case "list":
			return policyList(e, rest)
		case "-h", "--help", "help":
			fmt.Fprint(e.stdout, policyHelp)
			return nil
		}
		return usagef("unknown policy subcommand %q (want replay, check, test or list)", sub)
	}
	register(c)
}

const policyHelp = `usage: ledger-audit policy <subcommand> [flags]

  replay LEDGER... [--pack NAME|FILE]... [--format table|json|md] [-o FILE]
      dry run: every recorded call the packs would have blocked or warned
  check [--pack NAME|FILE]... [--tool TOOL] [--format text|json] -- 'COMMAND'
  check --json [--pack ...] < call.json
      evaluate one command or tool call and explain the decision; the JSON
      input is {"tool_name": ..., "args": {...}} or a Claude Code PreToolUse
      payload; --json prints {"decision": "allow|warn|block", "rule": ...,
      "reason": ..., ...}. Exit status 1 means "block".
  test PACK|FILE...
      run a pack's examples; lists failures, exit 1 if any
  list [--pack NAME|FILE]... [--format table|json]
      packs and their rules

Packs: built-in names (` + "default, strict" + `) or YAML files (rules/policy/README.md).
`

// packFlags is the repeatable --pack flag.
func packFlags(fs *pflag.FlagSet) *[]string {
	return fs.StringArray("pack", nil, "policy pack: a built-in name (default, strict) or a YAML file; repeatable (default: default)")
}

// loadPacks resolves --pack values; user files must pass their examples.
func loadPacks(specs []string) (*policy.Engine, error) {
	if len(specs) == 0 {
		specs = []string{"default"}
	}
	var packs []*policy.Pack
	seen := map[string]bool{}
	for _, s := range specs {
		if seen[s] {
			continue
		}
		seen[s] = true
		p, err := policy.Resolve(s)
		if err != nil {
			return nil, err
		}
		if !strings.HasPrefix(p.Source, "builtin:") {
			if err := p.CheckExamples(); err != nil {
				return nil, err
			}
		}
		packs = append(packs, p)
	}
	return policy.NewEngine(packs...), nil
}

// ---- replay ----

type replayOutput struct {
	SchemaVersion int      `json:"schema_version"`
	Ledgers       []string `json:"ledgers"`
	DryRun        bool     `json:"dry_run"`
	Redacted      bool     `json:"redacted"`
	*analyze.PolicyReport
}

func policyReplay(e *env, args []string) error {
	c := &command{name: "policy replay", usage: "LEDGER... [--pack NAME|FILE]... [--format table|json|md] [-o FILE]",
		summary: "dry-run policy packs over recorded calls; the ledgers are opened read-only"}
	fs := newFlags(e, c)
	var win window
	win.add(fs)
	packs := packFlags(fs)
	var lf listFlags
	lf.add(fs, "show matched commands without masking secrets", "table", "json", "md")
	paths, err := lf.parse(e, c, fs, args)
	if err != nil {
		return err
	}
	_, filter, err := win.resolve()
	if err != nil {
		return err
	}
	eng, err := loadPacks(*packs)
	if err != nil {
		return err
	}
	rep, err := analyze.ReplayPolicy(paths, analyze.PolicyOptions{Engine: eng, Filter: filter, NoRedact: lf.noRedact})
	if err != nil {
		return err
	}
	sorted := append([]string(nil), paths...)
	sort.Strings(sorted)
	res := replayOutput{SchemaVersion: analyze.SchemaVersion, Ledgers: sorted, DryRun: true, Redacted: !lf.noRedact, PolicyReport: rep}
	return writeOutput(e, lf.out, func(w io.Writer) error {
		switch lf.format {
		case "json":
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			return enc.Encode(res)
		case "md":
			return renderReplayMarkdown(w, &res)
		}
		return renderReplayTable(w, &res)
	})
}

func clipCell(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func stamp(h analyze.PolicyHit) string {
	if h.TS.IsZero() {
		return "-"
	}
	return ledger.FormatTime(h.TS)
}

func renderReplayTable(w io.Writer, r *replayOutput) error {
	gw := &ghostsWriter{w: w}
	gw.printf("Policy replay (dry run) of %d call(s) in %d ledger(s), packs %s: %d would block, %d would warn\n\n",
		r.Calls, len(r.Ledgers), strings.Join(r.Packs, ", "), r.Blocked, r.Warned)
	if len(r.Hits) == 0 {
		gw.printf("No call matched.\n")
		return gw.err
	}
	tb := tablewriter.NewTable(gw, tablewriter.WithRowAutoWrap(tw.WrapNone), tablewriter.WithHeaderAutoFormat(tw.Off), tablewriter.WithTrimSpace(tw.On))
	tb.Header("#", "TS (UTC)", "SESSION", "ROW", "TOOL", "ACTION", "RULE", "SEVERITY", "MATCHED", "NOTES")
	for i, h := range r.Hits {
		if err := tb.Append(strconv.Itoa(i+1), stamp(h), h.Session, strconv.FormatInt(h.Row, 10), h.Tool, h.Action,
			h.Pack+"/"+h.RuleID, h.Severity.String(), clipCell(h.Matched, 60), strings.Join(h.Notes, ",")); err != nil {
			return err
		}
	}
	if err := tb.Render(); err != nil {
		return err
	}
	for i, h := range r.Hits {
		gw.printf("\n#%d %s %s/%s on row %d of %s (session %s)\n", i+1, h.Action, h.Pack, h.RuleID, h.Row, h.Ledger, h.Session)
		gw.printf("  matched: %s\n", clipCell(h.Matched, 300))
		gw.printf("  reason: %s\n", h.Reason)
	}
	gw.printf("\nTotals per rule:\n")
	tt := tablewriter.NewTable(gw, tablewriter.WithRowAutoWrap(tw.WrapNone), tablewriter.WithHeaderAutoFormat(tw.Off), tablewriter.WithTrimSpace(tw.On))
	tt.Header("PACK", "RULE", "ACTION", "CALLS")
	for _, t := range r.Totals {
		if err := tt.Append(t.Pack, t.RuleID, t.Action, strconv.Itoa(t.Count)); err != nil {
			return err
		}
	}
	if err := tt.Render(); err != nil {
		return err
	}
	return gw.err
}

// mdCell escapes a Markdown table cell.
func mdCell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "`", "'")
	return s
}

func renderReplayMarkdown(w io.Writer, r *replayOutput) error {
	gw := &ghostsWriter{w: w}
	gw.printf("# Policy replay (dry run)\n\n")
	gw.printf("%d call(s) in %d ledger(s), packs %s: **%d would block**, %d would warn.\n\n", r.Calls, len(r.Ledgers), strings.Join(r.Packs, ", "), r.Blocked, r.Warned)
	if len(r.Hits) == 0 {
		gw.printf("No call matched.\n")
		return gw.err
	}
	gw.printf("| # | TS (UTC) | Session | Row | Tool | Action | Rule | Severity | Matched | Reason |\n")
	gw.printf("|---|---|---|---|---|---|---|---|---|---|\n")
	for i, h := range r.Hits {
		matched := mdCell(clipCell(h.Matched, 120))
		if len(h.Notes) > 0 {
			matched += " _(" + strings.Join(h.Notes, ", ") + ")_"
		}
		gw.printf("| %d | %s | %s | %d | %s | %s | %s/%s | %s | `%s` | %s |\n", i+1, stamp(h), mdCell(h.Session), h.Row, mdCell(h.Tool),
			h.Action, h.Pack, h.RuleID, h.Severity, matched, mdCell(h.Reason))
	}
	gw.printf("\n## Totals per rule\n\n| Pack | Rule | Action | Calls |\n|---|---|---|---|\n")
	for _, t := range r.Totals {
		gw.printf("| %s | %s | %s | %d |\n", t.Pack, t.RuleID, t.Action, t.Count)
	}
	return gw.err
}

// ---- check ----

// checkInput is a tool call on stdin: Hermes' pre_tool_call shape
// ({"tool_name", "args"}), Claude Code's PreToolUse payload
// ({"tool_name", "tool_input", ...}), or {"tool", "args"}.
type checkInput struct {
	ToolName  string          `json:"tool_name"`
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args"`
	ToolInput json.RawMessage `json:"tool_input"`
	Command   string          `json:"command"`
}

// checkOutput is what check --json prints. Decision "block" also exits 1.
type checkOutput struct {
	Decision    string                `json:"decision"`
	Rule        string                `json:"rule,omitempty"`
	Pack        string                `json:"pack,omitempty"`
	Severity    string                `json:"severity,omitempty"`
	Reason      string                `json:"reason,omitempty"`
	Tool        string                `json:"tool"`
	Hits        []checkHit            `json:"hits"`
	Commands    []policy.TraceCommand `json:"commands,omitempty"`
	Files       []string              `json:"files,omitempty"`
	Unparseable bool                  `json:"unparseable,omitempty"`
	ParseError  string                `json:"parse_error,omitempty"`
}

type checkHit struct {
	Pack     string   `json:"pack"`
	Rule     string   `json:"rule"`
	Action   string   `json:"action"`
	Severity string   `json:"severity"`
	Category string   `json:"category"`
	Tags     []string `json:"tags,omitempty"`
	Matched  string   `json:"matched"`
	Via      []string `json:"via,omitempty"`
	Notes    []string `json:"notes,omitempty"`
	Reason   string   `json:"reason"`
}

func policyCheck(e *env, args []string) error {
	c := &command{name: "policy check", usage: "[--pack NAME|FILE]... [--tool TOOL] [--format text|json] -- 'COMMAND' | --json < CALL.json",
		summary: "evaluate one command or tool call against the packs and explain the decision (exit 1 = block)"}
	fs := newFlags(e, c)
	packs := packFlags(fs)
	tool := fs.String("tool", "terminal", "tool name the command is given to (terminal, Bash, execute_code, ...)")
	asJSON := fs.Bool("json", false, "read a tool call as JSON on stdin and print the decision as JSON")
	format := fs.String("format", "text", "text or json")
	noRedact := fs.Bool("no-redact", false, "show matched commands without masking secrets")
	if err := parseFlags(e, c, fs, args); err != nil {
		return err
	}
	if *format != "text" && *format != "json" {
		return usagef("--format: want text or json, not %q", *format)
	}
	eng, err := loadPacks(*packs)
	if err != nil {
		return err
	}
	var toolName, callArgs string
	if *asJSON {
		if len(fs.Args()) > 0 {
			return usagef("--json reads the call from stdin; do not also give a command")
		}
		data, err := io.ReadAll(io.LimitReader(e.stdin, 8<<20))
		if err != nil {
			return fmt.Errorf("stdin: %v", err)
		}
		toolName, callArgs, err = parseCheckInput(data)
		if err != nil {
			return err
		}
		*format = "json"
	} else {
		if len(fs.Args()) == 0 {
			return usagef("no command given (policy check -- 'COMMAND', or --json with a call on stdin)")
		}
		toolName = *tool
		cmd := strings.Join(fs.Args(), " ")
		b, _ := json.Marshal(map[string]string{"command": cmd})
		callArgs = string(b)
		if toolName == "execute_code" {
			b, _ = json.Marshal(map[string]string{"code": cmd})
			callArgs = string(b)
		}
	}
	d := eng.Check(toolName, callArgs)
	red := redact.Redactor{Off: *noRedact}
	out := checkOutput{Decision: d.Decision, Tool: toolName, Hits: []checkHit{}, Files: d.Files, Unparseable: d.Unparseable, ParseError: d.ParseError}
	for _, tc := range d.Commands {
		tc.Command, tc.Source = red.String(tc.Command), red.String(tc.Source)
		out.Commands = append(out.Commands, tc)
	}
	for _, h := range d.Hits {
		out.Hits = append(out.Hits, checkHit{Pack: h.Pack, Rule: h.RuleID, Action: string(h.Action), Severity: h.Severity.String(),
			Category: string(h.Category), Tags: h.Tags, Matched: red.String(h.Matched), Via: h.Via, Notes: h.Notes, Reason: h.Reason})
	}
	// The headline rule is the first blocking hit, else the first warning.
	if len(out.Hits) > 0 {
		head := out.Hits[0]
		for _, h := range out.Hits {
			if h.Action == "block" {
				head = h
				break
			}
		}
		out.Rule, out.Pack, out.Severity, out.Reason = head.Rule, head.Pack, head.Severity, head.Reason
	}
	if *format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		for _, l := range d.Explain() {
			fmt.Fprintln(e.stdout, red.String(l))
		}
	}
	if d.Decision == "block" {
		return gateError{}
	}
	return nil
}

// parseCheckInput accepts the call shapes of checkInput.
func parseCheckInput(data []byte) (tool, args string, err error) {
	var in checkInput
	if err := json.Unmarshal(data, &in); err != nil {
		return "", "", fmt.Errorf("stdin: not a JSON tool call: %v", err)
	}
	tool = in.ToolName
	if tool == "" {
		tool = in.Tool
	}
	raw := in.Args
	if len(raw) == 0 || string(raw) == "null" {
		raw = in.ToolInput
	}
	switch {
	case len(raw) > 0 && string(raw) != "null":
		args = string(raw)
		// Some callers send args as a JSON string holding JSON.
		var s string
		if json.Unmarshal(raw, &s) == nil {
			args = s
		}
	case in.Command != "":
		b, _ := json.Marshal(map[string]string{"command": in.Command})
		args = string(b)
	default:
		return "", "", fmt.Errorf("stdin: tool call has no args (want \"args\" or \"tool_input\")")
	}
	if tool == "" {
		tool = "terminal"
	}
	return tool, args, nil
}

// ---- test ----

func policyTest(e *env, args []string) error {
	c := &command{name: "policy test", usage: "PACK|FILE...", summary: "run the examples of policy packs"}
	fs := newFlags(e, c)
	verbose := fs.BoolP("verbose", "v", false, "list passing examples too")
	if err := parseFlags(e, c, fs, args); err != nil {
		return err
	}
	if len(fs.Args()) == 0 {
		return usagef("no pack given (a built-in name or a YAML file)")
	}
	failed := 0
	var first *policy.LoadError
	for _, spec := range fs.Args() {
		p, err := policy.Resolve(spec)
		if err != nil {
			return err
		}
		results := p.Test()
		nf := 0
		for _, r := range results {
			if !r.OK() {
				nf++
				fmt.Fprintf(e.stdout, "FAIL %s:%d: %s: %q should %s", displaySource(p), r.Line, r.Rule, r.Example, strings.ReplaceAll(r.Want, "_", " "))
				if r.Matched != "" {
					fmt.Fprintf(e.stdout, " (matched %q)", r.Matched)
				}
				fmt.Fprintln(e.stdout)
			} else if *verbose {
				fmt.Fprintf(e.stdout, "ok   %s: %s: %q %s\n", p.Name, r.Rule, r.Example, r.Want)
			}
		}
		fmt.Fprintf(e.stdout, "%s (%s): %d rules, %d examples, %d failed\n", p.Name, displaySource(p), len(p.Rules), len(results), nf)
		if nf > 0 && first == nil {
			if le, ok := p.CheckExamples().(*policy.LoadError); ok {
				first = le
			}
		}
		failed += nf
	}
	if failed > 0 {
		if first != nil {
			return gateError{msg: first.Error()}
		}
		return gateError{msg: fmt.Sprintf("%d example(s) failed", failed)}
	}
	return nil
}

func displaySource(p *policy.Pack) string { return p.Source }

// ---- list ----

type listRule struct {
	Pack     string   `json:"pack"`
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	Severity string   `json:"severity"`
	Category string   `json:"category"`
	Action   string   `json:"action"`
	Tools    []string `json:"tools"`
	Tags     []string `json:"tags"`
}

type listPack struct {
	Name        string     `json:"name"`
	Version     string     `json:"version"`
	Source      string     `json:"source"`
	Description string     `json:"description,omitempty"`
	Rules       []listRule `json:"rules"`
}

func policyList(e *env, args []string) error {
	c := &command{name: "policy list", usage: "[--pack NAME|FILE]... [--format table|json]", summary: "list policy packs and their rules"}
	fs := newFlags(e, c)
	packs := packFlags(fs)
	format := fs.String("format", "table", "table or json")
	if err := parseFlags(e, c, fs, args); err != nil {
		return err
	}
	if *format != "table" && *format != "json" {
		return usagef("--format: want table or json, not %q", *format)
	}
	specs := *packs
	if len(specs) == 0 {
		specs = policy.BuiltinNames()
	}
	eng, err := loadPacks(specs)
	if err != nil {
		return err
	}
	var out []listPack
	for _, p := range eng.Packs() {
		lp := listPack{Name: p.Name, Version: p.Version, Source: p.Source, Description: p.Description}
		for _, r := range p.Rules {
			lp.Rules = append(lp.Rules, listRule{Pack: p.Name, ID: r.ID, Title: r.Title, Severity: r.Severity.String(),
				Category: string(r.Category), Action: string(r.Action), Tools: r.Tools, Tags: r.Tags})
		}
		out = append(out, lp)
	}
	if *format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	}
	gw := &ghostsWriter{w: e.stdout}
	for i, p := range out {
		if i > 0 {
			gw.printf("\n")
		}
		gw.printf("%s %s (%s): %d rules\n", p.Name, p.Version, p.Source, len(p.Rules))
		tb := tablewriter.NewTable(gw, tablewriter.WithRowAutoWrap(tw.WrapNone), tablewriter.WithHeaderAutoFormat(tw.Off), tablewriter.WithTrimSpace(tw.On))
		tb.Header("RULE", "SEVERITY", "CATEGORY", "ACTION", "TAGS", "TITLE")
		for _, r := range p.Rules {
			if err := tb.Append(r.ID, r.Severity, r.Category, r.Action, strings.Join(r.Tags, ","), r.Title); err != nil {
				return err
			}
		}
		if err := tb.Render(); err != nil {
			return err
		}
	}
	return gw.err
}
