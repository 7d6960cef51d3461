// Package shell turns a command line into the simple commands it would
// run, the way a shell would see them: parsed with mvdan.cc/sh/v3, with
// wrappers, paths, quoting tricks and nested interpreters peeled away.
// Both the policy engine and the OWASP posture rules read commands through
// it, so there is one notion of "what this command does".
//
// It never executes anything and never touches the filesystem: variables,
// aliases, functions and files written earlier are tracked in a State that
// the caller keeps per session, so a dangerous action split across several
// tool calls is still seen as one.
package shell

import (
	"strings"
)

// Command is one simple command after normalisation.
//
// rules/owasp and rules/policy both read these fields: fields may be
// added; these keep their meaning.
type Command struct {
	// Name is the program as a shell would resolve it, basename only and
	// with wrappers removed: "/usr/bin/sudo -E r''m -rf /" gives "rm".
	Name string
	// Program is the program word as written, after expansion and
	// wrapper removal ("/bin/rm", "./install.sh").
	Program string
	// Args are the words after the program, quotes removed, variables
	// substituted where their value is known.
	Args []string
	// Text is the source text this command came from.
	Text string
	// Via records how the command was reached, outermost first: "sudo",
	// "bash -c", "eval", "$(...)", "python -c", "xargs", "find -exec",
	// "script:<path>" (a file written earlier and executed), ...
	Via []string
	// Redirects are the command's redirections.
	Redirects []Redirect
	// Unresolved lists indexes into Args whose value depends on an
	// unknown variable or a command substitution.
	Unresolved []int
	// PipeIndex / PipeLen place the command in its pipeline (0 / 1 when
	// it stands alone); PipeID groups the commands of one pipeline.
	PipeIndex, PipeLen, PipeID int

	// CodeFrom is set on commands that run code (shells, interpreters,
	// eval, source) when that code came from another command rather than
	// from literal text: the upstream of a pipe, a command or process
	// substitution in the script position, a file downloaded earlier.
	// "curl URL | sh" gives sh a CodeFrom entry for curl.
	CodeFrom []Source
	// Stdin lists what feeds the command's standard input: the earlier
	// stages of its pipeline, a heredoc, a herestring, a "<" file.
	Stdin []Source
	// Notes flag how the command was seen: "unparseable" (token
	// fallback), "cross-call" (it depends on state from an earlier call),
	// "fork-bomb" (a function that spawns itself in the background or a
	// pipe), "stdin-args" (xargs appended words it could not know).
	Notes []string
	// Dir is the working directory the command runs in when the session
	// changed it to a known place ("cd / && rm -rf usr"), "" otherwise.
	Dir string
	// DirByCd says Dir was reached by a "cd" of the session, not
	// reported by the client.
	DirByCd bool
	// Wrappers are the wrapper programs removed to find Name, outermost
	// first ("sudo", "env", "xargs", ...). Via also lists them.
	Wrappers []string
	// StdinText is the command's standard input when it is known: a
	// heredoc, a herestring, a file written in the session, or the output
	// of a static pipeline ("echo ... | base64 -d").
	StdinText string
	// Env are the NAME=value assignments made for this command alone
	// ("RAILS_ENV=test rails db:reset", "env X=1 cmd"), plus the
	// environment selectors (RAILS_ENV, NODE_ENV, DATABASE_URL, ...) set
	// earlier in the session.
	Env []string
	// Origins are the paths that arguments or "<" files are copies,
	// moves or links of, made earlier in the session.
	Origins []string
	// Copies pairs each such argument with its original: {arg, origin}.
	Copies [][2]string
	// Through are the originals that arguments below a link (or a moved
	// directory) made earlier in the session reach ("build/*" after "ln
	// -s ~ build" is "~/*"): what a delete there deletes.
	Through []string
	// ValueFrom are the command substitutions that variables used in the
	// arguments were assigned from, in this call or an earlier one
	// ("TOKEN=$(gh auth token)", then "curl -d t=$TOKEN URL"): what the
	// arguments carry, read as if written inline.
	ValueFrom []string
	// Host is the machine the command runs on when it is a remote
	// command ("prod-db-01" for ssh deploy@prod-db-01 CMD), else "".
	Host string `json:",omitempty"`
	// ArgsFrom are the commands whose output became arguments: the
	// command substitutions in the words, and the upstream of a pipe
	// whose words xargs appended.
	ArgsFrom []Source
}

// AssignName is the Name of the pseudo-command recorded for a bare
// assignment ("HISTFILE=/dev/null" on its own), so rules can see
// variables being set; declarations keep their builtin's name ("export").
const AssignName = "(assign)"

// Source is a command whose output became code run by another command.
type Source struct {
	// Kind is how the code travelled: "pipe", "cmdsubst", "procsubst",
	// "download" (a file fetched earlier, then executed), "heredoc",
	// "herestring", "file".
	Kind string
	Name string
	Args []string
	Text string
}

// Redirect is one redirection such as "> out.txt" or "< ~/.ssh/id_rsa".
type Redirect struct {
	Op     string // ">", ">>", "<", "<<", "<<<", "&>", ...
	Target string // the word, resolved like Args; heredoc body for "<<"
}

// HasNote reports whether the command carries note n.
func (c *Command) HasNote(n string) bool {
	for _, x := range c.Notes {
		if x == n {
			return true
		}
	}
	return false
}

// IsUnresolved reports whether Args[i] depends on something unknown.
func (c *Command) IsUnresolved(i int) bool {
	for _, u := range c.Unresolved {
		if u == i {
			return true
		}
	}
	return false
}

// String renders the normalised command ("rm -rf /"), with unknown parts
// shown as $NAME or $(...).
func (c *Command) String() string {
	var b strings.Builder
	b.WriteString(Display(c.Name))
	for _, a := range c.Args {
		b.WriteByte(' ')
		a = Display(a)
		if a == "" || strings.ContainsAny(a, " \t\n'\"") {
			b.WriteString(quote(a))
		} else {
			b.WriteString(a)
		}
	}
	return b.String()
}

func quote(s string) string {
	if strings.Contains(s, "'") && !strings.ContainsAny(s, "\"$`\\") {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Markers for values the analysis cannot know. They live in the Unicode
// private use area so they never collide with real command text.
const (
	unkOpen  = "\ue000"
	unkClose = "\ue001"
	// stdinWord stands for words xargs would read from its input when
	// that input is not known.
	stdinWord = "\ue002stdin\ue003"
)

// Unknown reports whether s contains a value the analysis could not
// resolve (an unset variable, a command substitution).
func Unknown(s string) bool {
	return strings.Contains(s, unkOpen) || strings.Contains(s, unkClose)
}

// UnknownNames returns the variable names that left s unresolved, "$()"
// for command substitutions.
func UnknownNames(s string) []string {
	var out []string
	for {
		i := strings.Index(s, unkOpen)
		if i < 0 {
			return out
		}
		s = s[i+len(unkOpen):]
		j := strings.Index(s, unkClose)
		if j < 0 {
			return append(out, s)
		}
		out = append(out, s[:j])
		s = s[j+len(unkClose):]
	}
}

// StartsUnknown reports whether the value of s begins with something
// unknown ("$X", "$X/sub", "$(cat f)").
func StartsUnknown(s string) bool {
	s = strings.TrimLeft(s, `"'`)
	return strings.HasPrefix(s, unkOpen) || strings.HasPrefix(s, unkClose)
}

// FromStdin reports whether s is a word xargs would read from its input.
func FromStdin(s string) bool { return strings.Contains(s, stdinWord) }

// Display replaces the private markers with shell-like text: $NAME,
// $(...) and {stdin}. Nested markers (an indirect ${!x} of an unknown x)
// are resolved innermost first.
func Display(s string) string {
	if !strings.ContainsAny(s, unkOpen+unkClose+"\ue002\ue003") {
		return s
	}
	s = strings.ReplaceAll(s, stdinWord, "{stdin}")
	for n := 0; n < 64; n++ {
		j := strings.Index(s, unkClose)
		if j < 0 {
			break
		}
		i := strings.LastIndex(s[:j], unkOpen)
		if i < 0 {
			s = s[:j] + s[j+len(unkClose):]
			continue
		}
		name := s[i+len(unkOpen) : j]
		rep := "$" + name
		if name == "$()" {
			rep = "$(...)"
		}
		s = s[:i] + rep + s[j+len(unkClose):]
	}
	return markerStrip.Replace(s)
}

// markerStrip removes the private-use markers that remain. Built once: a
// Replacer builds its lookup table on first use, and Display runs for
// every command the engine views.
var markerStrip = strings.NewReplacer(unkOpen, "", unkClose, "", "\ue002", "", "\ue003", "")

// Placeholder replaces every unknown part of s (an unset variable, a
// command substitution) with rep: "~/.aws/sso/cache/$(ls ...)" becomes
// "~/.aws/sso/cache/x", a path that can still be matched by shape.
func Placeholder(s, rep string) string {
	if !Unknown(s) {
		return s
	}
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch string(r) {
		case unkOpen:
			if depth == 0 {
				b.WriteString(rep)
			}
			depth++
			continue
		case unkClose:
			if depth > 0 {
				depth--
			}
			continue
		}
		if depth == 0 {
			b.WriteRune(r)
		}
	}
	return b.String()
}
