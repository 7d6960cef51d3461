package shell

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/ledger-audit/ledger-audit/internal/refilter"
)

// ErrUnparseable wraps the parser's error when Parse fell back to token
// matching; the commands returned are then a best-effort split and carry
// the "unparseable" note.
var ErrUnparseable = errors.New("unparseable shell")

// Limits that keep hostile input (alias loops, self-expanding eval,
// deeply nested bash -c) from costing more than a fraction of a
// millisecond more than ordinary commands.
const (
	maxDepth    = 12
	maxCommands = 4000
	maxSrcBytes = 256 << 10
)

// Parse returns every simple command src would run, normalised, in
// execution order (command substitutions before the command that uses
// them). st carries the session: variables, aliases, functions and files
// from earlier calls are used, and what src defines is recorded in it.
// st may be nil for a one-off parse.
//
// When src does not parse, Parse falls back to splitting it into words
// and returns those commands with an error wrapping ErrUnparseable.
func Parse(src string, st *State) ([]Command, error) {
	if st == nil {
		st = NewState()
	}
	st.gen++
	if len(src) > maxSrcBytes {
		src = src[:maxSrcBytes]
	}
	w := &walker{st: st, out: make([]Command, 0, commandsEstimate(src))}
	if err := w.script(src, ctx{}); err != nil {
		return w.out, fmt.Errorf("%w: %v", ErrUnparseable, err)
	}
	return w.out, nil
}

// commandsEstimate guesses how many commands src runs from its
// separators, so that the result is allocated once: a Command is some
// 460 bytes, and growing the slice by doubling copied them over and
// over (a third of what a 200-character command line allocated).
func commandsEstimate(src string) int {
	n := 1
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case ';', '|', '\n', '`':
			n++
		case '&':
			if i+1 < len(src) && src[i+1] == '&' {
				n++
				i++
			}
		case '$':
			if i+1 < len(src) && src[i+1] == '(' {
				n++
			}
		case '-':
			// "bash -c '...'": the shell, then what it runs.
			if i+2 < len(src) && src[i+1] == 'c' && src[i+2] == ' ' {
				n++
			}
		}
	}
	if n > 1 {
		n += n / 4 // wrappers and interpreters add commands of their own
	}
	return min(n, 32)
}

// ParseArgv normalises an argument vector that runs without a shell
// (subprocess.run([...]), an MCP tool's argv), with the same wrapper and
// interpreter handling as Parse.
func ParseArgv(argv []string, st *State) []Command {
	if st == nil {
		st = NewState()
	}
	st.gen++
	w := &walker{st: st}
	w.emit(newRaw(argv), ctx{}, stdinInfo{})
	return w.out
}

// parsers are reused (a Parser is costly to build) but not shared: a
// syntax.Parser is not safe for concurrent use, and Parse must be.
var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

type walker struct {
	st    *State
	out   []Command
	depth int
	pipes int
	// subst collects the commands found in the command and process
	// substitutions of the word being expanded.
	subst []Source
	// crossCall is set while a value from an earlier call is in use.
	crossCall bool
	// setPos holds positional parameters replaced by "set -- a b".
	setPos []string
	// procOut is the static output of the last process substitution,
	// for "< <(echo ~/.ssh/id_rsa)".
	procOut   string
	procKnown bool
	procFd    int // process substitutions given a known file so far
	// valueFrom collects, while a command's words are expanded, the
	// substitutions its variables were assigned from (State.VarFrom).
	valueFrom []string
}

// emptyPrefixRe is "$X"/* or $X/ as a word: with X empty, the root.
var emptyPrefixRe = refilter.MustCompile(`(?:^|[\s=])"?\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?"?/(?:\*|\.\*)?(?:["'\s;&|)]|$)`)

// maybeEmptyPrefix reports a word that starts with a variable the session
// assigned from a command's output, followed by "/" and nothing or a
// glob of everything: when the command printed nothing ("ls -d
// out/build-* 2>/dev/null | tail -1" with no build), the word is "/" or
// "/*". mktemp, pwd, dirname and the like always print something.
func maybeEmptyPrefix(text string, from map[string]string) bool {
	if len(from) == 0 || !strings.Contains(text, "$") {
		return false
	}
	for _, m := range emptyPrefixRe.FindAllStringSubmatch(text, 4) {
		src, ok := from[m[1]]
		if !ok {
			continue
		}
		body := strings.TrimSpace(strings.Trim(strings.TrimSpace(src), `"`))
		body = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(body, "$("), "`"), ")"))
		never := false
		for _, p := range []string{"mktemp", "pwd", "dirname", "realpath", "readlink", "git rev-parse", "cd ", "date", "id ", "whoami", "basename", "echo ", "printf "} {
			never = never || strings.HasPrefix(body, p)
		}
		if !never {
			return true
		}
	}
	return false
}

// ctx is what the walker knows about where a statement sits.
type ctx struct {
	src        string
	via        []string
	pos        []string // positional parameters; nil = unknown
	funcs      []string // functions being expanded (recursion guard)
	pipeID     int
	pipeIdx    int
	pipeLen    int
	background bool
	crossCall  bool
	// host is the machine a remote command runs on (ssh HOST CMD).
	host string
	// stdin is what statements without input of their own read: the
	// stdin of the shell running them ("curl URL | bash -c 'source
	// /dev/stdin'") or of the command whose $(...) they are in.
	stdin stdinInfo
}

// decodedWords reports substitution sources that decode a blob (base64
// -d, base32 -d, basenc -d, xxd -r, openssl enc -d).
func decodedWords(srcs []Source) bool {
	for _, s := range srcs {
		if s.Kind != "cmdsubst" && s.Kind != "pipe" {
			continue
		}
		for _, a := range s.Args {
			switch s.Name {
			case "base64", "base32", "basenc", "openssl":
				if a == "-d" || a == "-D" || a == "--decode" || a == "-di" {
					return true
				}
			case "xxd":
				// -r, -revert, or a short cluster such as -rp (not
				// -groupsize).
				if a == "-r" || a == "-revert" || len(a) <= 3 && strings.HasPrefix(a, "-") && strings.Contains(a, "r") {
					return true
				}
			}
		}
	}
	return false
}

// ClientArgVia marks commands run in a substitution that is an argument
// of a database or cache client (connClients), or of a command that
// stores a secret (secretSetter).
const ClientArgVia = "client-arg"

// connClients take a connection string or URL as an argument.
var connClients = map[string]bool{
	"psql": true, "pg_dump": true, "pg_dumpall": true, "pg_restore": true, "pgcli": true, "mysql": true, "mysqldump": true,
	"mariadb": true, "mycli": true, "redis-cli": true, "mongosh": true, "mongo": true, "mongodump": true, "mongorestore": true,
	"usql": true, "clickhouse-client": true, "cqlsh": true, "litecli": true, "valkey-cli": true,
	// steamcmd +login USER PASSWORD: a build uploader's own login.
	"steamcmd": true, "steamcmd.sh": true, "steamcmd.exe": true,
}

// containerEnvOpt reports whether the next word of a container run is
// the value of its -e/--env option.
func containerEnvOpt(f []string) bool {
	switch path.Base(f[0]) {
	case "docker", "podman", "nerdctl":
	default:
		return false
	}
	last := f[len(f)-1]
	return len(f) > 2 && (last == "-e" || last == "--env")
}

// inPlaceEdit reports whether the command so far is sed editing its
// files in place (its output goes back into them).
func inPlaceEdit(f []string) bool {
	if path.Base(f[0]) != "sed" && path.Base(f[0]) != "gsed" {
		return false
	}
	for _, a := range f[1:] {
		if a == "-i" || strings.HasPrefix(a, "-i") && !strings.HasPrefix(a, "--") || a == "--in-place" || strings.HasPrefix(a, "--in-place=") {
			return true
		}
	}
	return false
}

// passwordOpts are options whose value is a password or token the
// program uses.
var passwordOpts = map[string]bool{
	"--password": true, "--pass": true, "--passphrase": true, "--token": true, "--api-key": true, "--apikey": true,
	"--key": true, "--auth-token": true, "--access-token": true, "--key-password": true, "--keypass": true, "--storepass": true, "--store-password": true, "--secret": true, "--client-secret": true,
}

// passwordOptWord reports whether word is "--password=$(...)" or the
// like: a password option with its value joined by "=".
func passwordOptWord(word *syntax.Word) bool {
	name, ok := joinedName(word)
	return ok && isPasswordOpt(name)
}

// joinedName is the name in a word that joins a literal "NAME=" to a
// value given some other way ("--password=$(...)", "key=\"$K\""): the
// part before the "=".
func joinedName(word *syntax.Word) (string, bool) {
	if len(word.Parts) < 2 {
		return "", false
	}
	lit, ok := word.Parts[0].(*syntax.Lit)
	if !ok {
		return "", false
	}
	name, _, ok := strings.Cut(lit.Value, "=")
	return name, ok
}

// keyValueSecretNames are the parameter names, in a CLI's key=value
// style (CloudStack's cmk, ovftool, many appliance CLIs), whose value
// is a credential the program sends where it is configured.
var keyValueSecretNames = map[string]bool{
	"password": true, "passwd": true, "privatekey": true, "private_key": true, "secretkey": true, "secret_key": true,
	"apikey": true, "api_key": true, "passphrase": true, "token": true, "secret": true,
}

// keyValueShowers print or record a key=value argument where it can be
// read back (standard output, a commit, a file's metadata, the system
// log), so a secret given to them that way is shown, not used.
var keyValueShowers = map[string]bool{
	"echo": true, "printf": true, "print": true, "tee": true, "logger": true, "wall": true, "git": true, "exiftool": true,
	"Write-Host": true, "Write-Output": true, "jq": true, "yq": true, "sed": true, "awk": true, "gawk": true,
}

// keyValueSecretWord reports whether word is "privatekey=$(...)" or the
// like given to prog: a key=value parameter the program uses.
func keyValueSecretWord(word *syntax.Word, prog string) bool {
	if keyValueShowers[prog] || netSenders[prog] {
		return false
	}
	name, ok := joinedName(word)
	return ok && keyValueSecretNames[strings.ToLower(name)]
}

// isPasswordOpt reports whether a long option takes a password or token:
// one of passwordOpts, or one named for it (--project-token,
// --db-password, --client-secret, --npm-api-key).
func isPasswordOpt(name string) bool {
	if passwordOpts[name] {
		return true
	}
	if !strings.HasPrefix(name, "--") {
		return false
	}
	for _, suf := range []string{"-token", "-password", "-passphrase", "-secret", "-api-key", "-apikey"} {
		if strings.HasSuffix(name, suf) {
			return true
		}
	}
	return false
}

// envSecretUsers are build and release tools that read a signing key
// or a registry token from their environment, the way their own
// documentation has it set up (TAURI_SIGNING_PRIVATE_KEY="$(cat KEY)"
// npm run tauri build): a value given to them in the command's own
// environment is used, not shown. (Only as a prefix assignment: an
// argument of these tools is not where a secret goes.)
var envSecretUsers = map[string]bool{
	"npm": true, "pnpm": true, "yarn": true, "bun": true, "cargo": true, "make": true, "gradle": true, "gradlew": true,
	"mvn": true, "mvnw": true, "fastlane": true, "goreleaser": true, "tauri": true, "electron-builder": true, "xcodebuild": true,
	"flutter": true, "twine": true, "poetry": true, "uv": true, "hatch": true, "gem": true, "sbt": true, "lein": true,
}

// EnvPrintVia marks a substitution in a prefix assignment (X=$(...)
// cmd) whose command prints its environment, where "env-assign" marks
// one that only hands the value to the command.
const EnvPrintVia = "env-print"

// usesOwnAssign reports whether a command's words name a variable its
// own prefix assignments set: X="$(cat key)" curl -d "$X" URL is
// written to send the value (a shell expands $X before the assignment
// takes effect, but the writer's intent is plain, and an earlier
// assignment of X may hold the same value).
func usesOwnAssign(ce *syntax.CallExpr) bool {
	found := false
	for _, a := range ce.Args {
		syntax.Walk(a, func(n syntax.Node) bool {
			if pe, ok := n.(*syntax.ParamExp); ok && pe.Param != nil {
				for _, as := range ce.Assigns {
					if as.Name != nil && as.Name.Value == pe.Param.Value {
						found = true
					}
				}
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// revealsEnv reports whether a command given prefix assignments can
// show them: env or printenv with nothing to run, the shell's own
// listings, and a shell or interpreter running code given inline, which
// can print any variable it was handed.
func revealsEnv(args []*syntax.Word) bool {
	if len(args) == 0 {
		return false
	}
	lit, ok := plainWord(args[0])
	if !ok {
		return true
	}
	name := path.Base(lit)
	switch name {
	case "printenv", "set", "declare", "typeset", "export", "compgen":
		return true
	case "env":
		// env runs a command when one follows its options and NAME=value
		// words; alone, it lists the environment.
		rest := args[1:]
		for i := 0; i < len(rest); i++ {
			v, ok := plainWord(rest[i])
			if !ok || !strings.HasPrefix(v, "-") && !strings.Contains(v, "=") {
				return false
			}
			if v == "-u" || v == "--unset" || v == "-C" || v == "--chdir" {
				i++ // the option's value
			}
		}
		return true
	}
	lang := Interpreter(name)
	if !shells[name] && lang == "" && name != "pwsh" && name != "powershell" {
		return false
	}
	for _, a := range args[1:] {
		v, _ := plainWord(a)
		switch {
		case v == "-c" || v == "-e" || v == "-E" || v == "-r" || v == "--eval" || v == "-p" || v == "--print" || strings.EqualFold(v, "-Command"):
			return true
		case shells[name] && len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.Contains(v, "c"):
			// bash -lc, sh -ec
			return true
		}
	}
	return false
}

// secretSetter reports whether the words so far (program and
// subcommands) are a command that stores a secret given to it: the
// secret store is where the value is meant to go.
func secretSetter(f []string) bool {
	sub := func(words ...string) bool {
		if len(f) != len(words)+1 {
			return false
		}
		for i, w := range words {
			if f[i+1] != w {
				return false
			}
		}
		return true
	}
	switch path.Base(f[0]) {
	case "gh":
		return sub("secret", "set")
	case "kubectl", "oc":
		return sub("create", "secret")
	case "vault":
		return sub("kv", "put") || sub("kv", "patch") || sub("write")
	case "fly", "flyctl":
		return sub("secrets", "set")
	case "heroku":
		return sub("config:set")
	case "docker", "podman":
		return sub("secret", "create")
	case "conan":
		// Conan 2's remote login, Conan 1's user -p: the remote's
		// password, kept in Conan's credentials store.
		return sub("remote", "login") || sub("user")
	case "doppler":
		return sub("secrets", "set")
	case "az":
		return sub("keyvault", "secret", "set")
	case "aws":
		return sub("secretsmanager", "put-secret-value") || sub("secretsmanager", "create-secret") || sub("secretsmanager", "update-secret") || sub("ssm", "put-parameter")
	case "xcrun":
		// notarytool keeps the app-specific password in the keychain.
		return sub("notarytool", "store-credentials")
	case "security":
		return sub("add-generic-password") || sub("add-internet-password")
	case "mc":
		// MinIO's client: a user created with its secret key.
		return sub("admin", "user", "add")
	case "rabbitmqctl":
		return sub("change_password") || sub("add_user")
	case "immich", "glab", "netlify", "doctl", "hcloud", "linode-cli", "railway", "npm", "helm", "oras", "cosign":
		// A CLI's own login, given its key as an argument ("immich
		// login URL KEY"), keeps it in its configuration.
		return len(f) == 2 && f[1] == "login"
	}
	return false
}

func (c ctx) with(via string) ctx {
	n := c
	n.via = append(append([]string(nil), c.via...), via)
	return n
}

// stdinInfo is what a command reads on standard input.
type stdinInfo struct {
	sources []Source
	content string
	known   bool
	kind    string // pipe, heredoc, herestring, file
}

// script parses src and walks it. Unparseable text falls back to tokens.
func (w *walker) script(src string, c ctx) error {
	if w.depth > maxDepth || len(w.out) > maxCommands {
		return nil
	}
	if strings.Contains(src, "`") {
		// "Rem`ove-Item", "Inv`oke-Ex`pression": PowerShell's escape
		// character inside a name is no character at all (and a pair of
		// them is not a POSIX command substitution there).
		if clean := psUnescape(src); clean != src && (looksPowerShell(clean) || psCmdletFirstRe.MatchString(clean)) {
			src = clean
		}
	}
	if strings.Contains(src, "(") {
		if m := psParamCallRe.FindStringSubmatch(src); m != nil {
			// "Remove-VBRBackup -Backup (Get-VBRBackup -Name X) -FromDisk":
			// the grouped command's output is the parameter's object, as
			// it would be piped in; a POSIX reading splits the line at the
			// parentheses and loses the cmdlet's switches.
			src = m[2] + " | " + m[1] + m[3]
		}
	}
	if strings.Contains(src, "iskpart") || strings.Contains(src, "ISKPART") {
		// "select disk 0`nclean" | diskpart: the script diskpart reads
		// is the text piped in, however it is written. (The cheap test
		// first: most scripts never name diskpart.)
		if m := diskpartFileRe.FindStringSubmatch(src); m != nil && strings.EqualFold(m[2], m[3]) {
			// "(echo select disk 1 & echo clean) > %TEMP%\dp.txt &&
			// diskpart /s %TEMP%\dp.txt": the script diskpart runs is
			// what the group just wrote to that file.
			producer := strings.NewReplacer("&", "\n", ";", "\n", "(", "\n", ")", "\n", `"`, "\n", "'", "\n").Replace(m[1])
			if diskpartWipeRe.MatchString(echoLineRe.ReplaceAllString(producer, "")) {
				w.emit(newRaw([]string{"wipefs", "-a", "/dev/windows-volume"}), c.with("diskpart /s"), stdinInfo{})
			}
		}
		if m := diskpartPipeRe.FindStringSubmatch(src); m != nil {
			producer := strings.NewReplacer("`n", "\n", "`r", "", "\\n", "\n").Replace(m[1])
			// Quoted lines, array items, or a group of echos:
			// "(echo select disk 0 & echo clean) | diskpart".
			producer = strings.NewReplacer(`"`, "\n", "'", "\n", ",", "\n", "&", "\n", ";", "\n", "(", "\n", ")", "\n").Replace(producer)
			if diskpartWipeRe.MatchString(echoLineRe.ReplaceAllString(producer, "")) {
				w.emit(newRaw([]string{"wipefs", "-a", "/dev/windows-volume"}), c.with("diskpart stdin"), stdinInfo{})
			}
		}
	}
	if strings.Contains(src, " & ") && cmdLineRe.MatchString(src) {
		// cmd.exe's "A & B" runs A then B (no background job there).
		src = cmdAmpRe.ReplaceAllString(src, "$1;$2")
	}
	if strings.Contains(src, `:\;`) {
		// "Set-Location C:\; Remove-Item *": a drive's root before a
		// statement separator, not an escaped ";".
		src = driveRootSemiRe.ReplaceAllString(src, "$1:/;")
	}
	if t := strings.TrimLeft(src, " \t"); len(t) > 4 && strings.EqualFold(t[:4], "for ") && strings.Contains(t, "%") {
		if m := cmdForRe.FindStringSubmatch(src); m != nil {
			w.cmdFor(m, c)
			return nil
		}
	}
	if strings.Contains(src, "@") && (strings.Contains(src, "@(") || w.hasArraySplat(src)) {
		// PowerShell array splatting, "$a = @('push','-f'); git @a" or
		// "& git @('push','--force')": the items are the arguments.
		if t, ok := w.psArraySplat(src); ok && t != src {
			return w.script(t, c)
		}
	}
	if strings.Contains(src, "{") && strings.Contains(src, "|") {
		if strings.Contains(src, "$") {
			// Read after the script itself, so that what it assigns
			// first ("$c = 'Remove-' + 'Mailbox'; ... | % { & $c
			// -Identity $_.Id }") is known inside the block.
			if xs := psForEach(src); len(xs) > 0 {
				fc := c.with("ForEach-Object")
				defer func() {
					for _, x := range xs {
						x, _ = w.psVarProducer(x)
						w.sub(x, fc, nil)
					}
				}()
			}
		}
		if sts := psSplit(src); len(sts) > 0 && psPipeBlockRe.MatchString(sts[0]) {
			// A script block with a pipeline inside, read the PowerShell
			// way; the statements after it as usual.
			for i, st := range sts {
				if i > 0 || !w.psStmt(st, c) {
					w.sub(st, c, nil)
				}
			}
			return nil
		}
	}
	if strings.Contains(src, "@{") && psHashtableRe.MatchString(src) {
		// "$p = @{ Path = $HOME; Recurse = $true }; Remove-Item @p": a
		// hashtable literal is PowerShell; a POSIX reading splits it at
		// its semicolons.
		for _, st := range psSplit(src) {
			if !w.psStmt(st, c) {
				w.sub(w.psSplat(st), c, nil)
			}
		}
		return nil
	}
	if strings.Contains(src, "@{") {
		// "Invoke-RestMethod -Body @{ u = 'x'; p = $p }": a hashtable
		// given to a parameter is one argument; its entries are not
		// statements.
		src = psInlineTableRe.ReplaceAllStringFunc(src, func(t string) string { return strings.ReplaceAll(t, ";", " ") })
	}
	f, err := parseCached(src)
	if err != nil {
		if looksPowerShell(src) {
			w.psScript(src, c)
		} else if q := unclosedQuote(err); q != "" && w.depth < maxDepth && !strings.Contains(src, `:\`) && !psCmdletFirstRe.MatchString(src) {
			// A quote left open at the very end (a stray "\"" after
			// the last substitution, a lost closing quote) is a slip in
			// writing the call: a shell refuses it as it stands, but
			// what it says is plain once the quote is closed. Read it
			// so, and still report the text as unparseable. (Not a
			// Windows path's final backslash, "C:\", which is no escape
			// where it was written.)
			if f2, err2 := parseCached(src + q); err2 == nil {
				c.src = src + q
				w.depth++
				w.stmts(f2.Stmts, c)
				w.depth--
				return fmt.Errorf("%w; read with the %s closed", err, q)
			}
		}
		w.fallback(src, c)
		return err
	}
	c.src = src
	w.depth++
	w.stmts(f.Stmts, c)
	w.depth--
	return nil
}

// echoLineRe is an echo at the start of a line, as cmd.exe and shells
// write the lines they pipe into a program.
var echoLineRe = refilter.MustCompile(`(?im)^[ \t]*@?echo\.?[ \t]+`)

// diskpartPipeRe is text piped into diskpart: its script.
var diskpartPipeRe = refilter.MustCompile(`(?is)^(.*)\|\s*diskpart(?:\.exe)?\s*$`)

// diskpartFileRe is a group of echos written to a file that diskpart
// then runs as its script (/s FILE).
var diskpartFileRe = refilter.MustCompile(`(?is)\(([^()]*)\)\s*>\s*(\S+)\s*(?:&&?|;)\s*diskpart(?:\.exe)?\s+/s\s+(\S+)`)

// psObjectStageRe is a pipeline stage that only PowerShell has.
var psObjectStageRe = refilter.MustCompile(`(?i)^\s*(?:%|\?|foreach-object|where-object|select-object|sort-object)\s`)

// psInlineTableRe is a hashtable literal (without nested braces) given
// as a cmdlet parameter's value.
var psInlineTableRe = refilter.MustCompile(`\s-[A-Za-z]+\s+@\{[^{}]*\}`)

// psVerbs are the PowerShell verbs a cmdlet name starts with.
const psVerbs = `(?i:Add|Clear|Copy|Disable|Enable|Export|Get|Import|Invoke|Move|New|Out|Register|Remove|Rename|Set|Start|Stop|Uninstall|Unregister)`

// psCmdletFirstRe is a line starting with a Verb-Noun cmdlet name.
var psCmdletFirstRe = refilter.MustCompile(`^\s*` + psVerbs + `-[A-Za-z]+\b`)

// psParamCallRe is a cmdlet line with one parameter given as a grouped
// cmdlet call: the head up to the parameter, the grouped call, and the
// rest of the line (which may go on as a pipeline).
var psParamCallRe = refilter.MustCompile(`^(\s*` + psVerbs + `-[A-Za-z]+\b[^()|;'"]*?)\s+-[A-Za-z]+\s+\(\s*(` + psVerbs + `-[A-Za-z]+\b[^()|;]*?)\s*\)((?:\s[^(){}\n;]*)?)$`)

// cmdLineRe marks a cmd.exe line: %VAR%, cd /d, or switches like /s /q.
var cmdLineRe = refilter.MustCompile(`(?i)%[A-Za-z_]\w*%|\bcd /d |(^|[\s&])(rd|rmdir|del|copy|xcopy|move|set)\s.*\s/[a-z]\b`)

// cmdAmpRe is a lone "&" between commands (not &&, 2>&1 or &>).
var cmdAmpRe = refilter.MustCompile(`(^|[^&>])&([^&>]|$)`)

var driveRootSemiRe = refilter.MustCompile(`\b([A-Za-z]):\\;`)

// astCache keeps recent parse results by source text. Agents run the
// same commands again and again (git status, the test suite), and the
// policy engine and the posture rules each parse every shell command of
// a call: both read the cached tree. Trees are never modified after
// parsing (the walker only reads them), so sharing one between
// goroutines is safe. Bounded by entry count and source bytes.
var astCache = struct {
	sync.Mutex
	m     map[string]astEntry
	order []string // insertion order, for eviction
	bytes int
}{m: map[string]astEntry{}}

type astEntry struct {
	f   *syntax.File
	err error
}

const (
	astCacheEntries = 1024
	astCacheBytes   = 256 << 10
	astCacheMaxSrc  = 4 << 10 // longer scripts are rarely repeated
)

func parseCached(src string) (*syntax.File, error) {
	if len(src) > astCacheMaxSrc {
		return parseSafe(src)
	}
	astCache.Lock()
	e, ok := astCache.m[src]
	astCache.Unlock()
	if ok {
		return e.f, e.err
	}
	f, err := parseSafe(src)
	astCache.Lock()
	defer astCache.Unlock()
	if _, ok := astCache.m[src]; !ok {
		for len(astCache.order) > 0 && (len(astCache.m) >= astCacheEntries || astCache.bytes+len(src) > astCacheBytes) {
			old := astCache.order[0]
			astCache.order = astCache.order[1:]
			astCache.bytes -= len(old)
			delete(astCache.m, old)
		}
		astCache.m[src] = astEntry{f, err}
		astCache.order = append(astCache.order, src)
		astCache.bytes += len(src)
	}
	return f, err
}

// parseSafe guards against parser panics on hostile input: a crash in a
// security check must degrade to the token fallback, not kill capture.
func parseSafe(src string) (f *syntax.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("parser panic: %v", r)
		}
	}()
	p := parsers.Get().(*syntax.Parser)
	defer parsers.Put(p)
	return p.Parse(strings.NewReader(src), "")
}

// stmts walks a statement list and returns its static output when every
// statement's output is known.
func (w *walker) stmts(list []*syntax.Stmt, c ctx) (string, bool) {
	var b strings.Builder
	known := true
	for _, s := range list {
		out, ok := w.stmt(s, c, c.stdin)
		b.WriteString(out)
		known = known && ok
	}
	return b.String(), known
}

// stmtsIn walks the statements of a subshell or block that is a pipeline
// stage: they share its standard input ("curl URL | (cd /tmp && bash)").
func (w *walker) stmtsIn(list []*syntax.Stmt, c ctx, in stdinInfo) (string, bool) {
	if len(in.sources) == 0 && !in.known {
		return w.stmts(list, c)
	}
	var b strings.Builder
	known := true
	for _, s := range list {
		out, ok := w.stmt(s, c, in)
		b.WriteString(out)
		known = known && ok
	}
	return b.String(), known
}

func (w *walker) stmt(s *syntax.Stmt, c ctx, in stdinInfo) (string, bool) {
	if s == nil || len(w.out) > maxCommands {
		return "", false
	}
	if s.Background {
		c.background = true
	}
	if ps := procSubstStdin(s); ps != nil {
		return w.pipeline(ps, c)
	}
	if s.Cmd == nil {
		// A bare redirection ("> file") is the null command ":" with it.
		colon := &syntax.CallExpr{Args: []*syntax.Word{{Parts: []syntax.WordPart{&syntax.Lit{Value: ":"}}}}}
		return w.call(s, colon, c, in)
	}
	if _, ok := s.Cmd.(*syntax.CallExpr); !ok {
		// "while read l; do ...; done < ~/.ssh/id_rsa": a compound
		// command's redirections read and write like a command's.
		for _, r := range s.Redirs {
			if r.Op == syntax.RdrIn || r.Op == syntax.RdrOut || r.Op == syntax.AppOut {
				w.stmt(&syntax.Stmt{Position: s.Position, Redirs: s.Redirs}, c, in)
				break
			}
		}
	}
	switch x := s.Cmd.(type) {
	case *syntax.CallExpr:
		return w.call(s, x, c, in)
	case *syntax.BinaryCmd:
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			return w.pipeline(s, c)
		}
		o1, k1 := w.stmt(x.X, c, in)
		o2, k2 := w.stmt(x.Y, c, in)
		return o1 + o2, k1 && k2
	case *syntax.Subshell:
		w.redirs(s.Redirs, c)
		return w.stmtsIn(x.Stmts, c, in)
	case *syntax.Block:
		w.redirs(s.Redirs, c)
		return w.stmtsIn(x.Stmts, c, in)
	case *syntax.IfClause:
		for ic := x; ic != nil; ic = ic.Else {
			w.stmts(ic.Cond, c)
			w.stmts(ic.Then, c)
		}
	case *syntax.WhileClause:
		if w.readLoop(s, x, c, in) {
			break
		}
		// "LISTING | while read n; do ...": the condition's read takes
		// the loop's standard input.
		w.stmtsIn(x.Cond, c, in)
		w.stmts(x.Do, c)
	case *syntax.ForClause:
		w.forClause(x, c)
	case *syntax.CaseClause:
		w.fields(x.Word, c)
		for _, it := range x.Items {
			w.stmts(it.Stmts, c)
		}
	case *syntax.FuncDecl:
		if x.Name != nil && x.Body != nil {
			var b bytes.Buffer
			if err := syntax.NewPrinter().Print(&b, x.Body); err == nil {
				w.st.Funcs[x.Name.Value] = b.String()
				w.st.origin["func:"+x.Name.Value] = w.st.gen
			}
		}
	case *syntax.DeclClause:
		w.decl(x, c)
	case *syntax.TimeClause:
		return w.stmt(x.Stmt, c.with("time"), in)
	case *syntax.CoprocClause:
		return w.stmt(x.Stmt, c, in)
	default:
		// Arithmetic, [[ ]], let: only their substitutions run commands.
		w.substIn(s.Cmd, c)
	}
	return "", false
}

// substIn walks the command substitutions inside a node the walker does
// not otherwise expand.
func (w *walker) substIn(n syntax.Node, c ctx) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			w.stmts(x.Stmts, c.with("$(...)"))
			return false
		case *syntax.ProcSubst:
			w.stmts(x.Stmts, c.with("<(...)"))
			return false
		}
		return true
	})
}

// procSubstStdin rewrites "cmd < <(producer)" as the pipeline
// "producer | cmd" it behaves as, so that what the command does with
// the producer's output is judged as a pipe's would be: "gh secret set
// X < <(op read REF)" stores the secret without printing it, as "op
// read REF | gh secret set X" does. It returns nil for anything else.
func procSubstStdin(s *syntax.Stmt) *syntax.Stmt {
	if _, ok := s.Cmd.(*syntax.CallExpr); !ok || len(s.Redirs) != 1 {
		return nil
	}
	r := s.Redirs[0]
	if r.Op != syntax.RdrIn || r.N != nil || r.Word == nil || len(r.Word.Parts) != 1 {
		return nil
	}
	ps, ok := r.Word.Parts[0].(*syntax.ProcSubst)
	if !ok || ps.Op != syntax.CmdIn || len(ps.Stmts) != 1 || ps.Stmts[0].Background {
		return nil
	}
	consumer := *s
	consumer.Redirs = nil
	consumer.Background = false
	return &syntax.Stmt{Position: s.Position, Background: s.Background, Cmd: &syntax.BinaryCmd{Op: syntax.Pipe, X: ps.Stmts[0], Y: &consumer}}
}

func (w *walker) pipeline(s *syntax.Stmt, c ctx) (string, bool) {
	var stages []*syntax.Stmt
	var flatten func(*syntax.Stmt)
	flatten = func(st *syntax.Stmt) {
		if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) && len(st.Redirs) == 0 {
			flatten(b.X)
			flatten(b.Y)
			return
		}
		stages = append(stages, st)
	}
	flatten(s)
	if len(stages) > 1 {
		if t, ok := w.psVarStage(stages, c); ok {
			w.sub(t, c, nil)
			return "", false
		}
	}
	w.pipes++
	id := w.pipes
	in := c.stdin
	var upstream []Source
	var out string
	var known bool
	for i, st := range stages {
		sc := c
		sc.pipeID, sc.pipeIdx, sc.pipeLen = id, i, len(stages)
		if s.Background {
			sc.background = true
		}
		start := len(w.out)
		out, known = w.stmt(st, sc, in)
		for _, cmd := range w.out[start:] {
			// The stage's own commands, and the last stage of a pipeline
			// nested in it: "(crontab -l; echo X | base64 -d) | crontab -"
			// feeds crontab what base64 printed too.
			nestedLast := cmd.PipeID != id && cmd.PipeID > id && cmd.PipeLen > 1 && cmd.PipeIndex == cmd.PipeLen-1 && !writesOut(cmd.Redirects)
			if cmd.PipeID == id && cmd.PipeIndex == i || nestedLast {
				upstream = append(upstream, Source{Kind: "pipe", Name: cmd.Name, Args: cmd.Args, Text: cmd.String()})
				// A stage passing on what it read from the network (a
				// socket, a file downloaded earlier) hands the next
				// stages a download: "cat < /dev/tcp/H/80 | sh",
				// "cat /tmp/i.sh | sh" after "curl -o /tmp/i.sh URL".
				for _, src := range cmd.Stdin {
					if src.Kind == "download" {
						upstream = append(upstream, src)
					}
				}
				if passThrough[cmd.Name] && w.readsDownload(cmd.Args) {
					upstream = append(upstream, Source{Kind: "download", Name: cmd.Name, Text: cmd.String()})
				}
			}
		}
		in = stdinInfo{sources: append([]Source(nil), upstream...), content: out, known: known, kind: "pipe"}
	}
	return out, known
}

func (w *walker) forClause(x *syntax.ForClause, c ctx) {
	wi, ok := x.Loop.(*syntax.WordIter)
	if !ok {
		w.substIn(x.Loop, c)
		w.stmts(x.Do, c)
		return
	}
	var items []string
	saved := w.subst
	w.subst = nil
	for _, word := range wi.Items {
		f, _ := w.fields(word, c)
		items = append(items, f...)
	}
	srcs := w.subst
	w.subst = append(saved, w.subst...)
	if len(wi.Items) == 0 {
		items = nil
	}
	// Walk the body once per item (a few at most) so "for d in / ~; do rm
	// -rf $d; done" is seen with each value.
	if len(items) == 0 || len(items) > 8 {
		delete(w.st.Vars, wi.Name.Value)
		w.stmts(x.Do, c)
		return
	}
	// "for s in $(kubectl get secret -o name)": the loop variable holds
	// what the substitution printed, as an assignment from it would.
	from := ""
	for _, word := range wi.Items {
		for _, p := range word.Parts {
			if _, ok := p.(*syntax.CmdSubst); ok {
				from = wordText(word, c)
			}
		}
	}
	for _, it := range items {
		w.st.setVar(wi.Name.Value, it)
		if from != "" && Unknown(it) {
			if w.st.VarFrom == nil {
				w.st.VarFrom = map[string]string{}
			}
			w.st.VarFrom[wi.Name.Value] = from
			// ... and comes from those commands, as V=$(...) would:
			// "for v in $(docker volume ls -q); do docker volume rm $v".
			w.st.setVarSources(wi.Name.Value, srcs)
		}
		w.stmts(x.Do, c)
	}
}

func (w *walker) decl(x *syntax.DeclClause, c ctx) {
	variant := ""
	if x.Variant != nil {
		variant = x.Variant.Value
	}
	var words []string
	nameref := false
	for _, a := range x.Args {
		// Only a plain flag word ("-n", "-gn"): expanding others here
		// would run their substitutions outside the "assign" context.
		if a.Name == nil && a.Value != nil {
			if f := a.Value.Lit(); strings.HasPrefix(f, "-") && strings.Contains(f, "n") {
				nameref = true
			}
		}
	}
	for _, a := range x.Args {
		if nameref && a.Name != nil && a.Value != nil && a.Array == nil {
			// "declare -n r=HOME; rm -rf "$r"": r is another name for
			// HOME; its value is taken when declared.
			target := w.literal(a.Value, c)
			val := unkOpen + target + unkClose
			if target == "HOME" {
				val = "~"
			} else if v, ok := w.st.Vars[target]; ok {
				val = v
			}
			w.st.setVar(a.Name.Value, val)
			words = append(words, a.Name.Value+"="+target)
			continue
		}
		if a.Name == nil {
			// "export -f name" style flags or "declare -x" words: expand
			// for their substitutions only. What those print becomes
			// variables ("export $(grep -v '^#' .env | xargs)"), as in
			// an assignment.
			if a.Value != nil {
				w.fields(a.Value, c.with("assign"))
				// Keep a word for it: "export $(...)" exports what the
				// substitution prints; it is not a bare "export" listing
				// the environment.
				if lit := a.Value.Lit(); lit != "" {
					words = append(words, lit)
				} else {
					words = append(words, unkOpen+"$()"+unkClose)
				}
			}
			continue
		}
		if a.Naked {
			words = append(words, a.Name.Value)
			continue
		}
		w.assign(a, c)
		words = append(words, a.Name.Value+"="+w.st.Vars[a.Name.Value])
	}
	if variant != "" {
		w.record(newRaw(append([]string{variant}, words...)), variant, c, stdinInfo{})
	}
}

func (w *walker) assign(a *syntax.Assign, c ctx) {
	if a.Name == nil {
		return
	}
	name := a.Name.Value
	if a.Array != nil {
		if len(a.Array.Elems) > 0 && a.Array.Elems[0].Index != nil && !numericIndex(a.Array.Elems[0].Index) {
			// m=([a]=rm [b]=-rf): keys, not positions.
			m := map[string]string{}
			for _, el := range a.Array.Elems {
				if el.Index == nil || el.Value == nil {
					continue
				}
				if k, ok := el.Index.(*syntax.Word); ok {
					m[w.literal(k, c)] = w.literal(el.Value, c)
				}
			}
			w.st.setAssoc(name, m)
			return
		}
		var vals []string
		for _, el := range a.Array.Elems {
			if el.Value != nil {
				f, _ := w.fields(el.Value, c)
				vals = append(vals, f...)
			}
		}
		w.st.setArray(name, vals)
		return
	}
	val := ""
	fromSubst := false
	var srcs []Source
	if a.Value != nil {
		// Commands in the value's substitutions feed a variable, not the
		// agent's screen: they are marked "assign".
		saved := w.subst
		w.subst = nil
		val = w.literal(a.Value, c.with("assign"))
		for _, s := range w.subst {
			fromSubst = fromSubst || s.Kind == "cmdsubst"
		}
		srcs = w.subst
		w.subst = append(saved, w.subst...)
	}
	if a.Append {
		val = w.st.Vars[name] + val
	}
	w.st.setVar(name, val)
	w.commandVar(name, val, c)
	if fromSubst {
		if w.st.VarFrom == nil {
			w.st.VarFrom = map[string]string{}
		}
		w.st.VarFrom[name] = wordText(a.Value, c)
		w.st.setVarSources(name, srcs)
	}
}

// numericIndex reports whether an array element's index is a number
// ([0]=a): an indexed array, not an associative one.
func numericIndex(x syntax.ArithmExpr) bool {
	wd, ok := x.(*syntax.Word)
	if !ok {
		return true
	}
	lit := wd.Lit()
	if lit == "" {
		return false
	}
	for i := 0; i < len(lit); i++ {
		if lit[i] < '0' || lit[i] > '9' {
			return false
		}
	}
	return true
}

// redirs handles redirections of compound commands: heredoc bodies are
// data, but their substitutions still run.
func (w *walker) redirs(rs []*syntax.Redirect, c ctx) {
	for _, r := range rs {
		if r.Word != nil {
			w.fields(r.Word, c)
		}
	}
}

// call handles one simple command.
func (w *walker) call(s *syntax.Stmt, ce *syntax.CallExpr, c ctx, in stdinInfo) (string, bool) {
	if len(ce.Args) == 0 {
		var words []string
		for _, a := range ce.Assigns {
			w.assign(a, c)
			if a.Name != nil {
				if arr, ok := w.st.Arrays[a.Name.Value]; ok {
					words = append(words, a.Name.Value+"=("+strings.Join(arr, " ")+")")
				} else {
					words = append(words, a.Name.Value+"="+w.st.Vars[a.Name.Value])
				}
			}
		}
		if len(words) > 0 {
			r := newRaw(append([]string{AssignName}, words...))
			r.text = c.text(s)
			w.record(r, AssignName, c, in)
		}
		w.redirs(s.Redirs, c)
		return "", true
	}
	// Prefix assignments (X=1 cmd) only reach the command's environment;
	// still expand them for their substitutions.
	var env []string
	var ec ctx
	if len(ce.Assigns) > 0 {
		// (Built only for a command with assignments: a ctx.with
		// allocates, and most commands have none.)
		ec = c.with("env-assign")
		if revealsEnv(ce.Args) || usesOwnAssign(ce) {
			// T="$(cat ~/.ssh/id_rsa)" printenv T, or bash -c 'echo
			// "$T"': the program shows its environment, so the value
			// is printed after all.
			ec = c.with(EnvPrintVia)
		} else if len(ce.Args) > 0 {
			if lit, ok := plainWord(ce.Args[0]); ok && (connClients[path.Base(lit)] || envSecretUsers[path.Base(lit)]) {
				// PGPASSWORD="$(cat /run/secrets/pg_pw)" pg_dump ...: the
				// database client takes the value, as a connection string
				// given as an argument (ClientArgVia).
				ec = ec.with(ClientArgVia)
			}
		}
	}
	for _, a := range ce.Assigns {
		if a.Value != nil && a.Name != nil {
			// A substitution here (PGPASSWORD="$(vault kv get ...)" psql)
			// hands its output to the command, not to the screen.
			env = append(env, a.Name.Value+"="+w.literal(a.Value, ec))
		}
	}
	raw := rawCmd{env: env}
	if n := len(ce.Args); n > 0 {
		// Most words are one field: sized once instead of grown.
		raw.fields, raw.unres, raw.srcs = make([]string, 0, n), make([]bool, 0, n), make([][]Source, 0, n)
	}
	w.crossCall = false
	// $(...) in the words reads this command's stdin.
	c.stdin = in
	w.valueFrom = nil
	wc := c
	// curl -H "Authorization: Bearer $(cat ~/.config/ha/token)"
	// http://localhost:8123/api/: a header's credential goes to a
	// service on this machine, as a client's own argument.
	// ... and so does one read from the service's own configuration
	// folder and sent to that service ("x-buildbuddy-api-key: $(cat
	// ~/.config/buildbuddy/api_key)" to app.buildbuddy.io).
	loopback, services := requestTargets(ce.Args)
	for i, word := range ce.Args {
		w.subst = nil
		if lit, ok := plainWord(word); ok {
			// The common case, without fields' one-element slice.
			raw.fields = append(raw.fields, lit)
			raw.unres = append(raw.unres, Unknown(lit))
			raw.srcs = append(raw.srcs, nil)
			if i == 0 && connClients[path.Base(lit)] || i > 0 && i < 4 && secretSetter(raw.fields) {
				// psql "$(heroku config:get DATABASE_URL)": what the
				// substitution prints is the client's connection
				// string, handed to it rather than shown. So is a value
				// given to a command that stores secrets (gh secret set
				// X --body "$(op read ...)").
				wc = c.with(ClientArgVia)
			}
			continue
		}
		fc := wc
		if n := len(raw.fields); (loopback || services != nil && ownServiceKey(wordText(word, c), services)) && n > 0 && (raw.fields[n-1] == "-H" || raw.fields[n-1] == "--header") {
			fc = wc.with(ClientArgVia)
		} else if n > 0 && (containerEnvOpt(raw.fields) || inPlaceEdit(raw.fields)) {
			// docker run -e CLAIM="$(cat ~/.secrets/claim)": the
			// container's environment; sed -i "s|^PW=.*|PW=$(cat F)|"
			// .env: the value goes into the file, not to the screen.
			fc = wc.with(ClientArgVia)
		} else if n > 0 && !netSenders[raw.fields[0]] && (isPasswordOpt(raw.fields[n-1]) || passwordOptWord(word)) {
			// tauri signer generate --password "$(op read ...)": the
			// value of a password option is the program's to use (not
			// the short -p, which is also ping's payload pattern).
			fc = wc.with(ClientArgVia)
		} else if n > 1 && keyValueSecretWord(word, path.Base(raw.fields[0])) {
			// cmk upload customcertificate privatekey="$(cat k.pem)".
			fc = wc.with(ClientArgVia)
		}
		fs, unres := w.fields(word, fc)
		for _, f := range fs {
			raw.fields = append(raw.fields, f)
			raw.unres = append(raw.unres, unres || Unknown(f))
			raw.srcs = append(raw.srcs, w.subst)
		}
	}
	raw.valueFrom, w.valueFrom = w.valueFrom, nil
	cross := w.crossCall
	var reds []Redirect
	var outFiles []Redirect
	for _, r := range s.Redirs {
		rd := Redirect{Op: r.Op.String()}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			// An unquoted delimiter expands the body: "bash <<EOF\n$(curl
			// URL)\nEOF" feeds the shell what curl fetched, so the
			// substitutions' commands are sources like a herestring's.
			w.subst = nil
			if r.Hdoc != nil {
				rd.Target = w.document(r.Hdoc, c)
			}
			in = stdinInfo{content: rd.Target, known: true, kind: "heredoc", sources: append([]Source{{Kind: "heredoc", Text: rd.Target}}, w.subst...)}
		case syntax.WordHdoc:
			w.subst = nil
			rd.Target = w.literal(r.Word, c)
			in = stdinInfo{content: rd.Target + "\n", known: !Unknown(rd.Target), kind: "herestring", sources: append([]Source{{Kind: "herestring", Text: rd.Target}}, w.subst...)}
		default:
			if r.Word != nil {
				w.subst = nil
				rd.Target = w.literal(r.Word, c)
				if r.Op == syntax.RdrIn {
					in = w.fileStdin(rd.Target, w.subst)
				}
				// "exec 3<>/dev/tcp/HOST/PORT", then "cat <&3 | sh": the
				// descriptor stays open on the socket for the session.
				if r.N != nil && isNetDev(rd.Target) && (r.Op == syntax.RdrInOut || r.Op == syntax.RdrIn) {
					if w.st.NetFds == nil {
						w.st.NetFds = map[string]string{}
					}
					w.st.NetFds[r.N.Value] = rd.Target
				}
				if r.Op == syntax.DplIn {
					if dev, ok := w.st.NetFds[rd.Target]; ok {
						in = netStdin(dev)
					}
				}
			}
			switch r.Op {
			case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.ClbOut:
				if r.N == nil || r.N.Value == "1" {
					outFiles = append(outFiles, rd)
				}
			}
		}
		reds = append(reds, rd)
		if out := rd.Op == ">" || rd.Op == ">>" || rd.Op == "&>" || rd.Op == "&>>" || rd.Op == ">|"; out && !Unknown(rd.Target) {
			// "ln -s ~/.bashrc rc" earlier, then "... >> rc": the write
			// lands on the link's target.
			if t := w.st.linkTarget(rd.Target); t != "" && t != CleanPath(rd.Target) {
				reds = append(reds, Redirect{Op: rd.Op, Target: t})
			}
		}
	}
	c.crossCall = c.crossCall || cross
	raw.text = c.text(s)
	if maybeEmptyPrefix(raw.text, w.st.VarFrom) {
		raw.notes = append(raw.notes, "maybe-empty-var")
	}
	if len(raw.srcs) > 0 && decodedWords(raw.srcs[0]) {
		// "$(echo Y3Vy... | base64 -d)" as the command itself: the shell
		// runs whatever the blob decodes to, kept unreadable on purpose.
		raw.notes = append(raw.notes, "encoded-exec")
	}
	if len(raw.fields) > 0 && !contains(c.via, "cmd ^") {
		// cmd.exe's escape character inside a program name is no
		// character at all ("c^m^d /c r^d ..."), and %COMSPEC% is cmd.exe.
		f0 := raw.fields[0]
		if strings.Contains(f0, "^") && plainName(cmdUnescape(f0)) {
			w.sub(cmdUnescape(raw.text), c.with("cmd ^"), nil)
			return "", true
		}
		if strings.EqualFold(f0, "%comspec%") && len(raw.text) >= len(f0) && strings.EqualFold(raw.text[:len(f0)], f0) {
			w.sub("cmd.exe"+raw.text[len(f0):], c.with("cmd ^"), nil)
			return "", true
		}
	}
	if psStatement(raw) && w.psStmt(raw.text, c) {
		return "", true
	}
	if len(raw.fields) > 1 && strings.EqualFold(raw.fields[0], "set") {
		// cmd.exe's set NAME=VALUE (or set "NAME=VALUE"): %NAME% in a
		// later cmd line, in this call or the next, is VALUE.
		if m := cmdSetRe.FindStringSubmatch(strings.TrimRight(raw.text, " \t&;")); m != nil {
			w.st.setVar(cmdVarKey+strings.ToLower(m[1]), m[2])
		}
	}
	wtext := raw.text
	if strings.Contains(wtext, "%") || strings.Contains(wtext, "!") {
		wtext = w.cmdExpand(wtext)
		if len(raw.fields) > 0 && strings.EqualFold(raw.fields[0], "echo") && cmdVarRe.MatchString(wtext) {
			// cmd's "echo %GITHUB_TOKEN%": the variable, printed.
			w.sub(cmdVarRe.ReplaceAllStringFunc(wtext, func(m string) string { return "${" + m[1:len(m)-1] + "}" }), c, nil)
			return "", true
		}
	}
	if len(raw.fields) > 0 && !strings.ContainsAny(raw.fields[0], `/\`) && batchFile(raw.fields[0]) {
		// cmd.exe runs "cleanup.bat" from the working directory first.
		if _, f := w.st.LookupFile(raw.fields[0]); f != nil {
			w.sub(`.\`+strings.TrimSpace(wtext), c, nil)
			return "", true
		}
	}
	if len(raw.fields) > 1 && strings.EqualFold(raw.fields[0], "call") {
		// cmd's "call rd /s /q %D%": the command it calls.
		w.sub(strings.TrimSpace(wtext[len(raw.fields[0]):]), c.with("call"), nil)
		return "", true
	}
	if lw := strings.ToLower(wtext); strings.HasPrefix(lw, "microsoft.powershell.") {
		// Microsoft.PowerShell.Management\Remove-Item: the cmdlet by its
		// module-qualified name.
		if i := strings.IndexByte(wtext, '\\'); i > 0 && !strings.ContainsAny(wtext[:i], " \t") {
			w.sub(wtext[i+1:], c, nil)
			return "", true
		}
	}
	if argv, text, ok := winCommand(wtext, raw.fields, w.psInline); ok {
		if len(argv) > 0 && argv[0] == "rm" && !hasOperand(argv[1:]) {
			// "Get-ChildItem -Path $HOME | Remove-Item -Recurse": what is
			// removed is what the listing names.
			argv = append(argv, psListedPath(in)...)
		}
		if len(argv) == 3 && argv[0] == "zip" {
			// "gci -Include *.pfx | Compress-Archive -DestinationPath k.zip".
			argv = append(argv, psListedPath(in)...)
		}
		if len(argv) == 1 && argv[0] == "cat" {
			// "Get-ChildItem ...\*\logins.json | Get-Content": what is
			// read is what the listing names, the files themselves.
			for _, p := range psListedPath(in) {
				argv = append(argv, strings.TrimSuffix(p, "/*"))
			}
		}
		// PowerShell / cmd.exe, read from the source text.
		wr := newRaw(argv)
		// The text with PowerShell variables resolved: what text rules
		// read (Set-ItemProperty -Path $env:RK with RK a Run key).
		wr.env, wr.text = raw.env, text
		raw = wr.wrap("powershell")
	}
	raw.redirects = reds
	start := len(w.out)
	out, known, downloader := w.emit(raw, c, in)
	if len(raw.valueFrom) > 0 && len(w.out) > start {
		w.resendValues(w.out[start:], c)
	}
	if len(raw.fields) > 1 {
		if kf := keyFileOut(path.Base(raw.fields[0]), raw.fields[1:]); kf != "" && !Unknown(kf) {
			// A new key file holds a secret: reading or uploading it
			// later reads a credential.
			w.st.setOrigin(kf, "service-account-key.json")
		}
	}
	for _, of := range outFiles {
		if Unknown(of.Target) || strings.HasPrefix(of.Target, "/dev/") && !strings.HasPrefix(of.Target, "/dev/shm/") {
			continue
		}
		if src := secretSource(raw.fields); src != "" {
			// "gh auth token > /tmp/t": the file holds the secret, and a
			// later read or upload of /tmp/t reads where it came from.
			w.st.setOrigin(of.Target, src)
		}
		switch {
		case downloader != "":
			w.st.Download(of.Target, downloader)
		case !known && len(raw.fields) > 0 && passThrough[raw.fields[0]] && (fromNetwork(in.sources) || w.readsDownload(raw.fields[1:])):
			// "curl URL | cat > /tmp/i", "base64 -d /tmp/u.b64 > /tmp/u.sh"
			// after downloading u.b64: the file holds the download.
			w.st.Download(of.Target, raw.text)
		case !known && decodesUnknown(raw.fields):
			// "base64 -d payload.b64 > run.sh", certutil -decode: what
			// the file will hold is an encoded payload no one has read;
			// running it later is "base64 -d | sh" split in two.
			w.st.Download(of.Target, raw.text)
		case known:
			w.st.WriteFile(of.Target, out, of.Op == ">>" || of.Op == "&>>", raw.text)
			w.scheduledWrite(of.Target, out, c)
		default:
			w.st.WriteFile(of.Target, "", of.Op == ">>" || of.Op == "&>>", raw.text)
		}
	}
	if len(outFiles) > 0 {
		return "", true
	}
	return out, known
}

// decodesUnknown reports a decoder (base64 -d, base32 -d, xxd -r,
// openssl base64 -d) run on input whose content is not known.
func decodesUnknown(f []string) bool {
	if len(f) < 2 {
		return false
	}
	switch f[0] {
	case "base64", "base32", "basenc", "gbase64":
		return slices.Contains(f[1:], "-d") || slices.Contains(f[1:], "-D") || slices.Contains(f[1:], "--decode")
	case "xxd":
		return slices.Contains(f[1:], "-r") || slices.Contains(f[1:], "-r -p") || slices.Contains(f[1:], "-rp")
	case "openssl":
		return (f[1] == "base64" || f[1] == "enc") && slices.Contains(f[2:], "-d")
	}
	return false
}

// isNetDev reports whether p is bash's network pseudo-device
// (/dev/tcp/HOST/PORT, /dev/udp/HOST/PORT): reading it reads a socket.
func isNetDev(p string) bool {
	return strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/")
}

// netStdin is standard input read from a socket: what the network sends,
// like a download.
func netStdin(dev string) stdinInfo {
	return stdinInfo{kind: "file", sources: []Source{{Kind: "download", Name: dev, Text: dev}}}
}

// keyFileOut is the file a command creates holding a new credential
// ("gcloud iam service-accounts keys create FILE", "aws iam
// create-access-key > f" is a redirect), or "".
func keyFileOut(name string, args []string) string {
	if name == "gcloud" {
		for i := 0; i+3 < len(args); i++ {
			if args[i] == "service-accounts" && args[i+1] == "keys" && args[i+2] == "create" && !strings.HasPrefix(args[i+3], "-") {
				return args[i+3]
			}
		}
	}
	return ""
}

// readsDownload reports whether one of a command's operands is a file
// the session downloaded.
func (w *walker) readsDownload(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "-") || Unknown(a) {
			continue
		}
		if _, f := w.st.LookupFile(a); f != nil && f.Downloaded {
			return true
		}
	}
	return false
}

func (w *walker) fileStdin(target string, subst []Source) stdinInfo {
	if len(subst) > 0 {
		return stdinInfo{sources: subst, kind: "procsubst", content: w.procOut, known: w.procKnown && w.procOut != ""}
	}
	if isNetDev(target) {
		return netStdin(target)
	}
	if key, f := w.st.LookupFile(target); f != nil {
		if w.st.earlier("file:" + key) {
			w.crossCall = true
		}
		if f.Downloaded {
			return stdinInfo{sources: []Source{{Kind: "download", Name: firstWord(f.From), Text: f.From}}, kind: "file"}
		}
		return stdinInfo{content: f.Content, known: true, kind: "file", sources: []Source{{Kind: "file", Text: key}}}
	}
	return stdinInfo{kind: "file", sources: []Source{{Kind: "file", Text: target}}}
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// psVarStage reads a PowerShell pipeline whose first stage is a lone
// variable holding a command's output ("$u = Get-MgUser -All", then
// "$u | Remove-MgUser") as that command piped on. In a POSIX shell the
// same text would run the variable's value as a command, so only
// PowerShell-looking sources are read this way.
func (w *walker) psVarStage(stages []*syntax.Stmt, c ctx) (string, bool) {
	call, ok := stages[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 1 || len(call.Assigns) > 0 || len(call.Args[0].Parts) != 1 {
		return "", false
	}
	pe, ok := call.Args[0].Parts[0].(*syntax.ParamExp)
	if !ok || pe.Param == nil || pe.Exp != nil || pe.Index != nil || pe.Slice != nil || pe.Repl != nil || pe.Length {
		return "", false
	}
	from := w.psVarFrom("$" + pe.Param.Value)
	if from == "" {
		return "", false
	}
	a, b := int(stages[1].Pos().Offset()), int(stages[len(stages)-1].End().Offset())
	if a < 0 || b > len(c.src) || a > b {
		return "", false
	}
	rest := c.src[a:b]
	if !looksPowerShell(c.src) && !psCmdletFirstRe.MatchString(rest) && !psObjectStageRe.MatchString(rest) {
		return "", false
	}
	return from + " | " + rest, true
}

func (c ctx) text(s *syntax.Stmt) string { return c.source(s) }

// ---- expansion ----

// unsetDefaults are the values of variables the session did not set:
// what the system gives them. Git Bash and MSYS on Windows inherit
// APPDATA, LOCALAPPDATA and USERPROFILE (no other system sets them);
// the XDG base directories are the specification's defaults, and the
// runtime directory is the first user's on a desktop system; bash's
// history file is ~/.bash_history; ${PATH:0:1} is "/" on every system,
// so an unset PATH reads as a standard one, not as unknown; the login
// shell, whatever it is, runs what it is fed.
var unsetDefaults = map[string]string{
	"APPDATA": "~/AppData/Roaming", "LOCALAPPDATA": "~/AppData/Local", "USERPROFILE": "~",
	"XDG_CONFIG_HOME": "~/.config", "XDG_DATA_HOME": "~/.local/share", "XDG_CACHE_HOME": "~/.cache",
	"XDG_STATE_HOME": "~/.local/state", "XDG_RUNTIME_DIR": "/run/user/1000",
	"HISTFILE": "~/.bash_history", "PATH": "/usr/local/bin:/usr/bin:/bin", "IFS": " \t\n",
	"SHELL": "/bin/sh", "BASH": "/bin/sh", "TMPDIR": "/tmp", "TMP": "/tmp", "TEMP": "/tmp",
}

// env resolves variables from the session, marking unknown ones.
type env struct {
	w *walker
	c *ctx
}

func (e env) Get(name string) expand.Variable {
	st := e.w.st
	if d, ok := unsetDefaults[name]; ok {
		if v, ok := st.Vars[name]; ok {
			return strVar(v)
		}
		return strVar(d)
	}
	switch name {
	case "HOME":
		return strVar("~")
	case "PWD":
		// The working directory: known after a cd, else "here".
		if st.Cwd != "" {
			return strVar(st.Cwd)
		}
		return strVar(".")
	case "?", "$", "!", "PPID", "RANDOM", "LINENO", "SECONDS", "UID", "EUID":
		return strVar("0")
	case "#":
		if e.c.pos != nil {
			return strVar(fmt.Sprint(max(len(e.c.pos)-1, 0)))
		}
		return strVar("0")
	case "@", "*":
		if e.c.pos != nil {
			if len(e.c.pos) <= 1 {
				return expand.Variable{Set: true, Kind: expand.Indexed}
			}
			return expand.Variable{Set: true, Kind: expand.Indexed, List: e.c.pos[1:]}
		}
	}
	if strings.HasPrefix(name, "HOME ") {
		return strVar("~" + strings.TrimPrefix(name, "HOME "))
	}
	if e.w.setPos != nil && e.c.pos == nil && (len(name) == 1 && name[0] >= '1' && name[0] <= '9' || name == "@" || name == "*" || name == "#") {
		p := e.w.setPos
		switch name {
		case "@", "*":
			return expand.Variable{Set: true, Kind: expand.Indexed, List: p}
		case "#":
			return strVar(fmt.Sprint(len(p)))
		}
		if i := int(name[0] - '0'); i <= len(p) {
			return strVar(p[i-1])
		}
		return strVar("")
	}
	if len(name) == 1 && name[0] >= '0' && name[0] <= '9' && e.c.pos != nil {
		i := int(name[0] - '0')
		if i < len(e.c.pos) {
			return strVar(e.c.pos[i])
		}
		return strVar("")
	}
	if v, ok := st.Vars[name]; ok {
		if st.earlier("var:" + name) {
			e.w.crossCall = true
		}
		if from, ok := st.VarFrom[name]; ok && !contains(e.w.valueFrom, from) {
			e.w.valueFrom = append(e.w.valueFrom, from)
		}
		e.w.subst = append(e.w.subst, st.varSrcs[name]...)
		return strVar(v)
	}
	if l, ok := st.Arrays[name]; ok {
		if st.earlier("var:" + name) {
			e.w.crossCall = true
		}
		return expand.Variable{Set: true, Kind: expand.Indexed, List: l}
	}
	if m, ok := st.Assoc[name]; ok {
		if st.earlier("var:" + name) {
			e.w.crossCall = true
		}
		return expand.Variable{Set: true, Kind: expand.Associative, Map: m}
	}
	return strVar(unkOpen + name + unkClose)
}

func (e env) Each(func(string, expand.Variable) bool) {}

func strVar(s string) expand.Variable {
	return expand.Variable{Set: true, Kind: expand.String, Str: s}
}

func (w *walker) config(c *ctx) *expand.Config {
	return &expand.Config{
		Env: env{w: w, c: c},
		CmdSubst: func(out io.Writer, cs *syntax.CmdSubst) error {
			start := len(w.out)
			saved := w.subst
			s, known := w.stmts(cs.Stmts, c.with("$(...)"))
			for _, cmd := range w.out[start:] {
				saved = append(saved, Source{Kind: "cmdsubst", Name: cmd.Name, Args: cmd.Args, Text: cmd.String()})
				// "bash -c "$(cat)"" fed by curl: what cat reads is
				// where the code comes from.
				for _, src := range cmd.Stdin {
					if src.Kind == "pipe" || src.Kind == "download" || src.Kind == "procsubst" {
						saved = append(saved, src)
					}
				}
				// bash <(cat /tmp/i) after curl -o /tmp/i URL.
				if passThrough[cmd.Name] && w.readsDownload(cmd.Args) {
					saved = append(saved, Source{Kind: "download", Name: cmd.Name, Text: cmd.String()})
				}
			}
			w.subst = saved
			if known {
				_, err := io.WriteString(out, s)
				return err
			}
			_, err := io.WriteString(out, unkOpen+"$()"+unkClose)
			return err
		},
		ProcSubst: func(ps *syntax.ProcSubst) (string, error) {
			start := len(w.out)
			saved := w.subst
			w.procOut, w.procKnown = w.stmts(ps.Stmts, c.with("<(...)"))
			for _, cmd := range w.out[start:] {
				saved = append(saved, Source{Kind: "procsubst", Name: cmd.Name, Args: cmd.Args, Text: cmd.String()})
				// bash <(cat /tmp/i) after curl -o /tmp/i URL.
				if passThrough[cmd.Name] && w.readsDownload(cmd.Args) {
					saved = append(saved, Source{Kind: "download", Name: cmd.Name, Text: cmd.String()})
				}
			}
			w.subst = saved
			if w.procKnown && w.procOut != "" {
				// bash <(printf 'rm -rf %s' ~): what the substitution
				// prints is known, so the file it stands for is too, as
				// bash names it.
				w.procFd++
				fd := "/dev/fd/" + strconv.Itoa(64-w.procFd)
				w.st.WriteFile(fd, w.procOut, false, "<(...)")
				return fd, nil
			}
			return unkOpen + "$()" + unkClose, nil
		},
	}
}

// plainWord returns a word that is one literal with nothing to expand
// (no escapes, tilde, globs or braces): what it says is what it is.
func plainWord(word *syntax.Word) (string, bool) {
	if len(word.Parts) == 1 {
		if lit, ok := word.Parts[0].(*syntax.Lit); ok && !strings.ContainsAny(lit.Value, "\\~*?[{") {
			return lit.Value, true
		}
	}
	return "", false
}

// fields expands a word the way a command line does (quote removal,
// parameter expansion, field splitting; no globbing). The bool reports
// whether anything stayed unknown.
func (w *walker) fields(word *syntax.Word, c ctx) ([]string, bool) {
	if word == nil {
		return nil, false
	}
	// Plain literal words (most of them) need no expansion machinery.
	if lit, ok := plainWord(word); ok {
		return []string{lit}, false
	}
	return w.expandWord(word, c)
}

// expandWord is fields' slow path, kept apart because the expansion
// config takes c's address: in fields itself that would move every
// call's ctx to the heap, plain literal words included.
func (w *walker) expandWord(word *syntax.Word, c ctx) ([]string, bool) {
	word = w.unsetDefaults(word)
	fs, err := expandFields(w.config(&c), word)
	if err != nil {
		// Arithmetic errors and the like: keep the literal text so the
		// word is still matched, and call it unknown.
		return []string{wordText(word, c)}, true
	}
	unk := false
	for _, f := range fs {
		if Unknown(f) {
			unk = true
		}
	}
	return fs, unk
}

func expandFields(cfg *expand.Config, word *syntax.Word) (fs []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			fs, err = nil, fmt.Errorf("expand panic: %v", r)
		}
	}()
	return expand.Fields(cfg, word)
}

// literal expands a word without field splitting (assignments, redirect
// targets).
func (w *walker) literal(word *syntax.Word, c ctx) (s string) {
	if word == nil {
		return ""
	}
	defer func() {
		if r := recover(); r != nil {
			s = wordText(word, c)
		}
	}()
	s, err := expand.Literal(w.config(&c), w.unsetDefaults(word))
	if err != nil {
		return wordText(word, c)
	}
	return s
}

func (w *walker) document(word *syntax.Word, c ctx) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = wordText(word, c)
		}
	}()
	s, err := expand.Document(w.config(&c), word)
	if err != nil {
		return wordText(word, c)
	}
	return s
}

func wordText(word *syntax.Word, c ctx) string { return c.source(word) }

// source is a node (a statement, a word) as written in the source.
func (c ctx) source(n syntax.Node) string {
	a, b := int(n.Pos().Offset()), int(n.End().Offset())
	if a >= 0 && b <= len(c.src) && a <= b {
		return c.src[a:b]
	}
	return ""
}

// unsetDefaults reads "${NAME:-default}" (and "-", ":=", "=") of a
// variable the session never set as its default: nothing says NAME is
// set when the command runs, and "rm -rf "${TARGET:-/}"" is written for
// the case where it is not. Known variables expand as usual. The word is
// copied only when something is replaced.
func (w *walker) unsetDefaults(word *syntax.Word) *syntax.Word {
	if word == nil {
		return nil
	}
	parts, changed := w.defaultParts(word.Parts)
	if !changed {
		return word
	}
	nw := *word
	nw.Parts = parts
	return &nw
}

func (w *walker) defaultParts(parts []syntax.WordPart) ([]syntax.WordPart, bool) {
	var out []syntax.WordPart
	changed := false
	for i, p := range parts {
		var repl []syntax.WordPart
		switch x := p.(type) {
		case *syntax.ParamExp:
			if x.Exp != nil && x.Exp.Word != nil && x.Param != nil && x.Index == nil && !x.Excl && !x.Length && w.unsetVar(x.Param.Value) {
				switch x.Exp.Op {
				case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
					repl = x.Exp.Word.Parts
					if inner, ok := w.defaultParts(repl); ok {
						repl = inner
					}
				}
			}
		case *syntax.DblQuoted:
			if inner, ok := w.defaultParts(x.Parts); ok {
				dq := *x
				dq.Parts = inner
				repl = []syntax.WordPart{&dq}
			}
		}
		if repl == nil {
			if changed {
				out = append(out, p)
			}
			continue
		}
		if !changed {
			out = append(out, parts[:i]...)
			changed = true
		}
		out = append(out, repl...)
	}
	if !changed {
		return parts, false
	}
	return out, true
}

// unsetVar reports whether name is an ordinary variable the session has
// not set (what env.Get answers with an unknown).
func (w *walker) unsetVar(name string) bool {
	if name == "" || !(name[0] == '_' || name[0] >= 'A' && name[0] <= 'Z' || name[0] >= 'a' && name[0] <= 'z') {
		return false
	}
	switch name {
	case "HOME", "IFS", "PWD", "SHELL", "BASH", "TMPDIR", "TMP", "TEMP", "PPID", "RANDOM", "LINENO", "SECONDS", "UID", "EUID":
		return false
	}
	_, v := w.st.Vars[name]
	_, a := w.st.Arrays[name]
	return !v && !a
}

// secretSource names the file a secret-printing command's output stands
// for (gh's token file, the process environment), or "".
func secretSource(f []string) string {
	if len(f) == 0 {
		return ""
	}
	line := strings.Join(f, " ")
	switch {
	case (f[0] == "env" || f[0] == "printenv") && len(f) == 1, f[0] == "export" && len(f) == 2 && f[1] == "-p":
		return "/proc/self/environ"
	case strings.HasPrefix(line, "gh auth token"):
		return "~/.config/gh/hosts.yml"
	case strings.HasPrefix(line, "aws configure export-credentials"), strings.HasPrefix(line, "aws sts get-session-token"):
		return "~/.aws/credentials"
	case strings.HasPrefix(line, "gcloud auth print-access-token"), strings.HasPrefix(line, "gcloud auth application-default print-access-token"):
		return "~/.config/gcloud/application_default_credentials.json"
	case strings.HasPrefix(line, "kubectl config view") && strings.Contains(line, "--raw"):
		return "~/.kube/config"
	case strings.HasPrefix(line, "az account get-access-token"):
		return "~/.azure/msal_token_cache.json"
	case strings.HasPrefix(line, "vault print token"):
		return "~/.vault-token"
	case strings.HasPrefix(line, "heroku auth:token"):
		return "~/.netrc"
	case strings.HasPrefix(line, "terraform state pull"), strings.HasPrefix(line, "tofu state pull"):
		// The state holds every secret the stack was given.
		return "terraform.tfstate"
	}
	return ""
}

// maxReadLoopLines caps how many input lines a "while read" loop is
// walked for: enough for a list of commands, bounded for a large file.
const maxReadLoopLines = 64

// readLoop walks "while read -r line; do sh -c "$line"; done < file"
// once per line of a known input (a file the session wrote, a heredoc, a
// pipeline stage's known output), with the loop variables bound as read
// binds them: each line of the file is then a command like any other.
// It reports false, leaving the loop to the generic walk, when the
// condition is not a lone read or the input is not known.
func (w *walker) readLoop(s *syntax.Stmt, x *syntax.WhileClause, c ctx, in stdinInfo) bool {
	if x.Until || len(x.Cond) != 1 {
		return false
	}
	call, ok := x.Cond[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || w.literal(call.Args[0], c) != "read" {
		return false
	}
	for _, r := range s.Redirs {
		switch {
		case r.Op == syntax.RdrIn && r.Word != nil:
			in = w.fileStdin(w.literal(r.Word, c), nil)
		case (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil:
			in = stdinInfo{content: w.document(r.Hdoc, c), known: true, kind: "heredoc"}
		}
	}
	if !in.known || Unknown(in.content) {
		return false
	}
	lines := strings.Split(strings.TrimRight(in.content, "\n"), "\n")
	if len(lines) > maxReadLoopLines {
		lines = lines[:maxReadLoopLines]
	}
	for _, l := range lines {
		line := stdinInfo{content: l + "\n", known: true, kind: in.kind, sources: in.sources}
		w.stmt(x.Cond[0], c, line)
		w.stmts(x.Do, c)
	}
	return true
}

// psUnescape drops PowerShell's backtick before a letter, digit or dash.
func psUnescape(src string) string {
	if !strings.Contains(src, "`") {
		return src
	}
	var b strings.Builder
	for i := 0; i < len(src); i++ {
		if src[i] == '`' && i+1 < len(src) {
			if n := src[i+1]; n >= 'a' && n <= 'z' || n >= 'A' && n <= 'Z' || n >= '0' && n <= '9' || n == '-' {
				continue
			}
		}
		b.WriteByte(src[i])
	}
	return b.String()
}

// plainName reports whether s could be a program's name: letters,
// digits, ".", "-" and "_" only.
func plainName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isIdentByte(c) && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// cmdVarKey prefixes the session variables cmd.exe's set assigned.
const cmdVarKey = "\x00cmd:"

var (
	// cmdSetRe: cmd.exe's set NAME=VALUE, quoted whole or not.
	cmdSetRe = refilter.MustCompile(`(?i)^\s*set\s+"?([A-Za-z_][\w.-]*)=([^"&|\r\n]*?)"?\s*$`)
	// cmdVarRe: %NAME%, or !NAME! under delayed expansion (cmd /v:on).
	cmdVarRe = refilter.MustCompile(`%([A-Za-z_][\w.-]*)%|!([A-Za-z_][\w.-]*)!`)
)

// cmdExpand replaces %NAME% with what cmd.exe's set gave NAME in the
// session; other references (%USERPROFILE%) stay for winPath.
func (w *walker) cmdExpand(text string) string {
	return cmdVarRe.ReplaceAllStringFunc(text, func(m string) string {
		if v, ok := w.st.Vars[cmdVarKey+strings.ToLower(m[1:len(m)-1])]; ok {
			return v
		}
		return m
	})
}

// requestTargets reads an HTTP client's command line once for where it
// sends. loopback: its only URLs are on this machine (localhost,
// 127.0.0.1, [::1]). services: the distinctive names of the domains it
// sends to otherwise (buildbuddy of app.buildbuddy.io), for curl and the
// HTTPie family: the label before the top-level domain, of five letters
// or more and not a generic word (only that label:
// app.buildbuddy.io.evil.example is evil's).
func requestTargets(args []*syntax.Word) (loopback bool, services []string) {
	if len(args) < 2 {
		return false, nil
	}
	prog, ok := plainWord(args[0])
	if !ok {
		return false, nil
	}
	named := false
	switch path.Base(prog) {
	case "curl", "http", "https", "xh":
		named = true
	case "wget", "curlie":
	default:
		return false, nil
	}
	local, remote := false, false
	for _, a := range args[1:] {
		lit, ok := plainWord(a)
		if !ok || !strings.Contains(lit, "://") {
			continue
		}
		if loopbackURLRe.MatchString(lit) {
			local = true
		} else {
			remote = true
		}
		if !named {
			continue
		}
		m := urlHostRe.FindStringSubmatch(lit)
		if m == nil {
			continue
		}
		labels := strings.Split(strings.ToLower(strings.TrimSuffix(m[1], ".")), ".")
		if len(labels) < 2 {
			continue
		}
		if l := labels[len(labels)-2]; len(l) >= 5 && !genericHostLabels[l] {
			services = append(services, l)
		}
	}
	if local && !remote {
		return true, nil
	}
	return false, services
}

var urlHostRe = refilter.MustCompile(`^https?://([A-Za-z0-9.-]+)`)

var genericHostLabels = map[string]bool{"local": true, "localhost": true, "internal": true, "cloud": true, "service": true, "services": true,
	"hooks": true, "webhook": true, "files": true, "upload": true, "paste": true, "share": true, "storage": true, "example": true}

// ownServiceKey reports whether a header's text reads a file from a
// folder named after one of the services ("$(cat ~/.config/NAME/key)").
func ownServiceKey(text string, services []string) bool {
	if !strings.Contains(text, "$(") {
		return false
	}
	low := strings.ToLower(text)
	for _, s := range services {
		for _, dir := range []string{"/" + s + "/", "/." + s + "/"} {
			if strings.Contains(low, dir) {
				return true
			}
		}
	}
	return false
}

var loopbackURLRe = refilter.MustCompile(`^https?://(localhost|127\.0\.0\.1|\[::1\])(:\d+)?(/|$)`)

// unclosedQuote returns the quote character a parse error says the
// source ended inside (EOF without its closing ' or "), or "".
func unclosedQuote(err error) string {
	msg := err.Error()
	if !strings.Contains(msg, "reached EOF without closing quote") {
		return ""
	}
	switch {
	case strings.HasSuffix(msg, "`\"`"):
		return `"`
	case strings.HasSuffix(msg, "`'`"):
		return "'"
	}
	return ""
}
