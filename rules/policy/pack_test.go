package policy

import (
	"strings"
	"testing"
)

// TestBuiltinExamples checks every example of every built-in pack.
func TestBuiltinExamples(t *testing.T) {
	for _, name := range BuiltinNames() {
		p, err := Builtin(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, r := range p.Rules {
			if len(r.Examples.Match) < 3 || len(r.Examples.NoMatch) < 3 {
				t.Errorf("%s/%s: want at least 3 match and 3 no_match examples, have %d/%d", name, r.ID, len(r.Examples.Match), len(r.Examples.NoMatch))
			}
		}
		for _, res := range p.Test() {
			if !res.OK() {
				t.Errorf("%s/%s: %q: want %s, got %s %s", name, res.Rule, res.Example, res.Want, res.Got, res.Matched)
			}
		}
	}
}

// TestBuiltinPacksLoadStrictly loads every built-in pack the way a user's
// pack file is loaded, every regexp and glob parsed up front: Builtin
// skips that and compiles each pattern on first use, so this test is
// what keeps a bad pattern in a built-in pack from reaching a user.
func TestBuiltinPacksLoadStrictly(t *testing.T) {
	for _, name := range BuiltinNames() {
		data, err := builtinFS.ReadFile("packs/" + name + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		strict, err := Load("builtin:"+name, data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		lazy, err := Builtin(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(strict.Rules) != len(lazy.Rules) || len(strict.Rules) == 0 {
			t.Fatalf("%s: %d rules loaded strictly, %d built in", name, len(strict.Rules), len(lazy.Rules))
		}
		// Rule lines are found on first need; each must point at the
		// rule's own "- id:" line.
		lines := strings.Split(string(data), "\n")
		for _, r := range lazy.Rules {
			l := lazy.ruleLine(r)
			if l < 1 || l > len(lines) || !strings.Contains(lines[l-1], r.ID) {
				t.Fatalf("%s/%s: rule line %d does not name the rule", name, r.ID, l)
			}
		}
	}
}

// TestBadPatternLines: a bad regexp in a pack file is reported at its
// rule's line, now that lines are found only when needed.
func TestBadPatternLines(t *testing.T) {
	src := "name: x\nrules:\n  - id: A\n    severity: low\n    category: ASI02\n    action: warn\n    reason: r\n    tools: [terminal]\n    match:\n      - programs: [ls]\n  - id: B\n    severity: low\n    category: ASI02\n    action: warn\n    reason: r\n    tools: [terminal]\n    match:\n      - args_regex: '(unclosed'\n"
	_, err := Load("bad.yaml", []byte(src))
	if err == nil || !strings.HasPrefix(err.Error(), "bad.yaml:11: rule B: match 1: bad regex") {
		t.Fatalf("got %v", err)
	}
}

// TestContentNotRegexNeedsWrites: content_not_regex only qualifies a
// write, so a matcher with nothing written is refused at load, at its
// rule's line.
func TestContentNotRegexNeedsWrites(t *testing.T) {
	src := "name: x\nrules:\n  - id: A\n    severity: low\n    category: ASI02\n    action: warn\n    reason: r\n    tools: [terminal]\n    match:\n      - programs: [ls]\n        content_not_regex: 'x'\n"
	_, err := Load("bad.yaml", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "bad.yaml:3: rule A: match 1: content_not_regex needs writes or paths") {
		t.Fatalf("got %v", err)
	}
	ok := strings.Replace(src, "programs: [ls]", "writes: [\"~/.ssh/authorized_keys\"]", 1)
	p, err := Load("good.yaml", []byte(ok))
	if err != nil {
		t.Fatal(err)
	}
	e := NewEngine(p)
	if d := e.CheckCommand("echo 'x ssh-ed25519 AAAA k' >> ~/.ssh/authorized_keys"); d.Decision != "allow" {
		t.Fatalf("a write whose text matches content_not_regex: %s", d.Decision)
	}
	if d := e.CheckCommand("echo 'ssh-ed25519 AAAA k' >> ~/.ssh/authorized_keys"); d.Decision != "warn" {
		t.Fatalf("a write whose text does not match: %s", d.Decision)
	}
}
