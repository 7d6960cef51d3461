package analyze

import (
	"testing"

	"github.com/ledger-audit/ledger-audit/ledger"
)

var argsHashSeeds = []string{
	`{"command":"ls -la","description":"List"}`,
	`{"b":1,"a":[true,false,null,{"z":"y","x":-1.5e+10}],"c":{}}`,
	` {"a" : "x" , "a":"last"} `,
	`{"s":"quote \" back \\ slash \/ nl \n tab \t cr \r bs \b ff \f nul \u0000 esc \u001B"}`,
	`{"u":"\u00e9\u4e2d\ud83d\ude00 lone \ud800 x \udc00 pair-bad \ud800\u0041"}`,
	`{"raw":"é中😀\u007f","k\u0062":1}`,
	`[1,2,3]`, `"text"`, `-0`, `0.5`, `1E5`, `12`, `true`, `null`,
	`{"a":1}]`, `{"a":1}}`, `{"a":1} x`, `{"a":1}{"b":2}`, `1 2`, `01`, `1.`, `.5`, `-`, `+1`, `1e`, `1e+`,
	`{"a":1,}`, `[1,]`, `{"a"}`, `{"a":}`, `{a:1}`, `{"a":1`, `[`, ``, `   `, `tru`, `truex`, `nul`,
	`not json at all`, `{"a":"unterminated}`, "{\"ctl\":\"a\x01b\"}", `{"bad":"\x"}`, `{"u":"\u12"}`,
	"\xff\xfe{\"a\":1}", "{\"a\":\"\xc3\x28\"}",
	`{"z":{"y":{"x":[{"b":2,"a":1}]}},"e":[[],[{}]]}`,
}

func TestArgsHashMatchesLedger(t *testing.T) {
	for _, s := range argsHashSeeds {
		if got, want := argsHash(s), ledger.ArgsHash(s); got != want {
			c1, ok1 := fastCanonical(s)
			c2, ok2 := ledger.CanonicalJSON(s)
			t.Errorf("argsHash(%q) differs from ledger.ArgsHash:\nfast %v %q\nslow %v %q", s, ok1, c1, ok2, c2)
		}
		// The audit hashes the parser's buffer in place: same digest.
		if got, want := argsDigestOf(s), argsDigest(canonicalArgs(s)); got != want {
			t.Errorf("argsDigestOf(%q) differs from the digest of canonicalArgs", s)
		}
	}
	// Deep nesting goes the slow way and still agrees.
	deep := ""
	for i := 0; i < 600; i++ {
		deep += "["
	}
	for i := 0; i < 600; i++ {
		deep += "]"
	}
	if argsHash(deep) != ledger.ArgsHash(deep) {
		t.Error("deep nesting differs")
	}
}

func FuzzArgsHash(f *testing.F) {
	for _, s := range argsHashSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := argsHash(s), ledger.ArgsHash(s); got != want {
			c1, ok1 := fastCanonical(s)
			c2, ok2 := ledger.CanonicalJSON(s)
			t.Fatalf("argsHash(%q):\nfast %v %q\nslow %v %q", s, ok1, c1, ok2, c2)
		}
		if got, want := argsDigestOf(s), argsDigest(canonicalArgs(s)); got != want {
			t.Fatalf("argsDigestOf(%q) differs from the digest of canonicalArgs", s)
		}
	})
}
