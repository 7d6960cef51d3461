package ledger

import (
	"encoding/json"
	"reflect"
	"testing"
)

var decodeSeeds = []string{
	`{"command": "rm -rf ./build && npm run build", "description": "clean build"}`,
	`{"code": "import os\nprint(os.getcwd())\n", "lang": "python"}`,
	`{"path": "/tmp/a", "content": "tab\there \"quoted\" \\ back \/ slash \u00e9 \u0000 end"}`,
	`{"a": [1, -0, 2.5e3, 1E-2, 0.5, true, false, null, {"b": []}, {}], "a": "dup"}`,
	`{"n": 1e999}`, `{"n": 01}`, `{"n": -}`, `{"n": 1.}`, `{"s": "\ud83d\ude00"}`, `{"s": "\ud83d"}`,
	`{"s": "raw` + "\n" + `newline"}`, `{"s": "bad \x escape"}`, `{"s": "\u12"}`, `{"k" "v"}`, `{"k": "v",}`,
	`{"k": "v"} trailing`, `  {"k": "v"}  `, `null`, `[1,2]`, `"str"`, `42`, ``, `{`, `{"k": "v"`,
	"{\"s\": \"\xff\xfe invalid utf8\"}", `{"deep": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
	`{"t": tru}`, `{"t": nul}`, `{"e": "é ü 日本"}`, `{"u": "\u0041\u00DF\u6771"}`,
}

// TestDecodeArgsMatchesEncodingJSON: the direct decoder and its fallback
// must give exactly json.Unmarshal's map (or nil) for every input.
func TestDecodeArgsMatchesEncodingJSON(t *testing.T) {
	for _, s := range decodeSeeds {
		checkDecode(t, s)
	}
	// The fast path must actually take the common shapes.
	for _, s := range decodeSeeds[:4] {
		if _, ok := fastDecodeObject(s); !ok {
			t.Errorf("%q: not handled by the direct decoder", s)
		}
	}
}

func checkDecode(t *testing.T, s string) {
	t.Helper()
	var want map[string]any
	if json.Unmarshal([]byte(s), &want) != nil {
		want = nil
	}
	got := DecodeArgs(s)
	if (got == nil) != (want == nil) || got != nil && !reflect.DeepEqual(map[string]any(got), want) {
		t.Fatalf("%q: DecodeArgs = %#v, json.Unmarshal = %#v", s, got, want)
	}
}

func FuzzDecodeArgs(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkDecode(t, s) })
}
