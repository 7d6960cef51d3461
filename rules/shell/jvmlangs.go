package shell

import (
	"strings"

	"github.com/ledger-audit/ledger-audit/internal/refilter"
)

// Clojure one-liners (bb -e, clojure -M -e) are read as the JVM code
// they call: the forms an agent uses to run a program, read or delete a
// file, or find the home directory are rewritten into the Java and
// Groovy spellings the "java" scanner already knows, innermost first.
// Anything else stays as written and is scanned as it is.
var (
	cljPropRe   = refilter.MustCompile(`\(System/(getProperty|getenv)\s+("[^"]*")\)`)
	cljArg      = `"[^"]*"|System\.get(?:Property|env)\("[^"]*"\)(?: \+ "[^"]*")*`
	cljStrRe    = refilter.MustCompile(`\(str((?:\s+(?:` + cljArg + `))+)\)`)
	cljArgRe    = refilter.MustCompile(cljArg)
	cljShellRe  = refilter.MustCompile(`\((?:[\w.-]+/)?(?:shell|sh|process|exec)\s+(?:\{[^{}]*\}\s*)?((?:"[^"]*"\s*)+)\)`)
	cljDeleteRe = refilter.MustCompile(`\((?:[\w.-]+/)?(?:delete-tree|delete-dir|delete-file|delete-on-exit)\s+(` + cljArg + `)\)`)
	cljSlurpRe  = refilter.MustCompile(`\((?:[\w.-]+/)?slurp\s+(` + cljArg + `)\)`)
)

func clojureAsJava(code string) string {
	code = cljPropRe.ReplaceAllString(code, `System.$1($2)`)
	code = cljStrRe.ReplaceAllStringFunc(code, func(m string) string {
		return strings.Join(cljArgRe.FindAllString(m, -1), " + ")
	})
	code = cljShellRe.ReplaceAllStringFunc(code, func(m string) string {
		args := cljArgRe.FindAllString(m[strings.Index(m, `"`):], -1)
		return "system(" + strings.Join(args, ", ") + ")"
	})
	code = cljDeleteRe.ReplaceAllString(code, `new File($1).deleteDir()`)
	// What bb -e evaluates last is printed, so a file read is shown.
	return cljSlurpRe.ReplaceAllString(code, `println(new File($1).text)`)
}

// Scala runs a program with the ! and !! operators of scala.sys.process
// (Seq("bash", "-c", CMD).!, "ls -la".!!, Process(CMD).!); Groovy's
// .execute() is the spelling the "java" scanner knows.
var (
	scalaSeqRe  = refilter.MustCompile(`\b(?:Seq|List)\(((?:\s*"[^"]*"\s*,?)+)\)\s*\.\s*!!?`)
	scalaProcRe = refilter.MustCompile(`\bProcess\(\s*("[^"]*")\s*\)\s*\.\s*!!?|("[^"]*")\s*\.\s*!!?`)
)

func scalaProcesses(code string) string {
	if !strings.Contains(code, "!") {
		return code
	}
	code = scalaSeqRe.ReplaceAllString(code, `[$1].execute()`)
	return scalaProcRe.ReplaceAllString(code, `$1$2.execute()`)
}
