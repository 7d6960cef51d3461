package analyze

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// Near-duplicate detection goes beyond Hermes: a model that reformulates
// each no-op call (new print text, other whitespace, a comment, renamed
// variables, another sleep duration) defeats every exact-signature guard.
// Calls are reduced to a skeleton (comments and whitespace dropped, string
// and number literals replaced, assigned names renamed by position) and
// their results to what is left once the call's own literals are removed:
// calls that differ only in the skeleton's holes and print back only what
// they were given changed nothing.

// codeTextOf extracts the code or command of a call, "" when the call has
// none (such calls are never near-duplicates).
// m is the decoded args (ledger.DecodeArgs) when decoded is set.
func codeTextOf(args string, m ledger.ArgsObject, decoded bool) string {
	if decoded {
		return codeIn(m)
	}
	// Cheap screen first: most calls carry no code and need no decoding.
	if !strings.Contains(args, `"code"`) && !strings.Contains(args, `"command"`) &&
		!strings.Contains(args, `"cmd"`) && !strings.Contains(args, `"script"`) {
		return ""
	}
	return codeIn(ledger.DecodeArgs(args))
}

func codeIn(m ledger.ArgsObject) string {
	for _, k := range []string{"code", "command", "cmd", "script"} {
		if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// echoArgs finds unquoted echo/printf arguments in a shell command.
var echoArgs = regexp.MustCompile(`(^|[;&|\n]\s*)(echo|printf)[ \t]+([^;&|\n'"]*[^;&|\n'"\s])`)

// quoteEchoArgs makes the words a shell command prints a literal, so
// `echo waiting` and `echo 'still waiting'` have the same skeleton.
func quoteEchoArgs(cmd string) string {
	if !strings.Contains(cmd, "echo") && !strings.Contains(cmd, "printf") {
		return cmd
	}
	return echoArgs.ReplaceAllString(cmd, "$1$2 '$3'")
}

// skeleton normalises code or a shell command. It returns the skeleton
// and the string literals it removed (used to explain the output away).
func skeleton(code string) (string, []string) {
	var b strings.Builder
	var lits []string
	prevWord := false // previous emitted char was part of an identifier
	for i := 0; i < len(code); {
		c := code[i]
		switch {
		case c == '#' && (i == 0 || isSpaceOrSep(code[i-1])):
			for i < len(code) && code[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'' || c == '`':
			lit, n := readString(code[i:])
			lits = append(lits, lit)
			// Drop a Python string prefix (f, r, b, u, rb, fr, ...) glued to it.
			s := b.String()
			j := len(s)
			for j > 0 && j > len(s)-2 && strings.ContainsRune("fFrRbBuU", rune(s[j-1])) {
				j--
			}
			if j < len(s) && (j == 0 || !isIdent(s[j-1])) {
				b.Reset()
				b.WriteString(s[:j])
			}
			b.WriteByte('S')
			i += n
			prevWord = false
		case c >= '0' && c <= '9' && !prevWord:
			for i < len(code) && (isIdent(code[i]) || code[i] == '.') {
				i++
			}
			b.WriteByte('N')
			prevWord = false
		case c == '\n' || c == ';':
			b.WriteByte(';')
			i++
			prevWord = false
		case c == ' ' || c == '\t' || c == '\r':
			i++
			// Keep one space between two words so `import time` stays
			// distinct from `importtime`; drop it elsewhere.
			if prevWord && i < len(code) && isIdent(code[i]) {
				b.WriteByte(' ')
			}
			prevWord = false
			for i < len(code) && (code[i] == ' ' || code[i] == '\t' || code[i] == '\r') {
				i++
			}
		default:
			b.WriteByte(c)
			prevWord = isIdent(c)
			i++
		}
	}
	s := collapseSeps(b.String())
	return renameAssigned(s), lits
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func isSpaceOrSep(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';'
}

// readString reads a quoted literal (Python triple quotes included) at the
// start of s and returns its content and length. An unterminated literal
// runs to the end.
func readString(s string) (string, int) {
	q := s[:1]
	if len(s) >= 3 && (s[:3] == `"""` || s[:3] == `'''`) {
		q = s[:3]
	}
	for i := len(q); i < len(s); i++ {
		if s[i] == '\\' && q != "'" { // shell single quotes have no escapes
			i++
			continue
		}
		if strings.HasPrefix(s[i:], q) {
			return s[len(q):i], i + len(q)
		}
	}
	return s[len(q):], len(s)
}

func collapseSeps(s string) string {
	var b strings.Builder
	for _, part := range strings.Split(s, ";") {
		if part = strings.TrimSpace(part); part != "" {
			if b.Len() > 0 {
				b.WriteByte(';')
			}
			b.WriteString(part)
		}
	}
	return b.String()
}

var assignRe = regexp.MustCompile(`(?:^|;)([A-Za-z_][A-Za-z0-9_]*)=[^=]`)

// renameAssigned replaces names assigned in the snippet (v0, v1, ... in
// order of first assignment), so renaming a variable changes nothing.
func renameAssigned(s string) string {
	if !strings.Contains(s, "=") {
		return s
	}
	names := map[string]string{}
	var order []string
	for _, m := range assignRe.FindAllStringSubmatch(s, -1) {
		if _, ok := names[m[1]]; !ok {
			names[m[1]] = "v" + itoa(len(order))
			order = append(order, m[1])
		}
	}
	if len(order) == 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if !isIdent(s[i]) || (i > 0 && (isIdent(s[i-1]) || s[i-1] == '.')) {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && isIdent(s[j]) {
			j++
		}
		if r, ok := names[s[i:j]]; ok {
			b.WriteString(r)
		} else {
			b.WriteString(s[i:j])
		}
		i = j
	}
	return b.String()
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// Substrings that mark a snippet as able to change state: such calls are
// never treated as no-ops, whatever they print. Plain substrings, not
// word-bounded: a false hit only makes the detector more conservative.
var stateChanging = []string{".write", "os.", "shutil", "subprocess", "requests", "urllib", "httpx", "socket",
	"remove", "unlink", "mkdir", "rmtree", "rename", "delete", "post(", "put(", "send", "exec(", "eval(",
	"system(", ".save", ".dump", "sqlite", "pip", "kill", "import os", "from os"}

// openWrite finds open(..., "w"/"a"/"x"/"+") in Python.
var openWrite = regexp.MustCompile(`open\([^)]*,\s*['"][^'"]*[wax+]`)

// readOnlyShell: shell commands whose every word is one of these only look around.
var readOnlyShell = toolSet("echo", "printf", "sleep", "true", ":", "date", "ls", "cat", "pwd", "ps", "jobs", "wait",
	"tail", "head", "wc", "grep", "uptime", "whoami", "test", "[")

// noOpCandidate reports whether a snippet cannot have changed state by
// itself (so an unchanged result means nothing happened).
func noOpCandidate(tool, code string) bool {
	if tool == "terminal" || tool == "Bash" {
		if strings.ContainsAny(code, ">`$(") {
			return false
		}
		for _, seg := range strings.FieldsFunc(code, func(r rune) bool { return r == ';' || r == '|' || r == '&' || r == '\n' }) {
			f := strings.Fields(seg)
			if len(f) > 0 && !readOnlyShell[f[0]] {
				return false
			}
		}
		return true
	}
	lower := strings.ToLower(code)
	for _, s := range stateChanging {
		if strings.Contains(lower, s) {
			return false
		}
	}
	return !strings.Contains(code, "open(") || !openWrite.MatchString(code)
}

// outputKey is the result with the call's own string literals removed and
// whitespace dropped, plus the status: two no-op probes that print back
// different text they were given have equal keys, while a poll whose
// observed state changes does not. ok is false when the stored digest may
// be truncated (nothing can be proved about what was cut).
func outputKey(tool string, c *ledger.Call, lits []string) (string, bool) {
	digest := c.ResultDigest
	if utf8.RuneCountInString(digest) >= ledger.MaxDigestChars {
		return "", false
	}
	text := normalJSON(tool, digest)
	for _, l := range lits {
		if len(l) >= 3 {
			text = strings.ReplaceAll(text, jsonEscapeInner(l), "")
			text = strings.ReplaceAll(text, l, "")
		}
	}
	var b strings.Builder
	b.WriteString(string(c.Status))
	b.WriteByte(0)
	for i := 0; i < len(text); i++ {
		ch := text[i]
		if ch == '\\' && i+1 < len(text) && strings.IndexByte("nrt", text[i+1]) >= 0 {
			i++
			continue
		}
		if ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r' {
			continue
		}
		b.WriteByte(ch)
	}
	return b.String(), true
}

// normalJSON re-encodes a JSON result with sorted keys and no
// whitespace (execute_code's bookkeeping fields dropped), or returns a
// non-JSON result as it is. One decode: this runs on every code call.
func normalJSON(tool, s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	if m, ok := v.(map[string]any); ok && tool == "execute_code" {
		delete(m, "duration_seconds")
		if k, ok := m["kernel"].(map[string]any); ok {
			delete(k, "execution_count")
		}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return s
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// jsonEscapeInner is l as it appears inside a JSON string.
func jsonEscapeInner(l string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(l)
	s := strings.TrimSpace(b.String())
	return s[1 : len(s)-1]
}
