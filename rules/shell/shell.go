// Package shell turns a command line into the simple commands it would
// run, the way a shell would see them: parsed with mvdan.cc/sh/v3, with
// wrappers, paths, quoting tricks and nested interpreters peeled away.
// Both the policy engine and the OWASP posture rules read commands through
// it, so there is one notion of "what this command does".
//
// It never executes anything and never touches the filesystem.
package shell

// Command is one simple command after normalisation.
//
// CONTRACT (written before the implementation so rules/owasp and
// rules/policy can be built in parallel): fields may be added; these keep
// their meaning.
type Command struct {
	// Name is the program as a shell would resolve it, basename only and
	// with wrappers removed: "/usr/bin/sudo -E r''m -rf /" gives "rm".
	Name string
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
}

// Redirect is one redirection such as "> out.txt" or "< ~/.ssh/id_rsa".
type Redirect struct {
	Op     string // ">", ">>", "<", "<<", "<<<", "&>", ...
	Target string // the word, resolved like Args; heredoc body for "<<"
}
