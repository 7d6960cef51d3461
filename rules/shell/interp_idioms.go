package shell

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/ledger-audit/ledger-audit/internal/refilter"
)

// This file holds the scripting idioms execute_code tools see more than
// one-line interpreter calls do: values kept in lists and loops, strings
// built by joins, reversals and chr(), network responses kept in a
// variable before they are run, and library APIs (GitPython, SQLAlchemy,
// pymongo, keyring, boto3, netrc) that do what a command-line tool would.

// String-literal spans: a call named inside a string ("Never run `rm -rf
// /`") is prose, not code.
func literalSpans(lang, code string) [][2]int {
	if lang != "python" && lang != "node" && lang != "javascript" && lang != "ruby" {
		return nil
	}
	var out [][2]int
	for i := 0; i < len(code); {
		ch := code[i]
		if ch != '\'' && ch != '"' {
			i++
			continue
		}
		j := literalEnd(code, i, lang == "python")
		if !codeArgument(code[:i]) {
			out = append(out, [2]int{i, j})
		}
		i = j
	}
	return out
}

// inSpans reports whether pos lies strictly inside one of the sorted
// spans.
func inSpans(spans [][2]int, pos int) bool {
	k := sort.Search(len(spans), func(i int) bool { return spans[i][1] > pos })
	return k < len(spans) && spans[k][0] < pos
}

// List-valued variables share the string map under a key no identifier
// can spell, so every reader that takes vars sees them.
const listKey = "\x00list:"

func setListVar(vars map[string]string, name string, vals []string) {
	vars[listKey+name] = strings.Join(vals, "\x00")
	delete(vars, name)
}

func listVar(vars map[string]string, name string) ([]string, bool) {
	v, ok := vars[listKey+name]
	if !ok {
		return nil, false
	}
	return strings.Split(v, "\x00"), true
}

var (
	// [EXPR for X in SEQ] / (EXPR for X in SEQ), with an optional
	// "if ..." filter: EXPR is evaluated once per value of X.
	compRe = refilter.MustCompile(`(?s)^[\[(]\s*(.+?)\s+for\s+([A-Za-z_]\w*)\s+in\s+`)
	// ''.join(chr(c) for c in [...]), ''.join(map(chr, [...])),
	// bytes([...]).decode(), String.fromCharCode(...): text spelled as
	// character codes.
	chrJoinRe = refilter.MustCompile(`^(?:(?:''|"")\.join\(\s*(?:chr\(\s*\w+\s*\)\s+for\s+\w+\s+in\s+|map\(\s*chr\s*,\s*)|bytes\(\s*|bytearray\(\s*)[\[(]([0-9,\s]+)[\])]\s*\)?\s*\)(?:\.decode\(\s*(?:['"][\w-]*['"])?\s*\))?|^String\.fromCharCode\(\s*(?:\.\.\.\s*\[)?([0-9,\s]+)\]?\s*\)`)
	chrRe     = refilter.MustCompile(`^chr\(\s*([0-9]{1,3}|0x[0-9a-fA-F]{1,2})\s*\)`)
	// The same in Perl (join "", map { chr } (...), pack("C*", ...)),
	// Lua (string.char(...)) and R (intToUtf8(c(...)),
	// rawToChar(as.raw(c(...)))); codes may be hex. The opening
	// brackets of the head are closed after the list.
	chrListRe = refilter.MustCompile(`^(?:join\s*\(?\s*(?:''|"")\s*,\s*map\s*(?:\{\s*chr(?:\s*\(\s*\$_\s*\)|\s+\$_)?\s*\}|\(?\s*chr\s*,)\s*\(|pack\s*\(\s*["']C\*["']\s*,\s*\(?|string\.char\(|intToUtf8\(\s*c\(|rawToChar\(\s*as\.raw\(\s*c\()\s*((?:(?:0x[0-9a-fA-F]{1,2}|[0-9]{1,7})\s*,\s*)*(?:0x[0-9a-fA-F]{1,2}|[0-9]{1,7}))\s*`)
	// Constants that stand for a newline or separator.
	sepConsts = []struct{ expr, val string }{{"os.linesep", "\n"}, {"os.EOL", "\n"}, {"os.sep", "/"}, {"path.sep", "/"}, {"os.pathsep", ":"}}
)

// readCharCodes reads text spelled as character codes at the start of s.
func readCharCodes(s string) (string, int, bool) {
	if m := chrJoinRe.FindStringSubmatchIndex(head(s, 4096)); m != nil {
		// One of the two alternatives matched; the other's group is -1.
		var nums string
		for g := 1; g <= 2; g++ {
			if m[2*g] >= 0 {
				nums += s[m[2*g]:m[2*g+1]]
			}
		}
		var b strings.Builder
		for _, f := range strings.FieldsFunc(nums, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' }) {
			n, err := strconv.Atoi(f)
			if err != nil || n <= 0 || n > 0x10ffff {
				return "", 0, false
			}
			b.WriteRune(rune(n))
		}
		return b.String(), m[1], b.Len() > 0
	}
	if chrListHead(s) {
		if dec, n, ok := readCharList(s); ok {
			return dec, n, true
		}
	}
	if m := chrRe.FindStringSubmatchIndex(head(s, 24)); m != nil {
		n, err := strconv.ParseInt(s[m[2]:m[3]], 0, 32)
		if err != nil || n <= 0 {
			return "", 0, false
		}
		return string(rune(n)), m[1], true
	}
	for _, c := range sepConsts {
		if strings.HasPrefix(s, c.expr) && (len(s) == len(c.expr) || !isIdentByte(s[len(c.expr)])) {
			return c.val, len(c.expr), true
		}
	}
	return "", 0, false
}

// chrListHead is the cheap test before chrListRe: the call names it
// starts with.
func chrListHead(s string) bool {
	for _, p := range []string{"join", "pack", "string.char(", "intToUtf8(", "rawToChar("} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// readCharList reads Perl's, Lua's and R's character-code spellings.
func readCharList(s string) (string, int, bool) {
	m := chrListRe.FindStringSubmatchIndex(head(s, 4096))
	if m == nil {
		return "", 0, false
	}
	var b strings.Builder
	for _, f := range strings.Split(s[m[2]:m[3]], ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 0, 32)
		if err != nil || n <= 0 || n > 0x10ffff {
			return "", 0, false
		}
		b.WriteRune(rune(n))
	}
	// Close what the head opened: "string.char(" one, "rawToChar(
	// as.raw(c(" three; Perl's "map { chr } (" one and "join(" one
	// more.
	open := strings.Count(s[:m[2]], "(")
	n := m[1]
	for ; open > 0; open-- {
		t := strings.TrimLeft(s[n:], " \t")
		if !strings.HasPrefix(t, ")") {
			break
		}
		n = len(s) - len(t) + 1
	}
	if open > 0 && !strings.HasPrefix(s, "join") && !strings.HasPrefix(s, "pack") {
		return "", 0, false
	}
	return b.String(), n, b.Len() > 0
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// readSeq reads a sequence of string values at the start of s: a list or
// tuple literal, a comprehension over one, or a list variable. n is how
// many bytes were consumed.
func readSeq(s string, vars map[string]string) ([]string, int, bool) {
	t := strings.TrimLeft(s, " \t")
	off := len(s) - len(t)
	if id := identAt(t); id != "" {
		if vals, ok := listVar(vars, id); ok {
			return vals, off + len(id), true
		}
		return nil, 0, false
	}
	if strings.HasPrefix(t, "%w") || strings.HasPrefix(t, "%W") {
		// Ruby's word list: %w[/etc /usr].
		if body, k, ok := readPercentLit("%" + t[2:]); ok {
			return strings.Fields(body), off + k + 1, true
		}
		return nil, 0, false
	}
	if t == "" || t[0] != '[' && t[0] != '(' {
		return nil, 0, false
	}
	closer := byte(']')
	if t[0] == '(' {
		closer = ')'
	}
	end := matchClose(t)
	if end < 0 || t[end] != closer || end > 4096 {
		return nil, 0, false
	}
	if inner := strings.TrimLeft(t[1:], " \t\n"); strings.HasPrefix(inner, "[") || strings.HasPrefix(inner, "(") {
		// Nested sequences are not values a command takes; refusing them
		// also bounds the recursion on pathological input.
		return nil, 0, false
	}
	if m := compRe.FindStringSubmatchIndex(t[:end]); m != nil {
		elem, name := t[m[2]:m[3]], t[m[4]:m[5]]
		src, _, ok := readSeq(t[m[1]:end], vars)
		if !ok || len(elem) > 200 {
			return nil, 0, false
		}
		v2 := make(map[string]string, len(vars)+1)
		for k, v := range vars {
			v2[k] = v
		}
		var out []string
		for _, v := range src {
			v2[name] = v
			got, n, ok := readPathExpr(elem, v2)
			if !ok || strings.TrimSpace(elem[n:]) != "" {
				return nil, 0, false
			}
			out = append(out, got)
		}
		return out, off + end + 1, true
	}
	n := 1
	for n < end && (t[n] == ' ' || t[n] == '\n' || t[n] == '\t') {
		n++
	}
	var out []string
	for {
		str, k, ok := readPathExpr(t[n:end], vars)
		if !ok {
			break
		}
		out = append(out, str)
		n += k
		r := strings.TrimLeft(t[n:], " \t\n")
		n += len(t[n:]) - len(r)
		if !strings.HasPrefix(r, ",") {
			break
		}
		n++
		for n < len(t) && (t[n] == ' ' || t[n] == '\n' || t[n] == '\t') {
			n++
		}
	}
	if n != end || len(out) == 0 {
		return nil, 0, false
	}
	return out, off + n + 1, true
}

// Where a loop's values come from besides a literal list: a glob (the
// pattern stands for every path it expands to), a directory listing.
var loopSrcRe = refilter.MustCompile(`^(?:glob\.i?glob|i?glob|os\.listdir|os\.scandir|Dir\.glob|fs\.readdirSync)\(\s*`)

// argvKey names the list of a script's own arguments in vars.
const argvKey = "\x00argv"

// argvRe: the ways scripts name their arguments.
var argvRe = refilter.MustCompile(`^(?:sys\.argv\[1:\]|process\.argv\.slice\(2\)|ARGV\b|@ARGV\b|os\.Args\[1:\]|\$argv\b|args\b(?:\s*\[1:\])?)`)

// loopValues reads what a for loop iterates over.
func loopValues(s string, vars map[string]string) ([]string, bool) {
	if vals, _, ok := readSeq(s, vars); ok {
		return vals, true
	}
	t := strings.TrimLeft(s, " \t")
	if args, ok := listVar(vars, argvKey); ok && argvRe.MatchString(head(t, 32)) {
		return args, true
	}
	if strings.HasPrefix(t, "sorted(") || strings.HasPrefix(t, "list(") || strings.HasPrefix(t, "reversed(") || strings.HasPrefix(t, "set(") {
		t = t[strings.IndexByte(t, '(')+1:]
	}
	if m := pathGlobRe.FindStringSubmatchIndex(head(t, 200)); m != nil {
		// Path.home().glob(".ssh/id_*"), p.rglob("*.pem"): the pattern
		// under the path.
		if base, n, ok := readPathExpr(t[:m[3]], vars); ok && n == m[3] && (looksLikePath(base) || base == "~") {
			if pat, _, ok := readStrExpr(t[m[1]:], vars); ok {
				if strings.HasPrefix(t[m[2]+1:], "rglob") {
					pat = "**/" + pat
				}
				return []string{strings.TrimSuffix(base, "/") + "/" + pat}, true
			}
		}
	}
	if m := loopSrcRe.FindStringIndex(head(t, 32)); m != nil {
		p, _, ok := readPathExpr(t[m[1]:], vars)
		if !ok || !looksLikePath(p) && p != "~" {
			return nil, false
		}
		if strings.Contains(t[:m[1]], "dir") {
			p = strings.TrimSuffix(p, "/") + "/*"
		}
		return []string{p}, true
	}
	return nil, false
}

// netVars finds variables holding what the network returned: r =
// requests.get(URL), body = r.text, code = urlopen(URL).read().
func netVars(code string) map[string]bool {
	if !netReadRe.MatchString(code) && !netFetchRe.MatchString(code) && !procFetchRe.MatchString(code) {
		return nil
	}
	out := map[string]bool{}
	// Node streams: res.on("data", c => d += c) gathers the body in d.
	for _, m := range dataEventRe.FindAllStringSubmatch(code, 4) {
		out[m[1]] = true
	}
	for _, m := range pyAssignRe.FindAllStringSubmatchIndex(code, -1) {
		rhs := code[m[1]:]
		if i := strings.IndexByte(rhs, '\n'); i >= 0 {
			rhs = rhs[:i]
		}
		if netReadRe.MatchString(rhs) || netFetchRe.MatchString(rhs) && !strings.Contains(rhs, "urlparse") || procFetchRe.MatchString(rhs) || mentionsAny(rhs, out) {
			out[code[m[2]:m[3]]] = true
		}
	}
	return out
}

// procFetchRe: what a downloader run as a subprocess printed, captured
// (out = subprocess.check_output(["curl", "-s", URL])).
var procFetchRe = refilter.MustCompile(`\b(?:check_output|getoutput|getstatusoutput|run|Popen)\(\s*\[?\s*['"](?:/usr/bin/)?(?:curl|wget)\b[^'"]*['"]`)

// mentionsAny reports whether text names one of the variables as a
// whole identifier.
func mentionsAny(text string, names map[string]bool) bool {
	for i := 0; i < len(text); i++ {
		if !isIdentByte(text[i]) || i > 0 && (isIdentByte(text[i-1]) || text[i-1] == '.') {
			continue
		}
		j := i
		for j < len(text) && isIdentByte(text[j]) {
			j++
		}
		if names[text[i:j]] {
			return true
		}
		i = j
	}
	return false
}

var (
	// A shell or interpreter started to read its program from stdin:
	// Popen(["sh"]), run(["python3", "-"]), spawn("bash", []).
	stdinShellRe = refilter.MustCompile(`\b(?:Popen|run|call|check_call|check_output|spawn|spawnSync|execFileSync|execFile)\(\s*\[?\s*['"](?:/usr)?(?:/bin/)?(?:sh|bash|zsh|dash|ksh|python[0-9.]*|node|perl|ruby)['"]\s*(?:,\s*['"](?:-s|-|-i|/dev/stdin)['"]\s*)?\]?\s*(?:,\s*\[\s*\])?`)
	// Something written to that process's stdin.
	stdinFeedRe = refilter.MustCompile(`\binput\s*=|\.communicate\(\s*[^)\s]|\.stdin\.write\(|\.pipe\([^;]{0,300}?\.stdin\b|\bstdin\s*:\s*\w`)
)

// gitPython: GitPython's repo.git.CMD(args...) runs "git CMD args", and
// remote.push(ref, force=True) is "git push --force".
var (
	gitPyCmdRe  = refilter.MustCompile(`\.git\.([a-z_]+)\(\s*`)
	gitPyPushRe = refilter.MustCompile(`(?:\.remote\(\s*(?:['"]([\w.-]+)['"])?\s*\)|\b(origin|upstream)|\.remotes\.(\w+))\.push\(\s*`)
)

// gitPyFlagRe: a keyword argument set to True.
var gitPyFlagRe = refilter.MustCompile(`\b([a-z][a-z0-9_]*)\s*=\s*True\b`)

func gitPythonItems(code string, vars map[string]string) []codeItem {
	if !strings.Contains(code, "from git import") && !strings.Contains(code, "import git") {
		return nil
	}
	var out []codeItem
	for _, m := range gitPyCmdRe.FindAllStringSubmatchIndex(code, 8) {
		argv := []string{"git", strings.ReplaceAll(code[m[2]:m[3]], "_", "-")}
		// repo.git.push("origin", "main", force=True): keyword arguments
		// set to True are flags (f=True is -f).
		for _, kw := range gitPyFlagRe.FindAllStringSubmatch(callArg(code[m[1]:]), 8) {
			if len(kw[1]) == 1 {
				argv = append(argv, "-"+kw[1])
			} else {
				argv = append(argv, "--"+strings.ReplaceAll(kw[1], "_", "-"))
			}
		}
		argv = append(argv, callStrArgs(code[m[1]:], vars)...)
		out = append(out, codeItem{argv: argv, via: "GitPython", text: clip(code[m[0]:], 200)})
	}
	for _, m := range gitPyPushRe.FindAllStringSubmatchIndex(code, 8) {
		remote := "origin"
		for g := 1; g <= 3; g++ {
			if m[2*g] >= 0 {
				remote = code[m[2*g]:m[2*g+1]]
			}
		}
		args := callArg(code[m[1]:])
		argv := []string{"git", "push"}
		if strings.Contains(strings.ReplaceAll(args, " ", ""), "force=True") {
			argv = append(argv, "--force")
		}
		argv = append(argv, remote)
		argv = append(argv, callStrArgs(code[m[1]:], vars)...)
		out = append(out, codeItem{argv: argv, via: "GitPython", text: clip(code[m[0]:], 200)})
	}
	return out
}

// callStrArgs reads the positional string arguments of a call (s starts
// after the opening parenthesis); keyword arguments end the list.
func callStrArgs(s string, vars map[string]string) []string {
	var out []string
	for len(out) < 16 {
		v, n, ok := readStrExpr(s, vars)
		if !ok {
			break
		}
		out = append(out, v)
		r := strings.TrimLeft(s[n:], " \t\n")
		if !strings.HasPrefix(r, ",") {
			break
		}
		s = strings.TrimLeft(r[1:], " \t\n")
	}
	return out
}

var (
	mongoHostRe      = refilter.MustCompile(`['"](mongodb(?:\+srv)?://[^'"\s]+)['"]`)
	mongoDropRe      = refilter.MustCompile(`\.drop_database\(|\.dropDatabase\(|\.drop_collection\(|\.drop\(\s*\)`)
	sqlaDropAllRe    = refilter.MustCompile(`\.drop_all\(`)
	keyringRe        = refilter.MustCompile(`\bkeyring(?:\.get_(?:password|credential)|::key_get)\(\s*`)
	botoCredsRe      = refilter.MustCompile(`\.get_credentials\(\)`)
	awsSecretValueRe = refilter.MustCompile(`\.get_secret_value\(|\.get_parameters?(?:_by_path)?\([^)]*WithDecryption\s*=\s*True`)
	botoSecretRe     = refilter.MustCompile(`\.(?:secret_key|token|access_key)\b`)
	s3BucketRe       = refilter.MustCompile(`\.Bucket\(\s*['"]([a-z0-9][a-z0-9.-]+)['"]\s*\)`)
	s3DeleteRe       = refilter.MustCompile(`(?s)^.{0,400}?(?:\.delete\(\s*\)|\.delete_objects\()`)
	s3DelBucketRe    = refilter.MustCompile(`\bdelete_bucket\(\s*Bucket\s*=\s*['"]([a-z0-9][a-z0-9.-]+)['"]`)
	hfDeleteRe       = refilter.MustCompile(`\bdelete_repo\(\s*(?:repo_id\s*=\s*)?`)
	hfTokenRe        = refilter.MustCompile(`\b(?:HfFolder\.get_token|huggingface_hub\.get_token|get_token)\(\s*\)|\bHfFolder\.path_token\b`)
	httpDeleteRe     = refilter.MustCompile(`\b(?:requests|httpx|session|s|client|axios|http)\.delete\(\s*|\bfetch\(\s*`)
	fetchDeleteRe    = refilter.MustCompile(`(?i)method\s*:\s*['"]DELETE['"]`)
	shadowLibRe      = refilter.MustCompile(`\bspwd\.getsp(all|nam)\(|\bgetspnam\(`)
	browserCookieRe  = refilter.MustCompile(`\bbrowser_cookie3\.(chrome|chromium|firefox|edge|brave|opera|safari|load)\(`)
	netrcRe          = refilter.MustCompile(`\bnetrc\.netrc\(\s*\)|\bNet::Netrc\b`)
	envSendRe        = refilter.MustCompile(`(?:\{\s*\w+\s*:\s*\w+\s+for\s+\w+\s*,\s*\w+\s+in\s+(?:sorted\()?os\.environ\.items\(\)|\bfor\s+\w+\s*,\s*\w+\s+in\s+(?:sorted\()?os\.environ\.items\(\)\s*\)|\bENV\.to_h\b|System\.getenv\(\s*\)|dict\(\s*os\.environ\s*\)|JSON\.stringify\(\s*process\.env\s*\)|json\.dumps\(\s*(?:dict\()?\s*os\.environ|(?:json|data)\s*=\s*(?:dict\()?\s*os\.environ\b|body\s*:\s*JSON\.stringify\(\s*process\.env|\bSys\.getenv\(\s*\))`)
	redisFlushRe     = refilter.MustCompile(`(?i)\.(flushall|flushdb)(?:\(|\s*$|\s*[;\n}])`)
	redisHostRe      = refilter.MustCompile(`(?:Redis|StrictRedis|Redis\.new)\([^)]*?host\s*(?:=|:|=>)\s*['"]([^'"]+)['"]|(?:from_url|Redis\.new)\(\s*(?:url:\s*)?['"]rediss?://(?:[^@/'"]*@)?([^:/'"]+)`)
	netSendRe        = refilter.MustCompile(`\.POST\(|\bhttr2?::(?:POST|PUT)\(|\bNet::HTTP\.post(?:_form)?\(|\bopenConnection\(|setDoOutput\(\s*true|\brequests\.(?:post|put)\(|\bhttpx\.(?:post|put)\(|\bmethod\s*:\s*['"](?:POST|PUT)['"]|\baxios\.(?:post|put)\(|\burlopen\([^)]*?\bdata\s*=|\burlopen\(\s*[^,()]+,\s*[^\s)]|\.request\(\s*['"](?:POST|PUT)['"]|\bRequest\([^)]*data\s*=`)
	chmodRe          = refilter.MustCompile(`\b(?:os\.chmod|fs\.chmodSync|chmod)\(\s*`)
	sqlTextWrapRe    = refilter.MustCompile(`^(?:sqlalchemy\.)?text\(\s*`)
	engineSchemeRe   = refilter.MustCompile(`create_engine\(\s*['"](postgres(?:ql)?|mysql|mariadb|sqlite|mssql)`)
)

// sdkDestroyRe: SDK calls that delete or disable what a service holds.
var sdkDestroyRe = refilter.MustCompile(`\b(?:destroy_by_tag|delete_topics|deleteTopics|disable_secrets_engine|disable_auth_method|remove_bucket|delete_bucket|delete_cluster|delete_database|delete_dataset|delete_db_instance|delete_instance|terminate_instances|delete_project|delete_deployment|delete_volume|delete_stack|delete_index|delete_collection|drop_collection|delete_file_system|delete_share|deleteIndex|droplets\.destroy|indices\.delete|remove_objects?)\s*\(|\bnew\s+(?:Delete|Terminate)\w*Command\s*\(|\[\s*\w+\.delete\(\)\s+for\s+\w+\s+in\b|\bfor\s+\w+\s+in\s+[^\n:]+:\s*\n?\s*\w+\.delete\(\)|\.delete\(\s*force\s*=\s*True\s*\)`)

// wpSecretRe and wpSendRe: WordPress's secret constants, and PHP calls
// that send a request.
var (
	wpSecretRe = refilter.MustCompile(`\b(DB_PASSWORD|AUTH_KEY|SECURE_AUTH_KEY|LOGGED_IN_KEY|NONCE_KEY|AUTH_SALT|SECURE_AUTH_SALT)\b`)
	wpSendRe   = refilter.MustCompile(`\b(wp_remote_(get|post|request|head)|wp_safe_remote_(get|post)|curl_exec|fsockopen|mail)\s*\(|file_get_contents\(\s*['"]https?://`)
)

// Windows from Python: the Credential Manager read, a Run key written.
var (
	winCredRe   = refilter.MustCompile(`\bwin32cred\.Cred(?:Enumerate|Read)\(`)
	winregSetRe = refilter.MustCompile(`\bwinreg\.SetValue(?:Ex)?\(`)
	winRunKeyRe = refilter.MustCompile(`(?i)CurrentVersion\\+(?:Run|RunOnce)\b`)
)

// sdkDestroyAllRe: a comprehension or loop over a whole collection
// (.all(), .auto_paging_iter(), iter_all) whose body deletes, terminates
// or destroys, within its first few lines.
var sdkDestroyAllRe = refilter.MustCompile(`\[\s*\w+\.(?:delete|terminate|destroy)\(\)\s+for\s+\w+\s+in\s+[^\]\n]*\.(?:all|auto_paging_iter)\(\)|\bfor\s+\w+\s+in\s+[^\n:]*(?:\.(?:all|auto_paging_iter)\(\)|\biter_all\([^()\n]*\))\s*:[ \t]*\n(?:[ \t]+[^\n]*\n){0,3}?[ \t]+[\w.]*(?:\(\)\.)?(?:delete|terminate|destroy|rdelete)\([^()\n]*\)`)

// sdkLoopDeleteRe: a Python or JavaScript loop over an API listing (a
// search cluster's _cat/indices among them) whose body, within a few
// lines and with no "if" before it, deletes, archives, cancels, refunds
// or purges the item.
// sdkCompDeleteRe is a list comprehension deleting every item of a
// call's result, unfiltered.
var sdkCompDeleteRe = refilter.MustCompile(`\[\s*\w+\.(?:delete|terminate|destroy|archive|purge)\(\)\s+for\s+\w+\s+in\s+[^\]\n]*\)\s*\]`)

var sdkLoopDeleteRe = refilter.MustCompile(`\bfor\s+\w+(?:\s*,\s*\w+)?\s+in\s+[^\n]*?(?:\.list\w*\(|\.cat\.(?:indices|aliases)\(|\blist_\w+\(|\.all\(|auto_paging_iter|\biter_\w+\(|\.search\w*\(|search_issues|\bget_(?:all|repos|issues|projects|members|users|contacts|companies|deals|records)\(|\.query\(|paginat\w*|\.fetch\w*\()[^\n]*:[ \t]*\n(?:[ \t]+(?:[^i\s][^\n]*|i[^f\n][^\n]*)?\n){0,4}?[ \t]+[^\n]*(?:\.(?:delete|destroy|archive|cancel|purge|hard_delete|permanently_delete|batch_delete)\w*\(|\bdelete_\w+\(|\bchat_delete\(|\bRefund\.create\(|\.update\([^)\n]*\b(?:archived|in_trash)\s*=\s*True)|\bbatch_delete\(\s*\[[^\]\n]*\bfor\s+\w+\s+in\s+[^\]\n]*\.(?:all|list\w*)\(|\bfor\s*(?:await\s*)?\(\s*(?:const|let|var)\s+\w+\s+of\s+[^)]*\)\s*\{?[^\n{}]*\.(?:delete|destroy|del|archive|remove|cancel)\w*\(`)

// listedVarRe is a variable assigned an API listing ("runs =
// api.runs(...)", "issues = jira.search_issues(...)"); sdkLoopVarRe a
// loop over a variable whose body deletes within a few lines.
var (
	listedVarRe  = refilter.MustCompile(`(?m)^[ \t]*(\w+)\s*=\s*[^\n]*(?:\.list\w*\(|\.cat\.(?:indices|aliases)\(|\blist_\w+\(|\.all\(|\.runs\(|\.search\w*\(|search_issues|\bget_(?:repos|issues|projects|members|users|contacts|companies|deals|records)\(|\.query\(|paginat\w*)`)
	sdkLoopVarRe = refilter.MustCompile(`\bfor\s+\w+\s+in\s+(\w+)(?:\[[^\]\n]*\])?\s*:[ \t]*\n(?:[ \t]+(?:[^i\s][^\n]*|i[^f\n][^\n]*)?\n){0,4}?[ \t]+[^\n]*(?:\.(?:delete|destroy|archive|cancel|purge|hard_delete|permanently_delete)\w*\(|\bdelete_\w+\(|\.update\([^)\n]*\b(?:archived|in_trash)\s*=\s*True)`)
	// sdkClientRe: a SaaS or cloud client built from its library, whose
	// credentials it finds itself (wandb.Api(), Jira(...)).
	sdkClientRe = refilter.MustCompile(`\b(?:wandb\.Api|JIRA|Jira|Confluence|Github|Gitlab|gitlab\.Gitlab|WebClient|Client|HubSpot|Zenpy|Salesforce|Elasticsearch|OpenSearch)\(`)
)

// listedVarLoopDelete finds a loop deleting the items of a variable that
// holds an API listing, returning the loop's span or nil.
func listedVarLoopDelete(code string) []int {
	if !strings.Contains(code, "for ") {
		return nil
	}
	listed := map[string]bool{}
	for _, m := range listedVarRe.FindAllStringSubmatch(code, 16) {
		listed[m[1]] = true
	}
	if len(listed) == 0 {
		return nil
	}
	for _, m := range sdkLoopVarRe.FindAllStringSubmatchIndex(code, 8) {
		if listed[code[m[2]:m[3]]] {
			return m[:2]
		}
	}
	return nil
}

// sdkCredRe: a token, key or secret taken from the environment.
var sdkCredRe = refilter.MustCompile(`(?i)(os\.environ|os\.getenv|process\.env|ENV\[)[^\n]{0,40}(TOKEN|KEY|SECRET|PASSWORD|AUTH)`)

// configReadRe is a settings parser's read of a file by its path
// (ConfigParser().read(PATH)).
var configReadRe = refilter.MustCompile(`\.read\(\s*`)

// configParserVarRe binds a name to a new ConfigParser.
var configParserVarRe = refilter.MustCompile(`\b([A-Za-z_]\w*)\s*=\s*(?:configparser\.)?(?:Raw|Safe)?ConfigParser\(`)

// configNamesOnly reports whether the code's ConfigParser is read and
// then asked only for its section and option names (c.sections(),
// c.has_option(s, "password")): the names, not the values, of the
// settings file. One parser bound to a name is all it understands, and
// a parser only read is not enough: a kernel keeps it for later cells.
func configNamesOnly(code string) bool {
	ms := configParserVarRe.FindAllStringSubmatch(code, 2)
	if len(ms) != 1 {
		return false
	}
	name := ms[0][1]
	asked := false
	for i := 0; ; {
		k := strings.Index(code[i:], name)
		if k < 0 {
			return asked
		}
		at := i + k
		i = at + len(name)
		if at > 0 && isIdentByte(code[at-1]) || i < len(code) && isIdentByte(code[i]) {
			continue // part of a longer name
		}
		rest := code[i:]
		switch {
		case strings.HasPrefix(strings.TrimLeft(rest, " \t"), "=") && !strings.HasPrefix(strings.TrimLeft(rest, " \t"), "=="):
		case strings.HasPrefix(rest, ".read("):
		case strings.HasPrefix(rest, ".sections()"), strings.HasPrefix(rest, ".has_option("),
			strings.HasPrefix(rest, ".has_section("), strings.HasPrefix(rest, ".options("):
			asked = true
		default:
			return false
		}
	}
}

// cloudSDKRe: code using a cloud or SaaS account's SDK, whose
// collections are that account's resources (a web framework's ORM
// collections are not read as such).
var cloudSDKRe = refilter.MustCompile(`\b(?:boto3|google\.cloud|stripe|azure\.mgmt|digitalocean|linode_api4|hcloud|pdpyras|datadog_api_client|sendgrid|twilio|auth0|okta|CloudFlare|cloudflare|heroku3|ovh)\b`)

// libraryItems reads what well-known library calls do, as the
// command-line tool that does the same.
func libraryItems(code string, vars map[string]string) []codeItem {
	var out []codeItem
	if mongoDropRe.MatchString(code) && (strings.Contains(code, "MongoClient") || strings.Contains(code, "pymongo")) {
		host := "localhost"
		if m := mongoHostRe.FindStringSubmatch(code); m != nil {
			host = m[1]
		}
		m := mongoDropRe.FindStringIndex(code)
		out = append(out, codeItem{argv: []string{"mongosh", host, "--eval", "db.dropDatabase()"}, via: "pymongo", text: clip(code[m[0]:], 200)})
	}
	if strings.Contains(code, "onfigParser") && !configNamesOnly(code) {
		// configparser.ConfigParser().read("/root/.my.cnf"): the file is
		// read, and its values are what the code then uses or prints.
		for _, m := range configReadRe.FindAllStringIndex(code, 4) {
			if p, _, ok := readPathExpr(code[m[1]:], vars); ok && looksLikePath(p) {
				out = append(out, codeItem{argv: []string{"cat", p}, via: "configparser", text: clip(code[m[0]:], 200)})
			}
		}
	}
	if strings.Contains(code, "dbutils.") {
		out = append(out, dbutilsItems(code, vars)...)
	}
	if m := keyringRe.FindStringIndex(code); m != nil && printsValue(code, keyringRe) {
		svc, _, _ := readStrExpr(code[m[1]:], vars)
		out = append(out, codeItem{argv: []string{"secret-tool", "lookup", "service", svc}, via: "keyring", text: clip(code[m[0]:], 200)})
	}
	if m := awsSecretValueRe.FindStringIndex(code); m != nil && printsValue(code, awsSecretValueRe) {
		// get_secret_value / get_parameter(WithDecryption=True) printed.
		out = append(out, codeItem{argv: []string{"aws", "secretsmanager", "get-secret-value"}, via: "boto3", text: clip(code[m[0]:], 200)})
	}
	if m := botoCredsRe.FindStringIndex(code); m != nil && printsValue(code, botoSecretRe) {
		out = append(out, codeItem{argv: []string{"aws", "configure", "export-credentials"}, via: "boto3", text: clip(code[m[0]:], 200)})
	}
	out = append(out, boto3Calls(code, vars)...)
	if m := s3BucketRe.FindStringSubmatchIndex(code); m != nil && s3DeleteRe.MatchString(code[m[1]:]) {
		// boto3.resource("s3").Bucket(NAME): objects.all().delete() and
		// delete() empty and remove it, as "aws s3 rb --force" does.
		out = append(out, codeItem{argv: []string{"aws", "s3", "rb", "s3://" + code[m[2]:m[3]], "--force"}, via: "boto3", text: clip(code[m[0]:], 200)})
	}
	if m := s3DelBucketRe.FindStringSubmatchIndex(code); m != nil {
		out = append(out, codeItem{argv: []string{"aws", "s3api", "delete-bucket", "--bucket", code[m[2]:m[3]]}, via: "boto3", text: clip(code[m[0]:], 200)})
	}
	if m := hfDeleteRe.FindStringSubmatchIndex(code); m != nil {
		// HfApi().delete_repo("org/model"): the hub's repo delete.
		name, _, _ := readStrExpr(code[m[1]:], vars)
		out = append(out, codeItem{argv: []string{"huggingface-cli", "repo", "delete", name}, via: "huggingface_hub", text: clip(code[m[0]:], 200)})
	}
	if m := hfTokenRe.FindStringIndex(code); m != nil && printsValue(code, hfTokenRe) {
		out = append(out, codeItem{argv: []string{"cat", "~/.cache/huggingface/token"}, via: "huggingface_hub", text: clip(code[m[0]:], 200)})
	}
	if m := netrcRe.FindStringIndex(code); m != nil {
		out = append(out, codeItem{argv: []string{"cat", "~/.netrc"}, via: "netrc", text: clip(code[m[0]:], 200)})
	}
	if m := sdkDestroyRe.FindStringIndex(code); m != nil {
		// Cloud, search, streaming and secrets SDKs deleting what they
		// manage (droplets.destroy_by_tag, indices.delete, delete_topics,
		// disable_secrets_engine, remove_bucket, a loop of .delete()):
		// "sdk-destroy METHOD CODE", for the rules to read what the code
		// names (a production host, tag or variable).
		method := strings.TrimRight(strings.TrimSpace(code[m[0]:m[1]]), "( \t")
		out = append(out, codeItem{argv: []string{"sdk-destroy", method, clip(code, 600)}, via: "sdk", text: clip(code[m[0]:], 200)})
	}
	m := sdkLoopDeleteRe.FindStringIndex(code)
	if m == nil {
		m = listedVarLoopDelete(code)
	}
	if m != nil && (sdkCredRe.MatchString(code) || sdkClientRe.MatchString(code)) {
		// A loop over what an API lists, deleting (archiving, cancelling,
		// refunding) each item, with a token from the environment: a
		// SaaS account emptied one item at a time, whatever the vendor.
		// A filter (an "if" before the call) makes it a selection.
		out = append(out, codeItem{argv: []string{"sdk-destroy", "every", clip(code, 600)}, via: "sdk loop", text: clip(code[m[0]:], 200)})
	}
	if m := sdkCompDeleteRe.FindStringIndex(code); m != nil && (sdkClientRe.MatchString(code) || cloudSDKRe.MatchString(code)) {
		// [r.delete() for r in wandb.Api().runs("team/project")]: every
		// item an API client lists, deleted, with no "if" to select.
		out = append(out, codeItem{argv: []string{"sdk-destroy", "every", clip(code, 600)}, via: "sdk", text: clip(code[m[0]:], 200)})
	}
	if m := sdkDestroyAllRe.FindStringIndex(code); m != nil && cloudSDKRe.MatchString(code) {
		// Every resource a cloud or SaaS account lists, deleted one by
		// one ("[i.terminate() for i in ec2.instances.all()]", a loop
		// over stripe.Customer.list().auto_paging_iter() deleting each):
		// whatever the names, the account is emptied.
		out = append(out, codeItem{argv: []string{"sdk-destroy", "every", clip(code, 600)}, via: "sdk", text: clip(code[m[0]:], 200)})
	}
	for _, m := range httpDeleteRe.FindAllStringIndex(code, 8) {
		// requests.delete(URL), axios.delete(URL), fetch(URL, {method:
		// "DELETE"}): an HTTP DELETE, read by the same rules as curl -X
		// DELETE URL.
		if u, _, ok := readStrExpr(code[m[1]:], vars); ok && strings.Contains(u, "://") {
			if strings.HasPrefix(code[m[0]:m[1]], "fetch") && !fetchDeleteRe.MatchString(head(code[m[1]:], 300)) {
				continue
			}
			out = append(out, codeItem{argv: []string{"http-delete", u}, via: "http delete", text: clip(code[m[0]:], 200)})
		}
	}
	if m := shadowLibRe.FindStringIndex(code); m != nil {
		// spwd.getspall(), getspnam(): the shadow database's entries.
		out = append(out, codeItem{argv: []string{"cat", "/etc/shadow"}, via: "spwd", text: clip(code[m[0]:], 200)})
	}
	if m := browserCookieRe.FindStringIndex(code); m != nil {
		// browser_cookie3.chrome(): the browser's cookie store, decrypted.
		out = append(out, codeItem{argv: []string{"cat", "~/.config/google-chrome/Default/Cookies"}, via: "browser_cookie3", text: clip(code[m[0]:], 200)})
	}
	if m := wpSecretRe.FindStringIndex(code); m != nil && wpSendRe.MatchString(code) {
		// WordPress's secret constants (DB_PASSWORD, the auth salts) put
		// into a request: wp-config.php's secrets leave the site.
		out = append(out, codeItem{argv: []string{"cat", "wp-config.php"}, via: "php wp-config constants", text: clip(code[m[0]:], 200)})
	}
	if m := winCredRe.FindStringIndex(code); m != nil {
		// win32cred.CredEnumerate / CredRead: the Credential Manager's
		// entries, secrets (CredentialBlob) included.
		out = append(out, codeItem{argv: []string{"cmdkey", "/list"}, via: "win32cred", text: clip(code[m[0]:], 200)})
	}
	if m := winregSetRe.FindStringIndex(code); m != nil && winRunKeyRe.MatchString(code) {
		// winreg.SetValueEx on ...\CurrentVersion\Run: an autostart
		// entry, as reg add would write it.
		out = append(out, codeItem{argv: []string{"reg", "add", `HKCU\Software\Microsoft\Windows\CurrentVersion\Run`, "/d", "(set by code)"}, via: "winreg", text: clip(code[m[0]:], 200)})
	}
	if m := redisFlushRe.FindStringSubmatchIndex(code); m != nil && strings.Contains(code, "redis") {
		// redis.Redis(host="cache-prod").flushall(): the client's
		// FLUSHALL against that server (localhost when none is named).
		host := "localhost"
		if hm := redisHostRe.FindStringSubmatch(code); hm != nil {
			host = hm[1] + hm[2]
		}
		out = append(out, codeItem{argv: []string{"redis-cli", "-h", host, strings.ToUpper(code[m[2]:m[3]])}, via: "redis-py", text: clip(code[m[0]:], 200)})
	}
	if m := envSendRe.FindStringIndex(code); m != nil && netSendRe.MatchString(code) {
		u := "http://unknown.invalid/"
		if um := urlLitRe.FindStringSubmatch(code); um != nil {
			u = um[1]
		}
		out = append(out, codeItem{shell: "env | curl -s -d @- " + quote(u), via: "environment sent", text: clip(code[m[0]:], 200)})
	}
	return out
}

// chmodItems reads os.chmod(PATH, MODE); inside an os.walk over a tree
// it is "chmod -R".
func chmodItems(code string, vars map[string]string, walkRoot string) []codeItem {
	var out []codeItem
	for _, m := range chmodRe.FindAllStringIndex(code, 8) {
		args := callArg(code[m[1]:])
		i := strings.LastIndexByte(args, ',')
		if i < 0 {
			continue
		}
		mode := strings.TrimSpace(args[i+1:])
		mode = strings.TrimPrefix(strings.TrimPrefix(mode, "0o"), "0")
		if len(mode) != 3 || strings.Trim(mode, "01234567") != "" {
			continue
		}
		p, n, ok := readPathExpr(args[:i], vars)
		ok = ok && strings.TrimSpace(args[n:i]) == ""
		if !ok && !looksLikePath(walkRoot) {
			continue
		}
		if !ok {
			out = append(out, codeItem{argv: []string{"chmod", "-R", mode, walkRoot}, via: "os.walk+chmod", text: clip(code[m[0]:], 200)})
			continue
		}
		if ok {
			out = append(out, codeItem{argv: []string{"chmod", mode, p}, via: strings.TrimRight(code[m[0]:m[1]], "( "), text: clip(code[m[0]:], 200)})
		}
	}
	return out
}

// envMark starts the name inside an unknown marker that stands for an
// environment variable read by code (os.environ["X"]): the walker
// substitutes the session's value when it has one.
const envMark = "\x01"

var (
	revVarRe    = refilter.MustCompile(`^([A-Za-z_]\w*)\[::-1\]`)
	tmplFieldRe = refilter.MustCompile(`\$\{[^{}]*\}`)
)

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// readEnvRef reads os.environ["X"], os.getenv("X"), process.env.X and
// the like at the start of s (HOME is read as "~" elsewhere).
func readEnvRef(s string) (string, int, bool) {
	if !strings.HasPrefix(s, "os.") && !strings.HasPrefix(s, "process.env") && !strings.HasPrefix(s, "ENV") && !strings.HasPrefix(s, "$ENV") && !strings.HasPrefix(s, "getenv") && !strings.HasPrefix(s, "env::") && !strings.HasPrefix(s, "std::env::") && !strings.HasPrefix(s, "Deno.env.get(") && !strings.HasPrefix(s, "System.getenv(") && !strings.HasPrefix(s, "Sys.getenv(") {
		return "", 0, false
	}
	m := envRefRe.FindStringSubmatchIndex(head(s, 256))
	if m == nil || m[0] != 0 {
		return "", 0, false
	}
	name := envRefName(s, m)
	if name == "" || name == "HOME" {
		return "", 0, false
	}
	n := m[1]
	if r := strings.TrimLeft(s[n:], " \t"); strings.HasPrefix(r, "]") || strings.HasPrefix(r, ")") {
		n += len(s[n:]) - len(r) + 1
	}
	return name, n, true
}

// envDefault separates, inside an environment marker, the variable's
// name from the default the code gives it.
const envDefault = "\x02"

// readEnvDefault reads the default of an environment read whose name
// readEnvRef took (os.environ.get("X", DEFAULT), os.getenv("X",
// DEFAULT), ENV.fetch("X", DEFAULT)): s starts after the name.
func readEnvDefault(s string, vars map[string]string) (string, int, bool) {
	t := strings.TrimLeft(s, " \t")
	if !strings.HasPrefix(t, ",") {
		return "", 0, false
	}
	off := len(s) - len(t) + 1
	v, k, ok := readPathExpr(t[1:], vars)
	if !ok || strings.Contains(v, unkOpen) {
		return "", 0, false
	}
	rest := t[1+k:]
	after := strings.TrimLeft(rest, " \t")
	if !strings.HasPrefix(after, ")") {
		return "", 0, false
	}
	return v, off + k + len(rest) - len(after) + 1, true
}

// envRefName is the variable an envRefRe match (submatch indexes ix in
// s) reads: the group of whichever alternative matched.
func envRefName(s string, ix []int) string {
	for g := 2; g+1 < len(ix); g += 2 {
		if ix[g] >= 0 {
			return s[ix[g]:ix[g+1]]
		}
	}
	return ""
}

// readJSJoin reads ["", "usr"].join("/") at the start of s.
func readJSJoin(s string, vars map[string]string) (string, int, bool) {
	if !strings.HasPrefix(s, "[") {
		return "", 0, false
	}
	vals, k, ok := readSeq(s, vars)
	if !ok || !strings.HasPrefix(s[k:], ".join(") {
		return "", 0, false
	}
	k += len(".join(")
	sep := ","
	if r := strings.TrimLeft(s[k:], " \t"); !strings.HasPrefix(r, ")") {
		v, k2, ok := readStrExpr(s[k:], nil)
		if !ok {
			return "", 0, false
		}
		sep = v
		k += k2
	}
	r := strings.TrimLeft(s[k:], " \t")
	if !strings.HasPrefix(r, ")") {
		return "", 0, false
	}
	return strings.Join(vals, sep), len(s) - len(r) + 1, true
}

// fmtFields fills the fields of an f-string or a JS template literal
// with the values of the variables they name; other fields stay
// unknown.
func fmtFields(body string, template bool, vars map[string]string) string {
	re := fmtFieldRe
	if template {
		re = tmplFieldRe
	}
	return re.ReplaceAllStringFunc(body, func(f string) string {
		name := strings.TrimSpace(strings.TrimPrefix(f, "$")[1 : len(f)-1-boolInt(template)])
		if i := strings.IndexAny(name, "!:"); i >= 0 && !template {
			name = strings.TrimSpace(name[:i])
		}
		if v, ok := vars[name]; ok && identAt(name) == name {
			return v
		}
		return unkOpen + "fmt" + unkClose
	})
}

// shellHeadRe: a list literal that starts a shell or interpreter.
var shellHeadRe = refilter.MustCompile(`^\[\s*['"](?:/usr)?(?:/bin/)?(?:sh|bash|zsh|dash|ksh|python[0-9.]*|node|perl|ruby|pwsh|powershell)['"]`)

// netRun reports whether a call's arguments hand a network response to a
// shell: as the command string (os.system(script)), or to an argv that
// starts a shell or interpreter (["bash", "-c", resp.text], ["sh"],
// input=body).
func netRun(arg string, nets map[string]bool) bool {
	if len(nets) == 0 || !mentionsAny(arg, nets) {
		return false
	}
	a := strings.TrimSpace(arg)
	if strings.HasPrefix(a, "[") {
		return shellHeadRe.MatchString(a)
	}
	first := a
	depth := 0
	for i := 0; i < len(a); i++ {
		switch a[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				first = a[:i]
				i = len(a)
			}
		}
	}
	return mentionsAny(first, nets) && !strings.ContainsAny(first, "=")
}

// pathMethRe: pathlib's methods on a path held in a variable or built in
// parentheses: rc.open("a"), (d / "x.desktop").write_text(body).
var pathMethRe = refilter.MustCompile(`(\b[A-Za-z_]\w*|\))\.(open|write_text|write_bytes|read_text|read_bytes)\(`)

// pathMethods rewrites pathlib's write methods into the open() calls the
// scanner reads: p.open("a") is open(p, "a"), p.write_text(s) is
// open(p, "w").write(s).
func pathMethods(code string, vars map[string]string) string {
	if !strings.Contains(code, "open(") && !strings.Contains(code, ".write_") && !strings.Contains(code, ".read_") {
		return code
	}
	ms := pathMethRe.FindAllStringSubmatchIndex(code, 16)
	if ms == nil {
		return code
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		recv, meth := code[m[2]:m[3]], code[m[4]:m[5]]
		start := m[2]
		if recv == ")" {
			// The matching "(" of a parenthesised path expression.
			depth := 0
			i := m[2]
			for ; i >= last; i-- {
				if code[i] == ')' {
					depth++
				} else if code[i] == '(' {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			if i < last || i > 0 && (isIdentByte(code[i-1]) || code[i-1] == '.') {
				continue // a call's parentheses, not a grouping
			}
			recv, start = code[i+1:m[2]], i
			if p, n, ok := readPathExpr(recv, vars); !ok || strings.TrimSpace(recv[n:]) != "" || !looksLikePath(p) {
				continue
			}
		} else if p, ok := vars[recv]; (!ok || !looksLikePath(p)) && meth != "read_text" && meth != "read_bytes" {
			// Reads are rewritten for any name: a loop variable over
			// paths gets its values later, and an unknown one reads
			// nothing.
			continue
		}
		b.WriteString(code[last:start])
		switch meth {
		case "read_text", "read_bytes":
			b.WriteString("open(" + recv + ").read(")
		case "open":
			b.WriteString("open(" + recv)
			if r := strings.TrimLeft(code[m[1]:], " \t"); !strings.HasPrefix(r, ")") {
				b.WriteString(", ")
			}
		default:
			b.WriteString("open(" + recv + ", 'w').write(")
		}
		last = m[1]
	}
	if last == 0 {
		return code
	}
	b.WriteString(code[last:])
	return b.String()
}

// matchClose returns the index in s of the bracket closing the one s
// starts with (quotes and nesting respected), or -1.
func matchClose(s string) int { return closeIndex(s, 0, 8192) }

// cmdKey prefixes, in vars, the command whose output a variable holds.
const cmdKey = "\x00cmd:"

// outputCallRe: calls that return a command's output.
var outputCallRe = refilter.MustCompile(`^(?:subprocess\.)?(?:check_output|getoutput|run)\(\s*|^os\.popen\(\s*|^execSync\(\s*`)

// outputCmd reads a command whose output an expression returns:
// check_output(["git", "rev-parse", "--show-toplevel"]), os.popen("pwd").
func outputCmd(s string, vars map[string]string) (string, bool) {
	m := outputCallRe.FindStringIndex(head(s, 64))
	if m == nil {
		return "", false
	}
	rest := s[m[1]:]
	if strings.HasPrefix(s, "run(") || strings.HasPrefix(s, "subprocess.run(") {
		// run(...) returns output only when captured.
		if a := callArg(rest); !strings.Contains(a, "capture_output") && !strings.Contains(a, "stdout=") {
			return "", false
		}
	}
	if argv, ok := readList(rest, vars); ok {
		q := make([]string, len(argv))
		for i, a := range argv {
			q[i] = quote(a)
		}
		return strings.Join(q, " "), true
	}
	if cmd, _, ok := readStrExpr(rest, vars); ok {
		return cmd, true
	}
	return "", false
}

// writeMethRe: a write to an open file handle.
var writeMethRe = refilter.MustCompile(`\.write\(\s*`)

// runsVarFile reports whether code runs a file (runpy.run_path,
// exec(open(...))) whose path is held in a variable.
func runsVarFile(code string) bool {
	for _, m := range execFileRe.FindAllStringIndex(code, 8) {
		if id := identAt(strings.TrimLeft(code[m[1]:], " \t")); id != "" {
			return true
		}
	}
	return false
}

// ipyLineRe: an IPython shell escape at the start of a line, bare or
// assigned ("files = !ls"), and the line magics that run a command.
var ipyLineRe = refilter.MustCompile(`(?m)^[ \t]*(?:[A-Za-z_]\w*\s*=\s*)?(?:!!?|%(?:sx|system)\s+)([^\n]+)`)

// ipythonShell returns the shell commands of a notebook cell.
func ipythonShell(code string) []codeItem {
	if !strings.Contains(code, "!") && !strings.Contains(code, "%") {
		return nil
	}
	t := strings.TrimLeft(code, " \t\n")
	for _, magic := range []string{"%%bash", "%%sh", "%%script bash", "%%script sh", "%%script zsh", "%%zsh"} {
		if strings.HasPrefix(t, magic) {
			_, body, _ := strings.Cut(t, "\n")
			return []codeItem{{shell: body, via: magic, text: clip(t, 200)}}
		}
	}
	var out []codeItem
	for _, m := range ipyLineRe.FindAllStringSubmatchIndex(code, 16) {
		line := code[m[2]:m[3]]
		if strings.HasPrefix(line, "=") {
			continue // "x != y" split oddly: not an escape
		}
		out = append(out, codeItem{shell: line, via: "!", text: clip(code[m[0]:], 200)})
	}
	return out
}

// printsValue reports whether some print statement of code outputs what
// an expression matching re returns: directly (print(get_token())) or
// through a variable assigned from it (tok = get_token(); print(tok)).
// Tests of the value (tok is None, len(tok), bool(tok)) print no secret.
func printsValue(code string, re *refilter.Regexp) bool {
	names := map[string]bool{}
	for _, m := range pyAssignRe.FindAllStringSubmatchIndex(code, -1) {
		rhs := code[m[1]:]
		if i := strings.IndexByte(rhs, '\n'); i >= 0 {
			rhs = rhs[:i]
		}
		if k := re.FindStringIndex(rhs); k != nil && !resultOfOuterCall(rhs[:k[0]]) {
			names[code[m[2]:m[3]]] = true
		}
	}
	for _, m := range printCallRe.FindAllStringIndex(code, 16) {
		stmt := code[m[1]:]
		if i := strings.IndexAny(stmt, "\n;"); i >= 0 {
			stmt = stmt[:i]
		}
		if !re.MatchString(stmt) && !mentionsAny(keysDropped(stmt, names), names) {
			// (print(sorted(s.keys())) prints a secret's field names.)
			continue
		}
		if strings.Contains(stmt, " is ") || strings.Contains(stmt, "len(") || strings.Contains(stmt, "bool(") || strings.Contains(stmt, "[:") || strings.Contains(stmt, " == ") || strings.Contains(stmt, " != ") ||
			strings.Contains(stmt, " if ") && strings.Contains(stmt, " else ") {
			// A test of the value, or a conditional expression printing
			// something else ('stored' if get_password(...) else 'missing').
			continue
		}
		return true
	}
	return false
}

// dbutilsItems reads Databricks notebooks' dbutils: fs.rm(PATH, True)
// removes a tree as "databricks fs rm -r" does (a loop's f.path over
// dbutils.fs.ls(ROOT) is everything under ROOT), and a secret from
// secrets.get that the code prints is shown as "databricks secrets
// get-secret" would show it.
func dbutilsItems(code string, vars map[string]string) []codeItem {
	var out []codeItem
	spans := literalSpans("python", code)
	for _, m := range dbutilsRmRe.FindAllStringIndex(code, 8) {
		if inSpans(spans, m[0]) {
			continue
		}
		rest := code[m[1]:]
		arg := callArg(rest)
		if !dbutilsRecurseRe.MatchString(arg) {
			continue
		}
		p, _, ok := readPathExpr(rest, vars)
		if !ok {
			// for f in dbutils.fs.ls(ROOT): dbutils.fs.rm(f.path, True)
			if lm := dbutilsLsLoopRe.FindStringSubmatchIndex(code); lm != nil && strings.HasPrefix(strings.TrimSpace(arg), code[lm[2]:lm[3]]+".path") {
				if root, _, ok2 := readPathExpr(code[lm[1]:], vars); ok2 {
					p, ok = strings.TrimSuffix(root, "/")+"/*", true
				}
			}
		}
		if !ok {
			p = unkOpen + "path" + unkClose
		}
		out = append(out, codeItem{argv: []string{"databricks", "fs", "rm", "-r", p}, via: "dbutils.fs.rm", text: clip(code[m[0]:], 200)})
	}
	if m := dbutilsSecretRe.FindStringIndex(code); m != nil && printsValue(code, dbutilsSecretRe) {
		scope, n, _ := readStrExpr(code[m[1]:], vars)
		key := ""
		if after := strings.TrimLeft(code[m[1]+n:], " \t"); strings.HasPrefix(after, ",") {
			key, _, _ = readStrExpr(strings.TrimLeft(after[1:], " \t"), vars)
		}
		out = append(out, codeItem{argv: []string{"databricks", "secrets", "get-secret", scope, key}, via: "dbutils.secrets", text: clip(code[m[0]:], 200)})
	}
	return out
}

var (
	dbutilsRmRe      = refilter.MustCompile(`\bdbutils\.fs\.rm\(\s*`)
	dbutilsRecurseRe = refilter.MustCompile(`,\s*(?:recurse\s*=\s*)?True\b`)
	dbutilsLsLoopRe  = refilter.MustCompile(`\bfor\s+([A-Za-z_]\w*)\s+in\s+dbutils\.fs\.ls\(\s*`)
	dbutilsSecretRe  = refilter.MustCompile(`\bdbutils\.secrets\.get(?:Bytes)?\(\s*(?:scope\s*=\s*)?`)
)

// resultOfOuterCall reports whether the text before a call on the
// right-hand side of an assignment leaves it an argument of another
// call that is not a mere conversion: conn = psycopg2.connect(...,
// password=keyring.get_password(...)) binds the connection, not the
// password; s = json.loads(client.get_secret_value(...)) binds the secret.
func resultOfOuterCall(before string) bool {
	depth := 0
	for i := len(before) - 1; i >= 0; i-- {
		switch before[i] {
		case ')':
			depth++
		case '(':
			if depth > 0 {
				depth--
				continue
			}
			j := i
			for j > 0 && (isIdentByte(before[j-1]) || before[j-1] == '.') {
				j--
			}
			callee := before[j:i]
			if k := strings.LastIndexByte(callee, '.'); k >= 0 {
				callee = callee[k+1:]
			}
			switch callee {
			case "", "loads", "load", "str", "repr", "dict", "bytes", "decode", "strip", "rstrip", "format", "b64decode", "fromstring", "literal_eval", "safe_load", "parse", "JSON", "String", "list", "tuple":
				continue // a conversion, or a bare parenthesis: look further out
			}
			return true
		}
	}
	return false
}

// keysDropped removes NAME.keys() (a mapping's field names) for each of
// names from a statement.
func keysDropped(stmt string, names map[string]bool) string {
	if !strings.Contains(stmt, ".keys()") {
		return stmt
	}
	for n := range names {
		stmt = strings.ReplaceAll(stmt, n+".keys()", "")
	}
	return stmt
}

// readPerlQuote reads Perl's q(...)/qq(...) quoting with a bracket or
// punctuation delimiter at the start of s.
func readPerlQuote(s string) (string, int, bool) {
	i := 0
	switch {
	case strings.HasPrefix(s, "qq"):
		i = 2
	case strings.HasPrefix(s, "q"):
		i = 1
	default:
		return "", 0, false
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i >= len(s) {
		return "", 0, false
	}
	op := s[i]
	cl := op
	switch op {
	case '(':
		cl = ')'
	case '{':
		cl = '}'
	case '[':
		cl = ']'
	case '/', '|', '!', '#':
	default:
		return "", 0, false
	}
	end := strings.IndexByte(s[i+1:], cl)
	if end < 0 || strings.ContainsAny(s[i+1:i+1+end], "\n"+string(op)) && op != cl {
		return "", 0, false
	}
	return s[i+1 : i+1+end], i + end + 2, true
}

// head bounds the text an anchored pattern is tried on: the literal
// prefilter would otherwise scan the whole rest of the code at every
// position, which is quadratic on long code.
func head(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// rustHomeRe: Rust's ways of reading $HOME.
var rustHomeRe = refilter.MustCompile(`^(?:std::)?env::var(?:_os)?\(\s*"HOME"\s*\)(?:\.(?:unwrap|expect)\([^)]*\)|\?)?|^(?:FileManager\.default|[A-Za-z_]\w*)\.homeDirectoryForCurrentUser\b`)

// deleteRecRe: a delete method on a path object (Kotlin and Groovy
// File.deleteRecursively(), a Path's rmtree()).
var deleteRecRe = refilter.MustCompile(`\b([A-Za-z_]\w*)\.(?:deleteRecursively|deleteDir|rmtree)\(\s*\)`)

// goRangeRe: Go's "for _, x := range []string{...}".
var goRangeRe = refilter.MustCompile(`\bfor\s+_\s*,\s*([A-Za-z_]\w*)\s*:=\s*range\s+\[\]string\s*`)

var (
	// metadataHosts are the cloud metadata services' addresses.
	metadataHosts = map[string]bool{"169.254.169.254": true, "metadata.google.internal": true, "169.254.170.2": true, "fd00:ec2::254": true}
	// metadataLitRe: a cloud metadata endpoint in a string literal.
	metadataLitRe = refilter.MustCompile(`["'](https?://(?:169\.254\.169\.254|metadata\.google\.internal|169\.254\.170\.2|\[fd00:ec2::254\])[^"']*)["']`)
	// codeHTTPRe: HTTP clients of compiled languages.
	codeHTTPRe = refilter.MustCompile(`\bhttp\.(?:NewRequest|Get|Post)\(|\breqwest::|\bHttpClient\b|\bURLSession\b|\bcurl_easy_|\bnew\s+URL\(|\bWebClient\b`)
	// rustFormatRe: format!("...", args).
	rustFormatRe = refilter.MustCompile(`^format!\(\s*`)
)

// readRustFormat reads Rust's format!("{}/x", a) and format!("{a}/x")
// with fields filled from the arguments and known variables.
func readRustFormat(s string, vars map[string]string) (string, int, bool) {
	m := rustFormatRe.FindStringIndex(head(s, 16))
	if m == nil {
		return "", 0, false
	}
	f, k, ok := readStrExpr(s[m[1]:], nil)
	if !ok {
		return "", 0, false
	}
	n := m[1] + k
	var args []string
	for {
		r := strings.TrimLeft(s[n:], " \t\n")
		if !strings.HasPrefix(r, ",") {
			break
		}
		n += len(s[n:]) - len(r) + 1
		v, k2, ok := readPathExpr(s[n:], vars)
		if !ok {
			v = unkOpen + "fmt" + unkClose
			k2 = len(callArg(s[n:]))
			if i := strings.IndexByte(s[n:n+k2], ','); i >= 0 {
				k2 = i
			}
		}
		args = append(args, v)
		n += k2
		if len(args) > 8 {
			return "", 0, false
		}
	}
	r := strings.TrimLeft(s[n:], " \t\n")
	if !strings.HasPrefix(r, ")") {
		return "", 0, false
	}
	n += len(s[n:]) - len(r) + 1
	next := 0
	out := fmtFieldRe.ReplaceAllStringFunc(f, func(field string) string {
		name := strings.TrimSpace(field[1 : len(field)-1])
		if i := strings.IndexByte(name, ':'); i >= 0 {
			name = name[:i]
		}
		if name == "" {
			if next < len(args) {
				next++
				return args[next-1]
			}
			return unkOpen + "fmt" + unkClose
		}
		if v, ok := vars[name]; ok {
			return v
		}
		return unkOpen + "fmt" + unkClose
	})
	return out, n, true
}

var (
	// rustOpenRe: OpenOptions::new()...open(PATH); the options between
	// say whether it appends.
	rustOpenRe = refilter.MustCompile(`OpenOptions::new\(\)((?:\s*\.\w+\([^)]*\))*)\s*\.open\(\s*`)
	// rustWriteRe: the first write to the handle.
	rustWriteRe = refilter.MustCompile(`\b(?:writeln|write)!\(\s*&?(?:mut\s+)?\w+\s*,\s*|\.write_all\(\s*b?`)
	// pathJoinRe: a path variable's join method (Rust, pathlib).
	pathJoinRe = refilter.MustCompile(`^&?([A-Za-z_]\w*)\.join(?:path)?\(\s*`)
)

// rustWrites reads Rust's OpenOptions writes as the shell writes they
// amount to: the file and the first text written to it.
func rustWrites(code string, vars map[string]string) []codeItem {
	var out []codeItem
	for _, m := range rustOpenRe.FindAllStringSubmatchIndex(code, 4) {
		p, n, ok := readPathExpr(code[m[1]:], vars)
		if !ok || !looksLikePath(p) {
			continue
		}
		appendTo := strings.Contains(code[m[2]:m[3]], "append(true)")
		body := ""
		if w := rustWriteRe.FindStringIndex(code[m[1]+n:]); w != nil {
			body, _, _ = readStrExpr(code[m[1]+n+w[1]:], vars)
		}
		out = append(out, codeItem{shell: writeShell(p, body, appendTo), via: "OpenOptions", text: clip(code[m[0]:], 200)})
	}
	return out
}

// argvRefRe: one of a script's arguments, by the language's name for it.
var argvRefRe = refilter.MustCompile(`^(?:(shift)\b(?:\s*\(\s*\))?|\$ARGV\[(\d)\]|ARGV\[(\d)\]|sys\.argv\[(\d)\]|process\.argv\[(\d)\]|\$argv\[(\d)\]|os\.Args\[(\d)\])`)

// readArgvRef reads a reference to one of the script's arguments when
// the arguments are known.
func readArgvRef(s string, vars map[string]string) (string, int, bool) {
	args, ok := listVar(vars, argvKey)
	if !ok {
		return "", 0, false
	}
	m := argvRefRe.FindStringSubmatchIndex(head(s, 24))
	if m == nil {
		return "", 0, false
	}
	// The index each spelling starts counting from: Perl and Ruby 0,
	// Python, PHP and Go 1 (0 is the script), Node 2.
	idx := -1
	for g, base := range []int{0, 0, 0, 1, 2, 1, 1} {
		if m[2*(g+1)] < 0 {
			continue
		}
		if g == 0 {
			idx = 0
		} else {
			d := int(s[m[2*(g+1)]] - '0')
			idx = d - base
		}
	}
	if idx < 0 || idx >= len(args) {
		return "", 0, false
	}
	return args[idx], m[1], true
}

// dataEventRe: a stream's "data" handler appending each chunk to a
// variable.
var dataEventRe = refilter.MustCompile(`\.on\(\s*['"]data['"]\s*,\s*(?:function\s*)?\(?\s*\w+\s*\)?\s*(?:=>)?\s*\{?\s*(\w+)\s*\+=`)

// readValue tries the value readers of the idioms above on the start of
// s: a script argument (shift, sys.argv[1]), Rust's format!, Perl's
// q(...), a JavaScript array join.
func readValue(s string, vars map[string]string) (string, int, bool) {
	if v, k, ok := readArgvRef(s, vars); ok {
		return v, k, ok
	}
	if v, k, ok := readRustFormat(s, vars); ok {
		return v, k, ok
	}
	if v, k, ok := readPerlQuote(s); ok {
		return v, k, ok
	}
	if m := perlReverseRe.FindStringIndex(head(s, 24)); m != nil {
		// Perl: $c = reverse "hs | ...": the string backwards.
		if v, k, ok := readStrExpr(s[m[1]:], vars); ok {
			n := m[1] + k
			if r := strings.TrimLeft(s[n:], " \t"); strings.HasPrefix(r, ")") && strings.Contains(s[:m[1]], "(") {
				n += len(s[n:]) - len(r) + 1
			}
			return reverse(v), n, true
		}
	}
	return readJSJoin(s, vars)
}

// perlReverseRe: Perl's reverse of a string in scalar context.
var perlReverseRe = refilter.MustCompile(`^(?:scalar\s+)?reverse\s*\(?\s*`)

// literalEnd returns the index just past the string literal starting at
// code[i] (a quote; with triple set, a Python triple quote counts).
// Escapes are skipped; a single-quoted literal ends at the line's end
// when unterminated.
func literalEnd(code string, i int, triple bool) int {
	q := code[i : i+1]
	if triple && strings.HasPrefix(code[i:], q+q+q) {
		q += q + q
	}
	j := i + len(q)
	for j < len(code) {
		if code[j] == '\\' {
			j += 2
			continue
		}
		if len(q) == 1 && code[j] == '\n' {
			break
		}
		if strings.HasPrefix(code[j:], q) {
			j += len(q)
			break
		}
		j++
	}
	return min(j, len(code))
}

// codeEvalRe: a call whose string argument is code (eval("..."),
// exec("..."), new Function("..."), compile("...")); the text before a
// literal ends with one.
var codeEvalRe = refilter.MustCompile(`\b(?:eval|exec|execfile|Function|compile|runInThisContext|runInNewContext|setTimeout|setInterval|execScript|instance_eval|class_eval|module_eval)\s*\(\s*(?:[rRbBuUfF]{0,2})$`)

// codeArgument reports whether a literal that follows before is the
// code argument of an eval-like call: its calls are code, not prose.
func codeArgument(before string) bool {
	return codeEvalRe.MatchString(before[max(0, len(before)-40):])
}

// osOpenWriteRe: os.open flags that write or create.
var osOpenWriteRe = refilter.MustCompile(`^,\s*[^)]*\bO_(?:WRONLY|CREAT|TRUNC|APPEND|RDWR)\b`)

// luaLoadPopenRe: Lua loading a command's output as code.
var luaLoadPopenRe = refilter.MustCompile(`\bload(?:string)?\s*\(\s*io\.popen\(\s*`)

// getattrCalls rewrites getattr(obj, NAME) into obj.NAME when NAME is a
// string expression the reader knows ('rm' + 'tree' included).
func getattrCalls(code string) string {
	var b strings.Builder
	last := 0
	for _, m := range getattrHeadRe.FindAllStringSubmatchIndex(code, 16) {
		name, k, ok := readStrExpr(code[m[1]:], nil)
		if !ok || identAt(name) != name {
			continue
		}
		r := strings.TrimLeft(code[m[1]+k:], " \t")
		if !strings.HasPrefix(r, ")") {
			continue
		}
		end := len(code) - len(r) + 1
		b.WriteString(code[last:m[0]])
		b.WriteString(code[m[2]:m[3]] + "." + name)
		last = end
	}
	if last == 0 {
		return code
	}
	b.WriteString(code[last:])
	return b.String()
}

var getattrHeadRe = refilter.MustCompile(`\bgetattr\(\s*([A-Za-z_][\w.]*)\s*,\s*`)

// funcAliases rewrites calls through a name bound to a function that
// runs, deletes or spawns (f = os.system; from shutil import rmtree as
// wipe) as calls of that function: f("rm -rf ~") reads as
// os.system("rm -rf ~").
func funcAliases(code string) string {
	if !strings.Contains(code, "=") && !strings.Contains(code, " as ") {
		return code
	}
	for _, m := range funcAliasRe.FindAllStringSubmatch(code, 8) {
		name, target := m[1], m[2]
		if name == "" {
			name, target = m[5], m[3]+"."+m[4]
		}
		if name == "" || name == target {
			continue
		}
		re, err := regexp.Compile(`\b` + regexp.QuoteMeta(name) + `\s*\(`)
		if err != nil {
			continue
		}
		code = re.ReplaceAllLiteralString(code, target+"(")
	}
	return code
}

var funcAliasRe = refilter.MustCompile(`(?m)^[ \t]*([A-Za-z_]\w*)\s*=\s*((?:os|subprocess|shutil|pty|commands)\.(?:system|popen|run|call|check_call|check_output|Popen|getoutput|rmtree|remove|unlink|spawn\w*|exec\w*))[ \t]*$|(?m)^[ \t]*from\s+(os|subprocess|shutil|pty)\s+import\s+(system|popen|run|call|check_call|check_output|Popen|getoutput|rmtree|remove|unlink|spawn\w*|exec\w*)\s+as\s+([A-Za-z_]\w*)`)

// importCalls rewrites __import__(EXPR), with a module name the scanner
// can read ('o'+'s', "os"[::-1][::-1]), as that module's name, so that
// getattr(__import__('o'+'s'), 'sys'+'tem')(CMD) reads as os.system(CMD).
func importCalls(code string) string {
	var b strings.Builder
	last := 0
	for _, m := range importHeadRe.FindAllStringIndex(code, 16) {
		name, k, ok := readStrExpr(code[m[1]:], nil)
		if !ok || name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") != "" {
			continue
		}
		r := strings.TrimLeft(code[m[1]+k:], " \t")
		if !strings.HasPrefix(r, ")") {
			continue
		}
		b.WriteString(code[last:m[0]])
		b.WriteString(name)
		last = len(code) - len(r) + 1
	}
	if last == 0 {
		return code
	}
	b.WriteString(code[last:])
	return b.String()
}

var importHeadRe = refilter.MustCompile(`\b__import__\(\s*`)

// pathGlobRe: a glob method on a path expression; group 1 is the
// receiver.
var pathGlobRe = refilter.MustCompile(`^([^\s:]+?)\.r?glob\(\s*`)

var (
	// boto3ClientRe: a client or resource bound to a name.
	boto3ClientRe = refilter.MustCompile(`\b([A-Za-z_]\w*)\s*=\s*boto3\.(?:client|resource)\(\s*['"]([\w-]+)['"]`)
	// boto3DirectRe: a method called on a client made inline.
	boto3DirectRe = refilter.MustCompile(`\bboto3\.client\(\s*['"]([\w-]+)['"][^)]*\)\.(\w+)\(`)
	// boto3EndpointRe: a client pointed at a local endpoint (DynamoDB
	// Local, LocalStack, MinIO).
	boto3EndpointRe = refilter.MustCompile(`\bendpoint_url\s*=\s*['"](https?://[^'"]+)['"]`)
	// boto3VerbRe: the methods that destroy, stop or open things up.
	boto3VerbRe = refilter.MustCompile(`^(?:delete|terminate|stop|disable|remove|schedule_key_deletion|deregister|purge|reset|revoke|deactivate|leave|close|put_bucket_policy|put_bucket_acl|delete_public_access_block|update_detector)`)
	kwargRe     = refilter.MustCompile(`\b([A-Z][A-Za-z0-9]*)\s*=\s*`)
)

// boto3Calls reads boto3 client calls that destroy or disable as the aws
// CLI command that does the same (client("cloudtrail").stop_logging(
// Name="x") is "aws cloudtrail stop-logging --name x").
func boto3Calls(code string, vars map[string]string) []codeItem {
	if !strings.Contains(code, "boto3") {
		return nil
	}
	emit := func(svc, method, args, text string) codeItem {
		if svc == "s3" {
			svc = "s3api"
		}
		argv := []string{"aws", svc, strings.ReplaceAll(method, "_", "-")}
		for _, m := range kwargRe.FindAllStringSubmatchIndex(args, 8) {
			v, _, ok := readStrExpr(args[m[1]:], vars)
			if !ok {
				continue
			}
			argv = append(argv, "--"+kebab(args[m[2]:m[3]]), v)
		}
		if em := boto3EndpointRe.FindStringSubmatch(code); em != nil {
			argv = append(argv, "--endpoint-url", em[1])
		}
		return codeItem{argv: argv, via: "boto3", text: clip(text, 200)}
	}
	var out []codeItem
	for _, m := range boto3DirectRe.FindAllStringSubmatchIndex(code, 8) {
		if method := code[m[4]:m[5]]; boto3VerbRe.MatchString(method) {
			out = append(out, emit(code[m[2]:m[3]], method, callArg(code[m[1]:]), code[m[0]:]))
		}
	}
	for _, c := range boto3ClientRe.FindAllStringSubmatch(code, 8) {
		name, svc := c[1], c[2]
		re := refilter.MustCompile(`\b` + name + `\.(\w+)\(`)
		for _, m := range re.FindAllStringSubmatchIndex(code, 8) {
			if method := code[m[2]:m[3]]; boto3VerbRe.MatchString(method) {
				out = append(out, emit(svc, method, callArg(code[m[1]:]), code[m[0]:]))
			}
		}
	}
	return out
}

// kebab turns CamelCase into kebab-case: DBInstanceIdentifier is
// db-instance-identifier, as the CLI spells its options.
func kebab(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		upper := c >= 'A' && c <= 'Z'
		if upper && i > 0 {
			prevLower := s[i-1] >= 'a' && s[i-1] <= 'z'
			nextLower := i+1 < len(s) && s[i+1] >= 'a' && s[i+1] <= 'z'
			if prevLower || nextLower && s[i-1] >= 'A' && s[i-1] <= 'Z' {
				b.WriteByte('-')
			}
		}
		if upper {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

var (
	// keyFileArgRe: the keyword arguments through which libraries take a
	// key or certificate file to use, not to show.
	keyFileArgRe = refilter.MustCompile(`\b(?:key_filename|keyfile|key_file|identity_file|identityfile|certfile|cert_file|private_key_file|ssh_key_path|pkey_path|ca_certs|client_key|ssl_key|tls_key|read_default_file|option_files?)\s*=\s*(?:str\(\s*)?[\w.]*$|\b(?:from_service_account_file|from_json_keyfile_name|service_account_from_file|from_authorized_user_file)\(\s*(?:filename\s*=\s*)?[\w.]*$`)
	// namesOnlyRe: a mapping read from a file whose keys alone are used.
	namesOnlyRe = refilter.MustCompile(`^\s*\)*\s*\.keys\(\s*\)`)
)

// usedAsKeyFile reports whether a path expression that follows before is
// a key-file argument of a library call.
func usedAsKeyFile(before string) bool {
	return keyFileArgRe.MatchString(before[max(0, len(before)-40):])
}

// namesOnly reports whether what follows a file-reading call only takes
// the names (dotenv_values(".env").keys()).
func namesOnly(after string) bool { return namesOnlyRe.MatchString(head(after, 40)) }

// lineKeysRe: a comprehension keeping the part of each line before "="
// ({l.split("=", 1)[0].strip() for l in open(p)}); groups 1 and 2 are
// the names of the element and the loop variable.
var lineKeysRe = refilter.MustCompile(`\b([A-Za-z_]\w*)\.(?:split|partition)\(\s*['"]=['"](?:\s*,\s*1)?\s*\)\s*\[\s*0\s*\](?:\.strip\(\s*\))?\s+for\s+([A-Za-z_]\w*)\s+in\s+$`)

// keysOfLines reports whether the code before a file is opened makes it
// the source of a comprehension that keeps only each line's name, as
// "cut -d= -f1" does: the values never reach the output.
func keysOfLines(before string) bool {
	m := lineKeysRe.FindStringSubmatch(before[max(0, len(before)-160):])
	return m != nil && m[1] == m[2]
}

var (
	assignedToRe = refilter.MustCompile(`(?:^|\n)[ \t]*([A-Za-z_]\w*)[ \t]*=[ \t]*$`)
	// keyUseRe is a use of a mapping that yields its keys, a count or a
	// membership test: sorted(cfg), cfg.keys(), len(cfg), k in cfg.
	keyUseRe = `(?:sorted|list|set|len|tuple)\(\s*%[1]s\s*\)|\b%[1]s\.keys\(\)|\bin\s+%[1]s(?:[^.\w]|$)` +
		// A value only tested ('set' if v[k] else 'EMPTY', if not v[k]:,
		// bool(v[k])): whether it is set is printed, not what it is.
		`|\bif\s+(?:not\s+)?%[1]s\[\s*\w+\s*\](?:\.strip\(\))?\s*(?:else\b|:)|(?:bool|len)\(\s*%[1]s\[\s*\w+\s*\](?:\.strip\(\))?\s*\)`
)

// namesOnlyVar reports a mapping read by the call code[start:end] and
// assigned to a name ("cfg = dotenv_values('.env')") whose every later use
// takes only its keys, a count, or a truth value of each entry
// ({k: bool(v) for k, v in cfg.items()}): nothing of a value is shown.
func namesOnlyVar(code string, start, end int) bool {
	m := assignedToRe.FindStringSubmatch(code[max(0, start-80):start])
	if m == nil || end > len(code) {
		return false
	}
	name := m[1]
	rest := code[end:]
	uses := regexp.MustCompile(`\b`+name+`\b`).FindAllStringIndex(rest, 32)
	if len(uses) == 0 {
		return false
	}
	keyUse := regexp.MustCompile(fmt.Sprintf(keyUseRe, name))
	itemsRe := regexp.MustCompile(`for\s+(\w+)\s*,\s*(\w+)\s+in\s+(?:sorted\(\s*)?` + name + `\.items\(\)`)
	safe := len(keyUse.FindAllStringIndex(rest, 32))
	for _, it := range itemsRe.FindAllStringSubmatchIndex(rest, 8) {
		// The values only as truth or length: bool(v), len(v), v is None,
		// in the comprehension's line or the loop's indented body.
		start := max(0, strings.LastIndexByte(rest[:it[0]], '\n')+1)
		line := rest[start:]
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			head := line[:i]
			if strings.HasSuffix(strings.TrimSpace(head), ":") {
				indent := len(head) - len(strings.TrimLeft(head, " \t"))
				body := line[i+1:]
				for _, l := range strings.SplitAfter(body, "\n") {
					if strings.TrimSpace(l) != "" && len(l)-len(strings.TrimLeft(l, " \t")) <= indent {
						break
					}
					head += "\n" + strings.TrimRight(l, "\n")
				}
			}
			line = head
		}
		v := rest[it[4]:it[5]]
		all := regexp.MustCompile(`\b`+v+`\b`).FindAllStringIndex(line, -1)
		ok := regexp.MustCompile(`(?:bool|len)\(\s*`+v+`\s*\)|\b`+v+`\s+is\s+(?:not\s+)?None|\b(?:not|if)\s+`+v+`\b`).FindAllStringIndex(line, -1)
		if len(all)-1 != len(ok) { // the loop variable itself is one
			return false
		}
		safe++
	}
	return safe == len(uses)
}

// sendHeadRe: Ruby's dynamic dispatch, send(:name, ...) on a receiver or
// none, and PHP's call_user_func(NAME, ...); group 1 is the receiver
// with its dot.
var sendHeadRe = refilter.MustCompile(`(\b[A-Za-z_][\w:]*\s*\.\s*)?\b(?:public_send|__send__|send|call_user_func)\(\s*`)

// constGetRe: Ruby's Object.const_get(:Name), the constant by name.
var constGetRe = refilter.MustCompile(`\b(?:Object|Kernel|Module)\s*\.\s*const_get\(\s*`)

// indirectCalls rewrites calls whose method or function name is a value
// into the direct call it makes, where the scanner can read the name:
// Kernel.send(('sys' + 'tem').to_sym, CMD) is system(CMD),
// Object.const_get(:FileUtils).public_send(:rm_rf, P) is
// FileUtils.rm_rf(P), call_user_func("pass" . "thru", CMD) is
// passthru(CMD). Like getattrCalls for Python.
func indirectCalls(code string) string {
	if strings.Contains(code, "const_get(") {
		code = rewriteHeads(code, constGetRe, func(_ []int, name, r string) (string, string, bool) {
			if !strings.HasPrefix(r, ")") {
				return "", "", false
			}
			return name, r[1:], true
		})
	}
	if !strings.Contains(code, "send(") && !strings.Contains(code, "call_user_func(") {
		return code
	}
	return rewriteHeads(code, sendHeadRe, func(m []int, name, r string) (string, string, bool) {
		if !strings.HasPrefix(r, ",") {
			return "", "", false
		}
		recv := ""
		if m[2] >= 0 {
			recv = strings.Join(strings.Fields(code[m[2]:m[3]]), "")
		}
		if recv == "Kernel." || recv == "Object." || recv == "self." {
			recv = ""
		}
		return recv + name + "(", strings.TrimLeft(r[1:], " \t"), true
	})
}

// rewriteHeads replaces each match of head followed by a name the
// scanner can read (a symbol, a string expression, either with
// .to_sym, .intern or .to_s and in parentheses) by what repl returns for
// the name and the text after it.
func rewriteHeads(code string, head *refilter.Regexp, repl func(m []int, name, rest string) (string, string, bool)) string {
	var b strings.Builder
	last := 0
	for _, m := range head.FindAllStringSubmatchIndex(code, 16) {
		if m[0] < last {
			continue
		}
		name, k, ok := readCallName(code[m[1]:])
		if !ok {
			continue
		}
		out, rest, ok := repl(m, name, strings.TrimLeft(code[m[1]+k:], " \t"))
		if !ok {
			continue
		}
		b.WriteString(code[last:m[0]])
		b.WriteString(out)
		last = len(code) - len(rest)
	}
	if last == 0 {
		return code
	}
	b.WriteString(code[last:])
	return b.String()
}

// readCallName reads a method or function name given as a value:
// :rm_rf, :"system", 'sys' + 'tem', ('sys' + 'tem').to_sym, "pass" .
// "thru". It returns the name and the length read.
func readCallName(s string) (string, int, bool) {
	n := 0
	paren := strings.HasPrefix(s, "(")
	if paren {
		n = 1
	}
	var name string
	if strings.HasPrefix(s[n:], ":") && !strings.HasPrefix(s[n:], "::") {
		if v, k, ok := readStrExpr(s[n+1:], nil); ok && strings.ContainsAny(s[n+1:n+2], `"'`) {
			name, n = v, n+1+k
		} else if id := identAt(s[n+1:]); id != "" {
			name, n = id, n+1+len(id)
		}
	} else if v, k, ok := readStrExpr(s[n:], nil); ok {
		name, n = v, n+k
	}
	if name == "" || identAt(name) != name {
		return "", 0, false
	}
	if paren {
		r := strings.TrimLeft(s[n:], " \t")
		if !strings.HasPrefix(r, ")") {
			return "", 0, false
		}
		n = len(s) - len(r) + 1
	}
	for _, conv := range []string{".to_sym", ".intern", ".to_s"} {
		if strings.HasPrefix(s[n:], conv) {
			n += len(conv)
		}
	}
	return name, n, true
}

// phpVarCallRe: a PHP variable function call, $f(...).
var phpVarCallRe = refilter.MustCompile(`\$([A-Za-z_]\w*)\(`)

// phpVarCalls rewrites $f(...) as NAME(...) when $f holds a function
// name the scanner read ($f = "sys" . "tem"; $f(CMD) is system(CMD)).
func phpVarCalls(code string, vars map[string]string) string {
	if !strings.Contains(code, "$") {
		return code
	}
	return phpVarCallRe.ReplaceAllStringFunc(code, func(m string) string {
		if v, ok := vars[m[1:len(m)-1]]; ok && v != "" && identAt(v) == v {
			return v + "("
		}
		return m
	})
}

// fsDestructureRe: functions taken by name from Node's fs modules:
// "const { rm, readFile: rf } = require('fs')", "= await
// import('node:fs/promises')", "import { rmSync } from 'fs'".
var fsDestructureRe = refilter.MustCompile(`(?:(?:const|let|var)\s*\{([^}]*)\}\s*=\s*(?:await\s+)?(?:require|import)\(\s*|\bimport\s*\{([^}]*)\}\s*from\s*)['"](?:node:)?fs(?:/promises|-extra)?['"]`)

// nodeFsNames rewrites calls of functions destructured from an fs
// module as fs.NAME(...), the spelling the scanners know:
// "const { rm } = await import('node:fs/promises'); await rm(HOME,
// { recursive: true })" is fs.rm(HOME, ...).
func nodeFsNames(code string) string {
	if !strings.Contains(code, "fs") {
		return code
	}
	for _, m := range fsDestructureRe.FindAllStringSubmatch(code, 4) {
		for _, part := range strings.Split(m[1]+m[2], ",") {
			orig, local, ok := strings.Cut(part, ":")
			if !ok {
				orig, _, _ = strings.Cut(part, " as ")
				_, local, ok = strings.Cut(part, " as ")
				if !ok {
					local = orig
				}
			}
			orig, local = strings.TrimSpace(orig), strings.TrimSpace(local)
			if identAt(orig) != orig || identAt(local) != local || orig == "" {
				continue
			}
			re, err := refilter.Compile(`(^|[^.\w$])` + local + `\s*\(`)
			if err != nil {
				continue
			}
			code = re.ReplaceAllString(code, "${1}fs."+orig+"(")
		}
	}
	return code
}

// spawnTargetRe: a process or thread started on a named function.
var spawnTargetRe = refilter.MustCompile(`\b(?:Process|Thread)\(\s*target\s*=\s*([A-Za-z_]\w*)`)

// selfSpawn reports whether a Python function starts processes or
// threads running itself (def boom(): mp.Process(target=boom).start()):
// each child starts more, a fork bomb without os.fork.
func selfSpawn(code string) bool {
	if !strings.Contains(code, "target") {
		return false
	}
	for _, m := range spawnTargetRe.FindAllStringSubmatchIndex(code, 8) {
		name := code[m[2]:m[3]]
		def := strings.LastIndex(code[:m[0]], "def ")
		if def < 0 || !strings.HasPrefix(code[def+4:], name+"(") {
			continue
		}
		// The call is in the function's body: every line after the def
		// up to the call is indented deeper than the def (or blank).
		lineStart := strings.LastIndexByte(code[:def], '\n') + 1
		defIndent := def - lineStart
		inside := true
		body := code[def:m[0]]
		if nl := strings.IndexByte(body, '\n'); nl >= 0 {
			for _, line := range strings.Split(body[nl+1:], "\n") {
				if strings.TrimSpace(line) != "" && len(line)-len(strings.TrimLeft(line, " \t")) <= defIndent {
					inside = false
					break
				}
			}
		} else if !strings.Contains(body, ":") {
			inside = false
		}
		if inside {
			return true
		}
	}
	return false
}

// globLoopRe: a loop over a glob's matches in Ruby (Dir.glob(P)...each
// { |f| ... }, Dir[P].each do |f|) or Perl (for (glob("P")),
// foreach my $f (glob "P")); the pattern follows the match.
var globLoopRe = refilter.MustCompile(`\bDir(?:\.glob\(\s*|\[\s*)|\bfor(?:each)?\s*(?:my\s+)?(\$\w+)?\s*\(\s*glob\s*\(?\s*`)

// rubyEachRe: the block variable of the .each that follows.
var rubyEachRe = refilter.MustCompile(`^[^\n]{0,200}?\.each\s*(?:\{|do)\s*\|\s*(\w+)\s*\|`)

// globLoopVars binds the loop variable of a loop over a glob to the
// pattern, as Python's "for p in glob.glob(P)" is read: Dir.glob(
// '**/.env*').each { |f| puts File.read(f) } reads .env files.
func globLoopVars(code string, vars map[string]string) {
	if !strings.Contains(code, "glob") && !strings.Contains(code, "Dir[") {
		return
	}
	for _, m := range globLoopRe.FindAllStringSubmatchIndex(code, 4) {
		pat, n, ok := readPathExpr(code[m[1]:], vars)
		if !ok || pat == "" {
			continue
		}
		if strings.HasPrefix(code[m[0]:], "Dir") {
			if e := rubyEachRe.FindStringSubmatch(code[m[1]+n:]); e != nil {
				vars[e[1]] = pat
			}
			continue
		}
		name := "_" // Perl's default loop variable
		if m[2] >= 0 {
			name = code[m[2]+1 : m[3]]
		}
		vars[name] = pat
	}
}

// pyDefRe: a Python function definition; group 1 is the indentation,
// 2 the name, 3 the parameters.
var pyDefRe = refilter.MustCompile(`(?m)^([ \t]*)def\s+([A-Za-z_]\w*)\s*\(([^)]*)\)[^:\n]*:`)

// pyDef is a function defined in Python code: its parameters and its
// body, dedented, and where the definition lies in the code.
type pyDef struct {
	name       string
	params     []string
	body       string
	start, end int
}

// pyDefs returns the functions code defines (at most 4).
func pyDefs(code string) []pyDef {
	var out []pyDef
	for _, m := range pyDefRe.FindAllStringSubmatchIndex(code, 4) {
		d := pyDef{name: code[m[4]:m[5]], start: m[0]}
		for _, p := range strings.Split(code[m[6]:m[7]], ",") {
			p, _, _ = strings.Cut(p, "=")
			p, _, _ = strings.Cut(p, ":")
			if p = strings.TrimSpace(p); p != "" && !strings.HasPrefix(p, "*") && p != "self" {
				d.params = append(d.params, p)
			}
		}
		indent := m[3] - m[2]
		rest := code[m[1]:]
		if line, _, _ := strings.Cut(rest, "\n"); strings.TrimSpace(line) != "" {
			// def f(p): shutil.rmtree(p)
			d.body = strings.TrimSpace(line)
			d.end = m[1] + len(line)
		} else {
			var body []string
			pos, cut := m[1]+len(line)+1, -1
			for _, l := range strings.Split(rest[min(len(rest), len(line)+1):], "\n") {
				if t := strings.TrimLeft(l, " \t"); t != "" {
					ind := len(l) - len(t)
					if ind <= indent {
						break
					}
					if cut < 0 {
						cut = ind
					}
					body = append(body, l[min(cut, ind):])
				} else {
					body = append(body, "")
				}
				pos += len(l) + 1
			}
			d.body, d.end = strings.Join(body, "\n"), min(pos, len(code))
		}
		out = append(out, d)
	}
	return out
}

// pyCallItems reads the calls code makes of the functions it defines
// with literal arguments, as the function's body with its parameters
// bound: "def tidy(p): shutil.rmtree(p)" then "tidy('/')" removes /.
func pyCallItems(code string, vars map[string]string, depth int) []codeItem {
	if !strings.Contains(code, "def ") {
		return nil
	}
	var out []codeItem
	for _, d := range pyDefs(code) {
		if len(d.params) == 0 {
			continue
		}
		calls := 0
		for i, seen := 0, 0; calls < 4 && seen < 8; seen++ {
			k := strings.Index(code[i:], d.name+"(")
			if k < 0 {
				break
			}
			at, end := i+k, i+k+len(d.name)+1
			i = end
			if at > 0 && (isIdentByte(code[at-1]) || code[at-1] == '.') || end > d.start && end <= d.end {
				continue // another name ending so, a method, the def itself or a recursive call
			}
			args := callStrArgs(strings.TrimLeft(code[end:], " \t"), vars)
			if len(args) == 0 {
				continue
			}
			calls++
			var b strings.Builder
			for i, p := range d.params {
				if i < len(args) {
					b.WriteString(p + " = " + pyRepr(args[i]) + "\n")
				}
			}
			for _, it := range extractDepth("python", b.String()+d.body, depth+1, nil) {
				it.via = "call " + d.name + " > " + it.via
				out = append(out, it)
			}
		}
	}
	return out
}

// pyRepr is a Python string literal of s.
func pyRepr(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`, "\n", `\n`).Replace(s) + "'"
}

var (
	// sdkDeleteRe: an SDK call that deletes, purges or destroys what it
	// is called on.
	sdkDeleteRe = refilter.MustCompile(`\.(?:delete|begin_delete|delete_index|delete_indices|clear_objects|clear_index|delete_bucket|emptyBucket|delete_project|delete_repo|destroy|destroy_all|delete_all|purge)\s*\(`)
	// sdkProdRe: a literal or variable name that says production (or a
	// live payment account).
	sdkProdRe = refilter.MustCompile(`(?i)(^|[^a-z])(prod|prd|production|live)([^a-z]|$)`)
	// sdkRepoDeleteRe: PyGithub's and python-gitlab's repository and
	// project deletes.
	sdkRepoDeleteRe = refilter.MustCompile(`\.(get_repo|projects\.get)\(\s*['"]([^'"]+)['"]\s*\)\.delete\(\s*\)`)
)

// sdkDeleteItems reads SDK deletes in code: a repository or project
// deleted through PyGithub or python-gitlab is "gh repo delete"; any
// other delete, destroy or purge call on a line that names production
// (a literal or an environment variable such as STRIPE_LIVE_SECRET_KEY)
// is an "sdk-delete" the packs treat as a production data store
// destroyed. Lines that only call delete on local objects name no
// production and are left alone.
func sdkDeleteItems(code string) []codeItem {
	if !strings.Contains(code, "delete") && !strings.Contains(code, "destroy") && !strings.Contains(code, "clear") &&
		!strings.Contains(code, "emptyBucket") && !strings.Contains(code, "purge") {
		return nil
	}
	var out []codeItem
	for _, m := range sdkRepoDeleteRe.FindAllStringSubmatch(code, 4) {
		out = append(out, codeItem{argv: []string{"gh", "repo", "delete", m[2], "--yes"}, via: "sdk " + m[1] + ".delete", text: clip(m[0], 200)})
	}
	for _, line := range strings.Split(code, "\n") {
		if len(out) >= 8 {
			break
		}
		m := sdkDeleteRe.FindStringIndex(line)
		if m == nil {
			continue
		}
		if a := strings.TrimLeft(line[m[1]:], " \t"); a != "" && (a[0] == '\'' || a[0] == '"' || a[0] == '`') {
			// cache.delete('prod:key'): one named entry, not the store.
			continue
		}
		for _, lit := range append(strLitsOf(line), envNamesOf(line)...) {
			if sdkProdRe.MatchString(lit) {
				out = append(out, codeItem{argv: []string{"sdk-delete", strings.TrimSpace(line[m[0]+1 : m[1]-1]), lit}, via: "sdk delete", text: clip(line, 200)})
				break
			}
		}
	}
	return out
}

// strLitsOf returns the quoted string literals of a line of code.
func strLitsOf(line string) []string {
	var out []string
	for _, m := range hclStringRe.FindAllStringSubmatch(line, 16) {
		out = append(out, m[1])
	}
	for _, m := range sqLitRe.FindAllStringSubmatch(line, 16) {
		out = append(out, m[1])
	}
	return out
}

var sqLitRe = refilter.MustCompile(`'([^'\n]*)'`)

// envNamesOf returns the environment variable names a line reads.
func envNamesOf(line string) []string {
	var out []string
	for _, ix := range envRefRe.FindAllStringSubmatchIndex(line, 8) {
		out = append(out, envRefName(line, ix))
	}
	return out
}
