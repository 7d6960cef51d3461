package owasp

import (
	"fmt"
	"strings"

	"github.com/ledger-audit/ledger-audit/finding"
	"github.com/ledger-audit/ledger-audit/internal/refilter"
	"github.com/ledger-audit/ledger-audit/rules/shell"
)

// ASI05 Unexpected Code Execution. Shell-level execution risks —
// pipe-to-shell, eval, interpreter -c with encoded payloads, installs from
// URLs, sudo, writes to sensitive paths — are pack rules of the policy
// engine (FromHit). What the shell packs cannot read is code handed to a
// code-execution tool (Hermes execute_code, notebook cells): that is
// Python, not shell, and is checked here.
var RuleDynamicCode = rule(finding.Rule{
	ID: "ASI05-DYNAMIC-CODE", Category: finding.ASI05, Severity: finding.High,
	Title:       "Code tool runs decoded or downloaded code",
	Rationale:   "Code that decodes (base64, hex, zlib, rot13) or downloads a payload and then executes it hides what actually ran from every reviewer and from the ledger itself.",
	Remediation: "Recover and read the decoded payload; forbid exec/eval of decoded or fetched data in the code tool's sandbox.",
})

// codeTools take program text rather than a shell command.
var codeTools = map[string][]string{
	"execute_code": {"code", "source", "script"},
	"NotebookEdit": {"new_source"},
	"run_python":   {"code"},
}

var (
	// Payload producers: decoders and fetchers.
	decodeRE = refilter.MustCompile(`\b(b64decode|b32decode|a85decode|urlsafe_b64decode|decodebytes|bytes\.fromhex|unhexlify|zlib\.decompress|gzip\.decompress|lzma\.decompress|marshal\.loads|codecs\.decode\([^)]*rot.?13)\b|\batob\(|Buffer\.from\([^)]*['"]base64['"]`)
	fetchRE  = refilter.MustCompile(`\b(urlopen|urllib\.request|requests\.(get|post)|httpx\.(get|post)|http\.client|fetch\()`)
	// Executors of a string or bytes payload.
	execRE = refilter.MustCompile(`(^|[^.\w])(exec|eval)\s*\(|\bcompile\s*\(|\bos\.(system|popen|exec\w*)\s*\(|\bsubprocess\.\w+\([^)]*shell\s*=\s*True|\b__import__\s*\(|\bnew Function\(|\bvm\.runIn\w*Context\(`)
)

func (k *Checker) asi05(v *view) []finding.Finding {
	keys, ok := codeTools[v.c.Tool]
	if !ok {
		return nil
	}
	full := v.a().str(keys...)
	if full == "" {
		return nil
	}
	// Python (these tools' default) comments run nothing: a payload
	// described in a comment is not executed.
	code := full
	switch strings.ToLower(v.a().str("language", "lang")) {
	case "", "python", "python3", "py":
		code = shell.StripPythonComments(full)
	}
	if !mayExec(code) {
		return nil
	}
	ex := execRE.FindString(code)
	if ex == "" {
		return nil
	}
	src := decodeRE.FindString(code)
	kind := "decodes"
	if src == "" {
		src = fetchRE.FindString(code)
		kind = "downloads"
	}
	if src == "" {
		return nil
	}
	msg := fmt.Sprintf("%s code %s a payload (%s) and executes it (%s)", v.c.Tool, kind, src, strings.TrimSpace(strings.TrimLeft(ex, "( \t")))
	return []finding.Finding{finding.New(RuleDynamicCode, msg, evidence(v.c, excerpt(full, excerptRunes)))}
}

// execLiterals holds a literal that each alternative of execRE contains:
// code containing none of them cannot match, and most code tool calls
// are ordinary scripts, so the regexp is only run when it could match.
var execLiterals = []string{"exec", "eval", "compile", "os.", "subprocess.", "__import__", "new Function(", "vm.runIn"}

func mayExec(code string) bool {
	for _, l := range execLiterals {
		if strings.Contains(code, l) {
			return true
		}
	}
	return false
}
