package analyze

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// argsHash is ledger.ArgsHash(args).
func argsHash(args string) string {
	return sha256Hex(canonicalArgs(args))
}

// canonicalArgs is the text ledger.ArgsHash hashes: the canonical JSON of
// args, or args itself when it is not JSON. The loop tracker hashes every
// call's arguments and the posture rules' retry signature hashes them
// too, so analyze computes this once per call and hands it to both.
// Decoding into map[string]any only to re-encode with sorted keys cost
// more than the rest of loop forensics together; fastCanonical produces
// byte for byte what ledger.CanonicalJSON does (tested and fuzzed against
// it) and defers to it for what it does not handle itself: invalid UTF-8,
// very deep nesting and text that is not JSON.
func canonicalArgs(args string) string {
	p := canonPool.Get().(*canonParser)
	defer canonPool.Put(p)
	if canon, ok := p.canonical(args); ok {
		return string(canon)
	}
	if canon, ok := ledger.CanonicalJSON(args); ok {
		return canon
	}
	return args
}

// argsDigestOf is argsDigest(canonicalArgs(args)) without building the
// canonical text as a string: the parser's buffer is hashed in place.
func argsDigestOf(args string) [32]byte {
	p := canonPool.Get().(*canonParser)
	defer canonPool.Put(p)
	if canon, ok := p.canonical(args); ok {
		return sha256.Sum256(canon)
	}
	return argsDigest(canonicalArgs(args))
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// fastCanonical returns the canonical JSON of s; ok is false when it
// cannot decide (the caller then uses the ledger's own path, which also
// covers s not being JSON at all).
func fastCanonical(s string) ([]byte, bool) {
	var p canonParser
	return p.canonical(s)
}

// canonPool recycles parsers and their buffers across calls.
var canonPool = sync.Pool{New: func() any { return new(canonParser) }}

// canonical is fastCanonical with p's buffers; the result is valid until
// p's next use.
func (p *canonParser) canonical(s string) ([]byte, bool) {
	if !utf8.ValidString(s) {
		return nil, false
	}
	p.s, p.i = s, 0
	defer func() { p.s = "" }() // do not keep the caller's text alive in the pool
	p.skipSpace()
	out, ok := p.value(p.out[:0], 0)
	if ok && cap(out) <= 64<<10 { // keep what an ordinary call needs, not a pathological one's
		p.out = out[:0]
	}
	if !ok {
		return nil, false
	}
	// encoding/json's Decoder reads one value; More then accepts the end
	// of input or a closing bracket after it, and nothing else.
	p.skipSpace()
	if p.i < len(s) && s[p.i] != ']' && s[p.i] != '}' {
		return nil, false
	}
	return out, true
}

// maxCanonDepth bounds recursion; deeper documents go the slow way.
const maxCanonDepth = 512

type canonParser struct {
	s       string
	i       int
	out     []byte        // the canonical text being built
	obj     []byte        // scratch for sorting one object's members
	members []canonMember // scratch: the members of the objects being parsed
}

type canonMember struct {
	key        string
	start, end int // the value's canonical text in the output
}

func (p *canonParser) skipSpace() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *canonParser) value(out []byte, depth int) ([]byte, bool) {
	if p.i >= len(p.s) || depth > maxCanonDepth {
		return nil, false
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(out, depth+1)
	case c == '[':
		return p.array(out, depth+1)
	case c == '"':
		str, ok := p.str()
		if !ok {
			return nil, false
		}
		return appendCanonString(out, str), true
	case c == '-' || c >= '0' && c <= '9':
		start := p.i
		if !p.number() {
			return nil, false
		}
		return append(out, p.s[start:p.i]...), true
	case strings.HasPrefix(p.s[p.i:], "true"):
		p.i += 4
		return append(out, "true"...), true
	case strings.HasPrefix(p.s[p.i:], "false"):
		p.i += 5
		return append(out, "false"...), true
	case strings.HasPrefix(p.s[p.i:], "null"):
		p.i += 4
		return append(out, "null"...), true
	}
	return nil, false
}

func (p *canonParser) object(out []byte, depth int) ([]byte, bool) {
	p.i++ // {
	base := len(out)
	// The members of this object go on p.members above those of the
	// objects it is nested in; nested objects finish (and pop theirs)
	// before this one goes on.
	mbase := len(p.members)
	defer func() {
		clear(p.members[mbase:])
		p.members = p.members[:mbase]
	}()
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return append(out, "{}"...), true
	}
	for {
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, false
		}
		key, ok := p.str()
		if !ok {
			return nil, false
		}
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, false
		}
		p.i++
		p.skipSpace()
		start := len(out)
		if out, ok = p.value(out, depth); !ok {
			return nil, false
		}
		p.members = append(p.members, canonMember{key, start, len(out)})
		done, ok := p.next('}')
		if !ok {
			return nil, false
		}
		if done {
			break
		}
	}
	// Sorted keys; a repeated key keeps its last value, as decoding into a
	// map does.
	members := p.members[mbase:]
	slices.SortStableFunc(members, func(a, b canonMember) int { return strings.Compare(a.key, b.key) })
	// Nested objects have already been rebuilt in out, so the scratch
	// buffer is free again.
	obj := append(p.obj[:0], '{')
	first := true
	for i, m := range members {
		if i+1 < len(members) && members[i+1].key == m.key {
			continue
		}
		if !first {
			obj = append(obj, ',')
		}
		first = false
		obj = appendCanonString(obj, m.key)
		obj = append(obj, ':')
		obj = append(obj, out[m.start:m.end]...)
	}
	obj = append(obj, '}')
	out = append(out[:base], obj...)
	if cap(obj) <= 64<<10 {
		p.obj = obj[:0]
	}
	return out, true
}

func (p *canonParser) array(out []byte, depth int) ([]byte, bool) {
	p.i++ // [
	out = append(out, '[')
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return append(out, ']'), true
	}
	for n := 0; ; n++ {
		if n > 0 {
			out = append(out, ',')
		}
		p.skipSpace()
		var ok bool
		if out, ok = p.value(out, depth); !ok {
			return nil, false
		}
		done, ok := p.next(']')
		if !ok {
			return nil, false
		}
		if done {
			return append(out, ']'), true
		}
	}
}

// next reads what follows a member or element: a comma (more to come) or
// the closing bracket (done).
func (p *canonParser) next(closer byte) (done, ok bool) {
	p.skipSpace()
	if p.i >= len(p.s) {
		return false, false
	}
	switch p.s[p.i] {
	case ',':
		p.i++
		return false, true
	case closer:
		p.i++
		return true, true
	}
	return false, false
}

// number accepts exactly JSON's number grammar.
func (p *canonParser) number() bool {
	s, i := p.s, p.i
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	p.i = i
	return true
}

// str reads a JSON string at p.i and returns its decoded text, decoding
// escapes as encoding/json does (a lone surrogate becomes U+FFFD).
func (p *canonParser) str() (string, bool) {
	s := p.s
	i := p.i + 1
	start := i
	for i < len(s) && s[i] != '"' && s[i] != '\\' && s[i] >= 0x20 {
		i++
	}
	if i < len(s) && s[i] == '"' { // no escapes: the common case
		p.i = i + 1
		return s[start:i], true
	}
	var b []byte
	b = append(b, s[start:i]...)
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			p.i = i + 1
			return string(b), true
		case c < 0x20:
			return "", false
		case c != '\\':
			b = append(b, c)
			i++
			continue
		}
		i++
		if i >= len(s) {
			return "", false
		}
		switch s[i] {
		case '"', '\\', '/':
			b = append(b, s[i])
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := hex4(s, i+1)
			if !ok {
				return "", false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				// A valid pair decodes to one rune; anything else is a
				// lone surrogate, written as U+FFFD.
				if r2, ok := hex4(s, i+3); ok && i+2 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						b = utf8.AppendRune(b, dec)
						i += 6 + 1
						continue
					}
				}
				r = utf8.RuneError
			}
			b = utf8.AppendRune(b, r)
		default:
			return "", false
		}
		i++
	}
	return "", false
}

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}

// appendCanonString quotes s as the ledger's canonical form does (Python's
// ensure_ascii=False): only the quote, the backslash and control
// characters are escaped. s is valid UTF-8 here.
func appendCanonString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
