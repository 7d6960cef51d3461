package shell

import (
	"strings"
)

// Programs that take a shell command as the value of an option or of an
// environment variable, and run it: a pager, a proxy command, a remote
// rsync, a debugger's shell escape. Each value is walked as the command
// line it is; where the program would run it later (a pager set for the
// next "git log"), it is still what the setting installs.

// commandVars are environment variables whose value a program runs as a
// shell command line.
var commandVars = map[string]bool{
	"PAGER": true, "MANPAGER": true, "GIT_PAGER": true, "SYSTEMD_PAGER": true, "BAT_PAGER": true,
	"GIT_SSH_COMMAND": true, "GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true, "EDITOR": true, "VISUAL": true,
	"PROMPT_COMMAND": true, "RSYNC_RSH": true, "GIT_EXTERNAL_DIFF": true, "LESSOPEN": true, "LESSCLOSE": true,
}

// commandVar walks the value of a variable a program runs (PAGER,
// GIT_SSH_COMMAND, PROMPT_COMMAND, LESSOPEN) or sources (BASH_ENV, ENV).
func (w *walker) commandVar(name, val string, c ctx) {
	switch {
	case name == "BASH_ENV" || name == "ENV":
		if val != "" && !Unknown(val) {
			w.sub("source "+quote(val), c.with("$"+name), nil)
		}
	case commandVars[name]:
		if name == "LESSOPEN" || name == "LESSCLOSE" {
			// "|cmd %s" or "||cmd %s": less runs cmd on the file it opens.
			val = strings.TrimLeft(strings.TrimLeft(val, "|-"), " ")
			val = strings.ReplaceAll(val, "%s", "FILE")
		}
		w.sub(val, c.with("$"+name), nil)
	}
}

// optionCommands returns the shell command lines that the options of a
// program run: ssh -o ProxyCommand/LocalCommand, rsync --rsync-path (run
// on the remote side) and -e/--rsh, man -P/--pager, gdb -ex "shell CMD",
// screen -X stuff, expect -c "spawn CMD", capsh -- -c CMD.
func optionCommands(name string, f []string) []string {
	var out []string
	switch name {
	case "ssh", "scp", "sftp", "autossh":
		for i, a := range f {
			opt := ""
			switch {
			case a == "-o" && i+1 < len(f):
				opt = f[i+1]
			case strings.HasPrefix(a, "-o") && len(a) > 2:
				opt = a[2:]
			default:
				continue
			}
			k, v, ok := strings.Cut(opt, "=")
			if !ok {
				k, v, _ = strings.Cut(opt, " ")
			}
			switch strings.ToLower(strings.TrimSpace(k)) {
			case "proxycommand", "localcommand", "knownhostscommand", "remotecommand":
				out = append(out, strings.TrimSpace(v))
			}
		}
	case "rsync":
		out = append(out, optValues(f, "--rsync-path", "-e", "--rsh")...)
	case "man":
		out = append(out, optValues(f, "-P", "--pager")...)
	case "gdb", "gdb-multiarch", "cgdb":
		for _, ex := range optValues(f, "-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--init-eval-command") {
			t := strings.TrimSpace(ex)
			switch {
			case strings.HasPrefix(t, "!"):
				out = append(out, t[1:])
			case strings.HasPrefix(t, "shell "):
				out = append(out, t[len("shell "):])
			case strings.HasPrefix(t, "python "):
				// gdb's embedded Python: as python3 -c would run it.
				out = append(out, "python3 -c "+quote(t[len("python "):]))
			case strings.HasPrefix(t, "call ") || strings.HasPrefix(t, "print ") || strings.HasPrefix(t, "p "):
				// call (int)system("CMD"): the program's libc runs CMD.
				if i := strings.Index(t, "system("); i >= 0 {
					if s, _, ok := readStrExpr(t[i+len("system("):], nil); ok {
						out = append(out, s)
					}
				}
			}
		}
	case "screen":
		for i, a := range f {
			if a == "stuff" && i > 0 && i+1 < len(f) {
				// Typed into the session's window: ^M (or \n, \r) is Enter.
				keys := f[i+1]
				for _, enter := range []string{"^M", `\n`, `\r`, "\r"} {
					keys = strings.ReplaceAll(keys, enter, "\n")
				}
				out = append(out, keys)
			}
		}
	case "expect":
		for _, code := range optValues(f, "-c") {
			// spawn PROGRAM ARGS: the program expect starts and drives.
			for _, stmt := range strings.FieldsFunc(code, func(r rune) bool { return r == ';' || r == '\n' }) {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(stmt), "spawn "); ok {
					out = append(out, tclWords(rest))
				}
			}
		}
	case "nsenter":
		// nsenter [OPTIONS] [--] CMD ARGS: CMD runs inside the target's
		// namespaces (the host's, with -t 1).
		if rest := skipOpts(f, "t", "target", "S", "setuid", "G", "setgid", "r", "root", "w", "wd", "T", "time"); len(rest) > 0 {
			out = append(out, joinQuoted(rest))
		}
	case "script":
		// BSD and macOS: script [-aq] FILE COMMAND ARGS.
		if rest := skipOpts(f, "F", "t", "T"); len(rest) > 1 && !contains(f, "-c") {
			out = append(out, joinQuoted(rest[1:]))
		}
	case "make", "gmake":
		// make --eval=TEXT: TEXT is read as a Makefile line before the
		// others; its recipes run like any target's.
		for _, text := range optValues(f, "--eval", "-E") {
			out = append(out, makeRecipes(text, taskTargets(f, "-f", "--file", "-C"))...)
		}
	case "capsh":
		// capsh [OPTIONS] -- ARGS: ARGS go to /bin/bash.
		for i, a := range f {
			if a == "--" && i+1 < len(f) {
				out = append(out, "bash "+joinQuoted(f[i+1:]))
				break
			}
		}
	}
	return out
}

// tclWords turns a Tcl command's words into a shell line: braces and
// double quotes group words as single and double quotes do in sh.
func tclWords(s string) string {
	s = strings.ReplaceAll(s, "{", "'")
	return strings.ReplaceAll(s, "}", "'")
}
