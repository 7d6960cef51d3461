package analyze

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/ledger-audit/ledger-audit/finding"
	"gopkg.in/yaml.v3"
)

// DefaultSuppressionFile is read from the working directory when no
// --ignore file is given.
const DefaultSuppressionFile = ".ledger-audit-ignore.yaml"

// Suppressions are accepted findings: each entry names a fingerprint (one
// finding) or a rule id (all its findings), a reason and an expiry date.
// A suppressed finding stays in the report, marked, and costs nothing;
// an expired entry stops applying and is reported, so an exception can
// never outlive its review date silently.
//
//	suppressions:
//	  - fingerprint: 3f2a9c01d4e5b6a7
//	    reason: "legacy-api removal approved in OPS-112"
//	    expires: 2027-01-31
//	  - rule: ASI10-OUTSIDE-CWD
//	    reason: "monorepo tooling writes to ../shared by design"
//	    expires: 2027-03-01
type Suppressions struct {
	Path    string
	entries []*suppression
}

type suppression struct {
	line        int
	fingerprint string
	rule        string
	reason      string
	expires     time.Time // end of the expiry day, exclusive
	day         time.Time
	count       int
	expired     bool
}

// LoadSuppressions reads a suppression file. known reports whether a rule
// id exists (an unknown id is almost always a typo that would silently
// suppress nothing). When required is false a missing file means no
// suppressions. Every problem is one line "<file>:<line>: <problem>".
func LoadSuppressions(path string, required bool, known func(string) bool) (*Suppressions, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !required {
			return nil, nil
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return ParseSuppressions(path, data, known)
}

// ParseSuppressions parses the YAML text of a suppression file.
func ParseSuppressions(path string, data []byte, known func(string) bool) (*Suppressions, error) {
	s := &Suppressions{Path: path}
	bad := func(line int, format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s", path, line, fmt.Sprintf(format, a...))
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		line := 1
		if _, err := fmt.Sscanf(msg, "line %d:", &line); err == nil {
			msg = strings.TrimSpace(msg[strings.Index(msg, ":")+1:])
		}
		return nil, bad(line, "malformed YAML: %s", msg)
	}
	if len(doc.Content) == 0 {
		return s, nil // an empty file suppresses nothing
	}
	root := doc.Content[0]
	list := root
	if root.Kind == yaml.MappingNode {
		list = nil
		for i := 0; i+1 < len(root.Content); i += 2 {
			k := root.Content[i]
			if k.Value != "suppressions" {
				return nil, bad(k.Line, "unknown key %q (want suppressions)", k.Value)
			}
			list = root.Content[i+1]
		}
		if list == nil {
			return s, nil
		}
	}
	if list.Kind == yaml.ScalarNode && list.Tag == "!!null" {
		return s, nil
	}
	if list.Kind != yaml.SequenceNode {
		return nil, bad(list.Line, "suppressions must be a list of entries")
	}
	for _, n := range list.Content {
		e, err := parseEntry(n, known, bad)
		if err != nil {
			return nil, err
		}
		s.entries = append(s.entries, e)
	}
	return s, nil
}

func parseEntry(n *yaml.Node, known func(string) bool, bad func(int, string, ...any) error) (*suppression, error) {
	if n.Kind != yaml.MappingNode {
		return nil, bad(n.Line, "an entry must be a mapping with fingerprint or rule, reason and expires")
	}
	e := &suppression{line: n.Line}
	var expires string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			return nil, bad(v.Line, "%s must be a single value", k.Value)
		}
		val := strings.TrimSpace(v.Value)
		switch k.Value {
		case "fingerprint":
			e.fingerprint = strings.ToLower(val)
		case "rule":
			e.rule = val
		case "reason":
			e.reason = val
		case "expires":
			expires = val
		default:
			return nil, bad(k.Line, "unknown key %q (want fingerprint, rule, reason, expires)", k.Value)
		}
	}
	switch {
	case e.fingerprint == "" && e.rule == "":
		return nil, bad(n.Line, "entry needs a fingerprint or a rule")
	case e.fingerprint != "" && e.rule != "":
		return nil, bad(n.Line, "entry has both fingerprint and rule; use one per entry")
	case e.fingerprint != "" && !isHex(e.fingerprint):
		return nil, bad(n.Line, "fingerprint %q is not a hex finding fingerprint", e.fingerprint)
	case e.rule != "" && known != nil && !known(e.rule):
		return nil, bad(n.Line, "unknown rule id %q (see ledger-audit audit --rules)", e.rule)
	case e.reason == "":
		return nil, bad(n.Line, "entry has no reason (say why the finding is accepted)")
	case expires == "":
		return nil, bad(n.Line, "entry has no expires date (YYYY-MM-DD)")
	}
	day, err := time.Parse("2006-01-02", expires)
	if err != nil {
		t, err2 := time.Parse(time.RFC3339, expires)
		if err2 != nil {
			return nil, bad(n.Line, "expires %q is not a date (want YYYY-MM-DD)", expires)
		}
		day = t.UTC().Truncate(24 * time.Hour)
	}
	e.day = day
	e.expires = day.Add(24 * time.Hour) // valid through the whole expiry day (UTC)
	return e, nil
}

func isHex(s string) bool {
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return len(s) >= 8
}

// reset clears the per-run counts, so one set can serve several audits.
func (s *Suppressions) reset() {
	if s == nil {
		return
	}
	for _, e := range s.entries {
		e.count, e.expired = 0, false
	}
}

// apply marks the findings an active entry matches. A nil set applies
// nothing.
func (s *Suppressions) apply(fs []finding.Finding, now time.Time) {
	if s == nil {
		return
	}
	for _, e := range s.entries {
		if !now.Before(e.expires) {
			e.expired = true
		}
	}
	for i := range fs {
		f := &fs[i]
		for _, e := range s.entries {
			if e.expired {
				continue
			}
			if (e.fingerprint != "" && e.fingerprint == f.Fingerprint) || (e.rule != "" && e.rule == f.RuleID) {
				f.Suppressed, f.SuppressReason = true, e.reason
				e.count++
				break
			}
		}
	}
}

// notes reports every entry: applied, expired (no longer applying) or
// unused (matched nothing — a stale exception worth deleting).
func (s *Suppressions) notes() []SuppressionNote {
	if s == nil {
		return nil
	}
	out := make([]SuppressionNote, 0, len(s.entries))
	for _, e := range s.entries {
		n := SuppressionNote{Match: e.fingerprint + e.rule, Reason: e.reason, Expires: e.day, Count: e.count}
		switch {
		case e.expired:
			n.Status = "expired"
		case e.count > 0:
			n.Status = "applied"
		default:
			n.Status = "unused"
		}
		out = append(out, n)
	}
	return out
}

// Expired lists "<file>:<line>: ..." lines for expired entries, for the
// CLI to print as warnings.
func (s *Suppressions) Expired(now time.Time) []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, e := range s.entries {
		if !now.Before(e.expires) {
			out = append(out, fmt.Sprintf("%s:%d: suppression of %s expired on %s and no longer applies",
				s.Path, e.line, e.fingerprint+e.rule, e.day.Format("2006-01-02")))
		}
	}
	return out
}
