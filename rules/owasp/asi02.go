package owasp

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ledger-audit/ledger-audit/finding"
	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/ledger-audit/ledger-audit/rules/policy"
)

// ASI02 Tool Misuse & Exploitation. Destructive commands (recursive
// deletes, disk wipes, force pushes, DROP/TRUNCATE) are pack rules of the
// policy engine, turned into findings by FromHit; these rules cover sizes,
// chains and bursts.
var (
	RuleOversizedArgs = rule(finding.Rule{
		ID: "ASI02-OVERSIZED-ARGS", Category: finding.ASI02, Severity: finding.Medium,
		Title:       "Oversized tool arguments",
		Rationale:   "Arguments near or past the ledger's 4000-character cap are where injected payloads, bulk data and smuggled content hide, and the truncated part cannot be reviewed.",
		Remediation: "Review what the call carried and why; prefer passing files by path, and cap argument sizes in the tool layer.",
	})
	RuleExfilChain = rule(finding.Rule{
		ID: "ASI02-EXFIL-CHAIN", Category: finding.ASI02, Severity: finding.High,
		Title:       "Read → archive → outbound transfer chain",
		Rationale:   "Packing files into an archive and then sending that archive to a remote host is the shape of bulk data exfiltration, even when each step looks harmless alone.",
		Remediation: "Confirm the transfer was requested and the destination is trusted; block outbound uploads from agent sessions by policy (network-send rules in enforce mode).",
	})
	RuleMassEdit = rule(finding.Rule{
		ID: "ASI02-MASS-EDIT", Category: finding.ASI02, Severity: finding.Medium,
		Title:       "Mass edit",
		Rationale:   "Changing many distinct files within minutes multiplies the blast radius of one wrong instruction and is hard to review afterwards.",
		Remediation: "Review the diff as a whole; require a checkpoint (commit or confirmation) before bulk edits.",
	})
)

func (k *Checker) asi02(s *session, v *view, hits []policy.Hit) []finding.Finding {
	var out []finding.Finding
	if f, ok := k.oversized(v); ok {
		out = append(out, f)
	}
	out = append(out, k.massEdit(s, v)...)
	out = append(out, k.exfilChain(s, v, hits)...)
	return out
}

func (k *Checker) oversized(v *view) (finding.Finding, bool) {
	n := utf8.RuneCountInString(v.c.Args) // as len([]rune(s)), without the copy
	if !v.c.ArgsTruncated && n < k.o.OversizeChars {
		return finding.Finding{}, false
	}
	msg := fmt.Sprintf("%s call with %d characters of arguments", v.c.Tool, n)
	if v.c.ArgsTruncated {
		msg += fmt.Sprintf(", truncated at the ledger's %d-character cap: the rest was never recorded", ledger.MaxArgsChars)
	}
	return finding.New(RuleOversizedArgs, msg, evidence(v.c, v.ex())), true
}

// massEdit fires when MassEditFiles distinct files were changed within
// MassEditWindow; the files of one burst are then forgotten, so a long
// refactor yields one finding per burst, not one per file.
func (k *Checker) massEdit(s *session, v *view) []finding.Finding {
	if v.c.Status == ledger.StatusError || v.c.Status == ledger.StatusBlocked {
		return nil
	}
	paths := v.writes()
	if len(paths) == 0 {
		return nil
	}
	cut := v.c.TS.Add(-k.o.MassEditWindow)
	kept := s.edits[:0]
	for _, m := range s.edits {
		if !m.ts.Before(cut) {
			kept = append(kept, m)
		}
	}
	s.edits = kept
	for _, p := range paths {
		s.edits = append(s.edits, markOf(v.c, v.ex(), p))
	}
	if len(s.edits) > maxWindow {
		s.edits = s.edits[len(s.edits)-maxWindow:]
	}
	files := map[string]bool{}
	for _, m := range s.edits {
		files[m.key] = true
	}
	if len(files) < k.o.MassEditFiles {
		return nil
	}
	first := s.edits[0]
	s.edits = s.edits[:0]
	sample := sortedKeys(files)
	if len(sample) > 5 {
		sample = append(sample[:5], "…")
	}
	msg := fmt.Sprintf("%d distinct files changed within %s in session %s (%s)",
		len(files), k.o.MassEditWindow, s.id, strings.Join(sample, ", "))
	return []finding.Finding{finding.New(RuleMassEdit, msg, first.ev, evidence(v.c, v.ex()))}
}

// exfilChain follows archives created in the session and fires when one
// is sent out: in a later call (the archive file named by a network
// command) or in the same pipeline ("tar c . | curl -T - host").
func (k *Checker) exfilChain(s *session, v *view, hits []policy.Hit) []finding.Finding {
	f := v.facts()
	if f == nil {
		return nil
	}
	var out []finding.Finding
	for _, a := range f.archives {
		if a.out != "" {
			s.archives.put(a.out, markOf(v.c, excerpt(a.text, excerptRunes), a.out))
		}
	}
	f.addTaggedSends(hits)
	if !f.sends() {
		return nil
	}
	for _, snd := range f.sendOps {
		if snd.secret { // the taint rule reports it, at a higher severity
			continue
		}
		if snd.archivePiped != "" {
			msg := fmt.Sprintf("archive piped straight to an outbound transfer: %s", snd.text)
			out = append(out, finding.New(RuleExfilChain, msg, evidence(v.c, excerpt(snd.text, excerptRunes))))
			continue
		}
		for _, p := range snd.files {
			if m, ok := s.archives.get(p); ok {
				msg := fmt.Sprintf("archive %s created at %s and sent out with %s", p, ledger.FormatTime(m.ts), snd.name)
				out = append(out, finding.New(RuleExfilChain, msg, m.ev, evidence(v.c, excerpt(snd.text, excerptRunes))))
				s.archives.del(p)
				break
			}
		}
	}
	return out
}
