package policy

import (
	"github.com/ledger-audit/ledger-audit/internal/refilter"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ledger-audit/ledger-audit/rules/shell"
)

// cmdView is a command with its flags and operands split out once, so
// every rule reads the same view.
type cmdView struct {
	c    *shell.Command
	norm map[string]string // normPath cache
	// reads caches readPaths per read_from value (readFromSlot): a map
	// per view was a tenth of what a check allocated.
	reads   [4][]string
	readsOK [4]bool
	wrote   []string
	wrOK    bool
	flags   map[string]bool
	pos     []string // operands, in order
	posIx   []int    // their indexes into c.Args
	// cdJoined caches npCd per positional argument.
	cdJoined []string
	str      string
	// next is the pipeline stage reading this command's output, if any.
	next *cmdView
	// listingText caches cloudListing (listingDone: computed).
	listingText string
	listingDone bool
	// has are the view's features (viewHas*), hasOK once computed.
	has   uint8
	hasOK bool
}

// Features a matcher may need a command to have. Most commands have none
// of them, and about forty matchers apply to every program (the sensitive
// writes, the notes, the pipe-to-shell sources): one mask test turns
// them away before any condition is evaluated.
const (
	viewHasWrites   uint8 = 1 << iota // a known path the command writes
	viewHasCode                       // code from somewhere (CodeFrom)
	viewHasArgsFrom                   // arguments from a command's output
	viewHasStdin                      // stdin from a command or a known text
	viewHasNotes                      // walker notes
	viewHasVia                        // reached through a program or a wrapper
	viewHasNext                       // a later pipeline stage reads its output
	viewHasEnv                        // environment assignments
)

// bits packs conditions into a feature mask, the i-th condition being
// bit i: the viewHas* constants, in their order.
func bits(conds ...bool) uint8 {
	var n uint8
	for i, c := range conds {
		if c {
			n |= 1 << i
		}
	}
	return n
}

// needs is the feature mask without which m cannot match: each bit
// stands for a condition of matchCommandIndexed that fails when the
// feature is absent.
func (m *Matcher) needs() uint8 {
	return bits(len(m.Writes) > 0, len(m.CodeFrom) > 0, len(m.ArgsFrom) > 0, len(m.StdinFrom) > 0 || m.StdinRe != "",
		len(m.Notes) > 0, len(m.Via) > 0, m.IntoRe != "", m.EnvRe != "")
}

// features computes (once) the view's feature mask.
func (v *cmdView) features() uint8 {
	if v.hasOK {
		return v.has
	}
	c := v.c
	if !v.wrOK {
		v.wrote, v.wrOK = writePaths(v), true
	}
	writes := false
	for _, p := range v.wrote {
		if p != "" && !shell.Unknown(p) {
			writes = true
			break
		}
	}
	v.has = bits(writes, len(c.CodeFrom) > 0, len(c.ArgsFrom) > 0, len(c.Stdin) > 0 || c.StdinText != "",
		len(c.Notes) > 0, len(c.Via) > 0 || len(c.Wrappers) > 0, v.next != nil && v.next != v, len(c.Env) > 0)
	v.hasOK = true
	return v.has
}

func newView(c *shell.Command) *cmdView {
	// The maps are made on first write (most commands have few flags
	// and few path operands): a view is built for every command of
	// every call.
	v := &cmdView{c: c}
	if len(c.Args) > 0 {
		v.pos, v.posIx = make([]string, 0, len(c.Args)), make([]int, 0, len(c.Args))
	}
	ended := false
	for i, a := range c.Args {
		switch {
		case ended || a == "-" || len(a) < 2 || a[0] != '-':
			v.pos = append(v.pos, a)
			v.posIx = append(v.posIx, i)
		case a == "--":
			ended = true
		case strings.HasPrefix(a, "--"):
			name, _, _ := strings.Cut(a[2:], "=")
			v.setFlag(name)
			if c.Name == "git" {
				// git takes any unambiguous prefix of a long option:
				// "reset --har" is --hard.
				if full := gitLongPrefix(name); full != "" {
					v.setFlag(full)
				}
			}
		default:
			if isNumber(a[1:]) {
				v.pos = append(v.pos, a)
				v.posIx = append(v.posIx, i)
				continue
			}
			v.setFlag(a[1:])
			for _, ch := range a[1:] {
				v.setFlag(string(ch))
			}
		}
	}
	if vo := shortValueOpts[c.Name]; vo != "" {
		// "shred -n 1 FILE": 1 is the option's value, not a file.
		var pos []string
		var ix []int
		for k, a := range v.pos {
			i := v.posIx[k]
			if i > 0 {
				prev := c.Args[i-1]
				if len(prev) == 2 && prev[0] == '-' && strings.IndexByte(vo, prev[1]) >= 0 {
					continue
				}
			}
			pos, ix = append(pos, a), append(ix, i)
		}
		v.pos, v.posIx = pos, ix
	}
	if c.Name == "find" {
		// find's operands after the first predicate are predicate values
		// ("-name '*.pyc'"), not paths it walks.
		v.pos, v.posIx = nil, nil
		for i, a := range c.Args {
			if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
				break
			}
			v.pos = append(v.pos, a)
			v.posIx = append(v.posIx, i)
		}
	}
	v.str = c.String()
	return v
}

func (v *cmdView) setFlag(f string) {
	if v.flags == nil {
		v.flags = make(map[string]bool, 4)
	}
	v.flags[f] = true
}

// shortValueOpts are, per program, short options whose value is the next
// word.
var shortValueOpts = map[string]string{
	"shred": "ns",
	"wipe":  "lSp",
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// np is normPath, cached per view: every rule looks at the same words.
func (v *cmdView) np(p string) string {
	if n, ok := v.norm[p]; ok {
		return n
	}
	n := normPath(p)
	if d := v.c.Dir; d != "" && !strings.HasPrefix(n, "/") && !strings.HasPrefix(n, "~") && !shell.Unknown(n) {
		// A relative path under a known root, home or top-level system
		// directory ("cd / && rm -rf usr") names that place. Deeper
		// directories (a project) keep relative paths relative: there
		// "build" is the project's build output.
		nd := normPath(d)
		climbs := (n == ".." || strings.HasPrefix(n, "../")) && (strings.HasPrefix(nd, "/") || strings.HasPrefix(nd, "~"))
		top := strings.Count(nd, "/") == 1 && (strings.HasPrefix(nd, "/") && nd != "/tmp" ||
			// "cd ~/projects && rm -rf old-api": a directory directly in
			// home that the agent went to itself is a container of
			// projects, not one project's workspace.
			v.c.DirByCd && strings.HasPrefix(nd, "~/"))
		// "cd .. && rm -rf api": a sibling of the workspace, named from
		// above it.
		up := nd == ".." || strings.HasPrefix(nd, "../")
		if climbs || up || nd == "/" || nd == "~" || top || systemDirs[nd] {
			n = normPath(nd + "/" + n)
		}
	}
	return v.remember(p, n)
}

// remember caches a normalised path under key; most commands name no
// path, so the map is made on first use.
func (v *cmdView) remember(key, n string) string {
	if v.norm == nil {
		v.norm = make(map[string]string, 4)
	}
	v.norm[key] = n
	return n
}

// gitLongOpts are git long options rules test for, and gitLongPrefix
// the one an abbreviation names ("" when none or ambiguous).
var gitLongOpts = []string{"hard", "soft", "mixed", "merge", "keep", "force", "force-with-lease", "force-if-includes", "delete", "mirror", "prune", "all", "tags", "recurse-submodules", "no-verify"}

func gitLongPrefix(name string) string {
	if len(name) < 3 {
		return ""
	}
	found := ""
	for _, o := range gitLongOpts {
		if o == name {
			return ""
		}
		if strings.HasPrefix(o, name) {
			if found != "" {
				return ""
			}
			found = o
		}
	}
	return found
}

// systemDirs are system directories whose entries are system data,
// never a project's output: "cd /var/lib && rm -rf docker mysql" deletes
// /var/lib/docker and /var/lib/mysql.
var systemDirs = map[string]bool{"/var/lib": true, "/var/log": true, "/usr/lib": true, "/usr/share": true, "/usr/bin": true, "/usr/sbin": true,
	"/usr/local": true, "/usr/local/bin": true, "/usr/local/lib": true, "/lib": true, "/lib64": true, "/etc/ssl": true, "/etc/systemd": true}

// npCd is the k-th positional argument's relative path np joined to
// the directory the session cd'ed to, computed once per view.
func (v *cmdView) npCd(k int, np string) string {
	if v.cdJoined == nil {
		v.cdJoined = make([]string, len(v.pos))
	}
	if k < len(v.cdJoined) && v.cdJoined[k] != "" {
		return v.cdJoined[k]
	}
	j := normPath(v.c.Dir + "/" + np)
	if k < len(v.cdJoined) {
		v.cdJoined[k] = j
	}
	return j
}

// npRead is the path a command reads: a relative path is always taken
// from the known working directory ("cd ~/.aws" then "cat credentials"),
// since reading has no build-output exception to protect.
func (v *cmdView) npRead(p string) string {
	n := v.np(p)
	d := v.c.Dir
	if d == "" || strings.HasPrefix(n, "/") || strings.HasPrefix(n, "~") || shell.Unknown(n) {
		return n
	}
	key := "\x00r" + p
	if r, ok := v.norm[key]; ok {
		return r
	}
	return v.remember(key, normPath(normPath(d)+"/"+n))
}

// hasFlag checks an alternation "r|R|recursive".
func (v *cmdView) hasFlag(spec string) bool {
	// Cut rather than Split: this runs for every flag condition of every
	// candidate matcher, and Split allocated a slice each time.
	for spec != "" {
		f, rest, _ := strings.Cut(spec, "|")
		if v.flags[strings.TrimLeft(f, "-")] {
			return true
		}
		spec = rest
	}
	return false
}

// subcommand is the first operand, skipping the values of git's global
// options (-C dir, -c k=v) which come before it.
func (v *cmdView) subcommand() string {
	args := v.c.Args
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" {
			i++
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		return a
	}
	return ""
}

// matchResult says how a matcher matched.
type matchResult struct {
	matched string
	notes   []string
}

// matchCommand applies a command matcher.
func (m *Matcher) matchCommand(v *cmdView) (matchResult, bool) {
	return m.matchCommandIndexed(v, false)
}

// matchCommandIndexed is matchCommand for a caller that found m through
// the engine's program index (byName: the command's name is one of m's
// exact program names, so that check is skipped). The conditions are
// all required, so their order only matters for speed: cheap and
// selective ones first, the exclusion regexps (often long alternations
// that fail) last.
func (m *Matcher) matchCommandIndexed(v *cmdView, byName bool) (matchResult, bool) {
	c := v.c
	var res matchResult
	if len(m.paths) > 0 {
		return res, false
	}
	if m.need != 0 && m.need&^v.features() != 0 {
		return res, false
	}
	if !byName && len(m.programs) > 0 && !anyGlob(m.programs, c.Name) {
		return res, false
	}
	if len(m.subcmd) > 0 && !anyGlob(m.subcmd, v.subcommand()) {
		return res, false
	}
	if len(m.FlagsAny) > 0 {
		ok := false
		for _, f := range m.FlagsAny {
			if v.hasFlag(f) {
				ok = true
				break
			}
		}
		if !ok {
			return res, false
		}
	}
	for _, f := range m.FlagsAll {
		if !v.hasFlag(f) {
			return res, false
		}
	}
	for _, f := range m.FlagsNone {
		if v.hasFlag(f) {
			return res, false
		}
	}
	if len(m.argsAny) > 0 {
		ok := false
		for _, a := range c.Args {
			if anyGlob(m.argsAny, a) {
				ok = true
				break
			}
		}
		if !ok {
			return res, false
		}
	}
	for _, a := range c.Args {
		if anyGlob(m.argsNone, a) {
			return res, false
		}
	}
	// Both patterns' literal filters before either pattern runs (see
	// refilter.MayMatch).
	if m.argsRe != nil && !m.argsRe.MayMatch(v.str) || m.textRe != nil && !anyText(v, m.textRe.MayMatch) {
		return res, false
	}
	if m.argsRe != nil && !m.argsRe.MatchString(v.str) {
		return res, false
	}
	if m.textRe != nil && !anyText(v, m.textRe.MatchString) {
		return res, false
	}
	if m.textNotRe != nil && (m.textNotRe.MatchString(c.Text) || m.textNotRe.MatchString(v.str) || anyMatch(m.textNotRe, c.ValueFrom) || c.Host != "" && m.textNotRe.MatchString(c.Host)) {
		return res, false
	}
	if m.unknownRe != nil {
		ok := false
		for _, a := range c.Args {
			for _, n := range shell.UnknownNames(a) {
				if m.unknownRe.MatchString(n) && !(m.UnknownNotVendor && vendorsOwnHost(n, c.Args)) {
					ok = true
				}
			}
		}
		if !ok {
			return res, false
		}
	}
	if m.Piped != nil {
		piped := c.PipeLen > 1 && c.PipeIndex < c.PipeLen-1
		for _, r := range c.Redirects {
			if r.Op == ">" || r.Op == ">>" || r.Op == "&>" || r.Op == "&>>" || r.Op == ">|" {
				piped = true
			}
		}
		if piped != *m.Piped {
			return res, false
		}
	}
	if len(m.Notes) > 0 {
		ok := false
		for _, n := range m.Notes {
			if c.HasNote(n) {
				ok = true
			}
		}
		if !ok {
			return res, false
		}
	}
	if len(m.via) > 0 {
		ok := false
		for _, x := range append(append([]string(nil), c.Via...), c.Wrappers...) {
			if anyGlob(m.via, x) {
				ok = true
			}
		}
		if !ok {
			return res, false
		}
	}
	if m.FileOK && outputToFile(v) {
		return res, false
	}
	if len(m.dir) > 0 {
		if d := workDir(c); d == "" || !anyGlob(m.dir, d) {
			return res, false
		}
	}
	if len(m.dirNot) > 0 {
		if d := workDir(c); d != "" && anyGlob(m.dirNot, d) {
			return res, false
		}
	}
	if len(m.notVia) > 0 {
		for _, x := range append(append([]string(nil), c.Via...), c.Wrappers...) {
			if anyGlob(m.notVia, x) {
				return res, false
			}
		}
	}
	if len(m.CodeFrom) > 0 && !sourcesMatch(c.CodeFrom, m.CodeFrom) {
		return res, false
	}
	if len(m.ArgsNotFrom) > 0 && sourcesMatch(c.ArgsFrom, m.ArgsNotFrom) {
		return res, false
	}
	if len(m.ArgsFrom) > 0 && !sourcesMatch(c.ArgsFrom, m.ArgsFrom) {
		return res, false
	}
	if len(m.StdinFrom) > 0 && (!sourcesMatch(c.Stdin, m.StdinFrom) || envSpecs(m.StdinFrom) && namesOnly(c.Stdin)) {
		return res, false
	}
	if len(m.StdinNotOnly) > 0 && len(c.Stdin) > 0 {
		only := true
		for _, s := range c.Stdin {
			if !contains(m.StdinNotOnly, s.Name) && !stdinSpecMatch(m.StdinNotOnly, s) {
				only = false
			}
		}
		if only {
			return res, false
		}
	}
	if m.stdinRe != nil {
		// The text itself when the analysis knows it; the commands that
		// produce it otherwise.
		ok := c.StdinText != "" && m.stdinHit(c.StdinText)
		for _, src := range c.Stdin {
			if !ok && c.StdinText == "" && m.stdinHit(src.Text) {
				ok = true
			}
		}
		if !ok {
			return res, false
		}
	}
	if len(m.targets) > 0 {
		ok, suspect := m.targetHit(v)
		if !ok {
			return res, false
		}
		if suspect {
			res.notes = append(res.notes, "evasion-suspect")
		}
	}
	if len(m.reads) > 0 && !m.readHit(v) {
		return res, false
	}
	if len(m.writes) > 0 && !m.writeHit(v) {
		return res, false
	}
	// Last of the path conditions: it compiles the command's pattern.
	if len(m.PatternAny) > 0 && !patternSelects(v, m.PatternAny) {
		return res, false
	}
	if m.argsNotRe != nil && (m.argsNotRe.MatchString(v.str) || len(c.Copies) > 0 && m.argsNotRe.MatchString(v.originalStr()) || v.listing() != "" && m.argsNotRe.MatchString(v.listing())) {
		return res, false
	}
	if m.envRe != nil && !anyMatch(m.envRe, c.Env) {
		return res, false
	}
	if m.envNotRe != nil {
		for _, e := range c.Env {
			if m.envNotRe.MatchString(e) {
				return res, false
			}
		}
	}
	// Any later stage that narrows the stream (a count, a checksum, the
	// names of KEY=value lines) decides what finally reaches the output,
	// however many filters sit in between: diff .env.example .env | grep
	// '^<' | cut -d= -f1 prints names only.
	if m.intoRe != nil {
		ok := false
		for n := v.next; n != nil && n != v && !ok; n = n.next {
			ok = m.intoRe.MatchString(n.str)
		}
		if !ok {
			return res, false
		}
	}
	if m.intoNotRe != nil {
		for n := v.next; n != nil && n != v; n = n.next {
			if m.intoNotRe.MatchString(n.str) {
				return res, false
			}
		}
	}
	res.matched = v.str
	if len(m.CodeFrom) > 0 {
		res.matched = withCodeSource(c, v.str)
	}
	return res, true
}

// anyText reports whether ok holds for one of the texts a text_regex
// reads: the source text, the normalised command, the substitutions its
// values came from, the host a remote command runs on, and the listing
// its arguments came from. The literal filter and the pattern both go
// through it, so that they read the same texts.
func anyText(v *cmdView, ok func(string) bool) bool {
	c := v.c
	if ok(c.Text) || ok(v.str) || c.Host != "" && ok(c.Host) {
		return true
	}
	for _, t := range c.ValueFrom {
		if ok(t) {
			return true
		}
	}
	return len(c.ArgsFrom) > 0 && ok(selectingListing(c.ArgsFrom))
}

// withCodeSource shows where the code a command ran came from: "curl -fsSL
// URL | sh", or "bash /tmp/i.sh (downloaded by: curl -o /tmp/i.sh URL)".
func withCodeSource(c *shell.Command, self string) string {
	var pipe, other []string
	for _, s := range c.CodeFrom {
		if s.Kind == "pipe" {
			pipe = append(pipe, s.Text)
		} else if s.Text != "" {
			other = append(other, s.Kind+": "+s.Text)
		}
	}
	out := self
	if len(pipe) > 0 {
		out = strings.Join(pipe, " | ") + " | " + self
	}
	if len(other) > 0 {
		out += " (code from " + strings.Join(other, "; ") + ")"
	}
	return out
}

func (m *Matcher) targetHit(v *cmdView) (hit, suspect bool) {
	for k, a := range v.pos {
		if shell.FromStdin(a) {
			// xargs fed by something unknown ("cat dirs.txt | xargs rm
			// -rf"): the targets come from data the agent controls.
			if m.Unresolved == "suspect" {
				suspect = true
			}
			continue
		}
		if v.c.IsUnresolved(v.posIx[k]) || shell.Unknown(a) {
			if m.Unresolved == "suspect" && suspectWord(a, m, v.c.Text) {
				suspect = true
			}
			if !shell.StartsUnknown(a) {
				// "/home/$USER" and "$X"-free prefixes still name a
				// place: check what is known.
				np := v.np(a)
				if !anyGlob(m.except, np) && anyGlob(m.targets, np) {
					return true, false
				}
			}
			continue
		}
		np := v.np(a)
		if anyGlob(m.except, np) {
			continue
		}
		if d := v.c.Dir; d != "" && !strings.HasPrefix(np, "/") && !strings.HasPrefix(np, "~") && np != ".." && !strings.HasPrefix(np, "../") && anyGlob(m.except, normPath(d)) {
			// "cd build && rm -rf *": relative to a scratch directory.
			continue
		}
		if anyGlob(m.targets, np) {
			return true, false
		}
		if v.c.DirByCd && v.c.Dir != "" && !strings.HasPrefix(np, "/") && !strings.HasPrefix(np, "~") && !strings.HasPrefix(np, "..") {
			// "cd /var/www/html && rm -rf wp-content/uploads": the
			// session went there, so the relative path names that place.
			if jp := v.npCd(k, np); !anyGlob(m.except, jp) && anyGlob(m.targets, jp) {
				return true, false
			}
		}
	}
	for _, t := range v.c.Through {
		if np := normPath(t); !anyGlob(m.except, np) && anyGlob(m.targets, np) {
			return true, false
		}
	}
	return suspect, suspect
}

// tempish names are what scripts call their scratch and build
// directories; an unknown "$BUILD_DIR" is no evasion.
var tempishRe = regexp.MustCompile(`(?i)tmp|temp|build|dist|out_?dir|output|cache|scratch|artifact|venv|node_modules|coverage|logs?_?dir`)

// suspectWord reports whether an unresolved word in a target position is
// suspicious: it starts with something unknown and nothing known about it
// makes it harmless.
func suspectWord(a string, m *Matcher, text string) bool {
	if !shell.StartsUnknown(a) {
		return false
	}
	disp := shell.Display(a)
	if names := shell.UnknownNames(a); len(names) == 1 && !strings.Contains(text, "${"+names[0]+":?") {
		// "$BUILD_DIR"/* and "$OUT"/: one unset variable away from
		// "rm -rf /*", whatever the name promises; "${BUILD_DIR:?}"/*
		// guards it.
		if i := strings.IndexByte(disp, '/'); i >= 0 && (disp[i:] == "/" || disp[i:] == "/*" || disp[i:] == "/.*") {
			return true
		}
	}
	if disp == ".." || strings.HasSuffix(disp, "/..") {
		// "$BUILDDIR/..": the parent of wherever it points, whatever
		// the name promises.
		return true
	}
	names := shell.UnknownNames(a)
	for _, n := range names {
		if n != "$()" && n != "fmt" && tempishRe.MatchString(n) {
			return false
		}
	}
	// A pattern written for the variable itself ("$VCPKG_ROOT/buildtrees"
	// is vcpkg's build trees wherever vcpkg lives).
	if anyGlob(m.except, normPath(disp)) {
		return false
	}
	// "$X/node_modules", "$ROOT/build": the known tail decides.
	if i := strings.IndexByte(disp, '/'); i >= 0 && i < len(disp)-1 {
		tail := "x/" + disp[i+1:]
		if anyGlob(m.except, normPath(tail)) {
			return false
		}
	}
	return true
}

// outfileOptRe is an option naming a file the tool writes.
var outfileOptRe = regexp.MustCompile(`(?i)^--[a-z-]*(outfile|out-file|output-file|outdir|output)$`)

// senderReads are the local files a file-transfer or packet tool sends:
// "tftp HOST -c put FILE", "smbclient //H/S -c 'put FILE NAME'",
// "hping3 -E FILE" (the file is the packets' payload). ok is false for
// other programs.
func senderReads(c *shell.Command) (out []string, ok bool) {
	switch c.Name {
	case "tftp", "smbclient":
		for i, a := range c.Args {
			if a != "-c" && a != "--command" || i+1 >= len(c.Args) {
				continue
			}
			// tftp takes the rest of the line as the command; smbclient
			// one quoted word, with ";" between commands.
			line := strings.Join(c.Args[i+1:], " ")
			if c.Name == "smbclient" {
				line = c.Args[i+1]
			}
			for _, part := range strings.Split(line, ";") {
				f := strings.Fields(part)
				switch {
				case len(f) >= 2 && f[0] == "put":
					out = append(out, f[1]) // put LOCAL [REMOTE]
				case len(f) >= 2 && f[0] == "mput":
					out = append(out, f[1:]...)
				}
			}
		}
		return out, true
	case "hping3":
		for i, a := range c.Args {
			if (a == "-E" || a == "--file") && i+1 < len(c.Args) {
				out = append(out, c.Args[i+1])
			}
		}
		return out, true
	}
	return nil, false
}

// tarReads are the files tar archives: its operands, relative to the
// directory of the last -C before them ("tar czf k.tgz -C ~ .ssh" reads
// ~/.ssh), not the archive named by -f.
func tarReads(v *cmdView) []string {
	var out []string
	base := ""
	args := v.c.Args
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" || a == "--directory":
			if i+1 < len(args) {
				base = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--directory="):
			base = strings.TrimPrefix(a, "--directory=")
		case a == "-f" || a == "--file" || a == "-T" || a == "--files-from" || a == "-X" || a == "--exclude-from" || a == "--exclude" || a == "-I" || a == "--use-compress-program":
			i++
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-") || i == 0 && !strings.Contains(a, "/") && strings.Trim(a, "cxtrvzjJafpPkSuWO") == "":
			// Bundled flags ("-czf", old-style "czf"): f takes the next word.
			if strings.Contains(a, "f") {
				i++
			}
		default:
			if base != "" && !strings.HasPrefix(a, "/") && !strings.HasPrefix(a, "~") {
				a = strings.TrimSuffix(base, "/") + "/" + a
			}
			out = append(out, a)
		}
	}
	return append(out, v.c.Origins...)
}

// credFileOptRe is a script's option that takes a credential file.
var credFileOptRe = regexp.MustCompile(`^--[a-z-]*(token|key|cred|credentials|password|passphrase|secret|auth|salt)[a-z-]*(-file|-path)$|^--(credentials|key-file|keyfile|token-file)$`)

// readPaths are the words a command reads as files: operands, "<"
// redirects, curl's "@file" forms, dd's "if=".
func readPaths(v *cmdView, from string) []string {
	var out []string
	if from == "stdin" {
		for _, r := range v.c.Redirects {
			if r.Op == "<" {
				out = append(out, r.Target)
			}
		}
		return out
	}
	if v.c.Name == "tar" || v.c.Name == "gtar" || v.c.Name == "bsdtar" {
		return tarReads(v)
	}
	if r, ok := senderReads(v.c); ok {
		return r
	}
	pos := v.pos
	if v.c.Name == "exiftool" {
		// "-Comment<=FILE" sets a tag from the file's content.
		for _, a := range v.c.Args {
			if _, f, ok := strings.Cut(a, "<="); ok && f != "" {
				pos = append(pos[:len(pos):len(pos)], f)
			}
		}
	}
	switch v.c.Name {
	case "cp", "mv", "scp", "rsync", "install", "ln":
		// The last operand is the destination, written not read.
		if len(pos) >= 2 {
			pos = pos[:len(pos)-1]
		}
		if v.c.Name == "scp" || v.c.Name == "rsync" {
			// HOST:/etc/shadow pulled here reads the host's file.
			pos = slices.Clone(pos)
			for i, p := range pos {
				if h, rp, ok := strings.Cut(p, ":"); ok && h != "" && !strings.Contains(h, "/") && strings.HasPrefix(rp, "/") || ok && strings.HasPrefix(rp, "~") {
					pos[i] = rp
				}
			}
		}
	case "curl", "curl.exe", "wget", "wget2", "uclient-fetch":
		// Where a download is saved is written, not read ("curl URL -o
		// /tmp/repo.key").
		pos = withoutOutputs(v.c.Name, v.c.Args, pos)
	case "base64", "gbase64":
		// macOS base64 -o FILE: what it decodes into (a CI job's signing
		// certificate, from its secret) is written, not read.
		for i, a := range v.c.Args {
			if (a == "-o" || a == "--output") && i+1 < len(v.c.Args) {
				pos = slices.DeleteFunc(slices.Clone(pos), func(p string) bool { return p == v.c.Args[i+1] })
			}
		}
	}
	if isFileServer(v.c) {
		// A static file server reads (and hands out) its directory.
		dir := "."
		for i, a := range v.c.Args {
			if (a == "--directory" || a == "-d" || a == "-t" || a == "--root" || a == "-h") && i+1 < len(v.c.Args) {
				dir = v.c.Args[i+1]
			} else if strings.HasPrefix(a, "--directory=") {
				dir = strings.TrimPrefix(a, "--directory=")
			}
		}
		if v.c.Name == "serve" || v.c.Name == "http-server" {
			for _, a := range v.pos {
				if !isNumber(a) {
					dir = a
					break
				}
			}
		}
		pos = append(pos, dir)
	}
	skip := map[int]bool{}
	// Where a tool writes what it makes ("aws iot
	// create-keys-and-certificate --private-key-outfile k.key",
	// "--output f") is written, not read.
	for i, a := range v.c.Args {
		if strings.HasPrefix(a, "--") && !strings.Contains(a, "=") && outfileOptRe.MatchString(a) {
			skip[i+1] = true
		}
	}
	// Exclusion patterns name what is left out, not what is read:
	// "zip -r a.zip . -x .env", "rsync --exclude .env", "tar --exclude .env".
	for i, a := range v.c.Args {
		switch a {
		case "--exclude", "--include", "--exclude-from", "--filter", "-f":
			if v.c.Name == "rsync" || v.c.Name == "tar" || a != "-f" {
				skip[i+1] = true
			}
		case "-x", "-i":
			if v.c.Name == "zip" {
				for j := i + 1; j < len(v.c.Args) && !strings.HasPrefix(v.c.Args[j], "-"); j++ {
					skip[j] = true
				}
			}
		}
	}
	switch v.c.Name {
	case "curl", "wget", "http", "https", "xh", "curlie", "git":
		// Client certificates and keys authenticate the connection;
		// they are not what is sent (curl --cert c.pem --key k.pem URL).
		for i, a := range v.c.Args {
			switch a {
			case "--cert", "-E", "--key", "--cacert", "--capath", "--certificate", "--private-key", "--ca-certificate", "--proxy-cert", "--proxy-key":
				skip[i+1] = true
			}
		}
	case "gpg", "gpg2":
		// The passphrase file unlocks the key gpg uses; gpg does not
		// print it.
		for i, a := range v.c.Args {
			if a == "--passphrase-file" {
				skip[i+1] = true
			}
		}
	}
	if shell.Interpreter(v.c.Name) != "" {
		// The code of "python3 -c CODE" is not a path it reads. A file
		// handed to a script's credential option (--token-file,
		// --key-file, --credentials) is what the script uses to sign
		// in, as curl's --key is; printing it would take code.
		for i, a := range v.c.Args {
			switch {
			case a == "-c", a == "-e", a == "-E", a == "-r", a == "-p", a == "--eval", a == "--print":
				skip[i+1] = true
			case credFileOptRe.MatchString(a):
				skip[i+1] = true
			}
		}
	}
	switch v.c.Name {
	case "grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack":
		// The search pattern is text, not a file: "grep -rn 'cat
		// ~/.ssh/id_rsa' docs/" reads docs/ only.
		for _, i := range grepPatternIxs(v.c.Args, v.c.Name) {
			skip[i] = true
		}
	}
	switch v.c.Name {
	case "jq", "gojq", "jaq", "yq", "awk", "gawk", "mawk", "nawk", "sed", "gsed":
		// The first operand is the program (a jq filter, an awk program,
		// a sed script), not a file, unless the program comes from -f /
		// -e: jq '... | .key' package.json reads package.json only.
		given := false
		for i, a := range v.c.Args {
			switch {
			case a == "-f" || a == "--from-file" || (a == "-e" || a == "--expression") && (v.c.Name == "sed" || v.c.Name == "gsed"):
				given = true
			case (a == "--arg" || a == "--argjson") && v.c.Name != "sed":
				skip[i+1], skip[i+2] = true, true
			}
		}
		if !given {
			for k, a := range pos {
				if v.c.Name == "yq" && (a == "e" || a == "eval" || a == "ea" || a == "eval-all") {
					continue
				}
				if k < len(v.posIx) {
					skip[v.posIx[k]] = true
				}
				break
			}
		}
	}
	switch v.c.Name {
	case "gcloud", "gsutil", "bq":
		// --key-file is the service account the tool signs in as
		// ("gcloud auth activate-service-account --key-file K"), not
		// data it shows.
		for i, a := range v.c.Args {
			if a == "--key-file" || a == "--credential-file-override" {
				skip[i+1] = true
			}
		}
	case "scp", "sftp", "ssh", "rsync":
		// -i KEY is the identity the tool authenticates with, not data
		// it reads out.
		for i, a := range v.c.Args {
			if a == "-i" || a == "-F" || a == "-o" || a == "-e" || a == "-J" || a == "-S" {
				skip[i+1] = true
			}
		}
	}
	for k, a := range pos {
		if k < len(v.posIx) && skip[v.posIx[k]] {
			continue
		}
		if strings.HasPrefix(a, "file://") {
			// curl file:///home/u/.ssh/id_rsa reads the local file.
			out = append(out, strings.TrimPrefix(a, "file://"))
			continue
		}
		if strings.Contains(a, "://") {
			// A URL, not a local path.
			continue
		}
		if v.c.Name == "dd" {
			// Operands are KEY=VALUE; only if= names what is read
			// (of=/tmp/k.key is where random bytes go).
			if strings.HasPrefix(a, "if=") {
				out = append(out, a[3:])
			}
			continue
		}
		out = append(out, strings.TrimPrefix(a, "@"))
		if i := strings.Index(a, "=@"); i >= 0 {
			out = append(out, a[i+2:])
		}
		if strings.HasPrefix(a, "if=") {
			out = append(out, a[3:])
		}
	}
	for _, a := range v.c.Args {
		if strings.HasPrefix(a, "--") && !strings.HasPrefix(a, "--exclude") && !strings.HasPrefix(a, "--include") && !strings.HasPrefix(a, "--filter") {
			if opt, val, ok := strings.Cut(a, "="); ok {
				if authFileOpt.MatchString(opt) || outfileOptRe.MatchString(opt) {
					// --key-file=KEY, --credential-file=F: the tool
					// authenticates with the file; nothing is printed.
					continue
				}
				out = append(out, strings.TrimPrefix(val, "@"))
			}
		}
	}
	if from != "args" {
		for _, r := range v.c.Redirects {
			if r.Op == "<" {
				out = append(out, r.Target)
			}
		}
	}
	// What the arguments are copies or links of ("ln -s ~/.ssh/id_rsa
	// k.txt", then "cat k.txt").
	return append(out, v.c.Origins...)
}

// secretCanaries are concrete secret paths a wildcard argument is tried
// against: "cat ~/.ssh/*" reads ~/.ssh/id_rsa even though no argument
// names it.
var secretCanaries = []string{
	"~/.ssh/id_rsa", "~/.ssh/id_ed25519", "~/.aws/credentials", ".env", "~/.kube/config",
	"~/.docker/config.json", "~/.netrc", "~/.git-credentials", "/etc/shadow", "~/.config/gcloud/application_default_credentials.json",
	".env.production", "~/.pgpass", "~/.npmrc", "~/.ssh/deploy.pem", "/etc/ssl/private/server.key",
	"~/.config/gh/hosts.yml", "~/.pypirc", "~/.ssh/id_ecdsa", "~/.cargo/credentials.toml", ".env.local",
	"~/.terraform.d/credentials.tfrc.json", "~/.azure/accessTokens.json", "~/.cache/huggingface/token",
	"~/.huggingface/token",
}

// wildReads expands a wildcard read argument into the canaries it covers.
// A relative pattern only covers relative canaries (".env"): "**/*.pem"
// under the project is not the home directory's keys. One rooted at "/"
// covers the home directories below it.
//
// The answer depends on np alone, and agents repeat the same wildcards
// (*.log, **/*.ts): results are kept in a bounded cache instead of
// compiling the pattern on every call. Callers must not modify them.
func wildReads(np string) []string {
	wildCache.Lock()
	out, ok := wildCache.m[np]
	wildCache.Unlock()
	if ok {
		return out
	}
	out = wildReadsUncached(np)
	wildCache.Lock()
	if len(wildCache.m) >= 4096 {
		clear(wildCache.m)
	}
	wildCache.m[np] = out
	wildCache.Unlock()
	return out
}

var wildCache = struct {
	sync.Mutex
	m map[string][]string
}{m: map[string][]string{}}

func wildReadsUncached(np string) []string {
	g, err := compileGlob(np, true)
	if err != nil {
		return nil
	}
	g.baseOnly = false
	rooted := strings.HasPrefix(np, "/") || strings.HasPrefix(np, "~")
	var out []string
	for _, c := range secretCanaries {
		crel := !strings.HasPrefix(c, "/") && !strings.HasPrefix(c, "~")
		if !rooted && !crel && strings.Contains(np, "/") {
			continue
		}
		// A pattern without a directory ("*.json") covers the files of
		// wherever the command runs: the project's own secrets (.env),
		// not a home directory's (config.json of ~/.docker), unless the
		// directory is known, which makes np rooted.
		if g.matchFull(c) || (!strings.Contains(np, "/") && crel && g.matchFull(path.Base(c))) ||
			strings.HasPrefix(np, "/") && strings.HasPrefix(c, "~/") && (g.matchFull("/home/user"+c[1:]) || g.matchFull("/root"+c[1:])) {
			out = append(out, c)
		}
	}
	return out
}

func (m *Matcher) readHit(v *cmdView) bool {
	if namedSettingsGrep(v) || jqFieldsOnly(v) {
		return false
	}
	switch v.c.Name {
	case "cp", "install":
		// "cp -p /srv/traefik/acme.json /backup/traefik/acme-$(date
		// +%F).json": a copy kept in the machine's backup tree, where
		// it stays on the machine; nothing reaches the output.
		if n := len(v.pos); n >= 2 && !shell.StartsUnknown(v.pos[n-1]) && backupTreeRe.MatchString(v.np(shell.Placeholder(v.pos[n-1], "x"))) {
			return false
		}
	}
	switch v.c.Name {
	case "cp", "mv", "install", "ln":
		// "cp .env .env.backup": a backup beside the original that keeps
		// a secret's name is guarded like it; nothing reaches the output.
		if n := len(v.pos); n >= 2 && !shell.Unknown(v.pos[n-1]) {
			dst := v.np(v.pos[n-1])
			beside := anyGlob(m.reads, dst) && !anyGlob(m.except, dst)
			for _, src := range v.pos[:n-1] {
				if shell.Unknown(src) || path.Dir(v.np(src)) != path.Dir(dst) {
					beside = false
				}
			}
			if beside {
				return false
			}
			// "mv ~/Downloads/AuthKey_X.p8 ~/.appstoreconnect/private_keys/":
			// a key put where its tool reads it from (a guarded place
			// named with its directory, not a bare file name that could
			// be anywhere) stays guarded there; nothing is shown.
			into := true
			for _, src := range v.pos[:n-1] {
				if shell.Unknown(src) {
					into = false
					break
				}
				full := dst
				if strings.HasSuffix(v.pos[n-1], "/") || n > 2 {
					full = path.Join(dst, path.Base(v.np(src)))
				}
				if !anyDirGlob(m.reads, full) || anyGlob(m.except, full) {
					into = false
				}
			}
			if into {
				return false
			}
		}
	}
	k := readFromSlot(m.ReadFrom)
	rp := v.reads[k]
	if !v.readsOK[k] {
		rp = readPaths(v, m.ReadFrom)
		v.reads[k], v.readsOK[k] = rp, true
	}
	for _, p := range rp {
		if p == "" {
			continue
		}
		if shell.Unknown(p) {
			// "cat $GOOGLE_APPLICATION_CREDENTIALS": a variable whose
			// name says which credential file it holds.
			if names := shell.UnknownNames(p); len(names) == 1 && shell.StartsUnknown(p) {
				if cv, ok := credentialVars[names[0]]; ok && anyGlob(m.reads, cv) {
					return true
				}
			}
			// "$(git rev-parse --show-toplevel)/.env": wherever the
			// directory is, the file's name says what it is.
			disp := shell.Display(p)
			if i := strings.LastIndexByte(disp, '/'); i >= 0 && i < len(disp)-1 && !strings.ContainsAny(disp[i+1:], "$*?[") {
				base := disp[i+1:]
				if anyBaseGlob(m.reads, base) && !anyBaseGlob(m.except, base) {
					return true
				}
			}
			// "~/.aws/sso/cache/$(ls ...)", "/proc/$(pgrep x)/environ": a
			// known directory with an unknown name in it.
			if !shell.StartsUnknown(p) {
				np := v.npRead(shell.Placeholder(p, "x"))
				if anyGlob(m.reads, np) && !anyGlob(m.except, np) {
					return true
				}
			}
			continue
		}
		if v.copyOfPublic(m, p) {
			continue
		}
		// file:///home/dev/.aws/credentials, as browsers and fetchers
		// take it, is the file; a one-character class (.env.exampl[e])
		// is that character.
		p = strings.TrimPrefix(p, "file://")
		if strings.Contains(p, "[") {
			p = singleClassRe.ReplaceAllString(p, "$1")
		}
		np := v.npRead(p)
		if anyGlob(m.reads, np) && !anyGlob(m.except, np) {
			return true
		}
		if strings.ContainsAny(np, "*?[") {
			for _, c := range wildReads(np) {
				if anyGlob(m.reads, c) && !anyGlob(m.except, c) {
					return true
				}
			}
		}
	}
	return false
}

// jqFieldsOnly: "jq '.data.entries[] | {domain, title}' f", "jq
// '.accounts[].name' f", "jq keys f": the filter ends on named fields
// (none named like a secret or a container of them, such as "data" or
// "config"), on keys or on a count, so those reach the output, not the
// file's secrets.
func jqFieldsOnly(v *cmdView) bool {
	switch v.c.Name {
	case "jq", "gojq", "jaq", "yq":
	default:
		return false
	}
	filter := ""
	for i, a := range v.c.Args {
		if a == "-f" || a == "--from-file" || a == "--arg" || a == "--argjson" || a == "--slurpfile" || a == "--rawfile" {
			return false
		}
		if strings.HasPrefix(a, "-") || v.c.Name == "yq" && (a == "e" || a == "eval") && i == 0 {
			continue
		}
		filter = a
		break
	}
	if filter == "" || strings.ContainsAny(filter, "$@\\") {
		return false
	}
	stages := strings.Split(filter, "|")
	last := strings.TrimSpace(stages[len(stages)-1])
	if jqCountRe.MatchString(last) {
		return true
	}
	var names []string
	if m := jqObjectRe.FindStringSubmatch(last); m != nil {
		for _, f := range strings.Split(m[1], ",") {
			names = append(names, strings.TrimPrefix(strings.TrimSpace(f), "."))
		}
	} else if m := jqPathRe.FindStringSubmatch(last); m != nil {
		if jqEntryOfCollection(last) {
			return false
		}
		names = []string{m[1]}
	} else if strings.Contains(last, ",") {
		// ".client_email, .project_id": each path printed in turn.
		for _, f := range strings.Split(last, ",") {
			m := jqPathRe.FindStringSubmatch(strings.TrimSpace(f))
			if m == nil {
				return false
			}
			names = append(names, m[1])
		}
	} else {
		return false
	}
	for _, n := range names {
		if !jqNameRe.MatchString(n) || secretNameRe.MatchString(n) || jqContainerRe.MatchString(n) {
			return false
		}
	}
	return true
}

// jqEntryOfCollection reports whether a jq path picks one entry of a
// map of accounts, hosts or aliases by its key (".aliases.prod",
// ".hosts.github_com"): the whole entry, credentials and all, whatever
// the key is called.
func jqEntryOfCollection(path string) bool {
	segs := strings.Split(strings.TrimPrefix(path, "."), ".")
	if len(segs) < 2 {
		return false
	}
	return jqCollectionRe.MatchString(segs[len(segs)-2])
}

var (
	jqCollectionRe = regexp.MustCompile(`(?i)^(aliases|hosts|servers|profiles|remotes|registries|users|accounts|auths|connections|datasources|environments|contexts|clusters|targets|sites|instances)\??$`)
	jqCountRe      = regexp.MustCompile(`^(keys(_unsorted)?(\[\])?|length|type|map\(keys\)|map\(length\)|\.\[\]\s*\|\s*keys|to_entries\s*\|\s*map\(\.key\))$`)
	jqObjectRe     = regexp.MustCompile(`^\{\s*([^{}:()]+?)\s*\}$`)
	jqPathRe       = regexp.MustCompile(`^(?:\.[A-Za-z_][A-Za-z0-9_]*(?:\[\d*\])?\??)*\.([A-Za-z_][A-Za-z0-9_]*)(?:\[\])?\??$`)
	jqNameRe       = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	jqContainerRe  = regexp.MustCompile(`(?i)^(data|config|configuration|env|environment|settings|options|values?|credentials|properties|spec|stringData|secrets?|vars|variables|params|parameters|body|payload|raw|content)$`)
)

// yamlKeysPattern reads a grep pattern for indented YAML keys,
// "^\s+(target|threads|warehouse):", or for settings at the start of a
// line, "^(concurrent|check_interval)" (TOML, INI), as the names it
// selects, "target|threads|warehouse"; any other pattern is returned as
// is.
func yamlKeysPattern(p string) string {
	if m := yamlKeysRe.FindStringSubmatch(p); m != nil {
		return m[1]
	}
	if m := lineKeyRe.FindStringSubmatch(p); m != nil {
		// "^remote:", "^DB_HOST=": one setting at the start of a line.
		return m[1]
	}
	if strings.Contains(p, "(") {
		// "DB_(NAME|USER|HOST)|table_prefix": the names it spells out.
		if x := groupAltRe.ReplaceAllStringFunc(p, expandGroup); !strings.ContainsAny(x, "()") {
			return x
		}
	}
	// PHP constants: "define\( *'(WP_DEBUG|WP_CACHE)'".
	if m := defineKeysRe.FindStringSubmatch(p); m != nil {
		return m[1]
	}
	return p
}

// lineKeyRe is one setting name anchored at a line's start, followed by
// its separator.
var lineKeyRe = regexp.MustCompile(`^\^([A-Za-z_][A-Za-z0-9_.]*)(?::|=| ?=)?$`)

// groupAltRe is a name with one group of alternatives in it:
// DB_(NAME|USER).
var groupAltRe = regexp.MustCompile(`([A-Za-z0-9_]*)\(([A-Za-z0-9_]+(?:\|[A-Za-z0-9_]+)*)\)([A-Za-z0-9_]*)`)

// expandGroup writes a groupAltRe match as the names it stands for.
func expandGroup(s string) string {
	m := groupAltRe.FindStringSubmatch(s)
	alts := strings.Split(m[2], "|")
	for i, a := range alts {
		alts[i] = m[1] + a + m[3]
	}
	return strings.Join(alts, "|")
}

var defineKeysRe = regexp.MustCompile(`^define\\?\((?: \*|\\s\*)?['"]?\(?([A-Za-z_][A-Za-z0-9_]*(?:\|[A-Za-z_][A-Za-z0-9_]*)*)\)?['"]?$`)

var yamlKeysRe = regexp.MustCompile(`^\^(?:\\s[*+]|\[\[:space:\]\][*+]| [*+])?\\?\(([A-Za-z_][A-Za-z0-9_]*(?:\\?\|[A-Za-z_][A-Za-z0-9_]*)*)\\?\)(?::| ?=|\\s\*=|\\b| |\\s)?$`)

// keyNamesGrep: "grep -oE '^[a-z_]+:' secrets.yaml" prints only the
// part of each line before its ":" or "=", the names, whatever the file.
func keyNamesGrep(v *cmdView) bool {
	if !v.flags["o"] && !v.flags["only-matching"] || v.flags["v"] || v.flags["invert-match"] || v.flags["f"] || v.flags["file"] {
		return false
	}
	ixs := grepPatternIxs(v.c.Args, v.c.Name)
	if len(ixs) == 0 {
		return false
	}
	for _, i := range ixs {
		if !keyNamePatternRe.MatchString(v.c.Args[i]) {
			return false
		}
	}
	return true
}

// keyNamePatternRe is a grep pattern that matches a line's leading name
// and its separator only: ^[a-z_]+: , ^[A-Z_]*= , ^[^=]+= , ^\w+: .
var keyNamePatternRe = regexp.MustCompile(`^\^(\[[^\]]*\]|\\w|\[\[:(alnum|alpha|upper|lower):\]_?\])[+*]\??(\\s\*| \*)?[:=]$`)

// settingNameRe is a grep pattern of setting names only (WP_CACHE,
// "NODE_ENV\|PORT"), and secretNameRe a name that may hold a secret.
var (
	settingNameRe  = refilter.MustCompile(`^\^?[A-Za-z_][A-Za-z0-9_]*(?:(?:\\\||\|)\^?[A-Za-z_][A-Za-z0-9_]*)*$`)
	plainSettingRe = refilter.MustCompile(`(?i)(^|_)(ENV|ENVIRONMENT|PORT|HOST|HOSTNAME|DEBUG|LEVEL|LIMIT|CACHE|MODE|REGION|TIMEOUT|VERSION|LANG|LOCALE|TZ|SIZE|DIR|PATH|WORKERS|THREADS|ENABLED|DISABLED|COUNT|MAX|MIN|NAME|PREFIX|BUCKET|QUEUE|TOPIC|ORIGIN|DOMAIN|CHARSET|SCHEME|FLAGS?|FEATURES?|ROOT|BASE|LOG|LOGGING|INTERVAL|TTL|RETRIES|CONCURRENCY|CONCURRENT|USER|USERNAME|REMOTE|ZONE|CLUSTER|NAMESPACE|STAGE|TIER|EDIT|MODS|SSL|ADMIN|REVISIONS|CRON|MULTISITE|HOME|SITEURL|AUTOSAVE|WAREHOUSE|TARGET|SCHEMA|ROLE)$`)
	secretNameRe   = refilter.MustCompile(`(?i)pass|secret|token|key|salt|auth|cred|private|cert|dsn|database_url|_url$|^url$|uri|conn|session|cookie|signing|api|access|jwt|otp|pin$|hash|nonce|webhook|seed|mnemonic`)
)

// settingsFileRe is a settings file: named settings, one per line.
var settingsFileRe = refilter.MustCompile(`^\.env(\.[\w.-]+)?$|\.env$|^wp-config\.php$|^settings\.py$|^local_settings\.py$|\.(properties|ini|toml|ya?ml|conf|cfg)$|^appsettings[\w.-]*\.json$`)

// grepTakesValue reports a grep option that takes the next word as its
// value (-e takes a pattern; -A, -B, -C, -m a number).
func grepTakesValue(a string) bool {
	switch a {
	case "-A", "-B", "-C", "-m", "--max-count", "-e", "--regexp", "--include", "--exclude", "-g", "--glob", "-t", "--type":
		return true
	}
	return false
}

// namedSettingsGrep reports a grep-like that prints only the lines of
// named settings none of which can hold a secret ("grep -n
// 'WP_CACHE\|WP_MEMORY_LIMIT' wp-config.php"): those lines, not the
// file's secrets, reach the output. An inverted match (-v) prints the
// others.
func namedSettingsGrep(v *cmdView) bool {
	switch v.c.Name {
	case "grep", "egrep", "fgrep", "rg", "ag", "ack":
	default:
		return false
	}
	if keyNamesGrep(v) {
		return true
	}
	if v.flags["v"] || v.flags["invert-match"] || v.flags["f"] || v.flags["file"] {
		return false
	}
	for _, a := range v.c.Args {
		// Context lines (-A 2, -C3) print the neighbours too.
		if strings.HasPrefix(a, "-A") || strings.HasPrefix(a, "-B") || strings.HasPrefix(a, "-C") || strings.HasPrefix(a, "--context") || strings.HasPrefix(a, "--after") || strings.HasPrefix(a, "--before") {
			return false
		}
	}
	ixs := grepPatternIxs(v.c.Args, v.c.Name)
	if len(ixs) == 0 {
		return false
	}
	// Only settings files, whose secrets are settings of their own; in
	// a key or credentials file every line is the secret.
	files := 0
	for i, a := range v.c.Args {
		if strings.HasPrefix(a, "-") || slices.Contains(ixs, i) || i > 0 && grepTakesValue(v.c.Args[i-1]) {
			continue
		}
		// (/etc/default's files are KEY=value settings of a service.)
		if !settingsFileRe.MatchString(path.Base(a)) && !strings.HasPrefix(a, "/etc/default/") {
			return false
		}
		files++
	}
	if files == 0 {
		return false
	}
	for _, i := range ixs {
		p := yamlKeysPattern(v.c.Args[i])
		if !settingNameRe.MatchString(p) {
			return false
		}
		// Names anchored at the line's start and closed by their
		// separator ("^\s*(concurrent|limit) ", "^(num_tokens|
		// authenticator):") select those settings exactly.
		exact := exactKeysRe.MatchString(v.c.Args[i])
		for _, name := range strings.FieldsFunc(p, func(r rune) bool { return r == '|' || r == '\\' || r == '^' }) {
			// A pattern matches every setting containing it: "STRIPE"
			// prints STRIPE_SECRET_KEY. Only a whole setting name of a
			// plain kind (WP_CACHE, NODE_ENV, DB_PORT) is taken as
			// printing that setting alone, or an exact name that says
			// what it configures rather than holding a credential.
			if exact {
				if secretNameRe.MatchString(name) && !settingKindRe.MatchString(name) {
					return false
				}
				continue
			}
			if secretNameRe.MatchString(name) || !plainSettingRe.MatchString(name) {
				return false
			}
		}
	}
	return true
}

var (
	// exactKeysRe is a grep pattern of setting names anchored at the
	// start of a line and followed by their separator.
	exactKeysRe = refilter.MustCompile(`^\^(?:\\s[*+]|\[\[:space:\]\][*+]| [*+])?\\?\(?[A-Za-z_][A-Za-z0-9_]*(?:\\?\|[A-Za-z_][A-Za-z0-9_]*)*\\?\)?(?::|=| ?=| |\\s|\\s\*[:=]|\\b)$`)
	// settingKindRe is a setting name that configures a mechanism or a
	// quantity (authenticator, num_tokens, token_ttl, auth_method), not
	// one that holds a secret.
	settingKindRe = refilter.MustCompile(`(?i)^(num|max|min)_|(authenticator|authorizer|_manager|_enabled|_ttl|_timeout|_interval|_method|_type|_mode|_provider|_count|_size|_length|_file|_path|_dir|_expiry|_validity\w*)$`)
)

// readFromSlot numbers the read_from values the pack loader accepts.
func readFromSlot(from string) int {
	switch from {
	case "any":
		return 1
	case "args":
		return 2
	case "stdin":
		return 3
	}
	return 0
}

// backupTreeRe is a machine's own backup tree, at the top of the file
// system (/backup, /var/backups, /srv/backups).
var backupTreeRe = refilter.MustCompile(`^/((var|srv|mnt|data|opt)/)?backups?(/|$)`)

// singleClassRe is a glob character class of one character ([e]).
var singleClassRe = refilter.MustCompile(`\[([^\]^!\\])\]`)

// listing is cloudListing for the view's command, computed once.
func (v *cmdView) listing() string {
	if !v.listingDone {
		v.listingText, v.listingDone = cloudListing(v.c.ArgsFrom, v.c.ValueFrom), true
	}
	return v.listingText
}

// cloudListing is the text of the cloud and cluster listings whose
// output became arguments ("aws ec2 describe-instances --filters
// Name=tag:Preview,Values=pr-1423" feeding terminate-instances): a
// filter that selects scratch resources excuses what it selects, as
// naming them would.
func cloudListing(srcs []shell.Source, valueFrom []string) string {
	var b strings.Builder
	for _, s := range srcs {
		if cloudCLIs[s.Name] {
			b.WriteString(s.Name + " " + strings.Join(s.Args, " ") + "\n")
		}
	}
	// Variables assigned from a listing, in a loop or by read.
	for _, v := range valueFrom {
		if name, _, _ := strings.Cut(strings.TrimPrefix(v, "$("), " "); strings.HasPrefix(v, "$(") && cloudCLIs[name] {
			b.WriteString(v + "\n")
		}
	}
	return b.String()
}

var cloudCLIs = map[string]bool{"aws": true, "gcloud": true, "az": true, "kubectl": true, "oc": true, "doctl": true, "gsutil": true, "hcloud": true,
	"linode-cli": true, "scw": true, "vultr-cli": true, "ibmcloud": true, "oci": true, "aliyun": true, "fly": true, "flyctl": true, "mc": true, "nomad": true, "consul": true,
	"redis-cli": true, "valkey-cli": true, "keydb-cli": true}

// selectingListing is the text of the listings and the filters that
// chose the words a command got as arguments ("vultr-cli instance list
// | awk '/prod-/{print $1}' | xargs vultr-cli instance delete"): what
// they select is what the command acts on, so a rule's text condition
// (a production name) holds when they name it. A filter that drops
// lines (grep -v) selects the others and names nothing.
func selectingListing(srcs []shell.Source) string {
	var b strings.Builder
	for _, s := range srcs {
		switch {
		case cloudCLIs[s.Name], s.Name == "awk" || s.Name == "gawk" || s.Name == "jq" || s.Name == "sed":
		case s.Name == "grep" || s.Name == "egrep" || s.Name == "rg":
			if slices.Contains(s.Args, "-v") || slices.Contains(s.Args, "--invert-match") {
				continue
			}
		default:
			continue
		}
		b.WriteString(s.Name + " " + strings.Join(s.Args, " ") + "\n")
	}
	return b.String()
}

// originalStr is the command with each argument that is a copy made
// earlier in the session named as its original ("ssh-copy-id -i
// /tmp/k.pub" after "cp ~/.ssh/id_ed25519.pub /tmp/k.pub"): what excuses
// the original excuses its copy.
func (v *cmdView) originalStr() string {
	c := *v.c
	c.Args = slices.Clone(c.Args)
	for i, a := range c.Args {
		for _, cp := range v.c.Copies {
			if cp[0] == a {
				c.Args[i] = cp[1]
			}
		}
	}
	return c.String()
}

// copyOfPublic reports whether p is a copy, made earlier in the session,
// of a file the matcher names as not secret ("cp .env.example
// .env.sample.bak", then diff it): its name is no longer what it holds.
func (v *cmdView) copyOfPublic(m *Matcher, p string) bool {
	for _, cp := range v.c.Copies {
		if cp[0] == p {
			return anyGlob(m.except, v.npRead(cp[1]))
		}
	}
	return false
}

// writePaths are redirect targets and the destinations of tee, cp, mv,
// install, ln, dd of=, sed -i.
func writePaths(v *cmdView) []string {
	var out []string
	for _, r := range v.c.Redirects {
		switch r.Op {
		case ">", ">>", "&>", "&>>", ">|", "<>":
			out = append(out, r.Target)
		}
	}
	switch v.c.Name {
	case "tee":
		out = append(out, v.pos...)
	case "cp", "mv", "install", "ln", "rsync", "scp":
		if v.c.Name == "install" && (v.flags["d"] || v.flags["directory"]) {
			break // install -d creates empty directories
		}
		if len(v.pos) >= 2 {
			dst := v.pos[len(v.pos)-1]
			out = append(out, dst)
			// "cp x.plist ~/Library/LaunchAgents/" writes dst/x.plist.
			for _, src := range v.pos[:len(v.pos)-1] {
				out = append(out, strings.TrimRight(dst, "/")+"/"+baseOf(src))
			}
		}
	case "sed", "perl":
		if v.flags["i"] || v.flags["in-place"] || v.flags["pi"] {
			out = append(out, v.pos...)
		}
	case "dd":
		for _, a := range v.pos {
			if strings.HasPrefix(a, "of=") {
				out = append(out, a[3:])
			}
		}
	case "truncate", "touch":
		out = append(out, v.pos...)
	case "chattr":
		// Setting attributes (+i: nobody may now remove the file) is a
		// change that guards what is there; "chattr -i" only lifts one,
		// as an incident responder does before removing the file.
		for _, a := range v.c.Args {
			if strings.HasPrefix(a, "+") || strings.HasPrefix(a, "=") {
				out = append(out, v.pos...)
				break
			}
		}
	}
	return out
}

func (m *Matcher) writeHit(v *cmdView) bool {
	if !v.wrOK {
		v.wrote, v.wrOK = writePaths(v), true
	}
	for i, p := range v.wrote {
		if m.WriteMode != "" && (m.WriteMode == "append") != appendWrite(v, i) {
			continue
		}
		if p == "" || shell.Unknown(p) {
			continue
		}
		np := v.np(p)
		if anyGlob(m.writes, np) && !anyGlob(m.except, np) {
			if m.contentRe != nil && !m.contentRe.MatchString(writtenText(v)) || m.contentNotRe != nil && m.contentNotRe.MatchString(writtenText(v)) {
				continue
			}
			return true
		}
	}
	return false
}

// appendWrite reports whether the i-th path of writePaths(v) is appended
// to (">>", "tee -a") rather than replaced.
func appendWrite(v *cmdView, i int) bool {
	n := 0
	for _, r := range v.c.Redirects {
		switch r.Op {
		case ">", ">>", "&>", "&>>", ">|", "<>":
			if n == i {
				return r.Op == ">>" || r.Op == "&>>"
			}
			n++
		}
	}
	return v.c.Name == "tee" && (v.flags["a"] || v.flags["append"])
}

// specGlobs memoises the path globs of "prog:GLOB" specs, which are
// checked per command: compiling one is a regexp compilation.
var specGlobs sync.Map // string -> *glob (nil: bad pattern)

func specGlob(pat string) *glob {
	if g, ok := specGlobs.Load(pat); ok {
		return g.(*glob)
	}
	g, err := compileGlob(pat, true)
	if err != nil {
		g = nil
	}
	specGlobs.Store(pat, g)
	return g
}

// codeFrom checks the command's code sources: "curl" (a program),
// "base64:d,decode" (a program with one of these flags), "download" (a
// file fetched earlier).
func sourcesMatch(srcs []shell.Source, specs []string) bool {
	for _, s := range srcs {
		for _, spec := range specs {
			prog, flags, hasFlags := strings.Cut(spec, ":")
			if prog == "download" {
				// "download:/RE/" and "download:!/RE/": a download whose
				// fetching command (its URL) does or does not match.
				if s.Kind == "download" && (!hasFlags || specMatch(flags, s.Text)) {
					return true
				}
				continue
			}
			if prog == "env" && !hasFlags && dumpsEnv(s) {
				return true
			}
			if s.Name != prog && !(strings.HasSuffix(prog, "*") && strings.HasPrefix(s.Name, strings.TrimSuffix(prog, "*"))) {
				continue
			}
			if !hasFlags {
				return true
			}
			if specPattern(flags) != "" {
				// "printenv:/(?i)token|secret/": the program's arguments,
				// joined by spaces, match ("!/RE/": do not).
				if specMatch(flags, strings.Join(s.Args, " ")) {
					return true
				}
				continue
			}
			sv := newView(&shell.Command{Name: s.Name, Args: s.Args})
			// "docker:ls!filter,f": ls without any of --filter / -f.
			flags, not, _ := strings.Cut(flags, "!")
			if not != "" && anyFlag(sv, s.Args, strings.Split(not, ",")) {
				continue
			}
			for _, f := range strings.Split(flags, ",") {
				// "@base64d": a filter-language decoder somewhere in the
				// program (jq -r '.x | @base64d').
				if sv.flags[f] || contains(s.Args, f) || strings.HasPrefix(f, "@") && strings.Contains(strings.Join(s.Args, " "), f) {
					return true
				}
			}
		}
	}
	return false
}

// specRegexps caches the compiled patterns of "prog:/RE/" source specs.
var specRegexps sync.Map

// specPattern is the pattern of a source spec's "/RE/" (or "!/RE/")
// part, "" when the part is a flag list.
func specPattern(flags string) string {
	f := strings.TrimPrefix(flags, "!")
	if len(f) < 2 || f[0] != '/' || f[len(f)-1] != '/' {
		return ""
	}
	return f[1 : len(f)-1]
}

// compileSpec compiles a spec pattern once: a pack's patterns are
// compiled (and a bad one rejected) when it is loaded, and matching
// reuses them.
func compileSpec(pat string) (*regexp.Regexp, error) {
	if re, ok := specRegexps.Load(pat); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return nil, err
	}
	specRegexps.Store(pat, re)
	return re, nil
}

// specMatch reports whether text matches a spec's "/RE/" part, or for
// "!/RE/" does not match it. A flag list, or a pattern that does not
// compile (only in a spec built by hand: loading rejects it), matches
// nothing.
func specMatch(flags, text string) bool {
	pat := specPattern(flags)
	if pat == "" {
		return false
	}
	re, err := compileSpec(pat)
	return err == nil && re.MatchString(text) != strings.HasPrefix(flags, "!")
}

// envDumpCode is interpreter code printing the whole environment
// (print(os.environ), dict(os.environ), console.log(process.env), %ENV,
// ENV.to_h), as opposed to one variable (os.environ.get("HOME"),
// process.env.PORT).
var envDumpCode = regexp.MustCompile(`os\.environ\s*(\)|\.items\(\)|\.copy\(\)|$|[^\[.\w])|process\.env\s*(\)|$|[^\[.\w])|%ENV\b|\bENV\.(to_h|to_a|each|inspect|sort)\b|\bENV\s*\)|\bgetenv\(\s*\)|\$_ENV\b|System\.getenv\(\s*\)|\bos\.Environ\(\)`)

// anyFlag reports whether a source's command carries one of the flags
// (or words) named.
func anyFlag(sv *cmdView, args, names []string) bool {
	for _, f := range names {
		if sv.flags[f] || contains(args, f) {
			return true
		}
	}
	return false
}

// outputToFile reports a pipeline whose last stage writes its standard
// output to a file (not a device), so nothing of it reaches the screen.
func outputToFile(v *cmdView) bool {
	last := v
	for n := v.next; n != nil && n != v; n = n.next {
		last = n
	}
	for _, r := range last.c.Redirects {
		// (Not /dev/stdout or /dev/tcp/...; /dev/null discards it.)
		if (r.Op == ">" || r.Op == ">>" || r.Op == ">|" || r.Op == "&>") && r.Target != "" && (!strings.HasPrefix(r.Target, "/dev/") || r.Target == "/dev/null") {
			return true
		}
	}
	return false
}

// workDir is the directory a command acts in when known: "-C DIR" of
// git and make, else the directory the session changed to.
func workDir(c *shell.Command) string {
	if c.Name == "git" || c.Name == "make" {
		for i, a := range c.Args {
			if a == "-C" && i+1 < len(c.Args) {
				if shell.Unknown(c.Args[i+1]) {
					return ""
				}
				return shell.CleanPath(c.Args[i+1])
			}
		}
	}
	return c.Dir
}

// authFileOpt is an option naming the key or credentials a tool logs in
// with (gcloud --key-file, --credential-file, --identity-file).
var authFileOpt = regexp.MustCompile(`^--(?:[a-z]+-)*(?:key-?file|credentials?-file|cred-file|identity-file|private-key-file|service-account-key)$`)

// namesOnlyStage is a filter that keeps the names of NAME=value lines
// and drops the values: cut -d= -f1, awk -F= '{print $1}', sed
// 's/=.*//', grep -o '^[^=]*'.
var namesOnlyStage = regexp.MustCompile(`^cut( -\S+)* -d ?['"]?=['"]?( -\S+)* -f ?1( |$)|^cut -f ?1 -d ?['"]?=['"]?( |$)|^g?awk -F ?['"]?=['"]? ['"]?\{ ?print \$1;? ?\}['"]?( |$)|^sed( -e)? ['"]?s/=\.\*//?g?['"]?( |$)|^grep( -\S+)* -o ['"]?\^\[(\^=|[A-Za-z0-9_-]+)\][*+]['"]?( |$)`)

// namesOnly reports a pipeline stage before this command that keeps only
// the names of NAME=value lines: "printenv | cut -d= -f1 | grep -i
// token" lists which secrets are set, not what they are.
func namesOnly(srcs []shell.Source) bool {
	for _, s := range srcs {
		if s.Kind == "pipe" && namesOnlyStage.MatchString(strings.TrimSpace(s.Name+" "+strings.Join(s.Args, " "))) {
			return true
		}
	}
	return false
}

// envSpecs reports stdin_from specs naming environment dumps only.
func envSpecs(specs []string) bool {
	for _, sp := range specs {
		switch sp {
		case "env", "printenv", "set", "export", "declare":
		default:
			return false
		}
	}
	return true
}

// dumpsEnv reports whether source s is an interpreter printing the whole
// environment, so a filter reading its output filters the environment
// like "env | grep KEY".
func dumpsEnv(s shell.Source) bool {
	if shell.Interpreter(s.Name) == "" {
		return false
	}
	return envDumpCode.MatchString(strings.Join(s.Args, " ")) || (s.Text != "" && envDumpCode.MatchString(s.Text))
}

// stdinSpecMatch reports whether source s is one of the "prog:GLOB"
// specs: program prog with every operand a path matching GLOB
// ("cat:~/.ssh/id_*.pub", the user's own public key).
func stdinSpecMatch(specs []string, s shell.Source) bool {
	for _, spec := range specs {
		prog, pat, ok := strings.Cut(spec, ":")
		if !ok || prog != s.Name {
			continue
		}
		g := specGlob(pat)
		if g == nil {
			continue
		}
		sv := newView(&shell.Command{Name: s.Name, Args: s.Args})
		all := len(sv.pos) > 0
		for _, a := range sv.pos {
			if shell.Unknown(a) || !g.match(sv.np(a)) {
				all = false
			}
		}
		if all {
			return true
		}
	}
	return false
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// matchFile applies a file-tool matcher.
//
// np is normPath(p), computed once per file by the caller.
func (m *Matcher) matchFile(p, np, access, content string) (matchResult, bool) {
	var res matchResult
	if len(m.paths) == 0 {
		return res, false
	}
	if m.Access != "" && m.Access != "any" && m.Access != access {
		return res, false
	}
	if !anyGlob(m.paths, np) || anyGlob(m.except, np) {
		return res, false
	}
	if m.contentRe != nil && !m.contentRe.MatchString(content) || m.contentNotRe != nil && m.contentNotRe.MatchString(content) {
		return res, false
	}
	res.matched = access + " " + p
	return res, true
}

// writtenText is what a writing command puts in its file, as far as the
// matcher can tell: its arguments and any heredoc or herestring.
func writtenText(v *cmdView) string {
	s := v.str
	for _, r := range v.c.Redirects {
		if r.Op == "<<" || r.Op == "<<-" || r.Op == "<<<" {
			s += "\n" + r.Target
		}
	}
	for _, src := range v.c.Stdin {
		s += "\n" + src.Text
	}
	if v.c.StdinText != "" {
		// What a decoder upstream printed: "xxd -r -p <<< HEX | tee f".
		s += "\n" + v.c.StdinText
	}
	if v.c.Name == "printf" || v.c.Name == "echo" {
		// What printf (or echo -e) writes: its escapes interpreted,
		// "\143\165\162\154" is "curl", "#!/bin/sh\ncurl" two lines.
		s += "\n" + printfEscapes(strings.Join(v.c.Args, " "))
	}
	return s
}

// printfEscapes interprets the backslash escapes printf and echo -e
// know: \n, \t, \\, octal \NNN and hex \xHH.
func printfEscapes(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch c := s[i+1]; {
		case c == 'n':
			b.WriteByte('\n')
			i++
		case c == 't':
			b.WriteByte('\t')
			i++
		case c == '\\':
			b.WriteByte('\\')
			i++
		case c == 'x' && i+3 < len(s):
			if v, err := strconv.ParseUint(s[i+2:i+4], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
			b.WriteByte(s[i])
		case c >= '0' && c <= '7':
			j := i + 1
			for j < len(s) && j < i+4 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			if v, err := strconv.ParseUint(s[i+1:j], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i = j - 1
				continue
			}
			b.WriteByte(s[i])
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// grepValueOpts are grep/rg short options that take a value.
const grepValueOpts = "efmABCgtTMjd"

// grepPatternIxs are the indexes in args of a grep-like command's
// search patterns: the values of -e/--regexp, or else the first operand.
// A pattern file (-f FILE) is read like any other file, and "rg
// --files"/"ag -g" take no pattern operand.
func grepPatternIxs(args []string, name string) []int {
	var out []int
	operand := true
	first := -1
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) && first < 0 {
				first = i + 1
			}
			i = len(args)
		case strings.HasPrefix(a, "--"):
			flag, _, has := strings.Cut(a[2:], "=")
			switch flag {
			case "regexp":
				if !has && i+1 < len(args) {
					i++
					out = append(out, i)
				}
				operand = false
			case "file", "files", "type-list":
				operand = false
			}
		case len(a) > 1 && a[0] == '-' && !isNumber(a[1:]):
			for k := 1; k < len(a); k++ {
				ch := a[k]
				if name == "ag" && ch == 'g' {
					operand = false
				}
				if strings.IndexByte(grepValueOpts, ch) < 0 {
					continue
				}
				if ch == 'e' || ch == 'f' {
					operand = false
				}
				if k == len(a)-1 && i+1 < len(args) {
					i++
					if ch == 'e' {
						out = append(out, i)
					}
				}
				break
			}
		default:
			if first < 0 {
				first = i
			}
		}
	}
	if operand && first >= 0 {
		out = append(out, first)
	}
	return out
}

// patternSelects reports whether the search pattern of a grep-like
// command prints one of lines: it matches (or, with -v, fails to match)
// at least one. -c, -q, -l and -L print no lines at all.
func patternSelects(v *cmdView, lines []string) bool {
	o := shell.ParseGrep(v.c.Name, v.c.Args)
	if o.Listing {
		return false
	}
	pats, ere, fixed, icase, invert := o.Patterns, o.ERE, o.Fixed, o.IgnoreCase, o.Invert
	// -o prints only what matched: a line's secret is printed only when
	// a match reaches past its "=" (or its value's start).
	only := o.Only
	if len(pats) == 0 {
		return false
	}
	var res []*regexp.Regexp
	for _, p := range pats {
		expr := p
		switch {
		case fixed:
			expr = regexp.QuoteMeta(p)
		case !ere:
			if e, ok := shell.BasicRegexp(p); ok {
				expr = e
			}
		}
		if icase {
			expr = "(?i)" + expr
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			re = regexp.MustCompile("(?i)" + regexp.QuoteMeta(p))
		}
		res = append(res, re)
	}
	for _, l := range lines {
		hit := false
		for _, re := range res {
			if !only || invert {
				if re.MatchString(l) {
					hit = true
					break
				}
				continue
			}
			eq := strings.IndexAny(l, "=:")
			for _, loc := range re.FindAllStringIndex(l, -1) {
				if eq < 0 || loc[1] > eq+1 {
					hit = true
					break
				}
			}
			if hit {
				break
			}
		}
		if hit != invert {
			return true
		}
	}
	return false
}

// credentialVars are environment variables that conventionally name a
// credential file, with the file each stands for.
var credentialVars = map[string]string{
	"GOOGLE_APPLICATION_CREDENTIALS":         "application_default_credentials.json",
	"CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE": "application_default_credentials.json",
	"AWS_SHARED_CREDENTIALS_FILE":            "~/.aws/credentials",
	"KUBECONFIG":                             "~/.kube/config",
	"PGPASSFILE":                             "~/.pgpass",
	"NETRC":                                  "~/.netrc",
	"DOCKER_CONFIG":                          "~/.docker",
	"GNUPGHOME":                              "~/.gnupg",
	"SSH_KEY_PATH":                           "~/.ssh/id_rsa",
	"SSH_PRIVATE_KEY_PATH":                   "~/.ssh/id_rsa",
	"SSH_KEY_FILE":                           "~/.ssh/id_rsa",
	"VAULT_TOKEN_FILE":                       "~/.vault-token",
	"AZURE_CONFIG_DIR":                       "~/.azure",
	"CLOUDSDK_CONFIG":                        "~/.config/gcloud",
}

// anyBaseGlob matches a file name against the name-only globs (".env",
// "id_rsa") of a list.
func anyBaseGlob(gs []*glob, base string) bool {
	for _, g := range gs {
		if g.baseOnly && g.match(base) {
			return true
		}
	}
	return false
}

// isFileServer reports a command that serves a directory over HTTP:
// python -m http.server, php -S, npx serve / http-server, busybox httpd.
func isFileServer(c *shell.Command) bool {
	switch {
	case c.Name == "serve" || c.Name == "http-server" || c.Name == "httpd":
		return true
	case strings.HasPrefix(c.Name, "python"):
		return contains(c.Args, "http.server") || contains(c.Args, "SimpleHTTPServer")
	case c.Name == "php":
		return contains(c.Args, "-S")
	case c.Name == "ruby":
		return contains(c.Args, "-run") || contains(c.Args, "-ehttpd")
	}
	return false
}

// anyMatch reports whether re matches one of texts.
func anyMatch(re *refilter.Regexp, texts []string) bool {
	for _, t := range texts {
		if re.MatchString(t) {
			return true
		}
	}
	return false
}

// stdinHit reports whether stdin_regex matches text somewhere that
// stdin_not_regex does not excuse: each match is tried against
// stdin_not_regex at its own start, so "DROP DATABASE app_test; DROP
// DATABASE app" is still a hit while the first statement alone is not.
func (m *Matcher) stdinHit(text string) bool {
	if m.stdinNotRe == nil {
		return m.stdinRe.MatchString(text)
	}
	for _, loc := range m.stdinRe.FindAllStringIndex(text, 64) {
		if ex := m.stdinNotRe.FindStringIndex(text[loc[0]:]); ex == nil || ex[0] != 0 {
			return true
		}
	}
	return false
}

// downloadOutputOpts are curl's and wget's options whose value is a file
// they write.
var downloadOutputOpts = map[string]bool{"-o": true, "--output": true, "--output-document": true, "-D": true,
	"--dump-header": true, "-c": true, "--cookie-jar": true, "--trace": true, "--trace-ascii": true, "--stderr": true, "-a": true, "--append-output": true}

// withoutOutputs removes from pos the values of downloadOutputOpts.
// wget's -O takes the file (curl's -O names it after the URL).
func withoutOutputs(prog string, args, pos []string) []string {
	out := map[string]bool{}
	for i, a := range args {
		if (downloadOutputOpts[a] || a == "-O" && (strings.HasPrefix(prog, "wget") || prog == "uclient-fetch")) && i+1 < len(args) {
			out[args[i+1]] = true
		} else if name, val, ok := strings.Cut(a, "="); ok && downloadOutputOpts[name] {
			out[val] = true
		}
	}
	if len(out) == 0 {
		return pos
	}
	var kept []string
	for _, p := range pos {
		if !out[p] {
			kept = append(kept, p)
		}
	}
	return kept
}

// vendorStop are the words that end a secret variable's vendor prefix
// (ALCHEMY_API_KEY: alchemy) or, first, show that it has none.
var vendorStop = map[string]bool{"api": true, "key": true, "keys": true, "token": true, "tokens": true, "secret": true,
	"secrets": true, "access": true, "auth": true, "password": true, "passwd": true, "pwd": true, "private": true,
	"client": true, "app": true, "bot": true, "apikey": true, "credentials": true, "credential": true}

// vendorWords would name an environment or a team, not a vendor.
var vendorWords = map[string]bool{"prod": true, "production": true, "staging": true, "stage": true, "test": true,
	"live": true, "main": true, "default": true, "local": true, "admin": true, "master": true, "root": true, "user": true,
	"service": true, "deploy": true, "build": true, "shared": true, "global": true, "public": true, "internal": true}

// vendorsOwnHost reports whether the variable name's vendor prefix (four
// letters at least) is in the registrable domain of every URL among the
// arguments, and there is at least one: api.etherscan.io for
// ETHERSCAN_API_KEY, not etherscan.evil.example.
func vendorsOwnHost(name string, args []string) bool {
	var vendor []string
	for _, w := range strings.Split(strings.ToLower(name), "_") {
		if vendorStop[w] {
			break
		}
		if w != "" && !vendorWords[w] {
			vendor = append(vendor, w)
		}
	}
	if len(vendor) == 0 {
		return false
	}
	joined := strings.Join(vendor, "")
	urls := 0
	for _, a := range args {
		i := strings.Index(a, "://")
		if i < 0 {
			continue
		}
		urls++
		label := registrableLabel(a[i+3:])
		found := len(joined) >= 4 && strings.Contains(label, joined)
		for _, w := range vendor {
			if len(w) >= 4 && strings.Contains(label, w) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return urls > 0
}

// registrableLabel is the first label of a URL's registrable domain
// ("etherscan" for api.etherscan.io/v2, "example" for a.example.co.uk),
// lower-cased; "" when the host holds an unresolved part.
func registrableLabel(rest string) string {
	host := rest
	if i := strings.IndexAny(host, "/?#"); i >= 0 {
		host = host[:i]
	}
	if i := strings.LastIndex(host, "@"); i >= 0 {
		host = host[i+1:]
	}
	if i := strings.Index(host, ":"); i >= 0 {
		host = host[:i]
	}
	if shell.Unknown(host) || strings.ContainsAny(host, "$`{}") {
		return ""
	}
	labels := strings.Split(strings.ToLower(host), ".")
	if len(labels) < 2 {
		return ""
	}
	k := len(labels) - 2
	// Two-level public suffixes: co.uk, com.au, co.jp, com.br ...
	if k > 0 && len(labels[k]) <= 3 && len(labels[k+1]) == 2 {
		k--
	}
	return labels[k]
}
