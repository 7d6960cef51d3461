package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzRenderFromJSON feeds arbitrary JSON to `report --from`'s reader and
// renders every accepted Result in every format: a saved result is input
// like any other, and no renderer may panic on it, whatever the strings,
// counts or timestamps say.
func FuzzRenderFromJSON(f *testing.F) {
	for _, name := range []string{"testdata/fixture.json", "testdata/week-mixed.json"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"schema_version":1}`))
	f.Add([]byte(`{"schema_version":1,"findings":[{"rule_id":"X","severity":"CRITICAL","evidence":[]}],"ghosts":[{"class":"ghost","args":"\u0000<&>"}]}`))
	f.Add([]byte(`{"schema_version":1,"summary":{"timeline":[{"calls":-5}]},"score":{"score":-3,"penalty":999999999}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadJSON(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error: %q", err)
			}
			return
		}
		formats := []string{"table", "md", "json", "sarif", "junit"}
		if len(data) < 4096 { // the PDF is slow; keep the fuzzer's pace
			formats = append(formats, "pdf")
		}
		for _, format := range formats {
			rep, err := New(format, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := rep.Render(&out, r); err != nil {
				continue // a clean error is fine; a panic is not
			}
			switch format {
			case "json", "sarif":
				if !json.Valid(out.Bytes()) {
					t.Fatalf("%s output is not valid JSON", format)
				}
			case "md", "table":
				if !utf8.Valid(out.Bytes()) {
					t.Fatalf("%s output is not valid UTF-8", format)
				}
			}
		}
	})
}
