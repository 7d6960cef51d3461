package policy

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/ledger-audit/ledger-audit/internal/refilter"
	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/ledger-audit/ledger-audit/rules/shell"
)

// NewEngine builds an engine over packs, evaluated in order.
func NewEngine(packs ...*Pack) *Engine {
	return &Engine{packs: append([]*Pack(nil), packs...)}
}

// Packs returns the engine's packs.
func (e *Engine) Packs() []*Pack { return e.packs }

// Decision is the outcome of evaluating one call, with an explanation.
type Decision struct {
	// Decision is "allow", "warn" or "block": the strongest action of
	// the hits.
	Decision string `json:"decision"`
	Hits     []Hit  `json:"hits"`
	// Commands are the normalised commands the call would run.
	Commands []TraceCommand `json:"commands,omitempty"`
	// Files are the file-tool paths the call reads or writes.
	Files []string `json:"files,omitempty"`
	// Unparseable is set when the shell text did not parse and token
	// matching was used instead.
	Unparseable bool   `json:"unparseable,omitempty"`
	ParseError  string `json:"parse_error,omitempty"`
}

// TraceCommand is one normalised command in a Decision.
type TraceCommand struct {
	Command string   `json:"command"`
	Source  string   `json:"source,omitempty"` // the text it came from
	Via     []string `json:"via,omitempty"`
	Notes   []string `json:"notes,omitempty"`
}

// sessionState is one session's shell state in a Replay.
type sessionState struct {
	sh *shell.State
}

// maxSessions bounds a replay over a huge fleet ledger; the oldest
// session's state is dropped first.
const maxSessions = 4096

func (r *Replay) observe(c *ledger.Call) []Hit {
	return r.Evaluate(c).Hits
}

// Evaluate is Observe with the full explanation.
func (r *Replay) Evaluate(c *ledger.Call) Decision {
	return r.evaluate(c, nil)
}

func (r *Replay) evaluate(c *ledger.Call, obj *decoded) Decision {
	if c == nil {
		return Decision{Decision: "allow"}
	}
	ss, ok := r.state[c.SessionID]
	if !ok {
		if len(r.state) >= maxSessions {
			for k := range r.state {
				delete(r.state, k)
				break
			}
		}
		ss = &sessionState{sh: shell.NewState()}
		r.state[c.SessionID] = ss
	}
	if c.Cwd != "" {
		// The client's own record of where the call ran wins over what
		// earlier "cd"s suggested.
		ss.sh.Cwd, ss.sh.CwdByCd = c.Cwd, false
	}
	return r.engine.evaluate(ss.sh, c.Tool, c.Args, obj)
}

// Check evaluates one call on its own, with no session history: tool is
// the tool name ("terminal", "Bash", "write_file", ...), args its JSON
// arguments. A plain command line is accepted as args for shell tools.
func (e *Engine) Check(tool, args string) Decision {
	return e.evaluate(shell.NewState(), tool, args, nil)
}

// CheckCommand evaluates a terminal command line.
func (e *Engine) CheckCommand(command string) Decision {
	b, _ := json.Marshal(map[string]string{"command": command})
	return e.Check("terminal", string(b))
}

// fileEvent is a file-tool access.
type fileEvent struct {
	path, access, content string
}

// evaluate decides one call; obj, when not nil, is args already decoded
// by the caller (ledger.DecodeArgs).
func (e *Engine) evaluate(st *shell.State, tool, args string, obj *decoded) Decision {
	tool = mcpName(tool)
	cmds, files, perr := extract(st, tool, args, obj)
	d := Decision{Decision: "allow"}
	if perr != nil {
		d.Unparseable = true
		d.ParseError = perr.Error()
	}
	views := make([]*cmdView, 0, len(cmds))
	for i := range cmds {
		v := newView(&cmds[i])
		if hostedScratch(v) {
			continue
		}
		views = append(views, v)
		if len(views) <= 64 {
			d.Commands = append(d.Commands, TraceCommand{Command: v.str, Source: cmds[i].Text, Via: cmds[i].Via, Notes: cmds[i].Notes})
		}
	}
	linkPipes(views)
	for _, f := range files {
		d.Files = append(d.Files, f.access+" "+f.path)
	}
	hits := e.match(tool, views, files)
	if fileAccess(tool) != "" && len(views) > 0 {
		// Commands a file tool's write schedules (a job in /etc/cron.d)
		// run in a shell later: they are judged as a terminal's.
		var sched []*cmdView
		for _, v := range views {
			if len(v.c.Via) > 1 && v.c.Via[0] == tool {
				sched = append(sched, v)
			}
		}
		if len(sched) > 0 {
			seen := map[string]bool{}
			for _, h := range hits {
				seen[h.Pack+"/"+h.RuleID] = true
			}
			for _, h := range e.match("terminal", sched, nil) {
				if !seen[h.Pack+"/"+h.RuleID] {
					hits = append(hits, h)
				}
			}
		}
	}
	for _, h := range hits {
		if perr != nil {
			h.Notes = appendUnique(h.Notes, "unparseable")
		}
		d.Hits = append(d.Hits, h)
	}
	for _, h := range d.Hits {
		if h.Action == ActionBlock {
			d.Decision = "block"
			break
		}
		d.Decision = "warn"
	}
	return d
}

// hostedScratch reports a step of a hosted CI runner's job that only
// changes the runner's own disk ("sudo rm -rf /usr/share/dotnet" to free
// space): the machine is thrown away after the job. What the step does
// elsewhere (a cloud, a repository, a database) is judged as usual.
func hostedScratch(v *cmdView) bool {
	hosted := false
	for _, x := range v.c.Via {
		hosted = hosted || strings.HasPrefix(x, shell.HostedCILabel)
	}
	if !hosted {
		return false
	}
	switch v.c.Name {
	case "rm", "rmdir", "unlink", "find", "shred", "chmod", "chown", "dd", "truncate", "wipefs", "mkfs", "swapoff", "git":
		return v.c.Name != "git" || len(v.c.Args) > 0 && (v.c.Args[0] == "clean" || v.c.Args[0] == "reset")
	}
	return false
}

// mref points at one matcher of one rule, in evaluation order.
type mref struct {
	order int // rule position across all packs
	pack  *Pack
	rule  *Rule
	m     *Matcher
}

// index sorts command matchers by program so a command is only tried
// against the matchers that can match it: a check has to stay far below
// 100 µs with a few hundred matchers loaded.
type index struct {
	rules  int // rules across all packs (mref.order < rules)
	byProg map[string][]mref
	wild   []mref // glob programs ("python*") or no program condition
	files  []mref

	// wildBy caches, per program name, the wild matchers whose program
	// globs can match it. Most wild matchers list dozens of programs
	// ("sh bash zsh ... python* ... julia"), and testing every command
	// against every list was a seventh of the matching time; the answer
	// depends on the name alone. Bounded, since names come from the
	// ledger; shared by the replays of a fleet audit, hence the lock.
	wildMu sync.RWMutex
	wildBy map[string][]mref
}

// maxWildNames bounds index.wildBy: past it, a name's list is computed
// on every use.
const maxWildNames = 8192

// wildFor returns the wild matchers that can apply to a command named
// name, in index order.
func (ix *index) wildFor(name string) []mref {
	ix.wildMu.RLock()
	l, ok := ix.wildBy[name]
	ix.wildMu.RUnlock()
	if ok {
		return l
	}
	l = make([]mref, 0, 16)
	for _, ref := range ix.wild {
		if len(ref.m.programs) == 0 || anyGlob(ref.m.programs, name) {
			l = append(l, ref)
		}
	}
	ix.wildMu.Lock()
	if len(ix.wildBy) < maxWildNames {
		ix.wildBy[name] = l
	}
	ix.wildMu.Unlock()
	return l
}

func (e *Engine) idx() *index {
	e.once.Do(func() {
		ix := &index{byProg: map[string][]mref{}, wildBy: map[string][]mref{}}
		order := 0
		for _, p := range e.packs {
			for _, r := range p.Rules {
				for _, m := range r.Match {
					ref := mref{order: order, pack: p, rule: r, m: m}
					if len(m.paths) > 0 {
						ix.files = append(ix.files, ref)
						continue
					}
					exact := len(m.Programs) > 0
					for _, g := range m.Programs {
						if strings.ContainsAny(g, "*?[{\\") {
							exact = false
						}
					}
					if !exact {
						ix.wild = append(ix.wild, ref)
						continue
					}
					for _, g := range m.Programs {
						ix.byProg[g] = append(ix.byProg[g], ref)
					}
				}
				order++
			}
		}
		ix.rules = order
		e.index = ix
	})
	return e.index
}

// match returns one hit per rule (the first command, in execution order,
// that matches it), ordered as the rules are.
func (e *Engine) match(tool string, views []*cmdView, files []fileEvent) []Hit {
	ix := e.idx()
	// Per-rule state in slices indexed by rule order (a map per call was
	// a tenth of the matching time): 0 unknown, 1 applies to this tool,
	// 2 does not, 3 already hit.
	const (
		unknown = iota
		applies
		skip
		done
	)
	state := make([]uint8, ix.rules)
	hits := make([]*Hit, ix.rules)
	ready := func(ref mref) bool {
		switch state[ref.order] {
		case applies:
			return true
		case unknown:
			if toolApplies(ref.rule.Tools, tool) {
				state[ref.order] = applies
				return true
			}
			state[ref.order] = skip
		}
		return false
	}
	try := func(ref mref, v *cmdView, byName bool) {
		if !ready(ref) {
			return
		}
		res, ok := ref.m.matchCommandIndexed(v, byName)
		if !ok {
			return
		}
		h := ref.rule.hit(ref.pack, res.matched, v.c.Via)
		h.Notes = append(h.Notes, res.notes...)
		for _, n := range v.c.Notes {
			if n == "cross-call" || n == "unparseable" || n == "fork-bomb" {
				h.Notes = appendUnique(h.Notes, n)
			}
		}
		h.Source = v.c.Text
		hits[ref.order], state[ref.order] = &h, done
	}
	for _, v := range views {
		if v.c.HelpOnly() {
			continue
		}
		for _, ref := range ix.byProg[v.c.Name] {
			try(ref, v, true)
		}
		if n := v.c.Name; len(n) > 4 && strings.EqualFold(n[len(n)-4:], ".exe") {
			low := strings.ToLower(n)
			// Windows names programs case-insensitively, with or without
			// ".exe" (Sysmon64.exe is sysmon64).
			for _, k := range []string{low, strings.TrimSuffix(low, ".exe")} {
				if k != v.c.Name {
					for _, ref := range ix.byProg[k] {
						try(ref, v, true)
					}
				}
			}
		}
		for _, ref := range ix.wildFor(v.c.Name) {
			try(ref, v, true)
		}
	}
	for _, f := range files {
		np := normPath(f.path)
		for _, ref := range ix.files {
			if !ready(ref) {
				continue
			}
			if res, ok := ref.m.matchFile(f.path, np, f.access, f.content); ok {
				h := ref.rule.hit(ref.pack, res.matched, nil)
				hits[ref.order], state[ref.order] = &h, done
			}
		}
	}
	var out []Hit
	for _, h := range hits {
		if h != nil {
			out = append(out, *h)
		}
	}
	return out
}

func (rule *Rule) hit(p *Pack, matched string, via []string) Hit {
	return Hit{
		Pack: p.Name, RuleID: rule.ID, Title: rule.Title, Severity: rule.Severity, Category: rule.Category,
		Action: rule.Action, Reason: rule.Reason, Tags: append([]string(nil), rule.Tags...),
		Matched: matched, Via: append([]string(nil), via...), Remediation: rule.Remediation,
	}
}

func appendUnique(l []string, s string) []string {
	for _, x := range l {
		if x == s {
			return l
		}
	}
	return append(l, s)
}

// toolApplies matches a tool name against a rule's tool globs.
func toolApplies(globs []string, tool string) bool {
	for _, g := range globs {
		if g == tool || g == "*" {
			return true
		}
		if strings.HasSuffix(g, "*") && strings.HasPrefix(tool, strings.TrimSuffix(g, "*")) {
			return true
		}
	}
	return false
}

// Tool argument shapes (FACTS.md): Hermes terminal {"command"}, Claude
// Code Bash {"command"}, execute_code {"code"}, write_file {"path",
// "content"}, Write {"file_path","content"}, Edit {"file_path",
// "old_string","new_string"}, patch {"path", ...} or a V4A patch text.
var (
	shellKeys   = []string{"command", "cmd", "script", "shell_command", "commandLine"}
	pathKeys    = []string{"path", "file_path", "filename", "file", "notebook_path", "filePath", "target_file"}
	patchFileRe = refilter.MustCompile(`(?m)^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\+\+\+ (?:b/)?(\S+)`)
)

func extract(st *shell.State, tool, args string, obj *decoded) ([]shell.Command, []fileEvent, error) {
	var m ledger.ArgsObject
	if obj != nil {
		m = obj.m
	} else {
		m = ledger.DecodeArgs(args)
	}
	if m == nil {
		// Capture keeps at most 4000 characters of the arguments, so a
		// long script or file body arrives cut mid-string; some foreign
		// writers store raw newlines inside strings. Either way the call
		// still says what it runs or writes: read what can be read.
		m = lenientObject(args)
	}
	if m == nil {
		// Not a JSON object: for a shell tool, the text is the command.
		if isShellTool(tool) || tool == "" {
			return parseShell(args, st)
		}
		return nil, nil, nil
	}
	str := func(keys ...string) (string, bool) {
		for _, k := range keys {
			if v, ok := m[k].(string); ok {
				return v, true
			}
		}
		return "", false
	}
	var cmds []shell.Command
	var files []fileEvent
	var perr error
	switch {
	case tool == "cronjob" || tool == "schedule" || strings.HasSuffix(tool, "cron_create"):
		// Hermes' cronjob tool: the job's command runs later, on its
		// schedule, as a crontab entry's would; walked the same way.
		if c, ok := str("command", "cmd", "script"); ok && c != "" {
			line := c
			if sch, ok := str("schedule", "cron"); ok && strings.Count(sch, " ") == 4 {
				line = sch + " " + c
			} else {
				line = "* * * * * " + c
			}
			return parseShell("(crontab -l; echo "+shellQuote(line)+") | crontab -", st)
		}
		return nil, nil, nil
	case tool == "execute_code" || strings.HasSuffix(tool, "execute_python") || strings.HasSuffix(tool, "run_python"):
		code, _ := str("code", "source", "script")
		lang, _ := str("language", "lang")
		prog := "python3"
		switch strings.ToLower(lang) {
		case "bash", "sh", "shell", "zsh":
			return parseShell(code, st)
		case "javascript", "js", "node", "typescript":
			prog = "node"
		}
		flag := "-c"
		if prog == "node" {
			flag = "-e"
		}
		// Cells of one session share a kernel: names an earlier cell
		// assigned are known here (p = '~/.ssh/' + 'id_rsa', then
		// open(p).read() in the next cell).
		cmds = shell.ParseArgv([]string{prog, flag, st.KernelPrelude(prog, code) + code}, st)
		st.AddKernelCell(prog, code)
		for i := range cmds {
			cmds[i].Via = append([]string{"execute_code"}, cmds[i].Via...)
		}
		return cmds, nil, nil
	}
	if argv, ok := mcpArgv(tool, m); ok {
		cmds = shell.ParseArgv(argv, st)
		for i := range cmds {
			cmds[i].Via = append([]string{tool}, cmds[i].Via...)
		}
	} else if c, ok := str(shellKeys...); ok && (isShellTool(tool) || strings.HasPrefix(tool, "mcp__") || tool == "") {
		cmds, _, perr = parseShell(c, st)
	} else if q, ok := str("sql", "query", "statement"); ok && strings.HasPrefix(tool, "mcp__") && sqlStatementRe.MatchString(q) {
		// A database MCP server's query tool: the statement, as that
		// database's client would run it.
		cmds = shell.ParseArgv([]string{mcpSQLClient(tool), "-c", q}, st)
		for i := range cmds {
			cmds[i].Via = append([]string{tool}, cmds[i].Via...)
		}
	} else if c, ok := m["command"].([]any); ok && len(c) > 0 {
		// An argv array (some MCP shells).
		var argv []string
		for _, x := range c {
			if s, ok := x.(string); ok {
				argv = append(argv, s)
			}
		}
		cmds = shell.ParseArgv(argv, st)
	}
	access := fileAccess(tool)
	if p, ok := str(pathKeys...); ok && access != "" {
		content := ""
		switch tool {
		case "Edit", "edit_file", "str_replace_editor":
			nv, _ := str("new_string", "new_str", "new")
			ov, _ := str("old_string", "old_str", "old")
			content = nv
			st.EditFile(p, ov, nv, tool)
		case "MultiEdit":
			if edits, ok := m["edits"].([]any); ok {
				for _, e := range edits {
					if em, ok := e.(map[string]any); ok {
						nv, _ := em["new_string"].(string)
						ov, _ := em["old_string"].(string)
						content += nv + "\n"
						st.EditFile(p, ov, nv, tool)
					}
				}
			}
		case "patch":
			// Hermes writes old_string/new_string; other clients old/new,
			// old_str/new_str or search/replace.
			nv, _ := str("new_string", "new_str", "new", "replace", "content")
			ov, _ := str("old_string", "old_str", "old", "search")
			content = nv
			if nv != "" {
				st.EditFile(p, ov, nv, tool)
			}
		default:
			content, _ = str("content", "contents", "text", "new_source", "data")
			if content == "" && strings.HasPrefix(tool, "mcp__") {
				// MCP filesystem edit_file: {"edits": [{"newText": ...}]}.
				content = mcpEditedText(m)
			}
			if access == "write" {
				st.WriteFile(p, content, false, tool)
			}
		}
		files = append(files, fileEvent{path: p, access: access, content: content})
		if access == "write" {
			cmds = append(cmds, scheduledCommands(tool, p, content, st)...)
		}
		if access == "read" {
			// "ln -s /etc/shadow notes.txt", then Read notes.txt: the file
			// tool reads the original.
			if o := st.OriginOf(p); o != "" {
				files = append(files, fileEvent{path: o, access: access})
			}
		}
	}
	if pt, ok := str("patch", "input", "diff"); ok && (tool == "patch" || tool == "apply_patch") {
		added := patchAdded(pt)
		headers := patchFileRe.FindAllStringSubmatch(pt, 16)
		for _, mm := range headers {
			p := strings.TrimSpace(mm[1] + mm[2])
			files = append(files, fileEvent{path: p, access: "write", content: added})
			st.WriteFile(p, added, false, tool)
		}
		if p, ok := str(pathKeys...); ok && len(headers) == 0 && added != "" {
			// A bare hunk for the file named by the call's own path.
			files = append(files, fileEvent{path: p, access: "write", content: added})
			st.WriteFile(p, added, false, tool)
		}
	}
	return cmds, files, perr
}

func patchAdded(pt string) string {
	var b strings.Builder
	for _, l := range strings.Split(pt, "\n") {
		if strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++") {
			b.WriteString(l[1:] + "\n")
		}
	}
	return b.String()
}

// scheduledCommands are the commands a file written by a file tool will
// run later (a job in /etc/cron.d, a udev rule's RUN, a cron.daily
// script), read as if typed, with how they are reached in Via.
func scheduledCommands(tool, p, content string, st *shell.State) []shell.Command {
	lines, label := shell.ScheduledLines(p, content)
	var out []shell.Command
	for _, l := range lines {
		more, _ := shell.Parse(l, st)
		for i := range more {
			more[i].Via = append([]string{tool, label}, more[i].Via...)
		}
		out = append(out, more...)
	}
	return out
}

func parseShell(src string, st *shell.State) ([]shell.Command, []fileEvent, error) {
	cmds, err := shell.Parse(src, st)
	return cmds, nil, err
}

func isShellTool(tool string) bool {
	switch tool {
	case "terminal", "Bash", "bash", "shell", "run_shell_command", "run_command", "exec", "local_shell", "shell_command":
		return true
	}
	return false
}

// mcpName spells an MCP tool the way the packs' "mcp__*" globs expect:
// some clients name them mcp_SERVER_TOOL with one underscore.
func mcpName(tool string) string {
	if strings.HasPrefix(tool, "mcp_") && !strings.HasPrefix(tool, "mcp__") {
		return "mcp__" + tool[len("mcp_"):]
	}
	return tool
}

// sqlStatementRe is text that starts like a SQL statement.
var sqlStatementRe = regexp.MustCompile(`(?is)^\s*(select|with|insert|update|delete|drop|truncate|alter|create|grant|revoke|copy|vacuum|explain|show|set|begin|call)\b`)

// mcpSQLClient is the client a database MCP server's statements are
// read as, by the server's name.
func mcpSQLClient(tool string) string {
	t := strings.ToLower(tool)
	switch {
	case strings.Contains(t, "mysql") || strings.Contains(t, "mariadb"):
		return "mysql"
	case strings.Contains(t, "sqlite"):
		return "sqlite3"
	case strings.Contains(t, "clickhouse"):
		return "clickhouse-client"
	case strings.Contains(t, "snowflake"):
		return "snowsql"
	}
	return "psql"
}

// fileAccess says whether a tool reads or writes the path it is given.
func fileAccess(tool string) string {
	switch tool {
	case "write_file", "Write", "Edit", "MultiEdit", "NotebookEdit", "patch", "create_file", "edit_file", "str_replace_editor", "apply_patch":
		return "write"
	case "Read", "read_file", "view", "NotebookRead", "cat", "Grep", "grep", "search_files", "grep_search":
		// A search tool prints the matching lines of what it searches.
		return "read"
	}
	if strings.HasPrefix(tool, "mcp__") {
		t := strings.ToLower(tool)
		switch {
		case strings.Contains(t, "write") || strings.Contains(t, "edit") || strings.Contains(t, "create") || strings.Contains(t, "append") || strings.Contains(t, "move") || strings.Contains(t, "put") || strings.Contains(t, "upload"):
			return "write"
		case strings.Contains(t, "read") || strings.Contains(t, "get") || strings.Contains(t, "view") || strings.Contains(t, "open") || strings.Contains(t, "cat"):
			return "read"
		}
		return "any"
	}
	return ""
}

// Explain renders a Decision as the lines "policy check" prints.
func (d Decision) Explain() []string {
	var out []string
	if d.Unparseable {
		how := "fell back to token matching"
		if strings.Contains(d.ParseError, "; read with the ") {
			how = "read with the open quote closed"
		}
		out = append(out, "unparseable: "+how+" ("+d.ParseError+")")
	}
	for i, c := range d.Commands {
		line := fmt.Sprintf("command %d: %s", i+1, c.Command)
		if len(c.Via) > 0 {
			line += "  [via " + strings.Join(c.Via, " > ") + "]"
		}
		if len(c.Notes) > 0 {
			line += "  (" + strings.Join(c.Notes, ", ") + ")"
		}
		if src := strings.TrimSpace(c.Source); src != "" && src != c.Command {
			line += "  from: " + oneLine(src, 120)
		}
		out = append(out, line)
	}
	for _, f := range d.Files {
		out = append(out, "file: "+f)
	}
	hits := append([]Hit(nil), d.Hits...)
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Action == ActionBlock && hits[j].Action != ActionBlock })
	for _, h := range hits {
		line := fmt.Sprintf("%s %s/%s (%s): matched %q", h.Action, h.Pack, h.RuleID, h.Severity, h.Matched)
		if len(h.Via) > 0 {
			line += " via " + strings.Join(h.Via, " > ")
		}
		if len(h.Notes) > 0 {
			line += " [" + strings.Join(h.Notes, ", ") + "]"
		}
		out = append(out, line, "  reason: "+h.Reason)
	}
	out = append(out, "decision: "+d.Decision)
	return out
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// linkPipes points each pipeline stage at the stage that reads its
// output, so a matcher can tell "kubectl get secret -o json | jq keys"
// (names only) from the secret printed.
func linkPipes(views []*cmdView) {
	type key struct{ id, ix int }
	var stages map[key]*cmdView
	for _, v := range views {
		if v.c.PipeLen > 1 {
			if stages == nil {
				stages = map[key]*cmdView{}
			}
			k := key{v.c.PipeID, v.c.PipeIndex}
			if _, ok := stages[k]; !ok {
				stages[k] = v
			}
		}
	}
	for _, v := range views {
		if v.c.PipeLen > 1 && v.c.PipeIndex < v.c.PipeLen-1 {
			v.next = stages[key{v.c.PipeID, v.c.PipeIndex + 1}]
		}
	}
}

// shellQuote quotes s as one POSIX shell word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
