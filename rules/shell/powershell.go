package shell

import (
	"encoding/base64"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/ledger-audit/ledger-audit/internal/refilter"
)

// PowerShell statements the POSIX parser cannot read, or reads as
// something else: "$p = ..." assignments (to bash, a command named by
// $p), aliases, functions without a ";" before "}", script blocks,
// Invoke-Expression of a string built by concatenation, -f formatting,
// -join of character codes, reversal or base64 decoding. The values are
// computed by a small evaluator that knows string literals, variables,
// and a handful of operators and .NET calls; anything else leaves the
// value unknown and the statement to the existing handling, so a
// construct it does not know costs no false alarm.

// psMaxValue bounds a computed value: a decoded or repeated string must
// not grow memory.
const psMaxValue = 16 << 10

// psVal is a PowerShell value: a string, or an array (of characters,
// strings or bytes).
type psVal struct {
	s     string
	arr   []string
	isArr bool
	bytes []byte // from [Convert]::FromBase64String
	isBin bool
	run   bool // a script block invoked: .Invoke()
}

func (v psVal) str() string {
	switch {
	case v.isBin:
		return string(v.bytes)
	case v.isArr:
		return strings.Join(v.arr, " ")
	}
	return v.s
}

// psEval evaluates a PowerShell expression, or reports false.
func (w *walker) psEval(expr string) (psVal, bool) {
	p := &psParser{w: w, src: expr}
	v, ok := p.expr()
	p.blank()
	if !ok || p.i != len(p.src) {
		return psVal{}, false
	}
	return v, true
}

type psParser struct {
	w   *walker
	src string
	i   int
	// reads are the files .NET calls read ([IO.File]::ReadAllText(P));
	// deletes the deletions they make ([IO.Directory]::Delete(P, $true)).
	reads   []string
	deletes [][]string
	// depth bounds nesting: hostile text of a thousand "(" must not
	// cost a thousand nested reads at each of a thousand positions.
	depth int
}

// psMaxDepth is the deepest nesting of parentheses and brackets read.
const psMaxDepth = 32

func (p *psParser) blank() {
	for p.i < len(p.src) && (p.src[p.i] == ' ' || p.src[p.i] == '\t') {
		p.i++
	}
}

// eat consumes word (case-insensitively) if it comes next.
func (p *psParser) eat(word string) bool {
	p.blank()
	if len(p.src)-p.i >= len(word) && strings.EqualFold(p.src[p.i:p.i+len(word)], word) {
		end := p.i + len(word)
		// An operator or name must end there ("-f" is not "-force").
		if isPSWordByte(word[len(word)-1]) && end < len(p.src) && isPSWordByte(p.src[end]) {
			return false
		}
		p.i = end
		return true
	}
	return false
}

func isPSWordByte(b byte) bool {
	return b == '_' || b == '-' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// expr := unary { "+" unary | "-join" unary | "-f" list | "-replace" list }
func (p *psParser) expr() (psVal, bool) {
	v, ok := p.unary()
	if !ok {
		return v, false
	}
	for {
		switch {
		case p.eat("+"):
			r, ok := p.unary()
			if !ok {
				return v, false
			}
			if v.isArr && r.isArr {
				v.arr = append(append([]string(nil), v.arr...), r.arr...)
			} else {
				v = psVal{s: v.str() + r.str()}
			}
		case p.eat("-join"):
			// ARRAY -join SEP (the unary -join is in unary).
			sep, ok := p.unary()
			if !ok {
				return v, false
			}
			items := v.arr
			if !v.isArr {
				items = []string{v.str()}
			}
			v = psVal{s: strings.Join(items, sep.str())}
		case p.eat("-f"):
			args, ok := p.list()
			if !ok {
				return v, false
			}
			v = psVal{s: psFormat(v.str(), args)}
		case p.eat("-replace"), p.eat("-creplace"):
			args, ok := p.list()
			if !ok || len(args) < 1 || len(args) > 2 {
				return v, false
			}
			with := ""
			if len(args) == 2 {
				with = args[1]
			}
			// A pattern is a regex; literal ones are what obfuscation uses.
			v = psVal{s: strings.ReplaceAll(v.str(), strings.ReplaceAll(args[0], `\`, ""), with)}
		default:
			if len(v.s) > psMaxValue {
				return v, false
			}
			return v, true
		}
		if len(v.s) > psMaxValue || len(v.arr) > psMaxValue {
			return v, false
		}
	}
}

// list := expr { "," expr }, as strings.
func (p *psParser) list() ([]string, bool) {
	var out []string
	for {
		v, ok := p.unary()
		if !ok {
			return nil, false
		}
		if v.isArr {
			out = append(out, v.arr...)
		} else {
			out = append(out, v.str())
		}
		if !p.eat(",") {
			return out, true
		}
	}
}

func (p *psParser) unary() (psVal, bool) {
	if p.eat("-join") {
		v, ok := p.unary()
		if !ok {
			return v, false
		}
		if v.isArr {
			return psVal{s: strings.Join(v.arr, "")}, true
		}
		return psVal{s: v.str()}, true
	}
	v, ok := p.primary()
	if !ok {
		return v, false
	}
	return p.postfix(v)
}

// postfix reads method calls on a value: .ToCharArray(), .Replace(a, b),
// .ToLower(), .ToUpper(), .Trim(), .Substring(n).
func (p *psParser) postfix(v psVal) (psVal, bool) {
	for {
		if m := psRangeRe.FindStringSubmatchIndex(p.src[p.i:]); m != nil && !v.isArr {
			// 'slaitnederc'[-1..-11]: characters picked by position,
			// reversed when the range runs down.
			r := []rune(v.str())
			a, ok1 := psIndex(p.src[p.i+m[2]:p.i+m[3]], len(r))
			b, ok2 := psIndex(p.src[p.i+m[4]:p.i+m[5]], len(r))
			if !ok1 || !ok2 {
				return v, false
			}
			out := psVal{isArr: true}
			step := 1
			if b < a {
				step = -1
			}
			// Each index counts from the end when negative; one outside
			// the string yields nothing ('abc'[-1..-100] is "cba").
			for k, i := a, 0; i < 4096; k, i = k+step, i+1 {
				if j := k + boolInt(k < 0)*len(r); j >= 0 && j < len(r) {
					out.arr = append(out.arr, string(r[j]))
				}
				if k == b {
					break
				}
			}
			p.i += m[1]
			v = out
			continue
		}
		p.blank()
		if p.i >= len(p.src) || p.src[p.i] != '.' {
			return v, true
		}
		p.i++
		name := p.ident()
		var args []string
		if p.eat("(") {
			if !p.eat(")") {
				var ok bool
				if args, ok = p.list(); !ok || !p.eat(")") {
					return v, false
				}
			}
		}
		switch strings.ToLower(name) {
		case "tochararray":
			s := v.str()
			v = psVal{isArr: true}
			for _, r := range s {
				v.arr = append(v.arr, string(r))
			}
		case "replace":
			if len(args) != 2 {
				return v, false
			}
			v = psVal{s: strings.ReplaceAll(v.str(), args[0], args[1])}
		case "tolower":
			v = psVal{s: strings.ToLower(v.str())}
		case "toupper":
			v = psVal{s: strings.ToUpper(v.str())}
		case "trim":
			v = psVal{s: strings.TrimSpace(v.str())}
		case "invoke":
			v.run = true
		case "substring":
			n, err := strconv.Atoi(strings.Join(args, ""))
			s := v.str()
			if err != nil || n < 0 || n > len(s) {
				return v, false
			}
			v = psVal{s: s[n:]}
		default:
			return v, false
		}
	}
}

func (p *psParser) ident() string {
	p.blank()
	j := p.i
	for j < len(p.src) && isPSWordByte(p.src[j]) && p.src[j] != '-' {
		j++
	}
	name := p.src[p.i:j]
	p.i = j
	return name
}

func (p *psParser) primary() (psVal, bool) {
	if p.depth >= psMaxDepth {
		return psVal{}, false
	}
	p.depth++
	defer func() { p.depth-- }()
	p.blank()
	if p.i >= len(p.src) {
		return psVal{}, false
	}
	switch ch := p.src[p.i]; {
	case ch == '\'':
		s, ok := p.single()
		return psVal{s: s}, ok
	case ch == '"':
		return p.double()
	case ch == '$':
		return p.variable()
	case ch == '@' && strings.HasPrefix(p.src[p.i:], "@("):
		p.i += 2
		args, ok := p.list()
		if !ok || !p.eat(")") {
			return psVal{}, false
		}
		return psVal{arr: args, isArr: true}, true
	case ch == '(':
		p.i++
		if p.eat("Join-Path") {
			return p.joinPath()
		}
		if p.eat("Get-Command") || p.eat("gcm") {
			// (Get-Command 'Get-Content'): the command, by name.
			v, ok := p.unary()
			if !ok || !p.eat(")") {
				return psVal{}, false
			}
			return p.postfix(psVal{s: v.str()})
		}
		v, ok := p.expr()
		if !ok {
			return v, false
		}
		if p.eat(")") {
			return v, true
		}
		if !p.eat(",") {
			return psVal{}, false
		}
		rest, ok := p.list()
		if !ok || !p.eat(")") {
			return psVal{}, false
		}
		return psVal{arr: append([]string{v.str()}, rest...), isArr: true}, true
	case ch == '[':
		return p.typed()
	case ch >= '0' && ch <= '9':
		j := p.i
		for j < len(p.src) && (p.src[j] >= '0' && p.src[j] <= '9' || p.src[j] == 'x' || p.src[j] >= 'a' && p.src[j] <= 'f' || p.src[j] >= 'A' && p.src[j] <= 'F') {
			j++
		}
		s := p.src[p.i:j]
		p.i = j
		return psVal{s: s}, true
	}
	return psVal{}, false
}

// joinPath reads the rest of "(Join-Path A B)".
func (p *psParser) joinPath() (psVal, bool) {
	var parts []string
	for !p.eat(")") {
		p.blank()
		if p.i >= len(p.src) {
			return psVal{}, false
		}
		if p.eat("-Path") || p.eat("-ChildPath") || p.eat("-AdditionalChildPath") {
			continue
		}
		var v psVal
		var ok bool
		if c := p.src[p.i]; c == '\'' || c == '"' || c == '$' || c == '(' || c == '[' {
			v, ok = p.unary()
		} else {
			// A bare word: Join-Path $HOME .ssh
			j := p.i
			for j < len(p.src) && p.src[j] != ' ' && p.src[j] != ')' {
				j++
			}
			v, ok = psVal{s: p.src[p.i:j]}, true
			p.i = j
		}
		if !ok {
			return v, false
		}
		parts = append(parts, strings.TrimRight(v.str(), `\/`))
	}
	if len(parts) == 0 {
		return psVal{}, false
	}
	return psVal{s: strings.Join(parts, `\`)}, true
}

// single reads a '...' literal (” is a quote).
func (p *psParser) single() (string, bool) {
	var b strings.Builder
	for j := p.i + 1; j < len(p.src); j++ {
		if p.src[j] == '\'' {
			if j+1 < len(p.src) && p.src[j+1] == '\'' {
				b.WriteByte('\'')
				j++
				continue
			}
			p.i = j + 1
			return b.String(), true
		}
		b.WriteByte(p.src[j])
	}
	return "", false
}

// double reads a "..." literal: backtick escapes, variables expanded.
func (p *psParser) double() (psVal, bool) {
	var b strings.Builder
	j := p.i + 1
	for j < len(p.src) {
		ch := p.src[j]
		switch {
		case ch == '"':
			if j+1 < len(p.src) && p.src[j+1] == '"' {
				b.WriteByte('"')
				j += 2
				continue
			}
			p.i = j + 1
			return psVal{s: b.String()}, true
		case ch == '`' && j+1 < len(p.src):
			b.WriteString(psEscape(p.src[j+1]))
			j += 2
		case ch == '$' && j+1 < len(p.src) && (isPSWordByte(p.src[j+1]) || p.src[j+1] == '{') && p.src[j+1] != '-':
			sub := &psParser{w: p.w, src: p.src, i: j}
			v, ok := sub.variable()
			if !ok {
				return psVal{}, false
			}
			b.WriteString(v.str())
			j = sub.i
		default:
			b.WriteByte(ch)
			j++
		}
	}
	return psVal{}, false
}

func psEscape(c byte) string {
	switch c {
	case 'n':
		return "\n"
	case 't':
		return "\t"
	case '0':
		return ""
	}
	return string(c)
}

// psHomeVars are the variables that name the user's home or a
// directory below it; winPath maps the rest.
var psHomeVars = map[string]string{
	"home": "~", "env:userprofile": "~", "env:home": "~", "env:homepath": "~",
	"env:appdata": "~/AppData/Roaming", "env:localappdata": "~/AppData/Local",
	"env:temp": "/tmp", "env:tmp": "/tmp", "env:systemroot": "/Windows", "env:windir": "/Windows",
	"env:programdata": "/ProgramData", "env:public": "/Users/Public",
	// Not a directory: the account name, in C:\Users\$env:USERNAME.
	"env:username": "user", "env:systemdrive": "C:", "env:homedrive": "C:",
}

// variable reads $name, ${name} or $env:NAME.
func (p *psParser) variable() (psVal, bool) {
	j := p.i + 1
	var name string
	if j < len(p.src) && p.src[j] == '{' {
		k := strings.IndexByte(p.src[j:], '}')
		if k < 0 {
			return psVal{}, false
		}
		name, j = p.src[j+1:j+k], j+k+1
	} else {
		k := j
		if strings.HasPrefix(strings.ToLower(p.src[k:]), "env:") {
			k += 4
		}
		for k < len(p.src) && (isPSWordByte(p.src[k]) && p.src[k] != '-') {
			k++
		}
		name, j = p.src[j:k], k
	}
	p.i = j
	v, ok := p.w.psVar(name)
	return v, ok
}

// psRangeRe is an index range after a value: [a..b], where each end is
// a number, $x.Length or ($x.Length-1), negative or not.
var psRangeRe = refilter.MustCompile(`^\[\s*(-?\(?\s*(?:-?[0-9]+|\$[A-Za-z_]\w*\.(?i:length|count))(?:\s*-\s*1)?\s*\)?)\s*\.\.\s*(-?\(?\s*(?:-?[0-9]+|\$[A-Za-z_]\w*\.(?i:length|count))(?:\s*-\s*1)?\s*\)?)\s*\]`)

// psIndex evaluates one end of a range for a string of n characters.
func psIndex(e string, n int) (int, bool) {
	e = strings.ReplaceAll(e, " ", "")
	neg := false
	if strings.HasPrefix(e, "-") {
		neg, e = true, e[1:]
	}
	e = strings.TrimSuffix(strings.TrimPrefix(e, "("), ")")
	minus := 0
	if strings.HasSuffix(e, "-1") && !strings.HasPrefix(e, "-") && strings.Contains(e, "$") {
		minus, e = 1, strings.TrimSuffix(e, "-1")
	}
	var k int
	if strings.HasPrefix(e, "$") {
		k = n
	} else {
		v, err := strconv.Atoi(e)
		if err != nil {
			return 0, false
		}
		k = v
	}
	k -= minus
	if neg {
		k = -k
	}
	return k, true
}

// psVar is a variable's value, when known.
func (w *walker) psVar(name string) (psVal, bool) {
	lname := strings.ToLower(name)
	if d, ok := psHomeVars[lname]; ok {
		return psVal{s: d}, true
	}
	key := strings.TrimPrefix(lname, "env:")
	if strings.HasPrefix(lname, "env:") {
		key = name[4:]
	} else {
		key = name
	}
	for _, k := range []string{key, strings.ToLower(key)} {
		if a, ok := w.st.Arrays[k]; ok {
			return psVal{arr: a, isArr: true}, true
		}
		if v, ok := w.st.Vars[k]; ok && !Unknown(v) {
			return psVal{s: v}, true
		}
	}
	return psVal{}, false
}

// typed reads [char]N, [char[]](...), [string]X and the static calls
// obfuscated PowerShell builds strings and reads files with.
func (p *psParser) typed() (psVal, bool) {
	k := strings.IndexByte(p.src[p.i:], ']')
	if k < 0 {
		return psVal{}, false
	}
	if strings.HasPrefix(p.src[p.i+k+1:], "]") && strings.HasSuffix(p.src[p.i:p.i+k], "[") {
		k++ // [char[]]
	}
	typ := strings.TrimPrefix(strings.ToLower(p.src[p.i+1:p.i+k]), "system.")
	p.i += k + 1
	switch typ {
	case "char":
		v, ok := p.primary()
		if !ok {
			return v, false
		}
		return psVal{s: psChar(v.str())}, true
	case "char[]":
		v, ok := p.primary()
		if !ok {
			return v, false
		}
		out := psVal{isArr: true}
		if v.isArr {
			for _, x := range v.arr {
				out.arr = append(out.arr, psChar(x))
			}
		} else {
			out.arr = append(out.arr, psChar(v.s))
		}
		return out, true
	case "string":
		v, ok := p.primary()
		return psVal{s: v.str()}, ok
	case "scriptblock":
		if v, called, ok := p.call("::Create"); called {
			return psVal{s: v.str()}, ok
		}
	case "convert":
		if v, called, ok := p.call("::FromBase64String"); called {
			if !ok {
				return v, false
			}
			b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v.str()))
			if err != nil || len(b) > psMaxValue {
				return psVal{}, false
			}
			return psVal{bytes: b, isBin: true}, true
		}
	case "text.encoding":
		p.blank()
		if !strings.HasPrefix(p.src[p.i:], "::") {
			return psVal{}, false
		}
		p.i += 2
		enc := strings.ToLower(p.ident())
		if !p.eat(".GetString") || !p.eat("(") {
			return psVal{}, false
		}
		v, ok := p.expr()
		if !ok || !p.eat(")") {
			return v, false
		}
		b := v.bytes
		if !v.isBin {
			b = []byte(v.str())
		}
		if enc == "unicode" {
			return psVal{s: utf16LE(b)}, true
		}
		return psVal{s: string(b)}, true
	case "io.file":
		p.blank()
		if p.eat("::Delete") && p.eat("(") {
			return p.netDelete()
		}
		for _, m := range []string{"::ReadAllText", "::ReadAllBytes", "::ReadAllLines", "::OpenRead", "::ReadLines"} {
			if v, called, ok := p.call(m); called {
				if !ok {
					return v, false
				}
				p.reads = append(p.reads, v.str())
				// The content is not known; the read is what matters.
				return psVal{s: ""}, true
			}
		}
	case "io.directory":
		if p.eat("::Delete") && p.eat("(") {
			return p.netDelete()
		}
	case "io.path":
		if p.eat("::Combine") && p.eat("(") {
			args, ok := p.list()
			if !ok || !p.eat(")") {
				return psVal{}, false
			}
			return psVal{s: strings.Join(args, `\`)}, true
		}
	case "environment":
		if v, called, ok := p.call("::GetFolderPath"); called && ok {
			switch strings.ToLower(strings.TrimPrefix(v.str(), "[Environment+SpecialFolder]::")) {
			case "userprofile", "mydocuments", "personal", "desktop":
				return psVal{s: "~"}, true
			case "applicationdata":
				return psVal{s: "~/AppData/Roaming"}, true
			case "localapplicationdata":
				return psVal{s: "~/AppData/Local"}, true
			}
		}
	}
	return psVal{}, false
}

// call reads ".Method(EXPR)" or "::Method(EXPR)" with one argument:
// called says the method came next, ok that its argument was read.
func (p *psParser) call(method string) (v psVal, called, ok bool) {
	if !p.eat(method) || !p.eat("(") {
		return psVal{}, false, false
	}
	v, ok = p.expr()
	return v, true, ok && p.eat(")")
}

// netDelete reads the rest of [IO.Directory]::Delete(PATH[, $true]) or
// [IO.File]::Delete(PATH) and records the deletion.
func (p *psParser) netDelete() (psVal, bool) {
	path, ok := p.expr()
	if !ok {
		return path, false
	}
	recurse := false
	if p.eat(",") {
		recurse = p.eat("$true")
	}
	if !p.eat(")") {
		return psVal{}, false
	}
	argv := []string{"rm", "-f", path.str()}
	if recurse {
		argv = []string{"rm", "-r", "-f", path.str()}
	}
	p.deletes = append(p.deletes, argv)
	return psVal{s: ""}, true
}

func psChar(s string) string {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 0, 32)
	if err != nil || n <= 0 || n > 0x10FFFF {
		return s
	}
	return string(rune(n))
}

func utf16LE(b []byte) string {
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		u = append(u, uint16(b[i])|uint16(b[i+1])<<8)
	}
	return string(utf16.Decode(u))
}

// psFormat applies "-f": {0}, {1}... replaced by the arguments.
func psFormat(f string, args []string) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] == '{' {
			if k := strings.IndexByte(f[i:], '}'); k > 1 {
				spec := f[i+1 : i+k]
				if c := strings.IndexAny(spec, ",:"); c >= 0 {
					spec = spec[:c]
				}
				if n, err := strconv.Atoi(spec); err == nil && n >= 0 && n < len(args) {
					b.WriteString(args[n])
					i += k
					continue
				}
			}
		}
		b.WriteByte(f[i])
	}
	return b.String()
}

// looksPowerShell reports PowerShell-only syntax: the evaluator is tried
// on text the POSIX parser rejected only when it is PowerShell.
func looksPowerShell(src string) bool {
	l := strings.ToLower(src)
	for _, m := range []string{"$env:", "iex", "invoke-expression", "invoke-command", "[convert]::", "[system.", "[text.", "[io.",
		"[char", "[scriptblock]", "set-alias", "new-alias", "join-path", "remove-item", "get-content", "-join", "function ", "tochararray",
		"new-object", "]::", "& (", "& $", "& '", "& \"", "$home\\", "get-childitem", "where-object", "invoke-restmethod", "invoke-webrequest", "irm ", "iwr ", "foreach ($", "foreach($"} {
		if strings.Contains(l, m) {
			return true
		}
	}
	// A leading call operator is never POSIX: "& /bin/sh -c '...'".
	return psAssignRe.MatchString(src) || strings.HasPrefix(strings.TrimSpace(l), "& ")
}

var psAssignRe = refilter.MustCompile(`^\s*\$(env:)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([^=].*?)\s*;?\s*$`)

var psFuncRe = refilter.MustCompile(`(?is)^\s*function\s+([A-Za-z_][\w-]*)\s*(?:\(([^)]*)\))?\s*\{(.*)\}\s*;?\s*$`)

var psAliasRe = refilter.MustCompile(`(?i)^\s*(?:set-alias|new-alias|sal|nal)\s+(?:-name\s+)?['"]?([\w-]+)['"]?\s+(?:-value\s+)?['"]?([\w.-]+)['"]?`)

var psParamRe = refilter.MustCompile(`(?is)^\s*param\s*\(((?:[^()]|\([^()]*\))*)\)`)

var psParamDefaultRe = refilter.MustCompile(`\$([A-Za-z_]\w*)\s*=\s*([^,)]+(?:\([^()]*\))?)`)

var psReverseRe = refilter.MustCompile(`(?i)^\s*\[(?:system\.)?array\]::reverse\(\s*\$([A-Za-z_]\w*)\s*\)\s*;?\s*$`)

var psBlockRe = refilter.MustCompile(`(?is)^\s*(?:[&.]\s*|(?:invoke-command|icm|start-job|sajb)\b[^{]*?-scriptblock\s*)\{(.*)\}`)

var psRevShellRe = refilter.MustCompile(`(?is)Net\.Sockets\.TCPClient\(.{0,600}?\b(iex|Invoke-Expression)\b`)

var psArgListRe = refilter.MustCompile(`(?i)-ArgumentList\s+(.+?)\s*$`)

var psCallOpRe = refilter.MustCompile(`^\s*&\s*([("$'\[])`)

var psIexRe = refilter.MustCompile(`(?is)^\s*(?:[&.]|iex|invoke-expression)\s+(.+?)\s*;?\s*$`)

var psIexPipeRe = refilter.MustCompile(`(?is)^\s*(.+?)\s*\|\s*(?:iex|invoke-expression|(?:powershell|pwsh)(?:\.exe)?(?:\s+-(?:nop|noprofile|noni|noninteractive|c|command))*\s+-)\s*;?\s*$`)

var (
	psSplatAssignRe   = refilter.MustCompile(`(?s)^\s*\$([A-Za-z_]\w*)\s*=\s*@\{(.*)\}\s*;?\s*$`)
	psHashtableRe     = refilter.MustCompile(`(^|[;\n])\s*\$[A-Za-z_]\w*\s*=\s*@\{`)
	psTaskActionRe    = refilter.MustCompile(`(?i)New-ScheduledTaskAction\s+-Execute\s+(\S+)\s+-Argument\s+(?:'([^']*)'|"([^"]*)"|(\S+))`)
	psInvokeCommandRe = refilter.MustCompile(`(?is)^\s*(?:Invoke-Command|icm)\b.*?(?:-ScriptBlock\s*\{(.*)\}|-FilePath\s+["']?([^\s"']+))`)
	psFileCodeRe      = refilter.MustCompile(`(?i)^\s*((?:powershell|pwsh)(?:\.exe)?)\s+(?:-\w+\s+(?:(?:Bypass|Unrestricted|Hidden|RemoteSigned)\s+)?)*?-c(?:ommand)?\s+["']?\(\s*(?:Get-Content|gc|cat|type)\s+(?:-Path\s+|-LiteralPath\s+)?["']?([^\s"')]+)["']?(?:\s+-Raw)?\s*\)["']?\s*;?\s*$`)
	psSplatUseRe      = refilter.MustCompile(`(^|\s)@([A-Za-z_]\w*)\b`)
	psInvokeScriptRe  = refilter.MustCompile(`(?is)^\s*\$ExecutionContext\.InvokeCommand\.(?:InvokeScript|NewScriptBlock)\(\s*(.+?)\s*\)\s*(?:\.Invoke\(\s*\))?\s*;?\s*$`)
	psGcmRe           = refilter.MustCompile(`(?i)\(\s*(?:gcm|get-command)\s+['"]?([\w*?-]+)['"]?\s*\)`)
)

// psSplatKey prefixes the session variable holding a splatted hashtable.
const psSplatKey = "\x00splat:"

// psSplat replaces "@name" with the parameters the hashtable $name holds.
func (w *walker) psSplat(st string) string {
	if !strings.Contains(st, "@") {
		return st
	}
	return psSplatUseRe.ReplaceAllStringFunc(st, func(m string) string {
		g := psSplatUseRe.FindStringSubmatch(m)
		if v, ok := w.st.Vars[psSplatKey+strings.ToLower(g[2])]; ok {
			return g[1] + v
		}
		return m
	})
}

// psCmdlets are the command names a Get-Command wildcard is resolved
// against ("& (gcm I*e-Ex*) $s" runs Invoke-Expression).
var psCmdlets = []string{"Invoke-Expression", "Invoke-WebRequest", "Invoke-RestMethod", "Remove-Item", "Get-Content", "Start-Process", "Invoke-Command", "Set-MpPreference", "New-Object"}

// psGcm replaces "(gcm PATTERN)" with the one cmdlet PATTERN names.
func psGcm(st string) string {
	if !strings.Contains(strings.ToLower(st), "gcm") && !strings.Contains(strings.ToLower(st), "get-command") {
		return st
	}
	return psGcmRe.ReplaceAllStringFunc(st, func(m string) string {
		pat := strings.ToLower(psGcmRe.FindStringSubmatch(m)[1])
		found := ""
		for _, name := range psCmdlets {
			if ok, _ := path.Match(pat, strings.ToLower(name)); ok {
				if found != "" {
					return m // ambiguous
				}
				found = name
			}
		}
		if found == "" {
			return m
		}
		return found
	})
}

// psScript reads a script the POSIX parser rejected statement by
// statement, for the PowerShell ones it knows.
func (w *walker) psScript(src string, c ctx) {
	if psRevShellRe.MatchString(src) {
		// A TCP client whose received text is run: a reverse shell.
		w.codeItem(codeItem{argv: []string{"nc", "-e", "/bin/sh", "remote"}, via: "powershell reverse-shell", text: clip(src, 200)}, c)
	}
	sts := psSplit(src)
	for _, st := range sts {
		if w.depth > maxDepth || len(w.out) > maxCommands {
			return
		}
		st = w.psSplat(psGcm(st))
		if w.psStmt(st, c) {
			continue
		}
		// Not special: a command whose parenthesised parts may be
		// computable ("Get-Content (Join-Path $HOME '.ssh/id_rsa')").
		if r, ok := w.psInline(st); ok {
			w.sub(r, c, nil)
		} else if len(sts) > 1 {
			// One statement of several that spoiled the POSIX reading
			// of the whole ("Start-BitsTransfer ...; & $env:TEMP\t.exe"):
			// read on its own.
			w.sub(st, c, nil)
		} else if first, _, _ := strings.Cut(st, " "); w.st.Funcs[first] != "" {
			// A function the session defined, called with PowerShell
			// arguments: run through the POSIX path that expands it.
			w.sub(st, c, nil)
		}
	}
}

// psForeachStmtRe is the head of a foreach statement, up to its "{".
var psForeachStmtRe = refilter.MustCompile(`(?is)^\s*foreach\s*\(\s*\$([A-Za-z_][A-Za-z0-9_]*)\s+in\s+(.+?)\)\s*\{`)

// psForeachStmt reads "foreach ($p in COLLECTION) { BODY }" as the
// pipeline "COLLECTION | ForEach-Object { BODY }" with $p as $_, so the
// items reach the body's commands the way psForEach reads them: listed
// strings, an array variable of them, or a command's output. The body
// is also read as written. It reports whether text was one.
func (w *walker) psForeachStmt(text string, c ctx) bool {
	m := psForeachStmtRe.FindStringSubmatchIndex(text)
	if m == nil {
		return false
	}
	open := m[1] - 1
	end := psCloseBrace(text, open)
	if end < 0 {
		return false
	}
	name, coll, body := text[m[2]:m[3]], strings.TrimSpace(text[m[4]:m[5]]), text[open+1:end]
	if vm := psLoneVarRe.FindStringSubmatch(coll); vm != nil {
		// An array of strings ($paths = 'C:\a', 'C:\b'): its items.
		if arr, ok := w.st.Arrays[vm[1]]; ok && len(arr) > 0 {
			q := make([]string, len(arr))
			for i, a := range arr {
				q[i] = "'" + strings.ReplaceAll(a, "'", "''") + "'"
			}
			coll = strings.Join(q, ", ")
		}
	}
	item := refilter.MustCompile(`(?i)\$` + regexp.QuoteMeta(name) + `\b`)
	pipe := coll + " | ForEach-Object {" + item.ReplaceAllString(body, "$$_") + "}"
	for _, x := range psForEach(pipe) {
		x, _ = w.psVarProducer(x)
		w.sub(x, c.with("foreach"), nil)
	}
	w.sub(body, c, nil)
	if rest := strings.TrimSpace(text[end+1:]); rest != "" {
		w.sub(rest, c, nil)
	}
	return true
}

// psQuotedRe is one quoted string of a psLiteralItemsRe list (whose
// strings hold no quotes).
var psQuotedRe = refilter.MustCompile(`'[^']*'|"[^"]*"`)

// psLoneVarRe is an expression that is one variable.
var psLoneVarRe = refilter.MustCompile(`^\$([A-Za-z_][A-Za-z0-9_]*)$`)

// psInvokeExprRe and psInvokePosRe are Invoke-Command's script block
// given as an expression, and given by position.
var (
	psInvokeExprRe = refilter.MustCompile(`(?is)^\s*(?:Invoke-Command|icm)\b.*?-ScriptBlock\s*(\(.*\))\s*;?\s*$`)
	psInvokePosRe  = refilter.MustCompile(`(?is)^\s*(?:Invoke-Command|icm)\b[^{]*?\s\{(.*)\}\s*;?\s*$`)
)

// psCreateVarRe runs a script block made from a variable:
// "& ([scriptblock]::Create($s))", "[ScriptBlock]::Create($s).Invoke()",
// ". ([scriptblock]::Create($s))".
var psCreateVarRe = refilter.MustCompile(`(?i)^\s*(?:[&.]\s*\(\s*)?\[(?:System\.Management\.Automation\.)?scriptblock\]::Create\(\s*\$([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*(?:\)|\.Invoke\(\s*\))\s*;?\s*$`)

// psVarPipeRe is a pipeline whose producer is a variable: "$u | X".
var psVarPipeRe = refilter.MustCompile(`(?s)^\s*\$([A-Za-z_][A-Za-z0-9_]*)\s*\|\s*(.+?)\s*;?\s*$`)

// psVarProducer rewrites "$u | X", where $u holds a command's output
// ("$u = Get-MgUser -All"), as that command piped into X, the way
// u=$(cmd) is read in a POSIX shell. ok is false otherwise.
func (w *walker) psVarProducer(text string) (string, bool) {
	m := psVarPipeRe.FindStringSubmatch(text)
	if m == nil {
		return text, false
	}
	from := w.psVarFrom("$" + m[1])
	if from == "" {
		return text, false
	}
	return from + " | " + m[2], true
}

// psStmt handles one PowerShell statement it recognises: assignment,
// alias, function, array reversal, script block or Invoke-Expression of
// a computable string. It reports whether it did.
func (w *walker) psStmt(text string, c ctx) bool {
	if t, ok := w.psVarProducer(text); ok {
		w.sub(t, c, nil)
		return true
	}
	if w.psForeachStmt(text, c) {
		return true
	}
	if m := psSplatAssignRe.FindStringSubmatch(text); m != nil {
		// $p = @{ Path = $HOME; Recurse = $true }: the parameters a
		// later "Cmd @p" passes.
		var args []string
		for _, kv := range strings.Split(m[2], ";") {
			k, v, ok := strings.Cut(kv, "=")
			if k = strings.TrimSpace(k); !ok || !validName(k) {
				continue
			}
			switch v = strings.TrimSpace(v); strings.ToLower(v) {
			case "$true":
				args = append(args, "-"+k)
			case "$false":
			default:
				args = append(args, "-"+k, v)
			}
		}
		w.st.setVar(psSplatKey+strings.ToLower(m[1]), strings.Join(args, " "))
		return true
	}
	if first, rest, ok := strings.Cut(strings.TrimSpace(text), " "); ok && w.st.Aliases[first] != "" && !contains(c.via, "alias:"+first) {
		// Set-Alias run Invoke-Expression, then "run (...)".
		expanded := w.st.Aliases[first] + " " + rest
		if !w.psStmt(expanded, c.with("alias:"+first)) {
			w.psNetExec(expanded, c.with("alias:"+first))
		}
		return true
	}
	if m := psFuncRe.FindStringSubmatch(text); m != nil {
		body := m[3]
		if strings.TrimSpace(m[2]) != "" {
			// function F($p, $q) { ... }: the same parameters as a
			// param() block, bound the same way at the call.
			body = "param(" + m[2] + ") " + body
		}
		w.st.Funcs[m[1]] = body
		w.st.origin["func:"+m[1]] = w.st.gen
		return true
	}
	if m := psAliasRe.FindStringSubmatch(text); m != nil {
		w.st.Aliases[m[1]] = m[2]
		w.st.origin["alias:"+m[1]] = w.st.gen
		return true
	}
	if m := psParamRe.FindStringSubmatch(text); m != nil {
		// param([string]$Root = $env:USERPROFILE): a default, unless the
		// caller bound the name.
		for _, d := range psParamDefaultRe.FindAllStringSubmatch(m[1], -1) {
			if _, set := w.st.Vars[d[1]]; set {
				continue
			}
			if v, ok := w.psEval(d[2]); ok {
				w.st.setVar(d[1], v.str())
			}
		}
		if rest := strings.TrimSpace(text[len(m[0]):]); rest != "" {
			w.sub(rest, c, nil)
		}
		return true
	}
	if m := psReverseRe.FindStringSubmatch(text); m != nil {
		if a, ok := w.st.Arrays[m[1]]; ok {
			r := make([]string, len(a))
			for i, x := range a {
				r[len(a)-1-i] = x
			}
			w.st.setArray(m[1], r)
		}
		return true
	}
	if m := psAssignRe.FindStringSubmatch(text); m != nil {
		if psLiteralItemsRe.MatchString(m[3]) && len(psQuotedRe.FindAllString(m[3], 2)) == 2 {
			// $paths = 'C:\a', 'C:\b': an array of strings.
			var items []string
			for _, it := range psQuotedRe.FindAllString(m[3], -1) {
				items = append(items, it[1:len(it)-1])
			}
			w.st.setArray(m[2], items)
			r := newRaw([]string{AssignName, m[2] + "=(" + strings.Join(items, " ") + ")"})
			r.text = text
			w.record(r, AssignName, c, stdinInfo{})
			return true
		}
		if strings.HasPrefix(strings.ToLower(m[3]), "join-path ") {
			m[3] = "(" + m[3] + ")" // a command whose value is computable
		}
		p := &psParser{w: w, src: m[3]}
		v, ok := p.expr()
		p.blank()
		w.psEffects(p, text, c)
		if !ok || p.i != len(p.src) {
			// A command's output ("$c = Get-Credential", "$s = irm URL"):
			// run it, and remember where the value came from, as for
			// s=$(cmd) in a POSIX shell.
			w.sub(m[3], c.with("assign"), nil)
			name := m[2]
			w.st.setVar(name, unkOpen+name+unkClose)
			if w.st.VarFrom == nil {
				w.st.VarFrom = map[string]string{}
			}
			w.st.VarFrom[name] = "$(" + m[3] + ")"
			return true
		}
		name := m[2]
		if v.isArr {
			w.st.setArray(name, v.arr)
		} else {
			w.st.setVar(name, v.str())
		}
		r := newRaw([]string{AssignName, name + "=" + v.str()})
		r.text = text
		w.record(r, AssignName, c, stdinInfo{})
		return true
	}
	if m := psBlockRe.FindStringSubmatch(text); m != nil {
		if al := psArgListRe.FindStringSubmatch(text); al != nil {
			// -ArgumentList "a", "b": the block's param() names, in order.
			var vals []string
			for _, x := range strings.Split(al[1], ",") {
				if v, ok := w.psEval(strings.TrimSpace(x)); ok {
					vals = append(vals, v.str())
				}
			}
			w.psBindParams(m[1], vals)
		}
		w.sub(m[1], c.with("scriptblock"), nil)
		return true
	}
	if v, ok := w.psEval(text); ok && v.run && v.str() != "" {
		// [scriptblock]::Create("...").Invoke()
		w.sub(v.str(), c.with("scriptblock"), nil)
		return true
	}
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "&") {
		if rest := strings.TrimSpace(t[1:]); winExeRe.MatchString(rest) {
			// "& $env:TEMP\svc.exe": the program by its Windows path.
			if words := winSplit(rest); len(words) > 0 {
				w.sub(quote(winPath(words[0]))+" "+strings.Join(words[1:], " "), c.with("&"), nil)
				return true
			}
		}
	}
	if m := psCallOpRe.FindStringSubmatchIndex(text); m != nil {
		// & ("{1}{0}" -f 'ex','i') ARGS: a command named by an
		// expression, with the rest as its arguments.
		p := &psParser{w: w, src: text, i: m[2]}
		if v, ok := p.unary(); ok {
			name := strings.TrimSpace(v.str())
			if strings.ContainsAny(name, `\/`) {
				name = quote(winPath(name)) // & "$env:TEMP\tool.exe"
			}
			if name != "" && !strings.ContainsAny(name, "\t\n") {
				if rest := strings.TrimSpace(text[p.i:]); rest != "" || psOnly[strings.ToLower(name)] {
					w.sub(name+" "+rest, c.with("&"), nil)
					return true
				}
			}
		}
	}
	if m := psCreateVarRe.FindStringSubmatch(text); m != nil {
		if from := w.psVarFrom("$" + m[1]); from != "" {
			// $s = (New-Object Net.WebClient).DownloadString($u), then
			// & ([scriptblock]::Create($s)): what was fetched is run.
			w.sub(from+" | iex", c.with("iex"), nil)
			return true
		}
	}
	for _, re := range []*refilter.Regexp{psIexRe, psIexPipeRe} {
		if m := re.FindStringSubmatch(text); m != nil {
			p := &psParser{w: w, src: m[1]}
			v, ok := p.expr()
			p.blank()
			if ok && p.i == len(p.src) && v.str() != "" {
				w.psEffects(p, text, c)
				w.sub(v.str(), c.with("iex"), nil)
				return true
			}
			if from := w.psVarFrom(m[1]); from != "" {
				// $s = Invoke-RestMethod URL, then iex $s: what the
				// command printed is run, as "irm URL | iex".
				w.sub(from+" | iex", c.with("iex"), nil)
				return true
			}
		}
	}
	if m := psTaskActionRe.FindStringSubmatch(text); m != nil {
		// New-ScheduledTaskAction -Execute X -Argument 'Y': X Y, run
		// later (the task's registration is matched on its own).
		arg := m[2] + m[3] + m[4]
		w.sub(winProcLine(strings.Trim(m[1], `"'`)+" "+arg), c.with("scheduled task"), nil)
	}
	if m := psInvokeCommandRe.FindStringSubmatch(text); m != nil {
		// Invoke-Command [-ComputerName H] -ScriptBlock { ... } or
		// -FilePath F: the block or the file runs (there).
		if m[1] != "" {
			w.psScript(m[1], c.with("Invoke-Command"))
		} else {
			w.sub("powershell -File "+quote(m[2]), c.with("Invoke-Command"), nil)
		}
	} else if m := psInvokeExprRe.FindStringSubmatch(text); m != nil {
		// -ScriptBlock ([ScriptBlock]::Create(EXPR)): the computed text.
		if v, ok := w.psEval(m[1]); ok && v.str() != "" {
			w.sub(v.str(), c.with("Invoke-Command"), nil)
		}
	} else if m := psInvokePosRe.FindStringSubmatch(text); m != nil {
		// Invoke-Command -ComputerName H { ... }: the block given by
		// position.
		w.sub(m[1], c.with("Invoke-Command"), nil)
	}
	if m := psFileCodeRe.FindStringSubmatch(text); m != nil {
		// powershell -Command (Get-Content FILE -Raw): the file's text is
		// the command, as with -File FILE.
		w.sub(m[1]+" -File "+quote(m[2]), c.with("-Command (Get-Content)"), nil)
		return true
	}
	if m := psInvokeScriptRe.FindStringSubmatch(text); m != nil {
		// $ExecutionContext.InvokeCommand.InvokeScript('...'): the
		// string run as a script.
		p := &psParser{w: w, src: m[1]}
		if v, ok := p.expr(); ok && v.str() != "" {
			w.sub(v.str(), c.with("InvokeScript"), nil)
			return true
		}
	}
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "&") {
		// The call operator on a program named as a word or a literal
		// ("& /bin/sh -c '...'", "& 'C:\tools\x.exe' -y"): that program
		// with its arguments, which the POSIX reader takes as they are.
		if rest := strings.TrimSpace(t[1:]); rest != "" && !strings.ContainsRune("($@{&", rune(rest[0])) {
			w.sub(rest, c.with("&"), nil)
			return true
		}
	}
	return false
}

// psBindParams binds a PowerShell function's param() names to the
// arguments of a call: "-Path $HOME" by name, the rest by position.
func (w *walker) psBindParams(body string, args []string) {
	m := psParamRe.FindStringSubmatch(body)
	if m == nil {
		return
	}
	var names []string
	for _, n := range psParamNameRe.FindAllStringSubmatch(m[1], -1) {
		names = append(names, n[1])
	}
	bound := map[string]bool{}
	var positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") && i+1 < len(args) {
			for _, n := range names {
				if strings.EqualFold(a[1:], n) {
					w.st.setVar(n, args[i+1])
					bound[n] = true
					i++
					break
				}
			}
			continue
		}
		positional = append(positional, a)
	}
	for _, n := range names {
		if !bound[n] && len(positional) > 0 {
			w.st.setVar(n, positional[0])
			positional = positional[1:]
		}
	}
}

var psParamNameRe = refilter.MustCompile(`\$([A-Za-z_]\w*)`)

// psVarFrom is the command a lone variable ("$s", "$env:X") took its
// value from, when the session recorded one.
func (w *walker) psVarFrom(expr string) string {
	expr = strings.TrimSpace(expr)
	if !strings.HasPrefix(expr, "$") {
		return ""
	}
	name := strings.Trim(expr[1:], "{}")
	if len(name) > 4 && strings.EqualFold(name[:4], "env:") {
		name = name[4:]
	}
	if !validName(name) {
		return ""
	}
	from := w.st.VarFrom[name]
	if !strings.HasPrefix(from, "$(") || !strings.HasSuffix(from, ")") {
		return ""
	}
	return strings.TrimSpace(from[2 : len(from)-1])
}

// psReads records the files .NET calls in an expression read.
func (w *walker) psReads(paths []string, text string, c ctx) {
	for _, p := range paths {
		r := newRaw([]string{"cat", winPath(p)})
		r.text = text
		w.emit(r, c.with("powershell"), stdinInfo{})
	}
}

// psEffects records what a parsed expression's .NET calls did.
func (w *walker) psEffects(p *psParser, text string, c ctx) {
	w.psReads(p.reads, text, c)
	for _, argv := range p.deletes {
		argv[len(argv)-1] = winPath(argv[len(argv)-1])
		r := newRaw(argv)
		r.text = text
		w.emit(r, c.with("powershell"), stdinInfo{})
	}
}

// psInline replaces the computable parenthesised parts and variables of
// a command with their values, or reports false when there are none.
func (w *walker) psInline(text string) (string, bool) {
	var b strings.Builder
	changed := false
	tries := 0 // expressions attempted: bounded on hostile text
	var q byte
	for i := 0; i < len(text); i++ {
		ch := text[i]
		switch {
		case q == '"' && ch == '$' && !psHomeVar(text[i:]):
			// "$HOME\.ssh\$f": PowerShell expands variables inside
			// double quotes.
			p := &psParser{w: w, src: text, i: i}
			if v, ok := p.variable(); ok && !strings.ContainsAny(v.str(), "\"`") {
				b.WriteString(v.str())
				i = p.i - 1
				changed = true
				continue
			}
		case q != 0:
			if ch == q {
				q = 0
			}
		case ch == '\'' || ch == '"':
			q = ch
		case (ch == '(' || ch == '[' || ch == '$') && tries < 64:
			tries++
			p := &psParser{w: w, src: text, i: i}
			var v psVal
			var ok bool
			if ch == '$' {
				if psHomeVar(text[i:]) {
					break // winPath reads these in place
				}
				v, ok = p.variable()
			} else {
				v, ok = p.unary()
				for p.i > i && (text[p.i-1] == ' ' || text[p.i-1] == '\t') {
					p.i-- // the blank after the expression separates words
				}
			}
			if ok && (ch != '$' || p.i == len(text) || text[p.i] == ' ' || text[p.i] == '\\' || text[p.i] == '/' || text[p.i] == ')') {
				w.psEffects(p, text, ctx{})
				if val := v.str(); val != "" && !strings.ContainsAny(val, " \t'\"") {
					b.WriteString(val) // a path continues after it: $p\\x
				} else {
					b.WriteString(quote(val))
				}
				i = p.i - 1
				changed = true
				continue
			}
		}
		b.WriteByte(ch)
	}
	return b.String(), changed
}

// psSplit cuts a script at top-level ";" and newlines.
func psSplit(src string) []string {
	var out []string
	depth, start := 0, 0
	psUnquoted(src, 0, func(i int, ch byte) bool {
		switch {
		case ch == '(' || ch == '{' || ch == '[':
			depth++
		case ch == ')' || ch == '}' || ch == ']':
			if depth > 0 {
				depth--
			}
		case (ch == ';' || ch == '\n') && depth == 0:
			if s := strings.TrimSpace(src[start:i]); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
		return false
	})
	if s := strings.TrimSpace(src[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// psUnquoted calls f for each byte of s from "from" on that is outside
// PowerShell quotes (a backtick escapes inside double quotes), until f
// returns true.
func psUnquoted(s string, from int, f func(i int, ch byte) bool) {
	var q byte
	for i := from; i < len(s); i++ {
		ch := s[i]
		switch {
		case q != 0:
			if ch == q {
				q = 0
			} else if ch == '`' && q == '"' {
				i++
			}
		case ch == '\'' || ch == '"':
			q = ch
		default:
			if f(i, ch) {
				return
			}
		}
	}
}

// psStatement is a cheap test for a statement the POSIX parser read but
// that is PowerShell: an assignment to $name, an alias, a script block.
func psStatement(raw rawCmd) bool {
	if raw.text == "" {
		return false
	}
	if raw.text[0] == '$' {
		return true
	}
	if len(raw.fields) == 0 {
		return false
	}
	switch strings.ToLower(raw.fields[0]) {
	case "set-alias", "new-alias", "sal", "nal", "invoke-command", "icm", "start-job", "sajb", "iex", "invoke-expression", "new-scheduledtaskaction":
		return true
	}
	return false
}

// psHomeVar reports text starting with a variable psHomeVars knows.
func psHomeVar(text string) bool {
	l := strings.ToLower(text)
	for k := range psHomeVars {
		if strings.HasPrefix(l[1:], k) && (len(l) == len(k)+1 || !isPSWordByte(l[len(k)+1]) || l[len(k)+1] == '-') {
			return true
		}
	}
	return false
}

var (
	// psArrayAssignRe: a variable set to an array literal of strings.
	psArrayAssignRe = refilter.MustCompile(`\$([A-Za-z_]\w*)\s*=\s*@\(\s*((?:'[^']*'|"[^"]*")(?:\s*,\s*(?:'[^']*'|"[^"]*"))*)\s*\)\s*;?`)
	// psArrayInlineRe: an array literal of strings given as arguments.
	psArrayInlineRe = refilter.MustCompile(`(^|\s)@\(\s*((?:'[^']*'|"[^"]*")(?:\s*,\s*(?:'[^']*'|"[^"]*"))*)\s*\)`)
	psQuotedItemRe  = refilter.MustCompile(`'([^']*)'|"([^"]*)"`)
)

// psArrayItems are the quoted items of an array literal, as shell words.
func psArrayItems(list string) string {
	var out []string
	for _, m := range psQuotedItemRe.FindAllStringSubmatch(list, 32) {
		out = append(out, quote(m[1]+m[2]))
	}
	return strings.Join(out, " ")
}

// hasArraySplat reports whether src uses "@name" for an array the
// session assigned earlier.
func (w *walker) hasArraySplat(src string) bool {
	for _, m := range psSplatUseRe.FindAllStringSubmatch(src, 8) {
		if _, ok := w.st.Vars[psSplatKey+strings.ToLower(m[2])]; ok {
			return true
		}
	}
	return false
}

// psArraySplat records array assignments (for later calls too) and
// rewrites array splats and inline array arguments as the words they
// pass; ok is false when src holds neither.
func (w *walker) psArraySplat(src string) (string, bool) {
	changed := false
	out := psArrayAssignRe.ReplaceAllStringFunc(src, func(m string) string {
		g := psArrayAssignRe.FindStringSubmatch(m)
		w.st.setVar(psSplatKey+strings.ToLower(g[1]), psArrayItems(g[2]))
		changed = true
		return ""
	})
	out = psArrayInlineRe.ReplaceAllStringFunc(out, func(m string) string {
		g := psArrayInlineRe.FindStringSubmatch(m)
		changed = true
		return g[1] + psArrayItems(g[2])
	})
	if t := w.psSplat(out); t != out {
		out, changed = t, true
	}
	if !changed {
		return "", false
	}
	// "& git ..." is the call operator on a plain name.
	out = strings.TrimSpace(out)
	if t, ok := strings.CutPrefix(out, "& "); ok {
		out = t
	}
	return out, true
}

// psForEachRe finds a pipeline into ForEach-Object with a script block.
var psForEachRe = refilter.MustCompile(`(?i)\|\s*(?:%|foreach-object|foreach)\s*\{`)

// psItemRe is the pipeline's current object as a command's operand:
// "$_", "$PSItem", "$_.FullName", optionally after -Path / -LiteralPath.
// The properties that name the object itself count as it: a path, or
// a directory object's identity ("Remove-MgUser -UserId $_.Id",
// "Remove-Mailbox -Identity $_.PrimarySmtpAddress").
var psItemRe = refilter.MustCompile(`(?i)(?:-(?:literal)?path\s+)?["']?\$(?:_|psitem)(?:\.(?:fullname|fullpath|pspath|id|objectid|identity|guid|primarysmtpaddress|userprincipalname|distinguishedname|samaccountname|externaldirectoryobjectid|name|dnshostname|url|weburl|siteurl))?\b["']?`)

// psForEach reads "PRODUCER | ForEach-Object { BODY }": each statement
// of BODY that acts on the current object ($_) as a whole operand is
// returned reading it from the pipeline, so "gci $HOME -r | % { ri
// $_.FullName -fo -r }" gives "gci $HOME -r | ri -fo -r", which the
// listing-into-Remove-Item reading resolves to what the listing names;
// with a producer of quoted strings, the strings stand in for $_. The
// statement itself is still read as it is written (rules match its text,
// "$_.GetNetworkCredential().Password"); these are read besides it.
func psForEach(src string) []string {
	var out []string
	for _, st := range psSplit(src) {
		loc := psForEachRe.FindStringIndex(st)
		if loc == nil {
			continue
		}
		open := loc[1] - 1
		end := psCloseBrace(st, open)
		if end < 0 {
			continue
		}
		producer, body := strings.TrimSpace(st[:loc[0]]), st[open+1:end]
		if m := psAssignHeadRe.FindStringSubmatch(producer); m != nil {
			// "$keys = Get-X -All | % { ... }": the loop's output is
			// assigned; its items come from the command.
			producer = m[1]
		}
		if producer == "" {
			continue
		}
		lit := psLiteralItems(producer)
		if psFromB64ItemRe.MatchString(body) {
			// % { [Text.Encoding]::UTF8.GetString([Convert]::FromBase64String($_)) }
			out = append(out, producer+" | base64 -d")
		}
		if psReadItemRe.MatchString(body) {
			// % { [IO.File]::ReadAllBytes($_.FullName) }: each listed file
			// read.
			out = append(out, producer+" | Get-Content")
		}
		for _, b := range psSplit(body) {
			if lit != "" && psItemRe.MatchString(b) {
				// 'C:\x', 'C:\y' | % { Remove-Item $_ -Recurse }: the
				// items themselves.
				out = append(out, psItemRe.ReplaceAllStringFunc(b, func(string) string { return " " + lit + " " }))
			} else if r, ok := psDropItem(b); ok {
				// "& $c -Identity $_.Id": the call operator's command
				// is the stage itself.
				r = strings.TrimLeft(strings.TrimPrefix(r, "&"), " \t")
				out = append(out, producer+" | "+r)
			}
		}
	}
	return out
}

// psAssignHeadRe is "$name = REST" at the start of a statement.
var psAssignHeadRe = refilter.MustCompile(`^\$(?:env:)?[A-Za-z_][A-Za-z0-9_]*\s*=\s*([^=].*)$`)

// psFromB64ItemRe decodes the current object from base64.
var psFromB64ItemRe = refilter.MustCompile(`(?i)FromBase64String\(\s*\$(?:_|psitem)\s*\)`)

// psReadItemRe reads the current object's file.
var psReadItemRe = refilter.MustCompile(`(?i)\[(?:System\.)?IO\.File\]::ReadAll(?:Bytes|Text|Lines)\(\s*\$(?:_|psitem)(?:\.FullName)?\s*\)`)

// psLiteralItemsRe is a pipeline producer that is only quoted strings
// ("'C:\x', 'C:\y'").
var psLiteralItemsRe = refilter.MustCompile(`^\s*(?:'[^'"$` + "`" + `]*'|"[^'"$` + "`" + `]*")(?:\s*,\s*(?:'[^'"$` + "`" + `]*'|"[^'"$` + "`" + `]*"))*\s*$`)

// psLiteralItems returns a producer of quoted strings as an argument
// list, or "".
func psLiteralItems(p string) string {
	if psLiteralItemsRe.MatchString(p) {
		return strings.TrimSpace(p)
	}
	return ""
}

// psDropItem removes the current object from a statement where it is a
// whole operand; "$_.GetNetworkCredential().Password" or "$_[0]" are
// expressions over it, left alone. ok is false when nothing was removed.
func psDropItem(st string) (string, bool) {
	locs := psItemRe.FindAllStringIndex(st, -1)
	if len(locs) == 0 {
		return st, false
	}
	var b strings.Builder
	prev, dropped := 0, false
	for _, l := range locs {
		if l[1] < len(st) && strings.IndexByte(" \t;|", st[l[1]]) < 0 {
			continue // inside an expression: left as written
		}
		b.WriteString(st[prev:l[0]])
		b.WriteByte(' ')
		prev, dropped = l[1], true
	}
	b.WriteString(st[prev:])
	return strings.TrimSpace(b.String()), dropped
}

// psCloseBrace returns the index of the "}" closing the "{" at open,
// skipping quoted text, or -1.
func psCloseBrace(s string, open int) int {
	depth, end := 0, -1
	psUnquoted(s, open, func(i int, ch byte) bool {
		switch ch {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				end = i
				return true
			}
		}
		return false
	})
	return end
}

// psPipeBlockRe is a script block run by Invoke-Command, Start-Job or
// the call operator whose body holds a pipeline: a POSIX reading would
// split the statement at that "|" ("icm -ScriptBlock { irm URL | iex }").
var psPipeBlockRe = refilter.MustCompile(`(?is)^\s*(?:[&.]\s*|(?:invoke-command|icm|start-job|sajb|start-threadjob)\b[^{]*?-scriptblock\s*)\{[^{}]*\|`)
