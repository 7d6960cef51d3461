package policy

import (
	"github.com/ledger-audit/ledger-audit/rules/shell"
	"path"
	"regexp"
	"strings"

	"github.com/ledger-audit/ledger-audit/internal/refilter"
)

// glob is a compiled pattern. Path globs follow .gitignore habits: a
// pattern without "/" matches the last path element anywhere; "*" stays
// within one element, "**" spans elements; "{a,b}" is an alternation.
// Word globs (programs, arguments) let "*" match anything.
type glob struct {
	src      string
	re       *refilter.Regexp
	baseOnly bool
	// prefix and suffix are the literal ends of the pattern: a cheap
	// test that rejects most candidates before the regexp runs (packs
	// hold a hundred globs; a check must stay well under 100 µs).
	prefix, suffix string
	literal        bool // no metacharacters: re is nil, match is equality
}

func compileGlob(pat string, isPath bool) (*glob, error) {
	return compileGlobChecked(pat, isPath, true)
}

// compileGlobChecked is compileGlob; without check, the regexp the glob
// becomes is parsed on first use (built-in packs, see load).
func compileGlobChecked(pat string, isPath, check bool) (*glob, error) {
	g := &glob{src: pat}
	if isPath && !strings.Contains(pat, "/") {
		g.baseOnly = true
	}
	const meta = "*?[]{},\\"
	if !strings.ContainsAny(pat, meta) {
		// A literal (most program names and many paths): equality, with
		// no regexp to compile at load or run per match.
		g.prefix, g.literal = pat, true
		return g, nil
	}
	var b strings.Builder
	b.WriteString("^")
	depth := 0
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch c {
		case '\\':
			if i+1 < len(pat) {
				i++
				b.WriteString(regexp.QuoteMeta(string(pat[i])))
			}
		case '*':
			if i+1 < len(pat) && pat[i+1] == '*' {
				i++
				if isPath && i+1 < len(pat) && pat[i+1] == '/' {
					// "**/" is zero or more whole elements.
					i++
					b.WriteString(`(?:.*/)?`)
				} else {
					b.WriteString(`.*`)
				}
			} else if isPath {
				b.WriteString(`[^/]*`)
			} else {
				b.WriteString(`.*`)
			}
		case '?':
			if isPath {
				b.WriteString(`[^/]`)
			} else {
				b.WriteString(`.`)
			}
		case '[':
			j := strings.IndexByte(pat[i+1:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			cls := pat[i+1 : i+1+j]
			if strings.HasPrefix(cls, "!") {
				cls = "^" + cls[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(cls, `\`, `\\`) + "]")
			i += j + 1
		case '{':
			depth++
			b.WriteString("(?:")
		case '}':
			if depth > 0 {
				depth--
				b.WriteString(")")
			} else {
				b.WriteString(`\}`)
			}
		case ',':
			if depth > 0 {
				b.WriteString("|")
			} else {
				b.WriteString(",")
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	for ; depth > 0; depth-- {
		b.WriteString(")")
	}
	b.WriteString("$")
	if check {
		re, err := refilter.Compile(b.String())
		if err != nil {
			return nil, err
		}
		g.re = re
	} else {
		g.re = refilter.MustCompile(b.String())
	}
	i := strings.IndexAny(pat, meta)
	g.prefix = pat[:i]
	g.suffix = pat[strings.LastIndexAny(pat, meta)+1:]
	return g, nil
}

func (g *glob) match(s string) bool {
	if g.baseOnly {
		s = path.Base(s)
	}
	return g.matchFull(s)
}

// matchFull matches the whole of s, without the basename rule.
func (g *glob) matchFull(s string) bool {
	if g.literal {
		return s == g.src
	}
	if !strings.HasPrefix(s, g.prefix) || !strings.HasSuffix(s, g.suffix) {
		return false
	}
	return g.re.MatchString(s)
}

// anyDirGlob is anyGlob over the globs rooted in a named directory
// (~/.aws/..., /etc/...), not those for a file name found anywhere
// (id_rsa, **/kubeconfig).
func anyDirGlob(gs []*glob, s string) bool {
	for _, g := range gs {
		if (strings.HasPrefix(g.src, "/") || strings.HasPrefix(g.src, "~/")) && g.match(s) {
			return true
		}
	}
	return false
}

func anyGlob(gs []*glob, s string) bool {
	for _, g := range gs {
		if g.match(s) {
			return true
		}
	}
	return false
}

var homeRe = refilter.MustCompile(`^(?:/home/[^/]+|/Users/[^/]+|/mnt/[a-z]/Users/[^/]+|/[a-z]/Users/[^/]+|/root|~[A-Za-z0-9_.-]*)(?:/|$)`)

// normPath puts a path argument in the form pack globs are written for:
// cleaned, every home directory written "~", no trailing slash. Relative
// paths stay relative ("./build" is "build").
func normPath(p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	p = strings.TrimPrefix(p, "file://")
	if len(p) > 2 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') {
		// A Windows path from a file tool (C:\src\app\.git\hooks\x):
		// the same shape the shell reading gives.
		p = shell.CleanPath(p)
	}
	if strings.HasPrefix(p, "$HOME") {
		p = "~" + p[len("$HOME"):]
	} else if strings.HasPrefix(p, "${HOME}") {
		p = "~" + p[len("${HOME}"):]
	}
	p = path.Clean(p)
	if strings.HasPrefix(p, "/proc/") {
		// /proc/self/root/etc/shadow, /proc/1/root/...: a process's view
		// of the root, the same files.
		if parts := strings.SplitN(p, "/", 5); len(parts) >= 4 && parts[3] == "root" {
			p = "/"
			if len(parts) == 5 {
				p += parts[4]
			}
		} else if i := strings.Index(p, "/root~"); i > 0 && strings.Count(p[:i], "/") == 2 {
			// /proc/self/root$HOME/.netrc, $HOME already "~".
			p = p[i+len("/root"):]
		}
	}
	if m := homeRe.FindString(p); m != "" {
		rest := strings.TrimPrefix(p[len(m):], "/")
		if strings.HasSuffix(strings.TrimSuffix(m, "/"), "/**") {
			// "/home/**/token" (find /home -path '*x/token'): any depth
			// below some home directory, not the directory itself.
			rest = path.Join("**", rest)
		}
		if rest == "" {
			return "~"
		}
		return "~/" + rest
	}
	return p
}
