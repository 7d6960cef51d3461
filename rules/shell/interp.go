package shell

import (
	"regexp"
	"strings"
)

// codeItem is something interpreter code would run: a shell string
// (os.system("...")) or an argument vector (subprocess.run([...]),
// shutil.rmtree(p) as "rm -r -f p", open(p) as "cat p").
type codeItem struct {
	shell string
	argv  []string
	via   string
	text  string
	notes []string
}

// Calls whose first argument is a shell command line.
var shellCallRe = regexp.MustCompile(`(?:\b(?:os\.system|os\.popen|popen2?|commands\.getoutput|subprocess\.(?:getoutput|getstatusoutput)|system|exec_command|shell_exec|passthru|proc_open|execSync|exec|spawnSync|execFileSync|spawn|run|call|check_call|check_output|Popen|do shell script|io\.popen|os\.execute|Shell)\s*\(?\s*)`)

// String literals in Python, Perl, Ruby, JS and PHP (prefixes for Python).
var strLitRe = regexp.MustCompile(`(?s)^(?:[rRbBuUfF]{0,2})("""(.*?)"""|'''(.*?)'''|"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|` + "`((?:[^`\\\\]|\\\\.)*)`" + `)`)

var (
	pyAssignRe  = regexp.MustCompile(`(?m)^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*`)
	rmtreeRe    = regexp.MustCompile(`\b(?:shutil\.rmtree|rmtree|remove_tree|rmSync|rmdirSync|rm_rf|rm_r|remove_dir_all|rimraf(?:\.sync)?|FileUtils\.rm_rf|fs\.rm|rmdir)\s*\(\s*`)
	removeRe    = regexp.MustCompile(`\b(?:os\.remove|os\.unlink|unlinkSync|File\.delete|unlink|Path\([^)]*\)\.unlink)\s*\(\s*`)
	openRe      = regexp.MustCompile(`\b(?:open|read_text|read_bytes|readFileSync|readFile|File\.read|file_get_contents|IO\.read|expanduser|Path|fopen|io\.open|codecs\.open)\s*\(\s*`)
	b64Re       = regexp.MustCompile(`\b(?:base64\.b64decode|b64decode|base64\.decodebytes|decode_base64|base64_decode|atob|Base64\.decode64)\s*\(\s*`)
	bufB64Re    = regexp.MustCompile(`Buffer\.from\(\s*(["'])([A-Za-z0-9+/=_-]+)(["'])\s*,\s*["']base64["']\s*\)`)
	backtickRe  = regexp.MustCompile("`([^`]+)`")
	qxRe        = regexp.MustCompile(`\bqx\s*[{(\[/|]([^})\]/|]+)[})\]/|]|%x\(([^)]+)\)`)
	forkRe      = regexp.MustCompile(`(?s)(?:while\b[^\n]*:?\s*(?:\n\s+)?[^\n]*\bfork\s*\(|\bfork\s*(?:\(\s*\))?\s*while\b|\bfork\s*\(\s*\)\s*\)\s*\{|for\s*\(\s*;\s*;\s*\)\s*\{?\s*(?:os\.|process\.)?fork)`)
	listStartRe = regexp.MustCompile(`^\[\s*`)
	fmtFieldRe  = regexp.MustCompile(`\{[^{}]*\}`)
	netExecRe   = regexp.MustCompile(`\b(?:exec|eval|execfile|Function|instance_eval)\s*\(\s*(?:[\w.]+\.)?(?:urlopen|get|urlretrieve|request|fetch|open)\s*\(\s*['"]((?:https?|ftp)://[^'"]+)['"]`)
	homePathRe  = regexp.MustCompile(`\b(?:Path\.home\(\)|os\.homedir\(\))`)
)

// extractCode finds what interpreter code runs in a shell or touches on
// disk. It is a scanner, not an interpreter: literal strings reaching
// system()/subprocess/exec/backticks, simple NAME = "..." assignments
// used as arguments, base64 literals that are decoded and executed.
func extractCode(lang, code string) []codeItem {
	return extractDepth(lang, code, 0)
}

func extractDepth(lang, code string, depth int) []codeItem {
	if depth > 3 || strings.TrimSpace(code) == "" {
		return nil
	}
	if len(code) > maxSrcBytes {
		code = code[:maxSrcBytes]
	}
	via := lang
	vars := map[string]string{}
	for _, m := range pyAssignRe.FindAllStringSubmatchIndex(code, -1) {
		if s, _, ok := readStrExpr(code[m[1]:], vars); ok {
			vars[code[m[2]:m[3]]] = s
		}
	}
	var out []codeItem
	add := func(it codeItem) {
		if len(out) < 64 {
			out = append(out, it)
		}
	}
	for _, m := range shellCallRe.FindAllStringIndex(code, -1) {
		rest := code[m[1]:]
		callee := strings.TrimSpace(code[m[0]:m[1]])
		if argv, ok := readList(rest, vars); ok {
			// spawn("rm", ["-rf", "/"]) is handled below; a list is argv.
			add(codeItem{argv: argv, via: via + " " + strings.TrimRight(callee, "( "), text: clip(code[m[0]:], 200)})
			continue
		}
		s, n, ok := readStrExpr(rest, vars)
		if !ok {
			continue
		}
		// spawn("rm", ["-rf","/"]) / execFile("rm", [...]) / os.execvp("rm", [...])
		after := strings.TrimLeft(rest[n:], " \t")
		if strings.HasPrefix(after, ",") {
			if argv, ok := readList(strings.TrimLeft(after[1:], " \t"), vars); ok && !strings.Contains(s, " ") {
				if len(argv) > 0 && argv[0] == s {
					argv = argv[1:]
				}
				add(codeItem{argv: append([]string{s}, argv...), via: via + " " + strings.TrimRight(callee, "( "), text: clip(code[m[0]:], 200)})
				continue
			}
		}
		// Perl/Ruby list form without brackets: system "rm", "-rf", "/".
		if strings.HasPrefix(after, ",") && !strings.Contains(s, " ") {
			argv := []string{s}
			rest2 := after
			for strings.HasPrefix(rest2, ",") {
				a, k, ok := readStrExpr(strings.TrimLeft(rest2[1:], " \t"), nil)
				if !ok {
					break
				}
				argv = append(argv, a)
				rest2 = strings.TrimLeft(strings.TrimLeft(rest2[1:], " \t")[k:], " \t")
			}
			if len(argv) > 1 {
				add(codeItem{argv: argv, via: via + " " + strings.TrimRight(callee, "( "), text: clip(code[m[0]:], 200)})
				continue
			}
		}
		// Plain exec()/run() in Python is code, not a shell line, unless
		// subprocess-like; "exec" of a decoded string is handled below.
		if lang == "python" && strings.HasPrefix(callee, "exec") && !strings.HasSuffix(code[max(0, m[0]-3):m[0]], "os.") {
			for _, it := range extractDepth("python", s, depth+1) {
				add(it)
			}
			continue
		}
		add(codeItem{shell: s, via: via + " " + strings.TrimRight(callee, "( "), text: clip(code[m[0]:], 200)})
	}
	if lang == "perl" || lang == "ruby" || lang == "php" || lang == "sh" {
		for _, m := range backtickRe.FindAllStringSubmatch(code, -1) {
			add(codeItem{shell: m[1], via: via + " backticks"})
		}
		for _, m := range qxRe.FindAllStringSubmatch(code, -1) {
			add(codeItem{shell: m[1] + m[2], via: via + " qx"})
		}
	}
	for _, m := range rmtreeRe.FindAllStringIndex(code, -1) {
		if p, _, ok := readPathExpr(code[m[1]:], vars); ok {
			add(codeItem{argv: []string{"rm", "-r", "-f", p}, via: via + " " + strings.TrimRight(code[m[0]:m[1]], "( "), text: clip(code[m[0]:], 200)})
		}
	}
	for _, m := range removeRe.FindAllStringIndex(code, -1) {
		if p, _, ok := readPathExpr(code[m[1]:], vars); ok {
			add(codeItem{argv: []string{"rm", "-f", p}, via: via + " " + strings.TrimRight(code[m[0]:m[1]], "( "), text: clip(code[m[0]:], 200)})
		}
	}
	for _, m := range openRe.FindAllStringIndex(code, -1) {
		rest := code[m[1]:]
		if p, n, ok := readPathExpr(rest, vars); ok && looksLikePath(p) {
			mode := strings.TrimLeft(rest[n:], " \t")
			if strings.HasPrefix(mode, ",") {
				m2, _, _ := readStrExpr(strings.TrimLeft(mode[1:], " \t"), vars)
				if strings.ContainsAny(m2, "wa") {
					add(codeItem{argv: []string{"tee", p}, via: via + " open", text: clip(code[m[0]:], 200)})
					continue
				}
			}
			add(codeItem{argv: []string{"cat", p}, via: via + " open", text: clip(code[m[0]:], 200)})
		}
	}
	for _, m := range homePathRe.FindAllStringIndex(code, -1) {
		if p, _, ok := readPathExpr(code[m[0]:], vars); ok && p != "~" {
			add(codeItem{argv: []string{"cat", p}, via: via + " path", text: clip(code[m[0]:], 200)})
		}
	}
	for _, m := range b64Re.FindAllStringIndex(code, -1) {
		if s, _, ok := readStrExpr(code[m[1]:], vars); ok {
			if dec, ok := decodeB64(s); ok && printable(dec) {
				for _, it := range extractDepth(lang, dec, depth+1) {
					it.via = via + " b64decode"
					add(it)
				}
				add(codeItem{shell: dec, via: via + " b64decode"})
			}
		}
	}
	for _, m := range bufB64Re.FindAllStringSubmatch(code, -1) {
		if dec, ok := decodeB64(m[2]); ok && printable(dec) {
			add(codeItem{shell: dec, via: via + " base64"})
		}
	}
	// Code fetched and run in-process: exec(urlopen(URL).read()),
	// eval(requests.get(URL).text) — the interpreter's own pipe-to-shell.
	for _, m := range netExecRe.FindAllStringSubmatch(code, -1) {
		add(codeItem{shell: "curl -s " + quote(m[1]) + " | " + lang, via: via + " exec(network)"})
	}
	if forkRe.MatchString(code) {
		add(codeItem{argv: []string{lang, "fork-loop"}, via: via, notes: []string{"fork-bomb"}, text: clip(code, 200)})
	}
	return out
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func printable(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' && r != '\r' {
			return false
		}
		if r == 0xfffd {
			return false
		}
	}
	return true
}

func looksLikePath(p string) bool {
	return strings.ContainsAny(p, "/.~") && !strings.ContainsAny(p, "\n")
}

// readStrExpr reads a string expression at the start of s: literals
// joined with "+", "." (Perl/PHP) or juxtaposition, and known variable
// names. n is how many bytes were consumed.
func readStrExpr(s string, vars map[string]string) (string, int, bool) {
	var b strings.Builder
	n := 0
	got := false
	for {
		rest := s[n:]
		trim := strings.TrimLeft(rest, " \t")
		n += len(rest) - len(trim)
		rest = trim
		if m := strLitRe.FindStringSubmatchIndex(rest); m != nil {
			prefix := strings.ToLower(rest[:m[2]])
			body := ""
			for g := 2; g <= 6; g++ {
				if m[2*g] >= 0 {
					body = rest[m[2*g]:m[2*g+1]]
					break
				}
			}
			if !strings.Contains(prefix, "r") {
				body = unescape(body)
			}
			if strings.Contains(prefix, "f") || strings.Contains(rest[:1], "`") {
				body = fmtFieldRe.ReplaceAllString(body, unkOpen+"fmt"+unkClose)
			}
			b.WriteString(body)
			n += m[1]
			got = true
		} else if id := identAt(rest); id != "" && vars != nil {
			v, ok := vars[id]
			if !ok {
				if !got {
					return "", 0, false
				}
				b.WriteString(unkOpen + id + unkClose)
			} else {
				b.WriteString(v)
			}
			n += len(id)
			got = true
		} else if p, k, ok := readPathSpecial(rest, vars); ok && got {
			// "rm -rf " + os.path.expanduser("~")
			b.WriteString(p)
			n += k
		} else {
			if got && n > 0 && strings.HasSuffix(strings.TrimRight(s[:n], " \t"), "+") {
				// "rm -rf " + something unknown: keep the hole visible.
				b.WriteString(unkOpen + "expr" + unkClose)
			}
			break
		}
		rest = strings.TrimLeft(s[n:], " \t")
		if strings.HasPrefix(rest, "+") || strings.HasPrefix(rest, ".") && !strings.HasPrefix(rest, ".format") && !strings.HasPrefix(rest, ".join") && !strings.HasPrefix(rest, ".decode") && !strings.HasPrefix(rest, ".encode") && !strings.HasPrefix(rest, ".split") {
			n += len(s[n:]) - len(rest) + 1
			continue
		}
		break
	}
	return b.String(), n, got
}

// readPathExpr reads a path argument: a string expression, or
// os.path.expanduser("...") / Path("...") / os.path.join("a", "b") /
// Path.home() / "x".
func readPathExpr(s string, vars map[string]string) (string, int, bool) {
	if p, n, ok := readPathSpecial(s, vars); ok {
		return p, n, true
	}
	t := strings.TrimLeft(s, " \t")
	off := len(s) - len(t)
	p, n, ok := readStrExpr(t, vars)
	return p, off + n, ok
}

// readPathSpecial reads the path-building calls readPathExpr knows, and
// nothing else.
func readPathSpecial(s string, vars map[string]string) (string, int, bool) {
	t := strings.TrimLeft(s, " \t")
	off := len(s) - len(t)
	for _, pre := range []string{"os.path.expanduser(", "expanduser(", "Path(", "pathlib.Path(", "os.path.expandvars(", "path.resolve(", "File.expand_path("} {
		if strings.HasPrefix(t, pre) {
			p, n, ok := readPathExpr(t[len(pre):], vars)
			return p, off + len(pre) + n, ok
		}
	}
	for _, pre := range []string{"Path.home()", "os.homedir()", "require('os').homedir()", "require(\"os\").homedir()", "homedir()", "os.path.expanduser(\"~\")", "os.environ[\"HOME\"]", "os.environ['HOME']", "os.getenv(\"HOME\")", "os.getenv('HOME')", "ENV[\"HOME\"]", "ENV['HOME']", "process.env.HOME", "$ENV{HOME}", "Dir.home"} {
		if strings.HasPrefix(t, pre) {
			rest := t[len(pre):]
			p := "~"
			n := len(pre)
			// Path.home() / ".ssh" / "id_rsa"
			for {
				r2 := strings.TrimLeft(rest, " \t")
				if !strings.HasPrefix(r2, "/") && !strings.HasPrefix(r2, "+") && !strings.HasPrefix(r2, ",") {
					break
				}
				seg, k, ok := readStrExpr(r2[1:], vars)
				if !ok {
					break
				}
				p += "/" + strings.TrimPrefix(seg, "/")
				consumed := len(rest) - len(r2) + 1 + k
				rest = rest[consumed:]
				n += consumed
			}
			return p, off + n, true
		}
	}
	if strings.HasPrefix(t, "os.path.join(") || strings.HasPrefix(t, "path.join(") || strings.HasPrefix(t, "File.join(") {
		i := strings.Index(t, "(") + 1
		var parts []string
		n := i
		for {
			p, k, ok := readPathExpr(t[n:], vars)
			if !ok {
				break
			}
			parts = append(parts, p)
			n += k
			r := strings.TrimLeft(t[n:], " \t")
			if !strings.HasPrefix(r, ",") {
				break
			}
			n += len(t[n:]) - len(r) + 1
		}
		if len(parts) == 0 {
			return "", 0, false
		}
		return strings.Join(parts, "/"), off + n, true
	}
	return "", 0, false
}

func identAt(s string) string {
	i := 0
	for i < len(s) && (s[i] == '_' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || i > 0 && s[i] >= '0' && s[i] <= '9') {
		i++
	}
	id := s[:i]
	switch id {
	case "True", "False", "None", "shell", "check", "capture_output", "text", "true", "false", "nil", "null":
		return ""
	}
	if i < len(s) && (s[i] == '(' || s[i] == '.' || s[i] == '[') {
		return ""
	}
	return id
}

// readList reads a list literal of string expressions: ["rm", "-rf", p].
func readList(s string, vars map[string]string) ([]string, bool) {
	m := listStartRe.FindStringIndex(s)
	if m == nil {
		return nil, false
	}
	n := m[1]
	var out []string
	for {
		str, k, ok := readStrExpr(s[n:], vars)
		if !ok {
			break
		}
		out = append(out, str)
		n += k
		r := strings.TrimLeft(s[n:], " \t\n")
		if !strings.HasPrefix(r, ",") {
			break
		}
		n += len(s[n:]) - len(r) + 1
		for n < len(s) && (s[n] == ' ' || s[n] == '\n' || s[n] == '\t') {
			n++
		}
	}
	r := strings.TrimLeft(s[n:], " \t\n")
	if len(out) == 0 || !strings.HasPrefix(r, "]") {
		return nil, false
	}
	return out, true
}

func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'x':
			if i+2 < len(s) {
				if v, ok := hexByte(s[i+1 : i+3]); ok {
					b.WriteByte(v)
					i += 2
					continue
				}
			}
			b.WriteByte('x')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func hexByte(s string) (byte, bool) {
	var v byte
	for _, c := range []byte(s) {
		switch {
		case c >= '0' && c <= '9':
			v = v*16 + c - '0'
		case c >= 'a' && c <= 'f':
			v = v*16 + c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = v*16 + c - 'A' + 10
		default:
			return 0, false
		}
	}
	return v, true
}
