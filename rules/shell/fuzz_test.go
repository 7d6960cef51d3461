package shell

import (
	"strings"
	"testing"
)

// FuzzParse: any text, however hostile, parses (or falls back) without a
// panic, within the command budget, and renders without private markers.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"rm -rf /", `sh -c "bash -c 'rm -rf /'"`, `T=/; rm -rf $T`, `:(){ :|:& };:`,
		"echo cm0gLXJmIC8= | base64 -d | sh", `a=(x y); "${a[@]}"`, `f() { f | f & }; f`,
		"cat <<EOF > x\nrm -rf /\nEOF", `find / -exec sh -c 'rm -rf {}' \;`, `python3 -c 'import os; os.system("ls")'`,
		"$((1/0))", "${x:?}", "${!x}", "echo $'\\x72\\x6d'", "`echo rm` -rf /", "rm -rf / $(",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		st := NewState()
		cs, _ := Parse(src, st)
		if len(cs) > maxCommands+1024 {
			t.Fatalf("%d commands", len(cs))
		}
		for _, c := range cs {
			if s := c.String(); strings.ContainsAny(s, unkOpen+unkClose) {
				t.Fatalf("marker leaked into %q", s)
			}
		}
		// A second parse with the state the first left behind must also
		// stay bounded.
		Parse(src, st)
	})
}
