package shell

import "strings"

// HelpOnly reports whether the command only asks a program for its
// usage text: "terraform destroy -help", "kubectl delete --help", "aws
// s3 rb help", "gcloud help projects delete", or (kubectl) whether a
// verb is allowed. Such a command prints and exits; the verbs it names
// never run, so matching it as the verb would
// block the very lookup an agent makes before acting carefully.
//
// Programs that hand their remaining words to code are excluded: a
// shell, an interpreter, a script by path or a task runner may pass
// "--help" on to what they run ("python manage.py flush --help" runs
// manage.py). Words after "--" belong to the program's operands.
func (c Command) HelpOnly() bool {
	if codeRunners[c.Name] || strings.Contains(c.Program, "/") || strings.HasPrefix(c.Program, ".") {
		return false
	}
	kube := c.Name == "kubectl" || c.Name == "oc"
	for i, a := range c.Args {
		switch {
		case kube && (a == "exec" || a == "run" || a == "debug" || a == "attach"):
			return false // the rest is the container's command
		case kube && (a == "who-can" || a == "access-matrix") && firstOperand(c.Args) == i,
			kube && a == "can-i" && i > 0 && c.Args[i-1] == "auth" && firstOperand(c.Args) == i-1:
			// "kubectl auth can-i delete namespaces", "kubectl who-can
			// delete pods": questions about permissions, answered
			// without acting on anything.
			return true
		case a == "--":
			return false
		case a == "--help" || a == "-help":
			return true
		case a == "help" && (i == len(c.Args)-1 && c.Name == "aws" || i == 0 && helpVerbs[c.Name]):
			return true
		}
	}
	return false
}

// kubeGlobalValued are kubectl's global options that take the next word
// as their value.
var kubeGlobalValued = map[string]bool{"--context": true, "--cluster": true, "--user": true, "--kubeconfig": true, "-s": true, "--server": true, "--as": true}

// firstOperand is the index of the first word of kubectl's args that is
// not an option ("-n ns", "--context=x" and their values skipped), or -1.
func firstOperand(args []string) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-n" || a == "--namespace" || kubeGlobalValued[a]:
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return i
		}
	}
	return -1
}

// codeRunners pass words after the program on to code they run.
var codeRunners = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "fish": true, "ash": true, "busybox": true,
	"pwsh": true, "powershell": true, "powershell.exe": true, "cmd": true, "cmd.exe": true,
	"python": true, "python3": true, "python2": true, "py": true, "pypy3": true, "node": true, "deno": true, "bun": true,
	"ruby": true, "perl": true, "php": true, "lua": true, "Rscript": true, "java": true, "dotnet": true, "go": true,
	"make": true, "gmake": true, "npm": true, "pnpm": true, "yarn": true, "npx": true, "just": true, "task": true,
	"rake": true, "invoke": true, "poetry": true, "uv": true, "pipenv": true, "cargo": true, "ssh": true,
	"docker": true, "podman": true, "eval": true, "source": true, ".": true, "exec": true,
	"xargs": true, "parallel": true, "watch": true, "su": true, "sudo": true, "env": true,
}

// helpVerbs take "help" as their first word to print usage: "git help
// push", "gcloud help projects delete", "helm help uninstall".
var helpVerbs = map[string]bool{"git": true, "gcloud": true, "helm": true, "terraform": true, "gh": true, "az": true, "heroku": true, "doctl": true, "fly": true, "flyctl": true}
