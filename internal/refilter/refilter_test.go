package refilter

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestLiterals(t *testing.T) {
	cases := []struct {
		expr string
		lits []string
		fold bool
	}{
		{`\b(?:os\.system|popen)\s*\(`, []string{"os.system", "popen"}, false},
		{`169\.254\.169\.254|metadata\.google\.internal`, []string{"169.254.169.254", "metadata.google.internal"}, false},
		{`(?i)\bdrop\s+database\b`, []string{"database"}, true},
		{`(^| )-rf( |$)`, []string{"-rf"}, false},
		{`\S+`, nil, false},
		{`a*b?`, nil, false},
		{`(foo|)bar`, []string{"bar"}, false},
		{`(foo|x*)`, nil, false},
		{`x[:=]`, []string{"x"}, false},
		{`[:=]y*`, []string{":", "="}, false},
		{`(?i)ſ`, []string{"s"}, true}, // the parser folds it to s; ſ in a text skips the filter
	}
	for _, c := range cases {
		r := MustCompile(c.expr)
		lits, fold := r.Literals()
		if !slices.Equal(lits, c.lits) || fold != c.fold {
			t.Errorf("%q: literals %q fold %v, want %q fold %v", c.expr, lits, fold, c.lits, c.fold)
		}
	}
}

// corpusPatterns cover the shapes the policy packs and the code
// extractor use: alternations behind \b, case-insensitive words,
// classes, optional groups and anchors.
var corpusPatterns = []string{
	`\b(?:os\.system|os\.popen|subprocess\.(?:run|call)|exec)\s*\(?\s*`,
	`(?i)\bdrop\s+(table|collection)\b|\.drop\(\)|\btruncate\s+(table\s+)?[a-z_."]+`,
	`(?i)//(0xa9fea9fe|metadata)([:/]|$)`,
	`(?i)k[a-z]+`,
	`(?i)s\w`,
	`fork\s*(\(\s*\))?\s*while\s*fork`,
	`(^| )(-s|--size)[ =]?0( |$)`,
	`(?m)^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*`,
	"`([^`]+)`",
	`x{2,}y|z`,
	`\b(?:os\.system|popen|run|call)\s*\(?\s*(['"])?`,
	`\b(?:print|puts|console\.(?:log|error))\b`,
	`(?:exec|eval)\s*\(\s*(?:[\w.]+\.)?(?:urlopen|get)\s*\(\s*['"]((?:https?|ftp)://[^'"]+)['"]`,
	`\bfoo(bar)?(?m:$)`,
	`Buffer\.from\(\s*(["'])([A-Za-z0-9+/=_-]+)(["'])`,
	`(?i)\b(while\s*\(\s*1\s*\)|for\s*\(\s*;\s*;\s*\))\s*\{`,
	`(?i)\bcurl\b[^|]*\|\s*(sh|bash)\b`,
	`(?i)\bkubectl\s+delete`,
	`(?:Foo|(?i)bar)baz`,
}

var corpusTexts = []string{
	"", "os.system('rm -rf /')", "subprocess.run(['ls'])", "DROP TABLE users;", "drop\tcollection x",
	"curl http://METADATA/latest", "curl http://0xA9FEA9FE/", "\u212aelvin", "K", "ſtrict", "Strict",
	"while fork", "fork() while fork", "truncate -s 0 f", "truncate --size=0 f", "x = 1\ny=2", "echo `id`",
	"xxy", "xy", "z", "plain text with nothing", "ĳ DROP TABLE", "exec(code)",
	"rerun(x) run( 'a') _run(b) call\ncall(\"x\")", "xprint print(1) éprint puts", "os.systemos.system('a')",
	"eval(requests.get('https://e.x/a')) exec( urlopen(\"ftp://h/p\"", "foo\nfoobar\nfoob", "Buffer.from('aGk=', 'base64')",
	"console.log(x); console.error", "runrun run", "ärun(1)", "1run 2call(",
	"WHILE(1){fork}", "xfor(;;){", "For ( ; ; ) {", "CURL http://x | SH", "curl a|bash curl b | sh", "\u212aubectl delete x",
	"KUBECTL Delete", "kubectl delete", "FOObaz Foobaz BARbaz barBAZ", "ſh curl | ſh", "é curl x | sh",
}

func TestAgreesWithRegexp(t *testing.T) {
	for _, p := range corpusPatterns {
		want, got := regexp.MustCompile(p), MustCompile(p)
		for _, s := range corpusTexts {
			agree(t, want, got, s)
			for _, l := range longForms(s) {
				agree(t, want, got, l)
			}
		}
	}
}

// longForms embeds s in texts long enough for the pair-set path, at the
// start, the end and the middle of filler whose own pairs are few.
func longForms(s string) []string {
	pad := strings.Repeat("q ", pairsMinText/2)
	return []string{s + pad, pad + s, pad + s + pad, pad + strings.ToUpper(s) + pad}
}

// TestPairSetRulesOut checks the pair set itself: a literal whose pairs
// are all in the text is never ruled out, whatever the case, and one
// with a missing pair is.
func TestPairSetRulesOut(t *testing.T) {
	long := strings.Repeat("print(value) ", 30) + "OS.System('x') ſ é"
	tx := textOf(long)
	if tx.pairs == nil {
		t.Fatalf("no pair set for a %d-byte text", len(long))
	}
	for _, l := range []string{"os.system", "print(", "e) p", "'x'"} {
		if !tx.hasPairs(literalPairs(l)) {
			t.Errorf("%q ruled out of a text containing it", l)
		}
	}
	for _, l := range []string{"rmtree", "popen", "zz"} {
		if tx.hasPairs(literalPairs(l)) {
			t.Errorf("%q not ruled out of a text without its pairs", l)
		}
	}
	if textOf(long) != tx {
		t.Error("the same text was not found in the cache")
	}
	if short := textOf(long[:100]); short.pairs != nil {
		t.Error("a pair set was built for a short text")
	}
}

func agree(t *testing.T, want *regexp.Regexp, got *Regexp, s string) {
	t.Helper()
	if w, g := want.MatchString(s), got.MatchString(s); w != g {
		t.Fatalf("%q on %q: MatchString %v, regexp says %v", want, s, g, w)
	}
	if w, g := want.FindAllStringSubmatchIndex(s, -1), got.FindAllStringSubmatchIndex(s, -1); !slices.EqualFunc(w, g, slices.Equal) {
		t.Fatalf("%q on %q: FindAllStringSubmatchIndex %v, regexp says %v", want, s, g, w)
	}
	if w, g := want.ReplaceAllString(s, "<$0>"), got.ReplaceAllString(s, "<$0>"); w != g {
		t.Fatalf("%q on %q: ReplaceAllString %q, regexp says %q", want, s, g, w)
	}
	if w, g := want.FindStringSubmatchIndex(s), got.FindStringSubmatchIndex(s); !slices.Equal(w, g) {
		t.Fatalf("%q on %q: FindStringSubmatchIndex %v, regexp says %v", want, s, g, w)
	}
	if w, g := want.FindAllStringSubmatch(s, 2), got.FindAllStringSubmatch(s, 2); !slices.EqualFunc(w, g, slices.Equal) {
		t.Fatalf("%q on %q: FindAllStringSubmatch(2) %q, regexp says %q", want, s, g, w)
	}
	if w, g := want.FindAllStringIndex(s, -1), got.FindAllStringIndex(s, -1); !slices.EqualFunc(w, g, slices.Equal) {
		t.Fatalf("%q on %q: FindAllStringIndex %v, regexp says %v", want, s, g, w)
	}
	if w, g := want.FindString(s), got.FindString(s); w != g {
		t.Fatalf("%q on %q: FindString %q, regexp says %q", want, s, g, w)
	}
}

func TestAnchoredPath(t *testing.T) {
	for expr, want := range map[string]bool{
		`\b(?:os\.system|popen)\s*\(`: true,  // word-literal alternation behind \b
		`Buffer\.from\(`:              true,  // a plain literal start
		`(?i)\bdrop\s+table`:          true,  // case-insensitive: found in the lower-cased text
		`(?:Foo|(?i)bar)baz`:          true,  // mixed: every literal looked for case-insensitively
		`\b(?:\$ENV|os\.environ)`:     false, // \b before a non-word literal
		`\s*exec`:                     false, // may start with spaces
		`(^| )-rf`:                    false, // alternation with an assertion
	} {
		r := MustCompile(expr)
		r.prepare()
		if got := r.anc != nil; got != want {
			t.Errorf("%q: anchored path %v, want %v", expr, got, want)
		}
	}
}

func FuzzAgreesWithRegexp(f *testing.F) {
	for _, s := range corpusTexts {
		f.Add(s)
	}
	wants := make([]*regexp.Regexp, len(corpusPatterns))
	gots := make([]*Regexp, len(corpusPatterns))
	for i, p := range corpusPatterns {
		wants[i], gots[i] = regexp.MustCompile(p), MustCompile(p)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i := range wants {
			agree(t, wants[i], gots[i], s)
			agree(t, wants[i], gots[i], longForms(s)[2])
		}
	})
}
