package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ledger-audit/ledger-audit/analyze"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; diff with -update and review:\n%s", name, firstDiff(string(want), string(got)))
	}
}

// firstDiff shows the first differing line, enough to start looking.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g
		}
	}
	return "(lengths differ)"
}

func render(t *testing.T, format string, o Options, r *analyze.Result) []byte {
	t.Helper()
	rep, err := New(format, o)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rep.Render(&buf, r); err != nil {
		t.Fatalf("%s: %v", format, err)
	}
	return buf.Bytes()
}

// TestGoldenFixture pins every text format on the hand-built fixture.
func TestGoldenFixture(t *testing.T) {
	r := fixtureResult()
	for _, c := range []struct{ format, file string }{
		{"json", "fixture.json"},
		{"md", "fixture.md"},
		{"sarif", "fixture.sarif"},
		{"junit", "fixture.junit.xml"},
		{"table", "fixture.table.txt"},
	} {
		t.Run(c.format, func(t *testing.T) {
			golden(t, c.file, render(t, c.format, Options{}, r))
		})
	}
}
