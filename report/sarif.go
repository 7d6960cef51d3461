package report

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/finding"
)

// sarifReporter writes SARIF 2.1.0 as GitHub code scanning accepts it:
// every rule with descriptions, help and security-severity; every result
// with a physical location (the ledger file, the evidence row as the
// "line") and a partial fingerprint so alerts track across runs.
type sarifReporter struct{}

const (
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion = "2.1.0"
	infoURI      = "https://github.com/ledger-audit/ledger-audit"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations,omitempty"`
	Results     []sarifResult     `json:"results"`
	Properties  map[string]any    `json:"properties,omitempty"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool   `json:"executionSuccessful"`
	EndTimeUTC          string `json:"endTimeUtc,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      sarifText      `json:"fullDescription"`
	Help                 sarifText      `json:"help"`
	DefaultConfiguration sarifConfig    `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Suppressions        []sarifSupp       `json:"suppressions,omitempty"`
	Properties          map[string]any    `json:"properties,omitempty"`
}

type sarifSupp struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifAL struct {
	URI string `json:"uri"`
}

type sarifPhysical struct {
	ArtifactLocation sarifAL     `json:"artifactLocation"`
	Region           sarifRegion `json:"region"`
}

type sarifRegion struct {
	StartLine int64 `json:"startLine"`
}

// securitySeverity maps our severities onto GitHub's numeric scale
// (critical ≥ 9.0, high ≥ 7.0, medium ≥ 4.0, low below).
func securitySeverity(s finding.Severity) string {
	switch s {
	case finding.Critical:
		return "9.0"
	case finding.High:
		return "7.0"
	case finding.Medium:
		return "5.0"
	}
	return "3.0"
}

func sarifLevel(s finding.Severity) string {
	switch s {
	case finding.Critical, finding.High:
		return "error"
	case finding.Medium:
		return "warning"
	}
	return "note"
}

// sarifURI turns a ledger path into a URI reference: relative paths stay
// relative (GitHub resolves them against the repository root), absolute
// ones become file:// URIs, and non-ASCII characters are percent-encoded.
func sarifURI(path string) string {
	if path == "" {
		return "ledger"
	}
	p := filepath.ToSlash(path)
	if filepath.IsAbs(path) {
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: strings.TrimPrefix(p, "./")}).String()
}

func (sarifReporter) Render(w io.Writer, r *analyze.Result) error {
	rules := ruleList(r)
	index := map[string]int{}
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name: orDefault(r.Tool.Name, "ledger-audit"), Version: r.Tool.Version, InformationURI: infoURI,
			Rules: make([]sarifRule, 0, len(rules)),
		}},
		Results:     []sarifResult{},
		Invocations: []sarifInvocation{{ExecutionSuccessful: true, EndTimeUTC: r.GeneratedAt.UTC().Format("2006-01-02T15:04:05Z")}},
		Properties: map[string]any{
			"score": r.Score.Score, "penalty": r.Score.Penalty, "formula": r.Score.Formula,
			"trustModel": r.TrustModel,
		},
	}
	for i, rl := range rules {
		index[rl.ID] = i
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRuleFor(rl))
	}
	for _, f := range r.Findings {
		ev := primary(f)
		line := ev.Row
		if line < 1 {
			line = 1
		}
		msg := f.Message
		if ev.Excerpt != "" {
			msg += ": " + clip(oneLine(ev.Excerpt), 300)
		}
		if ev.Session != "" {
			msg += fmt.Sprintf(" (session %s, tool %s, %s)", ev.Session, ev.Tool, timeText(ev.TS))
		}
		res := sarifResult{
			RuleID: f.RuleID, RuleIndex: index[f.RuleID], Level: sarifLevel(f.Severity),
			Message: sarifText{Text: msg},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
				ArtifactLocation: sarifAL{URI: sarifURI(ev.Ledger)},
				Region:           sarifRegion{StartLine: line},
			}}},
			PartialFingerprints: map[string]string{"ledgerAuditFingerprint/v1": f.Fingerprint},
			Properties:          map[string]any{"category": string(f.Category), "severity": f.Severity.String(), "weight": f.Weight},
		}
		if f.Suppressed {
			res.Suppressions = []sarifSupp{{Kind: "external", Justification: f.SuppressReason}}
		}
		run.Results = append(run.Results, res)
	}
	log := sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

func sarifRuleFor(rl finding.Rule) sarifRule {
	cat := rl.Category.Name()
	full := rl.Title + "."
	if rl.Rationale != "" {
		full = rl.Rationale
	}
	helpText := fmt.Sprintf("%s (%s %s, %s, weight %d).", rl.Title, rl.Category, cat, rl.Severity, rl.Severity.Weight())
	helpMD := fmt.Sprintf("**%s**\n\nOWASP Agentic %s: %s. Severity %s, score weight %d.", rl.Title, rl.Category, cat, rl.Severity, rl.Severity.Weight())
	if rl.Rationale != "" {
		helpText += "\n\n" + rl.Rationale
		helpMD += "\n\n" + rl.Rationale
	}
	if rl.Remediation != "" {
		helpText += "\n\nRemediation: " + rl.Remediation
		helpMD += "\n\n**Remediation:** " + rl.Remediation
	}
	tags := []string{"security", "owasp-agentic", string(rl.Category)}
	if rl.Category.Extension() {
		tags = append(tags, "community-extension")
	}
	return sarifRule{
		ID: rl.ID, Name: ruleName(rl.ID),
		ShortDescription:     sarifText{Text: rl.Title},
		FullDescription:      sarifText{Text: full},
		Help:                 sarifText{Text: helpText, Markdown: helpMD},
		DefaultConfiguration: sarifConfig{Level: sarifLevel(rl.Severity)},
		Properties: map[string]any{
			"security-severity": securitySeverity(rl.Severity),
			"tags":              tags,
			"precision":         "medium",
		},
	}
}

// ruleName turns ASI02-DESTRUCTIVE-DELETE into Asi02DestructiveDelete, the
// PascalCase form SARIF viewers show next to the id.
func ruleName(id string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(id, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		b.WriteString(strings.ToUpper(part[:1]) + strings.ToLower(part[1:]))
	}
	return b.String()
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
