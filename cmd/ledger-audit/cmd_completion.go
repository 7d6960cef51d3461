package main

import (
	"fmt"
	"sort"
	"strings"
)

// completion prints a shell completion script. Subcommand names are
// completed from the registry; arguments complete as file names, which is
// what every command takes (ledgers, packs, outputs).
func init() {
	c := &command{name: "completion", summary: "print a shell completion script (bash or zsh)", usage: "bash|zsh"}
	c.run = func(e *env, args []string) error {
		fs := newFlags(e, c)
		if err := parseFlags(e, c, fs, args); err != nil {
			return err
		}
		if fs.NArg() != 1 {
			return usagef("want exactly one shell: bash or zsh")
		}
		names := make([]string, 0, len(commands))
		for n := range commands {
			names = append(names, n)
		}
		sort.Strings(names)
		words := strings.Join(names, " ")
		switch fs.Arg(0) {
		case "bash":
			fmt.Fprintf(e.stdout, bashCompletion, words)
		case "zsh":
			fmt.Fprintf(e.stdout, "#compdef ledger-audit\nautoload -U +X bashcompinit && bashcompinit\n"+bashCompletion, words)
		default:
			return usagef("unknown shell %q: want bash or zsh", fs.Arg(0))
		}
		return nil
	}
	register(c)
}

const bashCompletion = `# ledger-audit completion; load with: source <(ledger-audit completion bash)
_ledger_audit() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "%s" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -o filenames -F _ledger_audit ledger-audit
`
