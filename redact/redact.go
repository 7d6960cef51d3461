// Package redact removes secrets from text before it reaches a report, a
// log line or a chat message. Ledgers hold commands and file contents
// verbatim, so every excerpt a user sees goes through String unless they
// asked for --no-redact.
package redact

import (
	"strings"

	"github.com/ledger-audit/ledger-audit/internal/refilter"
)

// Mask replaces a secret's value.
const Mask = "[REDACTED]"

type pattern struct {
	re *refilter.Regexp
	// keep: group 1 (the label, e.g. "Authorization: Bearer ") and any
	// groups after 2 are kept verbatim; only group 2, the value, is masked.
	keep bool
}

// The patterns cover the shapes named in the audit issue: well-known token
// prefixes (AWS, GitHub, Slack, Telegram, OpenAI/Anthropic-style keys,
// Google API keys, JWTs, private key blocks), Authorization headers, and
// key=value / key: value / --flag value assignments whose key names a
// secret. They err on the side of masking: a report that hides a harmless
// string costs little; one that leaks a key costs a rotation.
var patterns = []pattern{
	{re: refilter.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)`)},
	{re: refilter.MustCompile(`(?i)(authorization\s*[:=]\s*(?:bearer|basic|token|bot)?\s*)([^\s"',;]+)`), keep: true},
	// key=value and "key": "value" assignments whose key names a secret.
	{re: refilter.MustCompile(`(?i)((?:^|[\s"'{,;&?-])(?:[a-z0-9_.-]*(?:passw(?:or)?d|passwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential|auth)[a-z0-9_.-]*)["']?\s*(?:=|:)\s*["']?)([^\s"',;&}]{4,})`), keep: true},
	// --flag value on a command line. Only flags: in prose ("use the
	// credential through its tool") a secret-sounding word is followed by
	// an ordinary word, which must stay readable.
	{re: refilter.MustCompile(`(?i)((?:^|\s)--?[a-z0-9_-]*(?:passw(?:or)?d|passwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential)[a-z0-9_-]*\s+["']?)([^\s"',;&}]{4,})`), keep: true},
	{re: refilter.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{re: refilter.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{30,}\b`)},
	{re: refilter.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{40,}\b`)},
	{re: refilter.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}\b`)},
	{re: refilter.MustCompile(`\d{6,12}:AA[A-Za-z0-9_-]{30,}`)}, // Telegram bot token
	{re: refilter.MustCompile(`\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}\b`)},
	{re: refilter.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`)},
	{re: refilter.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b`)}, // JWT
	{re: refilter.MustCompile(`(?i)(https?://[^\s:/@]+:)([^\s@/]+)(@)`), keep: true},             // user:pass@host
}

// String returns s with every recognised secret replaced by Mask.
func String(s string) string {
	if s == "" {
		return s
	}
	for _, p := range patterns {
		if !p.keep {
			s = p.re.ReplaceAllString(s, Mask)
			continue
		}
		s = p.re.ReplaceAllStringFunc(s, func(m string) string {
			sub := p.re.FindStringSubmatch(m)
			if len(sub) < 3 || strings.Contains(sub[2], Mask) {
				return m
			}
			out := sub[1] + Mask
			if len(sub) > 3 {
				out += strings.Join(sub[3:], "")
			}
			return out
		})
	}
	return s
}

// Redactor applies String or, when disabled (--no-redact), nothing.
type Redactor struct{ Off bool }

// String redacts s unless the redactor is off.
func (r Redactor) String(s string) string {
	if r.Off {
		return s
	}
	return String(s)
}
