package ledger

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// DecodeArgs decodes a call's argument text as a JSON object, or returns
// nil when it is not one (truncated, a bare command line, null). Every
// analysis that reads argument fields uses it, so a caller that decodes
// once can hand the same map to each (ArgsObject values are read-only).
//
// The result is exactly json.Unmarshal's into a map[string]any. Arguments
// are decoded once per call of every audit, and encoding/json spent more
// allocating (a copy of the text, every string, its scanner state) than
// parsing: the direct decoder below handles the shapes tool arguments
// have and returns strings without escapes as substrings of args. Any
// text it does not handle (invalid UTF-8, surrogate escapes, numbers out
// of float64 range, deep nesting, anything malformed) goes to
// encoding/json, so the answer never differs; the tests fuzz one
// against the other.
func DecodeArgs(args string) ArgsObject {
	if m, ok := fastDecodeObject(args); ok {
		return m
	}
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return nil
	}
	return m
}

// ArgsObject is a decoded argument object; nil when the arguments are not
// a JSON object. Holders must not modify it: it may be shared.
type ArgsObject map[string]any

// argDecoder is a JSON reader for DecodeArgs' fast path. ok=false from any
// method means "not handled here", never "invalid".
type argDecoder struct {
	s     string
	i     int
	depth int
}

// fastDecodeObject decodes s when it is a well-formed JSON object in the
// subset handled; ok is false otherwise (including for valid JSON it
// leaves to encoding/json).
func fastDecodeObject(s string) (ArgsObject, bool) {
	if !utf8.ValidString(s) {
		return nil, false
	}
	d := argDecoder{s: s}
	d.space()
	if d.i >= len(s) || s[d.i] != '{' {
		return nil, false
	}
	v, ok := d.value()
	if !ok {
		return nil, false
	}
	d.space()
	if d.i != len(s) {
		return nil, false
	}
	return v.(map[string]any), true
}

func (d *argDecoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *argDecoder) value() (any, bool) {
	if d.i >= len(d.s) {
		return nil, false
	}
	switch c := d.s[d.i]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		return d.str()
	case c == 't':
		return d.lit("true", true)
	case c == 'f':
		return d.lit("false", false)
	case c == 'n':
		return d.lit("null", nil)
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return nil, false
}

func (d *argDecoder) lit(word string, v any) (any, bool) {
	if !strings.HasPrefix(d.s[d.i:], word) {
		return nil, false
	}
	d.i += len(word)
	return v, true
}

func (d *argDecoder) object() (any, bool) {
	if d.depth++; d.depth > 64 {
		return nil, false
	}
	defer func() { d.depth-- }()
	d.i++ // {
	m := map[string]any{}
	d.space()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		return m, true
	}
	for {
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			return nil, false
		}
		k, ok := d.str()
		if !ok {
			return nil, false
		}
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			return nil, false
		}
		d.i++
		d.space()
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		m[k.(string)] = v
		if done, ok := d.next('}'); !ok {
			return nil, false
		} else if done {
			return m, true
		}
	}
}

// next reads what follows a member or element: a comma (more to come)
// or the closing bracket (done).
func (d *argDecoder) next(closer byte) (done, ok bool) {
	d.space()
	if d.i >= len(d.s) {
		return false, false
	}
	switch d.s[d.i] {
	case ',':
		d.i++
		return false, true
	case closer:
		d.i++
		return true, true
	}
	return false, false
}

func (d *argDecoder) array() (any, bool) {
	if d.depth++; d.depth > 64 {
		return nil, false
	}
	defer func() { d.depth-- }()
	d.i++ // [
	a := []any{}
	d.space()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		return a, true
	}
	for {
		d.space()
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		a = append(a, v)
		if done, ok := d.next(']'); !ok {
			return nil, false
		} else if done {
			return a, true
		}
	}
}

// str reads a string; one without escapes is returned as a substring.
func (d *argDecoder) str() (any, bool) {
	d.i++ // opening quote
	start := d.i
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			return d.s[start : d.i-1], true
		case c == '\\':
			return d.escaped(start)
		case c < 0x20:
			return nil, false
		}
		d.i++
	}
	return nil, false
}

// escaped finishes a string with escapes, from its start.
func (d *argDecoder) escaped(start int) (any, bool) {
	var b strings.Builder
	b.Grow(d.i - start + 16)
	b.WriteString(d.s[start:d.i])
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			return b.String(), true
		case c < 0x20:
			return nil, false
		case c != '\\':
			b.WriteByte(c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.s) {
			return nil, false
		}
		e := d.s[d.i+1]
		d.i += 2
		switch e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			if d.i+4 > len(d.s) {
				return nil, false
			}
			r, err := strconv.ParseUint(d.s[d.i:d.i+4], 16, 32)
			if err != nil || utf16.IsSurrogate(rune(r)) {
				// Surrogate pairs and lone surrogates: encoding/json's
				// rules, not repeated here.
				return nil, false
			}
			d.i += 4
			b.WriteRune(rune(r))
		default:
			return nil, false
		}
	}
	return nil, false
}

// number reads a JSON number as float64, as encoding/json does into an
// interface; the grammar is checked strictly, and a value out of range
// is left to encoding/json (which refuses it).
func (d *argDecoder) number() (any, bool) {
	start := d.i
	s := d.s
	if s[d.i] == '-' {
		d.i++
	}
	digits := func() int {
		n := 0
		for d.i < len(s) && s[d.i] >= '0' && s[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.i < len(s) && s[d.i] == '0' {
		d.i++
	} else if digits() == 0 {
		return nil, false
	}
	if d.i < len(s) && s[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return nil, false
		}
	}
	if d.i < len(s) && (s[d.i] == 'e' || s[d.i] == 'E') {
		d.i++
		if d.i < len(s) && (s[d.i] == '+' || s[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return nil, false
		}
	}
	f, err := strconv.ParseFloat(s[start:d.i], 64)
	if err != nil {
		return nil, false
	}
	return f, true
}
