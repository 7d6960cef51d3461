package refilter

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode/utf8"
)

// anchored is the second, stronger filter: when every match of the
// pattern must *start* with one of a few case-sensitive literals
// (`\b(?:os\.system|popen|subprocess\.run)\s*\(`), the only places a
// match can begin are those literals' occurrences. The search then jumps
// from occurrence to occurrence and runs an anchored copy of the pattern
// at each, instead of letting the regexp engine try every position of
// the text. Go's regexp does this itself only for a single literal
// prefix.
//
// A leading \b is checked by hand: the anchored copy runs on the text's
// suffix, where \b at the start would see no previous character. That is
// why every first literal must begin with a word character when the
// pattern begins with \b: the boundary then holds exactly when the
// previous character is not one.
//
// Case-insensitive first literals ((?i)\bcurl\b...) are looked for in
// the ASCII lower-cased text, which has the same positions; a text that
// is not ASCII is left to the plain regexp (see mayMatch for why).
type anchored struct {
	// src is ^(?:pattern), compiled into re on first use: most patterns
	// never get past the literal filter in a run, and compiling a
	// second copy of each at start-up doubled what a one-shot "policy
	// check" (the enforce-mode hook) spent on regexps. The pattern's own
	// leading \b may stay in the copy: it runs on the text's suffix from
	// a first literal, which begins with a word character, so \b holds
	// there, and the real boundary is checked by hand.
	src      string
	reOnce   sync.Once
	re       *regexp.Regexp
	first    []string
	boundary bool // the pattern starts with \b
	fold     bool // first are lower-case, to be found in the lower-cased text
}

func newAnchored(expr string, st *syntax.Regexp) *anchored {
	boundary := false
	body := st
	if st.Op == syntax.OpConcat && len(st.Sub) > 1 && st.Sub[0].Op == syntax.OpWordBoundary {
		boundary = true
		body = &syntax.Regexp{Op: syntax.OpConcat, Flags: st.Flags, Sub: st.Sub[1:]}
	}
	first, fold, ok := firstLits(body)
	if !ok || len(first) == 0 || len(first) > maxLits {
		return nil
	}
	if fold {
		// Every literal is then searched for case-insensitively, which
		// only finds more candidate starts: the anchored pattern decides.
		for i, l := range first {
			if !ascii(l) {
				return nil
			}
			first[i] = strings.ToLower(l)
		}
	}
	for _, l := range first {
		if l == "" {
			return nil
		}
		if r, _ := utf8.DecodeRuneInString(l); boundary && !syntax.IsWordChar(r) {
			return nil
		}
	}
	return &anchored{src: `^(?:` + expr + `)`, first: first, boundary: boundary, fold: fold}
}

// rx is the anchored copy, compiled on first use. The source is the
// caller's pattern, which already compiled, inside a group: it cannot
// fail.
func (a *anchored) rx() *regexp.Regexp {
	a.reOnce.Do(func() { a.re = regexp.MustCompile(a.src) })
	return a.re
}

// firstLits returns literals one of which every match of re starts
// with; ok is false when there is no such set. fold is set when some
// literal is matched case-insensitively.
func firstLits(re *syntax.Regexp) (lits []string, fold, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return nil, false, false
		}
		return []string{string(re.Rune)}, re.Flags&syntax.FoldCase != 0, true
	case syntax.OpCapture, syntax.OpPlus:
		return firstLits(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return firstLits(re.Sub[0])
		}
	case syntax.OpConcat:
		if len(re.Sub) > 0 {
			return firstLits(re.Sub[0])
		}
	case syntax.OpAlternate:
		var out []string
		for _, s := range re.Sub {
			l, f, ok := firstLits(s)
			if !ok {
				return nil, false, false
			}
			out = append(out, l...)
			fold = fold || f
		}
		return out, fold, true
	}
	return nil, false, false
}

// cursor walks the occurrences of the first literals in one text, in
// order. next[i] caches where literal i next occurs (-1: nowhere).
type cursor struct {
	s    string // the text
	find string // where the literals are looked for: s, or s lower-cased
	lits []string
	next []int
}

// cursor returns nil when the literals cannot be looked for in s (a
// case-insensitive pattern on a text that is not ASCII).
func (a *anchored) cursor(s string) *cursor {
	c := &cursor{s: s, find: s, lits: a.first, next: make([]int, len(a.first))}
	if a.fold {
		low, ok := lowerASCII(s)
		if !ok {
			return nil
		}
		c.find = low
	}
	for i, l := range a.first {
		c.next[i] = strings.Index(c.find, l)
	}
	return c
}

// at returns the first occurrence at or after pos, or -1.
func (c *cursor) at(pos int) int {
	best := -1
	for i, n := range c.next {
		if n >= 0 && n < pos {
			if k := strings.Index(c.find[pos:], c.lits[i]); k >= 0 {
				n = pos + k
			} else {
				n = -1
			}
			c.next[i] = n
		}
		if n >= 0 && (best < 0 || n < best) {
			best = n
		}
	}
	return best
}

// find returns the submatch indices of the leftmost match starting at or
// after pos (as regexp's FindStringSubmatchIndex would from pos), or nil.
func (a *anchored) find(c *cursor, pos int) []int {
	s := c.s
	for p := c.at(pos); p >= 0; p = c.at(p + 1) {
		if a.boundary && p > 0 {
			if r, _ := utf8.DecodeLastRuneInString(s[:p]); syntax.IsWordChar(r) {
				continue
			}
		}
		m := a.rx().FindStringSubmatchIndex(s[p:])
		if m == nil {
			continue
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += p
			}
		}
		return m
	}
	return nil
}

// all returns up to n (all when n < 0) successive matches. Every match
// is non-empty (it starts with a literal), so the next search starts
// where the last match ended, as in regexp.
func (a *anchored) all(s string, n int) [][]int {
	if n == 0 {
		return nil
	}
	c := a.cursor(s)
	if c == nil {
		return nil
	}
	var out [][]int
	for pos := 0; pos <= len(s) && (n < 0 || len(out) < n); {
		m := a.find(c, pos)
		if m == nil {
			break
		}
		out = append(out, m)
		pos = m[1]
	}
	return out
}

func submatchStrings(s string, m []int) []string {
	out := make([]string, len(m)/2)
	for i := range out {
		if m[2*i] >= 0 {
			out[i] = s[m[2*i]:m[2*i+1]]
		}
	}
	return out
}
