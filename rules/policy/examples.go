package policy

import (
	"fmt"
	"strings"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// ExampleResult is one example run against its rule.
type ExampleResult struct {
	Rule    string `json:"rule"`
	Line    int    `json:"line"`
	Example string `json:"example"`
	Want    string `json:"want"` // match | no_match
	Got     string `json:"got"`  // match | no_match
	Matched string `json:"matched,omitempty"`
}

// OK reports whether the example behaved as declared.
func (r ExampleResult) OK() bool { return r.Want == r.Got }

// SplitCalls turns one example into the tool calls of one session:
// calls are separated by " ;;; "; a call written "@TOOL {json}" is that
// tool with those arguments, anything else is a terminal command.
func SplitCalls(example string) []ledger.Call {
	var out []ledger.Call
	for i, part := range strings.Split(example, " ;;; ") {
		c := ledger.Call{ID: int64(i + 1), SessionID: "example", Tool: "terminal"}
		if strings.HasPrefix(part, "@") {
			tool, args, _ := strings.Cut(part[1:], " ")
			c.Tool, c.Args = tool, strings.TrimSpace(args)
		} else {
			c.Args = commandJSON(part)
		}
		out = append(out, c)
	}
	return out
}

// Test runs every example of every rule of the pack against that rule
// alone and returns all results, failures included.
func (p *Pack) Test() []ExampleResult {
	var out []ExampleResult
	for _, r := range p.Rules {
		single := &Pack{Name: p.Name, Version: p.Version, Rules: []*Rule{r}, Source: p.Source}
		eng := NewEngine(single)
		run := func(ex, want string) {
			rep := eng.NewReplay()
			res := ExampleResult{Rule: r.ID, Line: p.ruleLine(r), Example: ex, Want: want, Got: "no_match"}
			for _, c := range SplitCalls(ex) {
				for _, h := range rep.Observe(&c) {
					if h.RuleID == r.ID {
						res.Got, res.Matched = "match", h.Matched
					}
				}
			}
			out = append(out, res)
		}
		for _, ex := range r.Examples.Match {
			run(ex, "match")
		}
		for _, ex := range r.Examples.NoMatch {
			run(ex, "no_match")
		}
	}
	return out
}

// LoadChecked loads a pack and runs its examples; an example that
// contradicts its rule is a load error listing every failure.
func LoadChecked(file string, data []byte) (*Pack, error) {
	p, err := Load(file, data)
	if err != nil {
		return nil, err
	}
	if err := p.CheckExamples(); err != nil {
		return nil, err
	}
	return p, nil
}

// CheckExamples returns a *LoadError when any example fails.
func (p *Pack) CheckExamples() error {
	var fails []ExampleResult
	for _, r := range p.Test() {
		if !r.OK() {
			fails = append(fails, r)
		}
	}
	if len(fails) == 0 {
		return nil
	}
	f := fails[0]
	msg := fmt.Sprintf("rule %s: example %q should %s but does not", f.Rule, f.Example, strings.ReplaceAll(f.Want, "_", " "))
	if f.Want == "no_match" {
		msg = fmt.Sprintf("rule %s: example %q should not match but does (matched %q)", f.Rule, f.Example, f.Matched)
	}
	if len(fails) > 1 {
		msg += fmt.Sprintf(" (and %d more failing examples)", len(fails)-1)
	}
	return &LoadError{File: p.Source, Line: f.Line, Msg: msg, Failures: fails}
}

func commandJSON(cmd string) string {
	var b strings.Builder
	b.WriteString(`{"command":`)
	b.WriteString(jsonString(cmd))
	b.WriteString("}")
	return b.String()
}
