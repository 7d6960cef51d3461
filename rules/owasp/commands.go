package owasp

import (
	"path"
	"sort"
	"strings"

	"github.com/ledger-audit/ledger-audit/internal/refilter"
	"github.com/ledger-audit/ledger-audit/rules/policy"
	"github.com/ledger-audit/ledger-audit/rules/shell"
)

// cmdFacts is what the chain, path and replication rules need to know
// about one shell call, read through the shared parser (package shell):
// which files it changes, which archives it makes, what it sends out and
// whether it launches an agent detached or on a schedule.
type cmdFacts struct {
	cmds        []shell.Command
	writes      []string // paths as written by the agent (cleaned)
	archives    []archiveOp
	sendOps     []sendOp
	agentLaunch string   // why this call starts an agent out of band, or ""
	assigned    []string // variables this call (re)defined
	tagged      bool     // addTaggedSends ran
}

type archiveOp struct {
	out  string // archive file, "" when written to stdout
	text string
}

type sendOp struct {
	name, text   string
	cmd          *shell.Command
	files        []string // local files it sends
	archivePiped string   // the archiver upstream in the same pipeline, if any
	secret       bool     // set by the taint rule: reported there instead
}

func (f *cmdFacts) sends() bool { return len(f.sendOps) > 0 }

// addTaggedSends adds the sends the policy packs found (hits tagged
// "network-send") that sendOf does not know, so the chain rules follow
// every program the packs treat as an upload. It only fills a gap (no
// send recognised at all), and skips programs that merely read, because a
// hit's Matched text may start with the head of a pipeline ("cat f |
// curl ..."). Idempotent.
func (f *cmdFacts) addTaggedSends(hits []policy.Hit) {
	if f.tagged {
		return
	}
	f.tagged = true
	if len(f.sendOps) > 0 {
		return
	}
	for _, h := range hits {
		if !hasTag([]policy.Hit{h}, "network-send") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimSpace(h.Matched), " ")
		for i := range f.cmds {
			c := &f.cmds[i]
			if c.Name != name || readers[c.Name] || sendIndex(f, c) >= 0 {
				continue
			}
			snd := sendOp{name: c.Name, text: c.Text, cmd: c}
			for _, o := range operands(c.Args) {
				if !strings.Contains(o, "://") {
					snd.files = append(snd.files, shell.CleanPath(o))
				}
			}
			f.sendOps = append(f.sendOps, snd)
		}
	}
}

// facts parses the call's command once, in the session's shell state (so
// variables and aliases from earlier calls resolve), and derives the
// facts; nil when the call runs no shell command.
func (v *view) facts() *cmdFacts {
	if v.factsDone {
		return v.factsVal
	}
	v.factsDone = true
	if v.command == "" {
		return nil
	}
	before := make(map[string]string, len(v.s.sh.Vars))
	for k, x := range v.s.sh.Vars {
		before[k] = x
	}
	cmds, _ := shell.Parse(v.command, v.s.sh) // unparseable: best-effort words, still useful
	f := &cmdFacts{cmds: cmds}
	for k, x := range v.s.sh.Vars {
		if old, ok := before[k]; !ok || old != x {
			f.assigned = append(f.assigned, k)
		}
	}
	sort.Strings(f.assigned)
	for i := range cmds {
		c := &cmds[i]
		f.writes = append(f.writes, writesOf(c)...)
		if a, ok := archiveOf(c); ok {
			f.archives = append(f.archives, a)
		}
		if snd, ok := sendOf(c); ok {
			if c.PipeIndex > 0 {
				for j := range cmds {
					u := &cmds[j]
					if u.PipeID == c.PipeID && u.PipeIndex < c.PipeIndex {
						if a, ok := archiveOf(u); ok && a.out == "" {
							snd.archivePiped = u.Name
						}
					}
				}
			}
			f.sendOps = append(f.sendOps, snd)
		}
	}
	f.agentLaunch = agentLaunch(v, cmds)
	v.factsVal = f
	return f
}

// plain reports a known, non-flag word.
func plain(a string) bool { return a != "" && !strings.HasPrefix(a, "-") && !shell.Unknown(a) }

func operands(args []string) []string {
	var out []string
	for _, a := range args {
		if plain(a) {
			out = append(out, a)
		}
	}
	return out
}

// writesOf lists the paths a simple command changes.
func writesOf(c *shell.Command) []string {
	var out []string
	for _, r := range c.Redirects {
		switch r.Op {
		case ">", ">>", "&>", "&>>", ">|", "<>":
			if t := r.Target; plain(t) && !strings.HasPrefix(t, "/dev/") && !strings.HasPrefix(t, "&") {
				out = append(out, shell.CleanPath(t))
			}
		}
	}
	ops := operands(c.Args)
	add := func(ps ...string) {
		for _, p := range ps {
			out = append(out, shell.CleanPath(p))
		}
	}
	switch c.Name {
	case "cp", "install", "ln":
		if len(ops) >= 2 {
			add(ops[len(ops)-1])
		}
	case "mv":
		add(ops...)
	case "tee", "touch", "mkdir", "rm", "rmdir", "unlink", "shred", "truncate":
		for i, a := range c.Args {
			if c.Name == "truncate" && i > 0 && (c.Args[i-1] == "-s" || c.Args[i-1] == "--size") {
				continue
			}
			if plain(a) {
				add(a)
			}
		}
	case "chmod", "chown", "chgrp":
		if len(ops) >= 2 {
			add(ops[1:]...)
		}
	case "sed", "perl":
		inPlace, script := false, false
		for _, a := range c.Args {
			if strings.HasPrefix(a, "-i") || a == "--in-place" || strings.HasPrefix(a, "--in-place=") || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "i")) {
				inPlace = true
			}
			if a == "-e" || a == "-f" || a == "--expression" {
				script = true
			}
		}
		if inPlace {
			if !script && len(ops) > 0 {
				ops = ops[1:]
			}
			add(ops...)
		}
	case "dd":
		for _, a := range c.Args {
			if strings.HasPrefix(a, "of=") && plain(a[3:]) {
				add(a[3:])
			}
		}
	}
	return out
}

// archiveOf recognises commands that pack files into an archive.
func archiveOf(c *shell.Command) (archiveOp, bool) {
	a := c.Args
	switch c.Name {
	case "tar", "bsdtar", "gtar":
		create, out := false, ""
		for i := 0; i < len(a); i++ {
			x := a[i]
			switch {
			case x == "--create":
				create = true
			case strings.HasPrefix(x, "--file="):
				out = x[len("--file="):]
			case x == "--file" && i+1 < len(a):
				out = a[i+1]
				i++
			case !strings.HasPrefix(x, "--") && (i == 0 || strings.HasPrefix(x, "-")) && strings.ContainsAny(x, "c") && isTarBundle(x):
				create = true
				if strings.Contains(x, "f") && i+1 < len(a) {
					out = a[i+1]
					i++
				}
			case strings.HasPrefix(x, "-") && !strings.HasPrefix(x, "--") && strings.HasSuffix(x, "f") && i+1 < len(a):
				out = a[i+1]
				i++
			}
		}
		if !create {
			return archiveOp{}, false
		}
		if out == "-" {
			out = ""
		}
		return archiveOp{out: cleanOrEmpty(out), text: c.Text}, true
	case "zip", "7z", "7za", "7zz", "rar", "jar":
		ops := operands(a)
		if c.Name != "zip" {
			if len(ops) < 2 || (ops[0] != "a" && ops[0] != "c" && ops[0] != "cf") {
				return archiveOp{}, false
			}
			ops = ops[1:]
		}
		if len(ops) == 0 {
			return archiveOp{}, false
		}
		out := ops[0]
		if out == "-" {
			out = ""
		}
		return archiveOp{out: cleanOrEmpty(out), text: c.Text}, true
	case "gzip", "bzip2", "xz", "zstd", "pigz":
		ops := operands(a)
		for _, x := range a {
			if x == "-d" || x == "--decompress" || x == "-l" || x == "-t" {
				return archiveOp{}, false
			}
		}
		stdout := len(ops) == 0
		for _, x := range a {
			if x == "-c" || x == "--stdout" {
				stdout = true
			}
		}
		if stdout {
			return archiveOp{text: c.Text}, true
		}
		ext := map[string]string{"gzip": ".gz", "pigz": ".gz", "bzip2": ".bz2", "xz": ".xz", "zstd": ".zst"}[c.Name]
		return archiveOp{out: shell.CleanPath(ops[0] + ext), text: c.Text}, true
	}
	return archiveOp{}, false
}

// isTarBundle: old-style or dashed tar option bundles ("czf", "-cvzf").
func isTarBundle(x string) bool {
	x = strings.TrimPrefix(x, "-")
	if x == "" {
		return false
	}
	for _, r := range x {
		if !strings.ContainsRune("cxtrufvzjJaZpPhOkSW", r) {
			return false
		}
	}
	return true
}

func cleanOrEmpty(p string) string {
	if !plain(p) {
		return ""
	}
	return shell.CleanPath(p)
}

// sendOf recognises commands that send local data to another host, and
// the local files they send.
func sendOf(c *shell.Command) (sendOp, bool) {
	s := sendOp{name: c.Name, text: c.Text, cmd: c}
	a := c.Args
	stdin := c.PipeIndex > 0
	for _, r := range c.Redirects {
		if r.Op == "<" && plain(r.Target) {
			s.files = append(s.files, shell.CleanPath(r.Target))
			stdin = true
		}
	}
	atFile := func(v string) {
		if i := strings.Index(v, "@"); i >= 0 {
			p := v[i+1:]
			if j := strings.IndexAny(p, ";,"); j >= 0 {
				p = p[:j]
			}
			if p != "" && p != "-" && plain(p) {
				s.files = append(s.files, shell.CleanPath(p))
			}
		}
	}
	switch c.Name {
	case "curl", "curlie":
		send := false
		for i := 0; i < len(a); i++ {
			x := a[i]
			val := ""
			if i+1 < len(a) {
				val = a[i+1]
			}
			switch {
			case x == "-T" || x == "--upload-file":
				send = true
				if val != "-" && plain(val) {
					s.files = append(s.files, shell.CleanPath(val))
				}
				i++
			case x == "-d" || x == "-F" || x == "--form" || x == "--json" || strings.HasPrefix(x, "--data"):
				send = true
				atFile(val)
				i++
			case strings.HasPrefix(x, "--data") && strings.Contains(x, "="), strings.HasPrefix(x, "-d") && len(x) > 2, strings.HasPrefix(x, "-F") && len(x) > 2:
				send = true
				atFile(x)
			}
		}
		if !send {
			return s, false
		}
	case "wget", "wget2":
		send := false
		for i, x := range a {
			switch {
			case strings.HasPrefix(x, "--post-file=") || strings.HasPrefix(x, "--body-file="):
				send = true
				s.files = append(s.files, shell.CleanPath(x[strings.Index(x, "=")+1:]))
			case (x == "--post-file" || x == "--body-file") && i+1 < len(a):
				send = true
				s.files = append(s.files, shell.CleanPath(a[i+1]))
			case strings.HasPrefix(x, "--post-data") || strings.HasPrefix(x, "--body-data"):
				send = true
			}
		}
		if !send {
			return s, false
		}
	case "scp", "rsync", "sftp":
		ops := operands(a)
		remote := -1
		for i, o := range ops {
			if isRemoteSpec(o) {
				remote = i
			}
		}
		if remote <= 0 || c.Name == "sftp" && !stdin {
			return s, false
		}
		for _, o := range ops[:remote] {
			if !isRemoteSpec(o) {
				s.files = append(s.files, shell.CleanPath(o))
			}
		}
	case "nc", "ncat", "netcat", "socat", "telnet", "ssh", "mail", "mailx", "sendmail":
		if !stdin {
			return s, false
		}
	case "http", "https", "xh":
		send := stdin
		for _, x := range operands(a) {
			if strings.Contains(x, "@") && !strings.Contains(x, "://") {
				send = true
				atFile(x)
			}
		}
		if !send {
			return s, false
		}
	case "aws", "gsutil", "rclone", "gcloud":
		ops := operands(a)
		dest := false
		for _, o := range ops {
			if strings.HasPrefix(o, "s3://") || strings.HasPrefix(o, "gs://") || c.Name == "rclone" && isRemoteSpec(o) {
				dest = true
			}
		}
		if !dest {
			return s, false
		}
		for _, o := range ops {
			if strings.HasPrefix(o, "/") || strings.HasPrefix(o, "~") || strings.HasPrefix(o, ".") {
				s.files = append(s.files, shell.CleanPath(o))
			}
		}
	case "gh":
		ops := operands(a)
		if len(ops) < 2 || ops[0] != "gist" || ops[1] != "create" {
			return s, false
		}
		for _, o := range ops[2:] {
			s.files = append(s.files, shell.CleanPath(o))
		}
	default:
		return s, false
	}
	return s, true
}

// isRemoteSpec: "host:path", "user@host:path" (not a URL, not a local
// path with a colon after a slash).
func isRemoteSpec(o string) bool {
	i := strings.Index(o, ":")
	if i <= 0 || strings.Contains(o, "://") {
		return false
	}
	return !strings.Contains(o[:i], "/")
}

// launchers run something out of band: later, detached, or repeatedly.
var launchers = map[string]string{
	"crontab": "crontab", "at": "at", "batch": "batch", "systemd-run": "systemd-run", "launchctl": "launchctl",
	"nohup": "nohup", "setsid": "setsid", "tmux": "tmux", "screen": "screen", "disown": "disown", "daemonize": "daemonize",
}

// background matches a trailing or mid-line "&" that is not part of "&&".
var background = refilter.MustCompile(`(^|[^&>])&\s*($|;|\n|\))`)

// agentLaunch says why the call starts an agent out of band, or "".
func agentLaunch(v *view, cmds []shell.Command) string {
	launcher, agent := "", ""
	for i := range cmds {
		c := &cmds[i]
		for _, w := range append([]string{c.Name}, c.Wrappers...) {
			if l, ok := launchers[w]; ok && launcher == "" {
				launcher = l
			}
		}
		if agentCLIs[c.Name] && agent == "" {
			agent = c.Name
		}
		// Text fed to crontab/at (echo/printf lines, heredocs) names the
		// agent inside a word rather than as a command.
		if agent == "" && (c.Name == "echo" || c.Name == "printf" || launchers[c.Name] != "") {
			for _, x := range c.Args {
				if mentionsAgentCLI(x) {
					agent = firstAgentWord(x)
				}
			}
			for _, r := range c.Redirects {
				if strings.HasPrefix(r.Op, "<<") && mentionsAgentCLI(r.Target) {
					agent = firstAgentWord(r.Target)
				}
			}
		}
	}
	if agent == "" {
		return ""
	}
	if launcher == "" {
		bg, _ := v.a()["background"].(bool)
		if bg || background.MatchString(v.command) {
			launcher = "background (&)"
		}
	}
	if launcher == "" {
		return ""
	}
	return "the agent CLI " + agent + " launched through " + launcher + ": a copy of the agent that outlives the session"
}

func firstAgentWord(text string) string {
	for _, w := range wordRE.FindAllString(text, -1) {
		if agentCLIs[path.Base(w)] {
			return path.Base(w)
		}
	}
	return ""
}
