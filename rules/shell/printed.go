package shell

import (
	"strings"

	"github.com/ledger-audit/ledger-audit/internal/refilter"
)

// printStmtRe opens a print statement; the group says whether it ends
// the line it prints (print, puts, console.log, say) or not (write).
var printStmtRe = refilter.MustCompile(`^(?:(print|puts|say|console\.log|console\.info)|(sys\.stdout\.write|process\.stdout\.write|STDOUT\.write))\s*\(?\s*`)

// printedOutput is what a one-line interpreter program prints when all
// it does is print strings the scanner can read, literal or decoded:
// python3 -c 'print("rm -rf ~/")', node -e 'console.log(atob("..."))'.
// Piped to a shell, that text is the command; printed to the terminal,
// it is only text (so a decoder inside a print is not code run).
func printedOutput(code string) (string, bool) {
	var b strings.Builder
	printed := false
	var vars map[string]string
	for _, st := range splitStatements(code) {
		st = strings.TrimSpace(st)
		if st == "" || strings.HasPrefix(st, "#") || strings.HasPrefix(st, "import ") ||
			strings.HasPrefix(st, "from ") && strings.Contains(st, " import ") || strings.HasPrefix(st, "use ") || strings.HasPrefix(st, "require ") {
			continue
		}
		if a := literalAssignRe.FindStringSubmatchIndex(st); a != nil {
			// blob = 'Y3Vy...': a name for a literal, to be printed.
			if v, k, ok := readStrExpr(st[a[1]:], vars); ok && strings.TrimSpace(st[a[1]+k:]) == "" {
				if vars == nil {
					vars = map[string]string{}
				}
				vars[st[a[2]:a[3]]] = v
				continue
			}
			return "", false
		}
		m := printStmtRe.FindStringSubmatchIndex(st)
		if m == nil {
			return "", false
		}
		// A newline left in the statement is inside a literal (Perl,
		// Ruby and JavaScript strings may span lines): read it escaped.
		st = strings.ReplaceAll(st, "\n", `\n`)
		s, k, ok := readStrExpr(st[m[1]:], vars)
		if !ok {
			return "", false
		}
		rest := strings.TrimSpace(st[m[1]+k:])
		if strings.Contains(st[m[0]:m[1]], "(") {
			rest = strings.TrimSpace(strings.TrimPrefix(rest, ")"))
		}
		if rest != "" {
			return "", false // more arguments (end="", sep=...), a method call, a comparison
		}
		b.WriteString(s)
		if m[2] >= 0 {
			b.WriteByte('\n')
		}
		printed = true
	}
	return b.String(), printed
}

// literalAssignRe is the start of "NAME = " (Python, Ruby, JavaScript's
// const/let/var, Perl's my $NAME).
var literalAssignRe = refilter.MustCompile(`^(?:(?:const|let|var|my|our)\s+)?\$?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*`)

// splitStatements splits one-line program text at ";" and newlines
// outside string literals.
func splitStatements(code string) []string {
	var out []string
	start := 0
	var q byte
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case q != 0 && c == '\\':
			i++
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '\'' || c == '"' || c == '`':
			q = c
		case c == ';' || c == '\n':
			out = append(out, code[start:i])
			start = i + 1
		}
	}
	return append(out, code[start:])
}

// interpCode returns the program text a one-line interpreter call runs
// (python -c CODE, node -e CODE, ruby -e CODE, perl -e CODE).
func interpCode(name string, args []string) (string, bool) {
	var flags []string
	switch {
	case strings.HasPrefix(name, "python") || name == "pypy3":
		flags = []string{"-c"}
	case name == "node" || name == "nodejs" || name == "bun" || name == "deno":
		flags = []string{"-e", "--eval"}
	case name == "ruby" || name == "perl":
		flags = []string{"-e", "-E"}
	default:
		return "", false
	}
	for i, a := range args {
		for _, f := range flags {
			if a == f && i+1 < len(args) {
				return args[i+1], true
			}
		}
		if !strings.HasPrefix(a, "-") {
			return "", false // a script file, not a one-liner
		}
	}
	return "", false
}
