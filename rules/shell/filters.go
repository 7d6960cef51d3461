package shell

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ledger-audit/ledger-audit/internal/refilter"
)

// The line filters below compute what grep, sed and jq print from a
// known input (a file the session wrote, a heredoc, a known pipeline
// stage) when their program is simple enough to evaluate exactly:
// "grep '^curl' docs/quickstart.md | bash" runs the lines grep selects,
// "jq -r .cleanup ops.json | sh" the string it extracts. Anything they
// cannot evaluate exactly (context lines, counts, scripts of several
// commands, filters beyond a path) stays unknown rather than guessed, so
// a filter that drops the dangerous lines is never read as keeping them.

// filterInput is the text a filter reads: its file operands when the
// session wrote them all, else its known standard input.
func filterInput(files []string, in stdinInfo, st *State) (string, bool) {
	if len(files) == 0 {
		return in.content, in.known && !Unknown(in.content)
	}
	var b strings.Builder
	for _, f := range files {
		if f == "-" {
			if !in.known {
				return "", false
			}
			b.WriteString(in.content)
			continue
		}
		_, file := st.LookupFile(f)
		if file == nil || file.Downloaded || Unknown(file.Content) {
			return "", false
		}
		b.WriteString(file.Content)
	}
	return b.String(), true
}

// grepOut evaluates grep/egrep/fgrep/rg with one pattern.
func grepOut(name string, args []string, in stdinInfo, st *State) (string, bool) {
	o := ParseGrep(name, args)
	if len(o.Patterns) != 1 || o.Listing || o.Other || len(o.Files) > 1 && name != "rg" {
		return "", false // counts, names, numbers, context: another output
	}
	// The input first: most greps read what the engine cannot know, and
	// compiling the pattern would be wasted on them.
	text, ok := filterInput(o.Files, in, st)
	if !ok {
		if len(o.Files) == 0 && !o.Invert && !o.Only && treeListing(in.sources) {
			// "git ls-files -o -i --directory | grep 'node_modules/$'":
			// what survives is paths of the working tree with that
			// name, whatever the listing held: ./**/NAME.
			if m := nameFilterRe.FindStringSubmatch(o.Patterns[0]); m != nil {
				if m[2] != "" {
					return "./**/" + m[1] + "\n", true
				}
			}
		}
		return "", false
	}
	pattern, ere, fixed, icase, invert, only, whole, word := o.Patterns[0], o.ERE, o.Fixed, o.IgnoreCase, o.Invert, o.Only, o.Line, o.Word
	var expr string
	switch {
	case fixed:
		expr = regexp.QuoteMeta(pattern)
	case ere:
		expr = strings.NewReplacer(`\<`, `\b`, `\>`, `\b`).Replace(pattern)
	default:
		var ok bool
		if expr, ok = BasicRegexp(pattern); !ok {
			return "", false
		}
	}
	if word {
		expr = `\b(?:` + expr + `)\b`
	}
	if whole {
		expr = `^(?:` + expr + `)$`
	}
	if icase {
		expr = `(?i)` + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	for _, line := range lines(text) {
		switch {
		case only && !invert:
			for _, m := range re.FindAllString(line, -1) {
				b.WriteString(m + "\n")
			}
		case re.MatchString(line) != invert:
			b.WriteString(line + "\n")
		}
	}
	return b.String(), true
}

// nameFilterRe is a grep pattern that is one file or directory name;
// only one anchored at the end of the line ("node_modules/$") says what
// the whole path ends with.
var nameFilterRe = refilter.MustCompile(`^(?:\^|\^\./|/)?([A-Za-z0-9_][A-Za-z0-9_.-]*)(/?\$|/)?$`)

// treeListing reports whether standard input is a listing of paths
// below the working directory: git ls-files, ls, fd, or find from ".".
func treeListing(srcs []Source) bool {
	if len(srcs) == 0 {
		return false
	}
	for _, s := range srcs {
		if s.Kind != "pipe" {
			return false
		}
		switch s.Name {
		case "ls", "fd", "fdfind":
			for _, a := range s.Args {
				if strings.HasPrefix(a, "/") || strings.HasPrefix(a, "~") || strings.Contains(a, "..") {
					return false
				}
			}
		case "git":
			if len(s.Args) == 0 || s.Args[0] != "ls-files" {
				return false
			}
		case "find":
			if len(s.Args) == 0 || s.Args[0] != "." {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// BasicRegexp converts a POSIX basic regular expression (grep's and
// sed's default) into the syntax of Go's regexp package: \( \) \{ \} \|
// \+ \? are the operators and the bare characters literals. ok is false
// for an unterminated bracket expression.
func BasicRegexp(p string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			n := p[i+1]
			i++
			switch n {
			case '(', ')', '{', '}', '|', '+', '?':
				b.WriteByte(n)
			case '<', '>':
				b.WriteString(`\b`)
			default:
				b.WriteByte('\\')
				b.WriteByte(n)
			}
		case c == '(' || c == ')' || c == '{' || c == '}' || c == '|' || c == '+' || c == '?':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '[':
			j := i + 1
			if j < len(p) && p[j] == '^' {
				j++
			}
			if j < len(p) && p[j] == ']' {
				j++
			}
			for j < len(p) && p[j] != ']' {
				j++
			}
			if j >= len(p) {
				return "", false
			}
			b.WriteString(p[i : j+1])
			i = j
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// sedOut evaluates a sed program of one command: s/RE/REPL/FLAGS, p or
// d, each optionally behind a /RE/ address, with or without -n. exec is
// set when the program runs its pattern space as a shell command (the
// "e" command, or the e flag of s): the output is then what runs.
func sedOut(args []string, in stdinInfo, st *State) (out string, exec, ok bool) {
	quiet, ere := false, false
	var script string
	haveScript := false
	var files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-n" || a == "--quiet" || a == "--silent":
			quiet = true
		case a == "-E" || a == "-r" || a == "--regexp-extended":
			ere = true
		case a == "-nE" || a == "-En" || a == "-nr" || a == "-rn":
			quiet, ere = true, true
		case a == "-e" || a == "--expression":
			if haveScript || i+1 >= len(args) {
				return "", false, false
			}
			script, haveScript = args[i+1], true
			i++
		case strings.HasPrefix(a, "-") && a != "-":
			return "", false, false // -i edits in place; -f, -z, -s: not evaluated
		case !haveScript:
			script, haveScript = a, true
		default:
			files = append(files, a)
		}
	}
	if !haveScript {
		return "", false, false
	}
	// "1e rm -rf ~", "$e CMD", "e CMD": GNU sed runs CMD itself, whatever
	// the input.
	if m := sedExecCmdRe.FindStringSubmatch(strings.TrimSpace(script)); m != nil {
		return m[1] + "\n", true, true
	}
	text, ok := filterInput(files, in, st)
	if !ok {
		return "", false, false
	}
	compile := func(p string) (*regexp.Regexp, bool) {
		if !ere {
			var ok bool
			if p, ok = BasicRegexp(p); !ok {
				return nil, false
			}
		}
		re, err := regexp.Compile(p)
		return re, err == nil
	}
	script = strings.TrimSpace(script)
	var addr *regexp.Regexp
	if strings.HasPrefix(script, "/") {
		end := strings.IndexByte(script[1:], '/')
		if end < 0 {
			return "", false, false
		}
		if addr, ok = compile(script[1 : end+1]); !ok {
			return "", false, false
		}
		script = strings.TrimSpace(script[end+2:])
	}
	selected := func(l string) bool { return addr == nil || addr.MatchString(l) }
	var b strings.Builder
	switch {
	case script == "e":
		for _, l := range lines(text) {
			if selected(l) {
				b.WriteString(l + "\n")
			}
		}
		return b.String(), true, true
	case script == "p" || script == "d":
		for _, l := range lines(text) {
			sel := selected(l)
			if script == "d" && sel {
				continue
			}
			if !quiet {
				b.WriteString(l + "\n")
			}
			if script == "p" && sel {
				b.WriteString(l + "\n")
			}
		}
		return b.String(), false, true
	case len(script) > 3 && script[0] == 's':
		d := script[1]
		parts := splitUnescaped(script[2:], d)
		if len(parts) != 3 {
			return "", false, false
		}
		re, ok := compile(parts[0])
		if !ok {
			return "", false, false
		}
		repl := sedReplacement(parts[1])
		global, print, run := false, false, false
		for _, f := range parts[2] {
			switch f {
			case 'g':
				global = true
			case 'p':
				print = true
			case 'e':
				run = true
			default:
				return "", false, false
			}
		}
		for _, l := range lines(text) {
			matched := selected(l) && re.MatchString(l)
			if matched {
				if global {
					l = re.ReplaceAllString(l, repl)
				} else if m := re.FindStringSubmatchIndex(l); m != nil {
					l = l[:m[0]] + string(re.ExpandString(nil, repl, l, m)) + l[m[1]:]
				}
			}
			if !quiet || print && matched {
				b.WriteString(l + "\n")
			}
		}
		return b.String(), run, true
	}
	return "", false, false
}

// sedReplacement turns sed's & and \1 into the regexp package's ${0}
// and ${1}.
func sedReplacement(r string) string {
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		switch c := r[i]; {
		case c == '&':
			b.WriteString("${0}")
		case c == '$':
			b.WriteString("$$")
		case c == '\\' && i+1 < len(r):
			i++
			if r[i] >= '0' && r[i] <= '9' {
				b.WriteString("${" + string(r[i]) + "}")
			} else if r[i] == 'n' {
				b.WriteByte('\n')
			} else {
				b.WriteByte(r[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// jqOut evaluates jq -r with a path filter (.a.b, .steps[].run, .[0]).
func jqOut(args []string, in stdinInfo, st *State) (string, bool) {
	raw := false
	var filter string
	haveFilter := false
	var files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-r" || a == "--raw-output" || a == "-j" || a == "--join-output":
			raw = true
		case a == "-c" || a == "--compact-output" || a == "-M" || a == "--monochrome-output" || a == "-e":
		case strings.HasPrefix(a, "-") && len(a) > 1:
			return "", false
		case !haveFilter:
			filter, haveFilter = a, true
		default:
			files = append(files, a)
		}
	}
	if !raw || !haveFilter {
		return "", false
	}
	steps, ok := jqPath(filter)
	if !ok {
		return "", false
	}
	text, ok := filterInput(files, in, st)
	if !ok {
		return "", false
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var b strings.Builder
	for {
		var v any
		if err := dec.Decode(&v); err != nil {
			if dec.More() || strings.TrimSpace(text) == "" {
				return "", false
			}
			break
		}
		vals := []any{v}
		for _, s := range steps {
			vals = s(vals)
		}
		for _, x := range vals {
			switch t := x.(type) {
			case string:
				b.WriteString(t + "\n")
			case nil:
				b.WriteString("null\n")
			default:
				var buf bytes.Buffer
				if err := json.NewEncoder(&buf).Encode(t); err != nil {
					return "", false
				}
				b.Write(buf.Bytes())
			}
		}
		if !dec.More() {
			break
		}
	}
	return b.String(), true
}

type jqStep func([]any) []any

// jqPath parses a jq path of .name, ."name", [] and [N] steps.
func jqPath(f string) ([]jqStep, bool) {
	f = strings.TrimSpace(f)
	if f == "" || f[0] != '.' {
		return nil, false
	}
	var steps []jqStep
	for i := 0; i < len(f); {
		switch {
		case f[i] == '.' && i+1 < len(f) && f[i+1] == '"':
			j := strings.IndexByte(f[i+2:], '"')
			if j < 0 {
				return nil, false
			}
			steps = append(steps, jqKey(f[i+2:i+2+j]))
			i += j + 3
		case f[i] == '.':
			j := i + 1
			for j < len(f) && (f[j] == '_' || f[j] >= 'a' && f[j] <= 'z' || f[j] >= 'A' && f[j] <= 'Z' || f[j] >= '0' && f[j] <= '9') {
				j++
			}
			if j > i+1 {
				steps = append(steps, jqKey(f[i+1:j]))
			}
			i = j
		case f[i] == '[':
			j := strings.IndexByte(f[i:], ']')
			if j < 0 {
				return nil, false
			}
			idx := f[i+1 : i+j]
			if idx == "" {
				steps = append(steps, jqIter)
			} else if n, err := strconv.Atoi(idx); err == nil {
				steps = append(steps, jqIndex(n))
			} else {
				return nil, false
			}
			i += j + 1
		default:
			return nil, false // pipes, functions, selections: not a path
		}
	}
	return steps, true
}

func jqKey(k string) jqStep {
	return func(vs []any) []any {
		var out []any
		for _, v := range vs {
			if m, ok := v.(map[string]any); ok {
				out = append(out, m[k])
			}
		}
		return out
	}
}

func jqIter(vs []any) []any {
	var out []any
	for _, v := range vs {
		switch t := v.(type) {
		case []any:
			out = append(out, t...)
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			// jq iterates an object in insertion order, which a Go map
			// loses; sorted keys keep the result deterministic.
			slices.Sort(keys)
			for _, k := range keys {
				out = append(out, t[k])
			}
		}
	}
	return out
}

func jqIndex(n int) jqStep {
	return func(vs []any) []any {
		var out []any
		for _, v := range vs {
			if a, ok := v.([]any); ok {
				i := n
				if i < 0 {
					i += len(a)
				}
				if i >= 0 && i < len(a) {
					out = append(out, a[i])
				}
			}
		}
		return out
	}
}

// lines splits text into its lines, without a final empty one.
func lines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// sedExecCmdRe is GNU sed's "e COMMAND", with an optional line address.
var sedExecCmdRe = refilter.MustCompile(`^(?:[0-9]+|\$)?\s*e\s+(\S.*)$`)

// splitUnescaped splits an s command's body at unescaped delimiters d
// and removes the escaping of d itself ("s/x/cat ~\/.ssh\/id_rsa/e").
func splitUnescaped(body string, d byte) []string {
	var parts []string
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\\' && i+1 < len(body) && body[i+1] == d:
			b.WriteByte(d)
			i++
		case c == '\\' && i+1 < len(body):
			b.WriteByte(c)
			b.WriteByte(body[i+1])
			i++
		case c == d:
			parts = append(parts, b.String())
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(parts, b.String())
}

// GrepOptions is what a grep-like command line (grep, egrep, fgrep, rg,
// ag) asks for, as far as what it prints is concerned.
type GrepOptions struct {
	// Patterns are the -e/--regexp values, else the first operand.
	Patterns []string
	// Files are the operands after the pattern.
	Files []string

	ERE, Fixed, IgnoreCase, Invert, Only, Line, Word bool
	// Listing: the output is a status, a count or file names (-c -q -l
	// -L and their long forms), not lines.
	Listing bool
	// Other: an option that changes which lines or how they are printed
	// in a way ParseGrep does not model (numbers, context, max counts,
	// file names, unknown long options).
	Other bool
}

// grepValueOpts are the short options of grep and rg that take a value.
const grepValueOpts = "efmABCgtTMjd"

// ParseGrep reads a grep-like command's arguments.
func ParseGrep(name string, args []string) GrepOptions {
	if n := strings.ToLower(name); n == "findstr" || n == "findstr.exe" {
		return parseFindstr(args)
	}
	o := GrepOptions{ERE: name == "egrep" || name == "rg", Fixed: name == "fgrep"}
	operand := true
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest := args[i+1:]
			if operand && len(rest) > 0 {
				o.Patterns, rest = append(o.Patterns, rest[0]), rest[1:]
			}
			o.Files = append(o.Files, rest...)
			return o
		case strings.HasPrefix(a, "--"):
			long, val, has := strings.Cut(a[2:], "=")
			switch long {
			case "regexp":
				if !has && i+1 < len(args) {
					val = args[i+1]
					i++
				}
				o.Patterns, operand = append(o.Patterns, val), false
			case "extended-regexp", "perl-regexp":
				o.ERE = true
			case "fixed-strings":
				o.Fixed = true
			case "ignore-case":
				o.IgnoreCase = true
			case "invert-match":
				o.Invert = true
			case "only-matching":
				o.Only = true
			case "line-regexp":
				o.Line = true
			case "word-regexp":
				o.Word = true
			case "count", "quiet", "silent", "files-with-matches", "files-without-match":
				o.Listing = true
			case "no-filename", "no-line-number", "no-heading", "color", "colour":
			default:
				o.Other = true
			}
		case len(a) > 1 && a[0] == '-':
			for k := 1; k < len(a); k++ {
				ch := a[k]
				switch ch {
				case 'E', 'P':
					o.ERE = true
				case 'G':
					o.ERE = false
				case 'F':
					o.Fixed = true
				case 'i':
					o.IgnoreCase = true
				case 'v':
					o.Invert = true
				case 'o':
					o.Only = true
				case 'x':
					o.Line = true
				case 'w':
					o.Word = true
				case 'c', 'q', 'l', 'L':
					o.Listing = true
				case 'e', 'h', 's', 'r', 'R', 'I', 'a', 'N':
				default:
					o.Other = true
				}
				if strings.IndexByte(grepValueOpts, ch) >= 0 {
					val := a[k+1:]
					if val == "" && i+1 < len(args) {
						val = args[i+1]
						i++
					}
					if ch == 'e' {
						o.Patterns, operand = append(o.Patterns, val), false
					}
					break
				}
			}
		default:
			if operand {
				o.Patterns, operand = append(o.Patterns, a), false
			} else {
				o.Files = append(o.Files, a)
			}
		}
	}
	return o
}

// parseFindstr reads cmd.exe's findstr: /I ignores case, /V inverts, /C:
// gives one literal string, /R makes patterns regular expressions,
// /M lists names; otherwise the first operand holds space-separated
// words, any of which selects a line.
func parseFindstr(args []string) GrepOptions {
	o := GrepOptions{Fixed: true}
	havePattern := false
	for _, a := range args {
		la := strings.ToLower(a)
		switch {
		case strings.HasPrefix(la, "/c:"):
			o.Patterns, havePattern = append(o.Patterns, a[3:]), true
		case la == "/i":
			o.IgnoreCase = true
		case la == "/v":
			o.Invert = true
		case la == "/r":
			o.Fixed, o.ERE = false, true
		case la == "/m":
			o.Listing = true
		case strings.HasPrefix(a, "/") && len(a) <= 3:
		case !havePattern:
			o.Patterns, havePattern = append(o.Patterns, strings.Fields(a)...), true
		default:
			o.Files = append(o.Files, a)
		}
	}
	return o
}
