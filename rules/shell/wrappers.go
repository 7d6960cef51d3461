package shell

import (
	"path"
	"strings"
)

// wrapper describes a program that runs another program given after its
// own options: which options take a value, and how many operands come
// before the wrapped command.
type wrapper struct {
	argOpts  string   // single-letter options that take a value
	longArgs []string // long options that take a value (without "=")
	operands int      // positional words before the command (timeout DURATION)
	// assigns: NAME=value words are skipped (env).
	assigns bool
	// dashNum: "-10" style options (nice).
	dashNum bool
	// sub is the subcommand that makes the program a wrapper ("bundle
	// exec CMD", "poetry run CMD"); other subcommands are not.
	sub string
}

var wrappers = map[string]wrapper{
	"sudo":       {argOpts: "ugpChDrtTUR", longArgs: []string{"--user", "--group", "--prompt", "--host", "--chdir", "--role", "--type", "--other-user", "--close-from", "--chroot"}, assigns: true},
	"doas":       {argOpts: "uC"},
	"pkexec":     {longArgs: []string{"--user"}},
	"env":        {argOpts: "uCS", longArgs: []string{"--unset", "--chdir", "--split-string"}, assigns: true},
	"nohup":      {},
	"wsl":        {argOpts: "du", longArgs: []string{"--distribution", "--user", "--cd", "--exec"}},
	"wsl.exe":    {argOpts: "du", longArgs: []string{"--distribution", "--user", "--cd", "--exec"}},
	"flock":      {argOpts: "wE", longArgs: []string{"--timeout", "--wait", "--conflict-exit-code"}, operands: 1},
	"nice":       {argOpts: "n", longArgs: []string{"--adjustment"}, dashNum: true},
	"ionice":     {argOpts: "cnpPu", longArgs: []string{"--class", "--classdata"}},
	"time":       {argOpts: "fo", longArgs: []string{"--format", "--output"}},
	"timeout":    {argOpts: "sk", longArgs: []string{"--signal", "--kill-after"}, operands: 1},
	"stdbuf":     {argOpts: "ioe", longArgs: []string{"--input", "--output", "--error"}},
	"setsid":     {},
	"command":    {},
	"builtin":    {},
	"exec":       {argOpts: "a"},
	"unbuffer":   {},
	"caffeinate": {argOpts: "tw"},
	// macOS: arch -arm64 CMD, sandbox-exec -p PROFILE CMD, launchctl
	// asuser UID CMD.
	"arch":         {argOpts: "ed", longArgs: []string{"-arch"}},
	"sandbox-exec": {argOpts: "fnpD"},
	"unshare":      {argOpts: "SGwR", longArgs: []string{"--setuid", "--setgid", "--wd", "--root", "--map-user", "--map-group", "--propagation"}},
	"launchctl":    {sub: "asuser", operands: 1},
	"chronic":      {},
	"nocache":      {},
	"eatmydata":    {},
	"fakeroot":     {},
	"rlwrap":       {},
	"torsocks":     {},
	"proxychains":  {argOpts: "f"},
	"proxychains4": {argOpts: "f"},
	"firejail":     {},
	"chroot":       {longArgs: []string{"--userspec", "--groups"}, operands: 1},
	// FreeBSD jails: jexec JAIL CMD, iocage exec JAIL CMD, bastille cmd
	// TARGET CMD.
	"jexec":         {argOpts: "uU", operands: 1},
	"iocage":        {sub: "exec", operands: 1},
	"bastille":      {sub: "cmd", operands: 1},
	"taskset":       {operands: 1},
	"chrt":          {operands: 1},
	"busybox":       {},
	"xargs":         {argOpts: "IiLlnPsdEa", longArgs: []string{"--replace", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--delimiter", "--eof", "--arg-file"}},
	"parallel":      {argOpts: "jIS", longArgs: []string{"--jobs", "--sshlogin", "--joblog", "--results", "--delay", "--timeout"}},
	"npx":           {argOpts: "p", longArgs: []string{"--package"}},
	"pnpx":          {},
	"bunx":          {},
	"sg":            {operands: 1},
	"strace":        {argOpts: "oesSpPuEa"},
	"ltrace":        {argOpts: "oesSpPuEa"},
	"runuser":       {argOpts: "ugG", longArgs: []string{"--user", "--group"}},
	"systemd-run":   {argOpts: "uHMpE", longArgs: []string{"--unit", "--property", "--description", "--slice", "--uid", "--gid", "--working-directory", "--setenv", "--on-calendar", "--on-active", "--machine", "--host"}},
	"flatpak-spawn": {longArgs: []string{"--env", "--directory"}},
	"catchsegv":     {},
	// daemontools/runit: envdir DIR CMD, chpst -e DIR -u USER CMD.
	"envdir":   {operands: 1},
	"chpst":    {argOpts: "ugUeln"},
	"xvfb-run": {argOpts: "nslfep", longArgs: []string{"--server-num", "--server-args", "--error-file", "--auth-file"}},
	// Environment loaders and project runners: what they run is the
	// command after their options.
	"dotenv": {argOpts: "ecv", longArgs: []string{"--env-file"}},
	// Secret injectors: the command runs with the secrets in its
	// environment ("aws-vault exec prod -- env" prints them).
	"aws-vault": {sub: "exec", operands: 1, argOpts: "dtr", longArgs: []string{"--duration", "--mfa-token", "--region", "--backend", "--prompt", "--keychain"}},
	"doppler":   {sub: "run", argOpts: "pc", longArgs: []string{"--project", "--config", "--token", "--scope", "--name-transformer", "--mount"}},
	"op":        {sub: "run", longArgs: []string{"--env-file", "--account", "--environment"}},
	"infisical": {sub: "run", longArgs: []string{"--env", "--projectId", "--path", "--token", "--domain"}},
	"chamber":   {sub: "exec", operands: 1},
	// Monorepo runners: the command runs in every package.
	"lerna":  {sub: "exec", longArgs: []string{"--scope", "--ignore", "--concurrency", "--since", "--loglevel"}},
	"nx":     {sub: "exec", longArgs: []string{"--projects", "--exclude", "--parallel"}},
	"bundle": {sub: "exec", argOpts: "", longArgs: []string{"--gemfile"}},
	// Chef Workstation runs the command with its own Ruby and gems.
	"chef": {sub: "exec"},
	// Rootless Podman's user namespace: the command runs as root over
	// the user's container storage.
	"podman": {sub: "unshare", longArgs: []string{"--rootless-netns"}},
	"poetry": {sub: "run", longArgs: []string{"--directory"}},
	"pipenv": {sub: "run"},
	"uv":     {sub: "run", longArgs: []string{"--with", "--python", "--project", "--directory", "--env-file", "--package"}},
	"pdm":    {sub: "run"},
	"rye":    {sub: "run"},
	"hatch":  {sub: "run"},
	// Environment managers and cluster schedulers run the command after
	// their options: "conda run -n train CMD", "srun -p gpu --pty CMD".
	"conda":      {sub: "run", argOpts: "np", longArgs: []string{"--name", "--prefix", "--cwd"}},
	"mamba":      {sub: "run", argOpts: "np", longArgs: []string{"--name", "--prefix", "--cwd"}},
	"micromamba": {sub: "run", argOpts: "np", longArgs: []string{"--name", "--prefix", "--cwd"}},
	"pixi":       {sub: "run", argOpts: "e", longArgs: []string{"--environment", "--manifest-path"}},
	"srun":       {argOpts: "ABcCdDeGiJLmnNopqtTwWx", longArgs: slurmLongArgs},
	"salloc":     {argOpts: "ABcCdDeGiJLmnNopqtTwWx", longArgs: slurmLongArgs},
}

// slurmLongArgs are srun/salloc options that take a separate value.
var slurmLongArgs = []string{"--partition", "--time", "--gres", "--nodes", "--ntasks", "--job-name", "--account", "--cpus-per-task",
	"--mem", "--mem-per-cpu", "--output", "--error", "--input", "--qos", "--constraint", "--nodelist", "--exclude", "--gpus",
	"--gpus-per-node", "--chdir", "--reservation", "--dependency", "--export", "--ntasks-per-node"}

// wslManage are wsl.exe's options that manage distributions.
var wslManage = map[string]bool{
	"--unregister": true, "--list": true, "-l": true, "--shutdown": true, "--terminate": true, "-t": true,
	"--install": true, "--export": true, "--import": true, "--import-in-place": true, "--set-default": true,
	"-s": true, "--set-version": true, "--set-default-version": true, "--update": true, "--status": true,
	"--help": true, "--mount": true, "--unmount": true, "--manage": true, "--version": true, "-v": true,
}

// unwrap removes a wrapper and its options, returning the wrapped
// command. ok is false when base is not a wrapper or wraps nothing
// ("sudo -v", "command -v rm", "env" printing the environment).
func unwrap(base string, r rawCmd) (rawCmd, string, bool) {
	spec, ok := wrappers[base]
	if !ok {
		return r, "", false
	}
	f := r.fields
	if base == "command" {
		// "command -v x" and "command -V x" look x up; they run nothing.
		for _, a := range f[1:] {
			if a == "-v" || a == "-V" {
				return r, "", false
			}
			if !strings.HasPrefix(a, "-") {
				break
			}
		}
	}
	if base == "wsl" || base == "wsl.exe" {
		// "wsl --unregister NAME", "wsl --list": WSL's own management
		// commands, not a command run in a distribution.
		for _, a := range f[1:] {
			if wslManage[strings.ToLower(a)] {
				return r, "", false
			}
			if !strings.HasPrefix(a, "-") {
				break
			}
		}
	}
	if base == "npx" || base == "pnpx" || base == "bunx" {
		// "npx https://host/pkg.tgz" fetches and runs a package; keep
		// npx as the program so its URL stays visible.
		for _, a := range f[1:] {
			if strings.HasPrefix(a, "-") {
				continue
			}
			if strings.Contains(a, "://") || strings.HasPrefix(a, "git+") || strings.HasPrefix(a, "github:") || strings.HasPrefix(a, "gist:") {
				return r, "", false
			}
			break
		}
	}
	if base == "sudo" {
		for _, a := range f[1:] {
			if a == "-l" || a == "-v" || a == "-k" || a == "-K" || a == "--list" || a == "--validate" {
				return r, "", false
			}
			if !strings.HasPrefix(a, "-") {
				break
			}
		}
	}
	i := 1
	if spec.sub != "" {
		if len(f) < 3 || f[1] != spec.sub {
			return r, "", false
		}
		i = 2
	}
	var extra []string // env -S splits its string into words
	operands := spec.operands
	for i < len(f) {
		a := f[i]
		if a == "--" {
			i++
			break
		}
		if spec.assigns && strings.Contains(a, "=") && !strings.HasPrefix(a, "-") && validName(a[:strings.Index(a, "=")]) {
			r.env = append(append([]string(nil), r.env...), a)
			i++
			continue
		}
		if strings.HasPrefix(a, "--") {
			name, _, hasVal := strings.Cut(a, "=")
			if base == "env" && (name == "--split-string") {
				if hasVal {
					extra = strings.Fields(a[len(name)+1:])
				} else if i+1 < len(f) {
					extra = strings.Fields(f[i+1])
					i++
				}
				i++
				break
			}
			if !hasVal && contains(spec.longArgs, name) {
				i++
			}
			i++
			continue
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			if spec.dashNum && isNum(a[1:]) {
				i++
				continue
			}
			// Combined short options; one that takes a value consumes the
			// rest of the word or the next word.
			consumed := false
			for k := 1; k < len(a); k++ {
				if strings.IndexByte(spec.argOpts, a[k]) >= 0 {
					if base == "env" && a[k] == 'S' {
						if k+1 < len(a) {
							extra = strings.Fields(a[k+1:])
						} else if i+1 < len(f) {
							extra = strings.Fields(f[i+1])
							i++
						}
						i++
						goto done
					}
					if k == len(a)-1 {
						consumed = true
					}
					break
				}
			}
			if consumed {
				i++
			}
			i++
			continue
		}
		if operands > 0 {
			operands--
			i++
			continue
		}
		break
	}
done:
	if base == "busybox" && i >= len(f) {
		return r, "", false
	}
	out := r.drop(i)
	if len(extra) > 0 {
		n := newRaw(extra)
		out.fields = append(n.fields, out.fields...)
		out.unres = append(n.unres, out.unres...)
		out.srcs = append(n.srcs, out.srcs...)
	}
	if len(out.fields) == 0 {
		if base == "xargs" {
			// xargs with no command runs echo.
			n := newRaw([]string{"echo"})
			n.text, n.redirects, n.wrappers = r.text, r.redirects, r.wrappers
			return n, base, true
		}
		return r, "", false
	}
	return out, base, true
}

func isNum(s string) bool {
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

// SelectedEntry stands for one entry of a listed directory that a filter
// let through to xargs.
const SelectedEntry = "selected-entry"

// emitXargs runs the command xargs or parallel would run, with the words
// it reads from its input: known when the input is static ("echo / |
// xargs rm -rf"), derived from find's roots ("find /x | xargs rm"),
// otherwise a marker that is neither a path nor an unknown variable.
func (w *walker) emitXargs(base string, r rawCmd, c ctx, in stdinInfo) (string, bool, string) {
	var words []string
	replace := ""
	if base == "parallel" {
		// GNU parallel: "parallel CMD ::: a b c".
		for i, a := range r.fields {
			if a == ":::" {
				words = r.fields[i+1:]
				r = r.truncate(i)
				break
			}
		}
		replace = "{}"
	} else {
		orig := strings.Fields(r.text)
		for i, a := range orig {
			if (a == "-I" || a == "--replace") && i+1 < len(orig) {
				replace = strings.Trim(orig[i+1], `'"`)
			} else if strings.HasPrefix(a, "-I") && len(a) > 2 {
				replace = strings.Trim(a[2:], `'"`)
			} else if strings.HasPrefix(a, "--replace=") {
				replace = strings.TrimPrefix(a, "--replace=")
			} else if a == "-i" {
				replace = "{}"
			}
		}
	}
	if base == "xargs" {
		// "xargs -a FILE cmd": the words are FILE's content, read by
		// xargs itself; that read is recorded as "cat FILE".
		orig := strings.Fields(r.text)
		for i, a := range orig {
			file := ""
			switch {
			case (a == "-a" || a == "--arg-file") && i+1 < len(orig):
				file = orig[i+1]
			case strings.HasPrefix(a, "--arg-file="):
				file = strings.TrimPrefix(a, "--arg-file=")
			}
			if file = strings.Trim(file, `'"`); file != "" {
				nr := newRaw([]string{"cat", file})
				nr.text = r.text
				w.record(nr, "cat", c.with("xargs -a"), stdinInfo{})
				// The items come from that file, not standard input: its
				// known lines, or a download's unknown ones.
				in = w.fileStdin(file, nil)
				break
			}
		}
	}
	if words == nil {
		switch {
		case in.known && replace != "" && base == "xargs":
			// With -I each input line is one item: "xargs -I{} sh -c '{}'
			// <<< 'rm -rf ~'" runs the whole line.
			for _, l := range strings.FieldsFunc(in.content, func(r rune) bool { return r == 0 || r == '\n' || r == '\r' }) {
				if l = strings.TrimSpace(l); l != "" {
					words = append(words, l)
				}
			}
		case in.known && base == "xargs" && xargsNull(r.text):
			// xargs -0 splits on NUL only: "printf '%s\0' ~ | xargs -0
			// rm -rf", and a whole decoded line as one item ("echo
			// Y2F0... | base64 -d | xargs -0 bash -c").
			for _, it := range strings.Split(in.content, "\x00") {
				if it = strings.TrimRight(it, "\n"); it != "" {
					words = append(words, it)
				}
			}
		case in.known:
			words = strings.FieldsFunc(in.content, func(r rune) bool { return r == 0 || r == ' ' || r == '\t' || r == '\n' || r == '\r' })
		default:
			words = sourceWords(in)
		}
	}
	marked := false
	if len(words) == 0 {
		words = []string{stdinWord}
		marked = true
	}
	if len(words) > 8 {
		words = words[:8]
	}
	if replace != "" && base == "parallel" {
		// "parallel rm -rf ::: a b" appends when there is no "{}".
		has := false
		for _, f := range r.fields {
			if strings.Contains(f, replace) {
				has = true
			}
		}
		if !has {
			replace = ""
		}
	}
	if replace != "" {
		for _, wd := range words {
			nr := r
			nr.fields = make([]string, len(r.fields))
			for i, f := range r.fields {
				if dir := path.Dir(wd); dir != "." && strings.HasPrefix(f, strings.TrimSuffix(dir, "/")+"/"+replace) {
					// ls ~/.ssh | xargs -I{} cat ~/.ssh/{}: the listing's
					// words already carry its directory.
					f = strings.Replace(f, strings.TrimSuffix(dir, "/")+"/"+replace, replace, 1)
				}
				nr.fields[i] = strings.ReplaceAll(f, replace, wd)
			}
			nr.unres = append([]bool(nil), r.unres...)
			nr.srcs = append([][]Source(nil), r.srcs...)
			if marked {
				nr.notes = append(nr.notes, "stdin-args")
				// The words come from upstream: "curl URL | xargs -I{}
				// sh -c '{}'" runs what curl fetched.
				for i, f := range r.fields {
					if strings.Contains(f, replace) {
						nr.srcs[i] = append(append([]Source(nil), nr.srcs[i]...), in.sources...)
					}
				}
			}
			if base == "parallel" && len(nr.fields) == 1 && strings.ContainsAny(nr.fields[0], " \t;|&") {
				// parallel 'hcloud server delete {}' ::: a b: one
				// quoted command line, which parallel hands to a shell.
				w.sub(nr.fields[0], c, nil)
				continue
			}
			w.emit(nr, c, stdinInfo{})
		}
		return "", false, ""
	}
	nr := r
	nr.fields = append(append([]string(nil), r.fields...), words...)
	nr.unres = append(append([]bool(nil), r.unres...), make([]bool, len(words))...)
	nr.srcs = append(append([][]Source(nil), r.srcs...), make([][]Source, len(words))...)
	if marked {
		nr.notes = append(nr.notes, "stdin-args")
		// "curl URL | xargs -0 bash -c": the appended words are what the
		// upstream printed.
		for i := len(r.fields); i < len(nr.srcs); i++ {
			nr.srcs[i] = in.sources
		}
	}
	return w.emit(nr, c, stdinInfo{})
}

// sourceWords is what a listing upstream hands on as words: "DIR/*" for
// ls DIR or find DIR, one selected entry when a filter sits between, the
// unused-volume marker for a dangling-volume listing; nil when unknown.
func sourceWords(in stdinInfo) []string {
	var words []string
	// A filter between the listing and xargs ("ls -t | tail -n +6",
	// "ls | grep -v keep") hands on some entries, not all: the
	// words are then one selected entry of the directory, which
	// is as dangerous as the directory's entries are ("~/x" is,
	// "./x" in a releases directory is not), where the unfiltered
	// listing is everything in it ("DIR/*").
	entry := "*"
	for _, s := range in.sources {
		switch s.Name {
		case "grep", "egrep", "fgrep", "rg", "head", "tail", "sed", "awk", "gawk":
			entry = SelectedEntry
		}
	}
	for _, s := range in.sources {
		if s.Name == "ls" {
			for _, a := range s.Args {
				if strings.HasPrefix(a, "-") {
					continue
				}
				if strings.ContainsAny(path.Base(a), "*?[") && !strings.HasSuffix(a, "/") {
					// "ls ~/.ssh/id_*" lists the files the glob
					// names, not entries inside them.
					words = append(words, a)
					continue
				}
				words = append(words, strings.TrimRight(a, "/")+"/"+entry)
			}
			if len(words) == 0 {
				words = []string{"./" + entry}
			}
		}
		if (s.Name == "docker" || s.Name == "podman") && len(s.Args) >= 2 && s.Args[0] == "volume" && (s.Args[1] == "ls" || s.Args[1] == "list") && danglingFilter(s.Args) {
			// Unused volumes only: what "docker volume prune" removes.
			words = []string{DanglingVolumes}
		}
		if s.Name == "find" {
			for _, a := range s.Args {
				if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
					break
				}
				words = append(words, strings.TrimRight(a, "/")+"/*")
			}
			if len(words) == 0 {
				words = []string{"./*"}
			}
		}
	}
	return words
}

func (r rawCmd) truncate(n int) rawCmd {
	r.fields = r.fields[:n]
	r.unres = r.unres[:n]
	r.srcs = r.srcs[:n]
	return r
}

// DanglingVolumes is the word xargs passes on from a listing of unused
// container volumes ("docker volume ls -qf dangling=true | xargs docker
// volume rm").
const DanglingVolumes = "{dangling-volumes}"

// danglingFilter reports whether a listing's arguments keep only
// dangling (unused) objects.
func danglingFilter(args []string) bool {
	for i, a := range args {
		v := a
		if (a == "-f" || a == "--filter" || a == "-qf") && i+1 < len(args) {
			v = args[i+1]
		}
		if strings.Contains(v, "dangling=true") || strings.Contains(v, "dangling=1") {
			return true
		}
	}
	return false
}

// skipOptions returns the index of the first word from i on that is not
// an option, stepping over the value of the options valued names.
func skipOptions(f []string, i int, valued map[string]bool) int {
	for i < len(f) && strings.HasPrefix(f[i], "-") {
		if !strings.Contains(f[i], "=") && valued[f[i]] {
			i++
		}
		i++
	}
	return i
}

// foreachValued are yarn workspaces foreach's options that take a value.
var foreachValued = map[string]bool{"--from": true, "--include": true, "--exclude": true, "-j": true, "--jobs": true}

// pkgRunner unwraps the Node package managers' ways of running a
// package's program: "npm exec [--] CMD", "pnpm --filter api exec CMD",
// "pnpm dlx CMD", "yarn workspace api exec CMD", "yarn dlx CMD", "bun x
// CMD". Monorepo agents reach their tools this way far more often than
// through npx, and a prefix assignment (DATABASE_URL=…) still applies
// to what runs. shellText is set instead when the runner is handed a
// shell command line ("npm exec -c 'CMD'", "pnpm exec --shell-mode").
// Scripts ("npm run build") are the task resolver's, not this.
func pkgRunner(base string, r rawCmd) (out rawCmd, shellText string, ok bool) {
	f := r.fields
	// Global options that take a value, per manager; "-w" is npm's
	// --workspace NAME but pnpm's --workspace-root flag.
	valued := map[string]bool{"--filter": true, "-F": true, "-C": true, "--dir": true, "--prefix": true, "--cwd": true,
		"--workspace": true, "--loglevel": true, "--reporter": true, "--config": true, "--userconfig": true}
	if base == "npm" {
		valued["-w"] = true
	}
	i := skipOptions(f, 1, valued)
	if i >= len(f) {
		return r, "", false
	}
	if base == "yarn" && f[i] == "workspace" && i+2 < len(f) {
		// "yarn workspace NAME CMD…": a script of that name, else the
		// program; "yarn workspace NAME exec CMD" below.
		i += 2
		if f[i] != "exec" && f[i] != "dlx" && f[i] != "run" {
			return r.drop(i), "", true
		}
	}
	if base == "yarn" && f[i] == "workspaces" && i+2 < len(f) && f[i+1] == "foreach" {
		// "yarn workspaces foreach -A exec CMD": CMD in every workspace.
		if i = skipOptions(f, i+2, foreachValued); i >= len(f) {
			return r, "", false
		}
	}
	switch sub := f[i]; {
	case sub == "exec" && base != "bun", sub == "dlx" && (base == "pnpm" || base == "yarn"), sub == "x" && base == "bun":
	default:
		return r, "", false
	}
	i++
	shell := false
	for i < len(f) && strings.HasPrefix(f[i], "-") {
		a := f[i]
		i++
		switch {
		case a == "--":
			goto cmd
		case a == "-c" || a == "--call" || a == "--shell-mode":
			shell = true
			if base == "npm" && i < len(f) {
				return r, f[i], true
			}
		case !strings.Contains(a, "=") && (a == "-p" || a == "--package" || valued[a]):
			i++
		}
	}
cmd:
	if i >= len(f) {
		return r, "", false
	}
	if shell {
		// pnpm exec --shell-mode "CMD …": the rest is one command line.
		return r, strings.Join(f[i:], " "), true
	}
	if strings.Contains(f[i], "://") {
		return r, "", false // a package fetched from a URL: keep the manager visible
	}
	return r.drop(i), "", true
}

// xargsNull reports whether an xargs command line reads NUL-separated
// items (-0, --null, or -0 in a cluster such as -0r).
func xargsNull(text string) bool {
	for _, a := range strings.Fields(text) {
		if a == "--null" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "0") && strings.Trim(a[1:], "0rtpx") == "" {
			return true
		}
	}
	return false
}
