package owasp

import (
	"fmt"
	"path"
	"strings"

	"github.com/ledger-audit/ledger-audit/finding"
	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/ledger-audit/ledger-audit/rules/policy"
	"github.com/ledger-audit/ledger-audit/rules/shell"
)

// The ASI10 taint chain: a secret's content is followed from the command
// that reads it, through pipes, redirects, copies, archives and variables
// (also across calls), to a command that sends data to another host.

// isSecretPath recognises credential and key files by their usual names.
func isSecretPath(p string) bool {
	p = shell.CleanPath(p)
	base := path.Base(p)
	dir := "/" + strings.TrimPrefix(path.Dir(p), "/") + "/"
	switch {
	case strings.HasSuffix(dir, "/.aws/") && (base == "credentials" || base == "config"):
		return true
	case strings.HasSuffix(dir, "/.ssh/") && (strings.HasPrefix(base, "id_") && !strings.HasSuffix(base, ".pub") || strings.HasSuffix(base, ".pem")):
		return true
	case base == ".env" || strings.HasPrefix(base, ".env.") && !strings.Contains(base, "example") && !strings.Contains(base, "sample") && !strings.Contains(base, "template"):
		return true
	case base == ".netrc" || base == ".git-credentials" || base == ".npmrc" || base == ".pypirc" || base == ".pgpass":
		return true
	case strings.HasSuffix(dir, "/.docker/") && base == "config.json", strings.HasSuffix(dir, "/.kube/") && base == "config":
		return true
	case strings.HasSuffix(dir, "/.config/gh/") && base == "hosts.yml", strings.HasSuffix(dir, "/.claude/") && base == ".credentials.json":
		return true
	case strings.Contains(dir, "/.gnupg/") && strings.Contains(dir+base, "private-keys"):
		return true
	case p == "/etc/shadow" || p == "/etc/gshadow" || p == "/etc/sudoers":
		return true
	case strings.HasSuffix(base, ".pem") || strings.HasSuffix(base, ".key") || strings.HasSuffix(base, ".p12") || strings.HasSuffix(base, ".pfx"):
		return true
	case base == "credentials.json" || base == "secrets.json" || base == "secrets.yaml" || base == "secrets.yml" || base == "service-account.json":
		return true
	}
	return false
}

// readers show a file's content (used when a pack flagged the call as a
// credential read but the path is not one isSecretPath knows).
var readers = map[string]bool{
	"cat": true, "head": true, "tail": true, "less": true, "more": true, "base64": true, "xxd": true,
	"od": true, "strings": true, "grep": true, "cut": true, "awk": true, "sed": true, "jq": true, "tac": true,
}

func (v *view) key(p string) string {
	if a := absPath(p, v.cwd, v.home); a != "" {
		return a
	}
	return shell.CleanPath(p)
}

// wordPaths are the file names a word can carry: the word itself, or the
// part after "@" (curl -d @file, -F f=@file) or "=" (if=file).
func wordPaths(w string) []string {
	if !plain(w) && !strings.HasPrefix(w, "-") {
		return nil
	}
	out := []string{w}
	if i := strings.Index(w, "@"); i >= 0 {
		p := w[i+1:]
		if j := strings.IndexAny(p, ";,"); j >= 0 {
			p = p[:j]
		}
		out = append(out, p)
	}
	if i := strings.Index(w, "="); i >= 0 {
		out = append(out, w[i+1:])
	}
	return out
}

// readsSecret reports whether c takes a secret as input and, if so, the
// call where that secret was first read.
func (k *Checker) readsSecret(s *session, v *view, c *shell.Command, credHit bool) (mark, bool) {
	here := markOf(v.c, v.ex(), "")
	var words []string
	words = append(words, c.Args...)
	for _, r := range c.Redirects {
		if r.Op == "<" {
			words = append(words, r.Target)
		}
	}
	for _, w := range words {
		for _, p := range wordPaths(w) {
			if p == "" || shell.Unknown(p) {
				continue
			}
			if isSecretPath(p) {
				return here, true
			}
			if m, ok := s.taintFiles.get(v.key(p)); ok {
				return m, true
			}
		}
	}
	for _, name := range s.taintVars.order {
		if refersTo(c.Text, name) {
			m, _ := s.taintVars.get(name)
			return m, true
		}
	}
	if (c.Name == "env" || c.Name == "printenv") && len(operands(c.Args)) == 0 {
		return here, true // the whole environment, API keys included
	}
	if credHit && readers[c.Name] && len(operands(c.Args)) > 0 {
		return here, true
	}
	return mark{}, false
}

func (k *Checker) secretExfil(s *session, v *view, hits []policy.Hit) []finding.Finding {
	if p := readPath(v.c, v.a()); p != "" && isSecretPath(p) {
		s.taintFiles.put(v.key(p), markOf(v.c, v.ex(), p))
	}
	f := v.facts()
	if f == nil {
		return nil
	}
	f.addTaggedSends(hits)
	credHit := hasTag(hits, "credential-read")
	var out []finding.Finding
	var substOrigin *mark
	// Pipelines in order of appearance; within one, by position.
	seen := map[int]bool{}
	for i := range f.cmds {
		id := f.cmds[i].PipeID
		if seen[id] {
			continue
		}
		seen[id] = true
		var stages []*shell.Command
		for j := range f.cmds {
			if f.cmds[j].PipeID == id {
				stages = append(stages, &f.cmds[j])
			}
		}
		var up *mark
		for _, c := range stages {
			origin, tainted := k.readsSecret(s, v, c, credHit)
			if !tainted && c.PipeIndex > 0 && up != nil {
				origin, tainted = *up, true
			}
			if !tainted {
				continue
			}
			if idx := sendIndex(f, c); idx >= 0 {
				f.sendOps[idx].secret = true
				out = append(out, k.exfilFinding(v, origin, c))
			}
			for _, w := range writesOf(c) {
				s.taintFiles.put(v.key(w), origin)
			}
			if a, ok := archiveOf(c); ok && a.out != "" {
				s.taintFiles.put(v.key(a.out), origin)
			}
			for _, via := range c.Via {
				if strings.HasPrefix(via, "$(") || via == "`...`" {
					o := origin
					substOrigin = &o
				}
			}
			o := origin
			up = &o
		}
	}
	if substOrigin != nil {
		for _, name := range f.assigned {
			s.taintVars.put(name, *substOrigin)
		}
	}
	return out
}

func sendIndex(f *cmdFacts, c *shell.Command) int {
	for i := range f.sendOps {
		if f.sendOps[i].cmd == c {
			return i
		}
	}
	return -1
}

func (k *Checker) exfilFinding(v *view, origin mark, c *shell.Command) finding.Finding {
	here := evidence(v.c, excerpt(c.Text, excerptRunes))
	if origin.ev.Row == v.c.ID && origin.ev.Ledger == v.c.Ledger {
		msg := fmt.Sprintf("secret content sent out in one command by %s", c.Name)
		return finding.New(RuleSecretExfil, msg, here)
	}
	msg := fmt.Sprintf("secret read at %s (%s) reached %s at %s", ledger.FormatTime(origin.ts), origin.tool, c.Name, ledger.FormatTime(v.c.TS))
	return finding.New(RuleSecretExfil, msg, origin.ev, here)
}

// refersTo reports whether shell text expands variable name ($NAME or
// ${NAME...}), not merely a longer name that starts the same.
func refersTo(text, name string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], "$")
		if j < 0 {
			return false
		}
		rest := text[i+j+1:]
		if strings.HasPrefix(rest, "{") {
			rest = rest[1:]
		}
		if strings.HasPrefix(rest, name) {
			after := rest[len(name):]
			if after == "" || !isNameByte(after[0]) {
				return true
			}
		}
		i += j + 1
	}
}

func isNameByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
