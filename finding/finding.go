// Package finding holds the leaf domain types shared by rules, analysis
// and reports: Severity and its weight, Rule metadata, Finding with its
// evidence and fingerprint, and the auditable Score. It imports nothing
// of ours, so rules and analysis never need to import each other.
package finding

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Severity of a finding. The weight is what the score subtracts.
type Severity int

// Severities, lowest first so comparisons read naturally.
const (
	Low Severity = iota + 1
	Medium
	High
	Critical
)

// Weight is the score penalty of one finding of this severity.
func (s Severity) Weight() int {
	switch s {
	case Critical:
		return 25
	case High:
		return 15
	case Medium:
		return 8
	case Low:
		return 3
	}
	return 0
}

func (s Severity) String() string {
	switch s {
	case Critical:
		return "CRITICAL"
	case High:
		return "HIGH"
	case Medium:
		return "MEDIUM"
	case Low:
		return "LOW"
	}
	return "UNKNOWN"
}

// Severities lists all severities, most severe first.
var Severities = []Severity{Critical, High, Medium, Low}

// ParseSeverity reads CRITICAL/HIGH/MEDIUM/LOW in any case.
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "CRITICAL":
		return Critical, nil
	case "HIGH":
		return High, nil
	case "MEDIUM":
		return Medium, nil
	case "LOW":
		return Low, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want critical, high, medium or low)", s)
}

// MarshalText makes severities read as words in JSON and YAML.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText is the inverse of MarshalText.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Category is an OWASP Top 10 for Agentic Applications (2026) category id.
type Category string

// Categories measurable from a ledger. ASI11 is a community extension: the
// official list ends at ASI10, and every report must say so.
const (
	ASI02 Category = "ASI02"
	ASI05 Category = "ASI05"
	ASI08 Category = "ASI08"
	ASI10 Category = "ASI10"
	ASI11 Category = "ASI11"
)

var categoryNames = map[Category]string{
	"ASI01": "Agent Goal Hijack",
	ASI02:   "Tool Misuse & Exploitation",
	"ASI03": "Identity & Privilege Abuse",
	"ASI04": "Agentic Supply Chain Vulnerabilities",
	ASI05:   "Unexpected Code Execution",
	"ASI06": "Memory & Context Poisoning",
	"ASI07": "Insecure Inter-Agent Communication",
	ASI08:   "Cascading Failures",
	"ASI09": "Human-Agent Trust Exploitation",
	ASI10:   "Rogue Agents",
	ASI11:   "Excessive Agency (community extension, not part of the official OWASP list)",
}

// Name is the category's title.
func (c Category) Name() string {
	if n, ok := categoryNames[c]; ok {
		return n
	}
	return string(c)
}

// Extension reports whether the category is outside the official list.
func (c Category) Extension() bool { return c == ASI11 }

// Valid reports whether c is a known category.
func (c Category) Valid() bool { _, ok := categoryNames[c]; return ok }

// MeasuredCategories are the categories ledger-audit scores, in order.
var MeasuredCategories = []Category{ASI02, ASI05, ASI08, ASI10, ASI11}

// Rule is the metadata of one posture rule.
type Rule struct {
	ID          string   `json:"id"`
	Category    Category `json:"category"`
	Severity    Severity `json:"severity"`
	Title       string   `json:"title"`
	Rationale   string   `json:"rationale"`
	Remediation string   `json:"remediation"`
}

// Evidence points at one ledger row that supports a finding.
type Evidence struct {
	Ledger    string    `json:"ledger"`
	Row       int64     `json:"row"`               // events.id of the issued row
	CallID    string    `json:"call_id,omitempty"` // the client's id
	TS        time.Time `json:"ts"`
	Session   string    `json:"session"`
	Tool      string    `json:"tool"`
	Excerpt   string    `json:"excerpt"` // the matching argument text, redacted
	Truncated bool      `json:"truncated,omitempty"`
}

// Finding is one scored observation. Findings are never deduplicated: ten
// recursive deletes are ten findings and cost ten times the weight.
type Finding struct {
	RuleID      string     `json:"rule_id"`
	Category    Category   `json:"category"`
	Severity    Severity   `json:"severity"`
	Weight      int        `json:"weight"`
	Title       string     `json:"title"`
	Message     string     `json:"message"`
	Remediation string     `json:"remediation"`
	Evidence    []Evidence `json:"evidence"` // first is the primary call
	Fingerprint string     `json:"fingerprint"`

	Suppressed     bool   `json:"suppressed,omitempty"`
	SuppressReason string `json:"suppress_reason,omitempty"`
}

// New builds a finding from its rule, with weight and fingerprint filled in.
func New(r Rule, message string, ev ...Evidence) Finding {
	f := Finding{
		RuleID: r.ID, Category: r.Category, Severity: r.Severity, Weight: r.Severity.Weight(),
		Title: r.Title, Message: message, Remediation: r.Remediation, Evidence: ev,
	}
	f.Fingerprint = Fingerprint(f)
	return f
}

// Fingerprint is a stable identity for a finding: the rule and the rows it
// cites (session, tool call, timestamp, excerpt), not the ledger's file
// name, so it survives copying the ledger and re-running the audit.
func Fingerprint(f Finding) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", f.RuleID)
	for _, e := range f.Evidence {
		fmt.Fprintf(h, "%s\x00%d\x00%s\x00%s\x00%s\x00%s\x00", e.Session, e.Row, e.CallID, e.TS.UTC().Format(time.RFC3339Nano), e.Tool, e.Excerpt)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// primaryTS is the first evidence timestamp, or zero.
func (f *Finding) primaryTS() time.Time {
	if len(f.Evidence) == 0 {
		return time.Time{}
	}
	return f.Evidence[0].TS
}

// Sort orders findings: severity (most severe first), then time, then rule
// id, then ledger and row, then fingerprint, so output is deterministic.
func Sort(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := &fs[i], &fs[j]
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		if ta, tb := a.primaryTS(), b.primaryTS(); !ta.Equal(tb) {
			return ta.Before(tb)
		}
		if a.RuleID != b.RuleID {
			return a.RuleID < b.RuleID
		}
		la, lb := evKey(a), evKey(b)
		if la != lb {
			return la < lb
		}
		return a.Fingerprint < b.Fingerprint
	})
}

func evKey(f *Finding) string {
	if len(f.Evidence) == 0 {
		return ""
	}
	return f.Evidence[0].Ledger + "\x00" + fmt.Sprintf("%020d", f.Evidence[0].Row)
}

// CategoryTotal is one line of the per-category subtotal table.
type CategoryTotal struct {
	Category  Category `json:"category"`
	Name      string   `json:"name"`
	Extension bool     `json:"extension,omitempty"`
	Findings  int      `json:"findings"`
	Penalty   int      `json:"penalty"`
}

// Score is the auditable posture score: max(0, 100 − Σ weight) over the
// unsuppressed findings, with everything needed to recompute it by hand.
type Score struct {
	Score      int             `json:"score"`
	Penalty    int             `json:"penalty"` // raw Σ weight, may exceed 100
	Counts     map[string]int  `json:"counts"`  // by severity name
	Categories []CategoryTotal `json:"categories"`
	Formula    string          `json:"formula"`
	Suppressed int             `json:"suppressed"`
}

// Compute scores a finding list. Suppressed findings are counted apart and
// cost nothing.
func Compute(fs []Finding) Score {
	s := Score{Counts: map[string]int{}}
	bySev := map[Severity]int{}
	byCat := map[Category]*CategoryTotal{}
	for _, c := range MeasuredCategories {
		byCat[c] = &CategoryTotal{Category: c, Name: c.Name(), Extension: c.Extension()}
	}
	for _, f := range fs {
		if f.Suppressed {
			s.Suppressed++
			continue
		}
		w := f.Severity.Weight()
		s.Penalty += w
		bySev[f.Severity]++
		ct := byCat[f.Category]
		if ct == nil {
			ct = &CategoryTotal{Category: f.Category, Name: f.Category.Name(), Extension: f.Category.Extension()}
			byCat[f.Category] = ct
		}
		ct.Findings++
		ct.Penalty += w
	}
	for _, sev := range Severities {
		s.Counts[sev.String()] = bySev[sev]
	}
	for _, ct := range byCat {
		s.Categories = append(s.Categories, *ct)
	}
	sort.Slice(s.Categories, func(i, j int) bool { return s.Categories[i].Category < s.Categories[j].Category })
	s.Score = 100 - s.Penalty
	if s.Score < 0 {
		s.Score = 0
	}
	s.Formula = formula(bySev, s.Penalty, s.Score)
	return s
}

// formula renders "100 − (2×25 + 1×15 + 3×8) = 11", or "100 − 0 = 100".
func formula(bySev map[Severity]int, penalty, score int) string {
	var terms []string
	for _, sev := range Severities {
		if n := bySev[sev]; n > 0 {
			terms = append(terms, strconv.Itoa(n)+"×"+strconv.Itoa(sev.Weight()))
		}
	}
	if len(terms) == 0 {
		return "100 − 0 = 100"
	}
	out := "100 − (" + strings.Join(terms, " + ") + ")"
	if penalty > 100 {
		return fmt.Sprintf("max(0, %s) = max(0, %d) = %d", out, 100-penalty, score)
	}
	return fmt.Sprintf("%s = %d", out, score)
}
