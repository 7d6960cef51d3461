// Package refilter puts a literal prefilter in front of a regular
// expression.
//
// Go's regexp package has no prefilter for patterns that do not start
// with a literal: `\b(?:os\.system|subprocess\.run|...)\s*\(` is run by
// the backtracker or the NFA from every position of the text, which costs
// tens of microseconds on a few hundred characters. Almost every pattern
// the policy engine runs over commands and code needs some literal to be
// present ("169.254.169.254", "rmtree", "fork"), and most texts contain
// none of them. Compile works out, from the parsed pattern, a set of
// strings of which every match must contain at least one, and the
// wrapper answers "no match" without running the automaton when the text
// contains none of them.
//
// The filter is conservative by construction: when a pattern has no
// usable literal (`\S+`, `^$`), or the set would be too large, there is
// no filter and the regexp runs as before. Case-insensitive literals are
// compared after ASCII lower-casing, and a text with any non-ASCII byte
// skips a case-insensitive filter, because Unicode folding maps some
// non-ASCII runes onto ASCII letters (U+212A KELVIN SIGN matches (?i)k).
// Results are therefore always those of the wrapped regexp; the tests
// compare both on a corpus and a fuzz target.
package refilter

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"
)

// maxLits bounds the literal set: beyond it, checking the set costs more
// than it saves.
const maxLits = 48

// Regexp is a regexp.Regexp with a literal prefilter. Methods not
// overridden here run the regexp unfiltered, which is always correct.
type Regexp struct {
	// expr is compiled on first use when it came from MustCompile: the
	// patterns written in the source are compiled at package
	// initialisation, and compiling them all there cost every command,
	// capture included, several milliseconds of start-up.
	expr   string
	re     *regexp.Regexp
	reOnce sync.Once
	// The filters are worked out on first use, not at Compile, for the
	// same reason.
	once sync.Once
	lits []string // nil: no filter
	fold bool     // lits are lower-case and compared case-insensitively
	// pairs[i] are the byte pairs of lits[i] (pairIndex), looked up in
	// a long text's pair set before the text is searched for it.
	pairs [][]uint16
	anc   *anchored
	// parsed is Compile's parse, handed to prepare so that the pattern
	// is not parsed twice; nil afterwards.
	parsed *syntax.Regexp
}

// Compile is regexp.Compile plus the prefilter. It reports the same
// errors, but only parses the pattern: the automaton is built on first
// use. A policy pack holds a thousand patterns and a one-shot "policy
// check" (what the enforce-mode hook runs per tool call) uses a few
// dozen; building them all was a third of its time. regexp.Compile
// fails only where syntax.Parse with the same (Perl) flags does.
func Compile(expr string) (*Regexp, error) {
	st, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	r := &Regexp{expr: expr, parsed: st}
	register(r)
	return r, nil
}

// rx is the compiled pattern.
func (r *Regexp) rx() *regexp.Regexp {
	r.reOnce.Do(func() {
		if r.re == nil {
			r.re = regexp.MustCompile(r.expr)
		}
	})
	return r.re
}

// String is the pattern's source text.
func (r *Regexp) String() string { return r.expr }

// prepare works out the filters once.
func (r *Regexp) prepare() {
	r.once.Do(func() {
		// Not simplified: Simplify expands counted repetitions (.{0,300})
		// into hundreds of nodes, and required and firstLits handle
		// OpRepeat directly.
		st := r.parsed
		r.parsed = nil
		if st == nil {
			var err error
			if st, err = syntax.Parse(r.String(), syntax.Perl); err != nil {
				return
			}
		}
		r.anc = newAnchored(r.expr, st)
		inf := required(st)
		if !inf.ok || len(inf.lits) == 0 {
			return
		}
		r.lits, r.fold = inf.lits, inf.fold
		if r.fold {
			for i, l := range r.lits {
				if !ascii(l) {
					// (?i)ſ matches "s": lower-casing cannot follow
					// Unicode folding, so no filter.
					r.lits, r.fold = nil, false
					return
				}
				r.lits[i] = strings.ToLower(l)
			}
		}
		r.pairs = make([][]uint16, len(r.lits))
		for i, l := range r.lits {
			r.pairs[i] = literalPairs(l)
		}
	})
}

var registry struct {
	sync.Mutex
	all map[string]*Regexp
}

// register keeps every pattern, so that a test can check each one the
// program uses against plain regexp on a corpus (Compiled).
func register(r *Regexp) {
	registry.Lock()
	defer registry.Unlock()
	if registry.all == nil {
		registry.all = map[string]*Regexp{}
	}
	if len(registry.all) < 4096 {
		registry.all[r.String()] = r
	}
}

// Compiled returns the distinct patterns compiled so far (at most 4096),
// for equivalence tests.
func Compiled() []*Regexp {
	registry.Lock()
	defer registry.Unlock()
	out := make([]*Regexp, 0, len(registry.all))
	for _, r := range registry.all {
		out = append(out, r)
	}
	return out
}

// MustCompile is Compile that panics on a bad pattern, for patterns
// written in the source.
func MustCompile(expr string) *Regexp {
	// Compiled on first use; TestEveryPatternCompiles compiles every
	// registered one, so a bad pattern fails the tests, not a user.
	r := &Regexp{expr: expr}
	register(r)
	return r
}

// Literals returns the prefilter's literal set (nil when the pattern has
// none) and whether it is compared case-insensitively.
func (r *Regexp) Literals() ([]string, bool) {
	r.prepare()
	return r.lits, r.fold
}

// MayMatch reports whether s contains one of the literals every match
// must contain: false means MatchString(s) is false. A caller with
// several conditions runs the cheap filters of all of them before any
// regexp: a long pattern whose literal is in the text can cost
// microseconds, while another condition's filter would have failed.
func (r *Regexp) MayMatch(s string) bool { return r.mayMatch(s) }

// mayMatch reports whether s contains one of the literals, so that the
// regexp can match at all.
func (r *Regexp) mayMatch(s string) bool {
	r.prepare()
	if r.lits == nil {
		return true
	}
	if len(s) >= pairsMinText {
		return r.mayMatchLong(s)
	}
	if r.fold {
		if !ascii(s) {
			return true
		}
		return containsLowered(s, r.lits)
	}
	for _, l := range r.lits {
		if strings.Contains(s, l) {
			return true
		}
	}
	return false
}

// containsLowered reports whether the ASCII text s, lower-cased, contains
// one of lits. Lower-casing each short text into a new string was an
// allocation per pattern and text; the lower-cased copy lives in a stack
// buffer here, seen through a string header that never leaves the call.
func containsLowered(s string, lits []string) bool {
	var buf [pairsMinText]byte
	n := copy(buf[:], s)
	for i := range n {
		buf[i] = lowerByte(buf[i])
	}
	low := unsafe.String(&buf[0], n)
	for _, l := range lits {
		if strings.Contains(low, l) {
			return true
		}
	}
	return false
}

// mayMatchLong is mayMatch for a long text, through its cached form: a
// literal is searched for only when every byte pair of it occurs in the
// text. A code cell or script of a few kilobytes is tested against
// hundreds of patterns; most of their literals are absent, and a few
// bit tests rule each out where a search reads the whole text.
func (r *Regexp) mayMatchLong(s string) bool {
	t := textOf(s)
	text := s
	if r.fold {
		if !t.ok {
			return true
		}
		text = t.lower()
	}
	for i, l := range r.lits {
		if t.hasPairs(r.pairs[i]) && strings.Contains(text, l) {
			return true
		}
	}
	return false
}

// A text's pair set has one bit per pair of adjacent bytes, both
// ASCII-lower-cased, folded to 7 bits and hashed to pairBits. Each
// mapping sends every occurrence of a literal onto an occurrence of its
// own mapped pairs, so a missing pair proves the literal absent,
// case-sensitive or not; a pair that is present proves nothing (the
// search decides). 4096 bits keep a few-kilobyte text's set about a
// tenth full, in 512 bytes: one set per long text read is allocation the
// collector pays for, and 16384 bits (every 7-bit pair apart) added
// 5 % to an audit's allocation.
const (
	pairBits     = 1 << 12
	pairsMinText = 256 // below this, building the set costs more than it saves
)

func lowerByte(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

func pairIndex(a, b byte) uint16 {
	return (uint16(lowerByte(a)&0x7f)*131 + uint16(lowerByte(b)&0x7f)) % pairBits
}

// literalPairs lists l's pairs, nil for a one-byte literal (which the
// search alone decides).
func literalPairs(l string) []uint16 {
	if len(l) < 2 {
		return nil
	}
	out := make([]uint16, 0, len(l)-1)
	for i := 0; i+1 < len(l); i++ {
		if p := pairIndex(l[i], l[i+1]); !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// text is a long text as the filters read it: its ASCII lower-case form
// (ok false: the text is not ASCII) and its pair set (nil below
// pairsMinText).
type text struct {
	src   string
	ok    bool
	pairs *[pairBits / 64]uint64
	// low is made on first use: many long texts are only ever read by
	// case-sensitive patterns.
	lowOnce sync.Once
	low     string
}

// lower is the text's lower-case form; t.ok must be true.
func (t *text) lower() string {
	t.lowOnce.Do(func() { t.low = strings.ToLower(t.src) }) // no copy when already lower-case
	return t.low
}

func (t *text) hasPairs(ps []uint16) bool {
	if t.pairs == nil {
		return true
	}
	for _, p := range ps {
		if t.pairs[p>>6]&(1<<(p&63)) == 0 {
			return false
		}
	}
	return true
}

// recentTexts remembers the last few long texts. The engine runs
// hundreds of patterns over the same few texts of a call (its source,
// the normalised command, a code cell); lower-casing a few hundred
// characters for each case-insensitive one was a sixth of the time
// spent on an execute_code call, and searching a few kilobytes for each
// literal of each pattern a tenth of an audit. Texts are compared by
// their backing array and length: an entry holds its text, so the array
// cannot be reused for other content while it is cached. Shared by all
// goroutines; a race only costs a miss.
var (
	recentTexts [8]atomic.Pointer[text]
	nextText    atomic.Uint32
)

// textOf returns the cached form of a text of at least 64 bytes.
func textOf(s string) *text {
	for i := range recentTexts {
		if c := recentTexts[i].Load(); c != nil && len(c.src) == len(s) && unsafe.StringData(c.src) == unsafe.StringData(s) {
			return c
		}
	}
	c := &text{src: s, ok: ascii(s)}
	if len(s) >= pairsMinText {
		c.pairs = new([pairBits / 64]uint64)
		for i := 0; i+1 < len(s); i++ {
			p := pairIndex(s[i], s[i+1])
			c.pairs[p>>6] |= 1 << (p & 63)
		}
	}
	recentTexts[nextText.Add(1)%uint32(len(recentTexts))].Store(c)
	return c
}

// lowerASCII returns s lower-cased, or false when s is not ASCII.
func lowerASCII(s string) (string, bool) {
	if len(s) < 64 {
		if !ascii(s) {
			return "", false
		}
		return strings.ToLower(s), true
	}
	t := textOf(s)
	if !t.ok {
		return "", false
	}
	return t.lower(), true
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// cursor starts an anchored search of s, or returns nil when the
// pattern has no anchored form usable on s.
func (r *Regexp) cursor(s string) *cursor {
	if r.anc == nil {
		return nil
	}
	return r.anc.cursor(s)
}

// MatchString reports whether s contains a match.
func (r *Regexp) MatchString(s string) bool {
	if !r.mayMatch(s) {
		return false
	}
	if c := r.cursor(s); c != nil {
		return r.anc.find(c, 0) != nil
	}
	return r.rx().MatchString(s)
}

// FindString returns the leftmost match.
func (r *Regexp) FindString(s string) string {
	if m := r.FindStringIndex(s); m != nil {
		return s[m[0]:m[1]]
	}
	return ""
}

// FindStringIndex returns the leftmost match's location.
func (r *Regexp) FindStringIndex(s string) []int {
	if m := r.FindStringSubmatchIndex(s); m != nil {
		return m[:2]
	}
	return nil
}

// FindStringSubmatch returns the leftmost match and its groups.
func (r *Regexp) FindStringSubmatch(s string) []string {
	if m := r.FindStringSubmatchIndex(s); m != nil {
		return submatchStrings(s, m)
	}
	return nil
}

// FindStringSubmatchIndex returns the locations of the leftmost match and
// its groups.
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	if !r.mayMatch(s) {
		return nil
	}
	if c := r.cursor(s); c != nil {
		return r.anc.find(c, 0)
	}
	return r.rx().FindStringSubmatchIndex(s)
}

// FindAllString returns up to n successive matches.
func (r *Regexp) FindAllString(s string, n int) []string {
	var out []string
	for _, m := range r.FindAllStringSubmatchIndex(s, n) {
		out = append(out, s[m[0]:m[1]])
	}
	return out
}

// FindAllStringIndex returns the locations of up to n successive matches.
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int {
	all := r.FindAllStringSubmatchIndex(s, n)
	for i, m := range all {
		all[i] = m[:2]
	}
	return all
}

// FindAllStringSubmatch returns up to n successive matches with groups.
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	var out [][]string
	for _, m := range r.FindAllStringSubmatchIndex(s, n) {
		out = append(out, submatchStrings(s, m))
	}
	return out
}

// FindAllStringSubmatchIndex returns the locations of up to n successive
// matches and their groups.
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	if !r.mayMatch(s) {
		return nil
	}
	if r.anc != nil && (!r.anc.fold || r.cursor(s) != nil) {
		return r.anc.all(s, n)
	}
	return r.rx().FindAllStringSubmatchIndex(s, n)
}

// ReplaceAllString replaces every match; with no match s is returned
// unchanged, as regexp does.
func (r *Regexp) ReplaceAllString(s, repl string) string {
	if !r.mayMatch(s) {
		return s
	}
	return r.rx().ReplaceAllString(s, repl)
}

// ReplaceAllStringFunc replaces every match with f's result.
func (r *Regexp) ReplaceAllStringFunc(s string, f func(string) string) string {
	if !r.mayMatch(s) {
		return s
	}
	return r.rx().ReplaceAllStringFunc(s, f)
}

// info is what a sub-pattern requires: ok means every match of it
// contains one of lits (and lits is non-empty).
type info struct {
	lits []string
	fold bool
	ok   bool
}

// required computes, bottom-up, a literal set every match must contain.
func required(re *syntax.Regexp) info {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return info{}
		}
		return info{lits: []string{string(re.Rune)}, fold: re.Flags&syntax.FoldCase != 0, ok: true}
	case syntax.OpCharClass:
		// A small class is a set of one-character literals: [:=], [Rr].
		var lits []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if hi-lo >= 8 || len(lits)+int(hi-lo)+1 > 8 {
				return info{}
			}
			for c := lo; c <= hi; c++ {
				lits = append(lits, string(c))
			}
		}
		if len(lits) == 0 {
			return info{}
		}
		return info{lits: lits, ok: true}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
		return info{}
	case syntax.OpConcat:
		// Any one child's requirement holds for the concatenation; take
		// the most selective (longest shortest literal, then fewest).
		best := info{}
		for _, s := range re.Sub {
			in := required(s)
			if in.ok && better(in, best) {
				best = in
			}
		}
		return best
	case syntax.OpAlternate:
		var out info
		out.ok = true
		for _, s := range re.Sub {
			in := required(s)
			if !in.ok {
				return info{}
			}
			out.lits = append(out.lits, in.lits...)
			out.fold = out.fold || in.fold
			if len(out.lits) > maxLits {
				return info{}
			}
		}
		return out
	}
	return info{}
}

// better reports whether a is a more selective requirement than b.
func better(a, b info) bool {
	if !b.ok {
		return true
	}
	ma, mb := minLen(a.lits), minLen(b.lits)
	if ma != mb {
		return ma > mb
	}
	return len(a.lits) < len(b.lits)
}

func minLen(l []string) int {
	m := -1
	for _, s := range l {
		if m < 0 || len(s) < m {
			m = len(s)
		}
	}
	return m
}
