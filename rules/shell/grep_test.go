package shell

import (
	"reflect"
	"testing"
)

func TestParseGrep(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want GrepOptions
	}{
		{"grep", []string{"-i", "token", ".env"}, GrepOptions{Patterns: []string{"token"}, Files: []string{".env"}, IgnoreCase: true}},
		{"egrep", []string{"-v", "^#", "a", "b"}, GrepOptions{Patterns: []string{"^#"}, Files: []string{"a", "b"}, ERE: true, Invert: true}},
		{"grep", []string{"-e", "x", "-e", "y", "f"}, GrepOptions{Patterns: []string{"x", "y"}, Files: []string{"f"}}},
		{"grep", []string{"-ex", "f"}, GrepOptions{Patterns: []string{"x"}, Files: []string{"f"}}},
		{"grep", []string{"--regexp=k", "--", "-f"}, GrepOptions{Patterns: []string{"k"}, Files: []string{"-f"}}},
		{"grep", []string{"--", "-v", "f"}, GrepOptions{Patterns: []string{"-v"}, Files: []string{"f"}}},
		{"fgrep", []string{"-ow", "a.b", "f"}, GrepOptions{Patterns: []string{"a.b"}, Files: []string{"f"}, Fixed: true, Only: true, Word: true}},
		{"grep", []string{"-EG", "p"}, GrepOptions{Patterns: []string{"p"}}},
		{"grep", []string{"-c", "p", "f"}, GrepOptions{Patterns: []string{"p"}, Files: []string{"f"}, Listing: true}},
		{"grep", []string{"--files-with-matches", "p"}, GrepOptions{Patterns: []string{"p"}, Listing: true}},
		// -A takes a value, so "3" is not the pattern; context lines are
		// output ParseGrep does not model.
		{"grep", []string{"-A", "3", "p", "f"}, GrepOptions{Patterns: []string{"p"}, Files: []string{"f"}, Other: true}},
		{"grep", []string{"-m1", "p"}, GrepOptions{Patterns: []string{"p"}, Other: true}},
		{"grep", []string{"--line-number", "p"}, GrepOptions{Patterns: []string{"p"}, Other: true}},
		{"rg", []string{"-N", "--color=never", "p"}, GrepOptions{Patterns: []string{"p"}, ERE: true}},
	}
	for _, c := range cases {
		got := ParseGrep(c.name, c.args)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseGrep(%s %q) = %+v, want %+v", c.name, c.args, got, c.want)
		}
	}
}
