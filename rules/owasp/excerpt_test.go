package owasp

import (
	"strings"
	"testing"
)

// TestExcerptMatchesRuneSlicing: excerpt finds the cut without
// converting the whole text to runes, and must cut exactly where
// []rune slicing did (also for invalid UTF-8, which []rune repairs).
func TestExcerptMatchesRuneSlicing(t *testing.T) {
	ref := func(s string, n int) string {
		s = strings.TrimSpace(s)
		r := []rune(s)
		if len(r) <= n {
			return s
		}
		return string(r[:n]) + "…"
	}
	inputs := []string{"", "  short  ", strings.Repeat("a", 240), strings.Repeat("a", 241), strings.Repeat("é", 120),
		strings.Repeat("é", 121), strings.Repeat("中", 300), strings.Repeat("😀x", 200), "\xff" + strings.Repeat("b", 300),
		strings.Repeat("b", 239) + "\xc3", strings.Repeat("ab\xe2\x82", 100), " \n" + strings.Repeat("z", 500) + "\t"}
	for _, s := range inputs {
		for _, n := range []int{0, 1, 5, 120, 240} {
			if got, want := excerpt(s, n), ref(s, n); got != want {
				t.Errorf("excerpt(%q, %d) = %q, want %q", s, n, got, want)
			}
		}
	}
}
