package policy

import (
	"encoding/json"
	"strings"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// lenientObject decodes argument text that is almost a JSON object: raw
// control characters inside strings (escaped here) and a text cut off
// anywhere (the open string, arrays and objects are closed; a dangling
// escape, key or comma is dropped). It returns nil for anything that
// does not start as an object or still does not decode.
func lenientObject(args string) ledger.ArgsObject {
	t := strings.TrimSpace(args)
	if !strings.HasPrefix(t, "{") {
		return nil
	}
	var b strings.Builder
	b.Grow(len(t) + 8)
	var stack []byte
	inStr, esc := false, false
	for i := 0; i < len(t); i++ {
		c := t[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			case c < 0x20:
				// A raw control character: JSON wants it escaped.
				switch c {
				case '\n':
					b.WriteString(`\n`)
				case '\t':
					b.WriteString(`\t`)
				case '\r':
					b.WriteString(`\r`)
				default:
					b.WriteString(`\u00`)
					b.WriteByte("0123456789abcdef"[c>>4])
					b.WriteByte("0123456789abcdef"[c&15])
				}
				continue
			}
			b.WriteByte(c)
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			stack = append(stack, c)
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
		b.WriteByte(c)
	}
	fixed := b.String()
	if inStr {
		if esc {
			fixed = fixed[:len(fixed)-1]
		}
		fixed += `"`
	}
	if len(stack) > 0 {
		// Cut after a key, a colon or a comma: drop the incomplete member.
		trimmed := strings.TrimRight(fixed, " \t\r\n")
		switch {
		case strings.HasSuffix(trimmed, ","):
			trimmed = trimmed[:len(trimmed)-1]
		case strings.HasSuffix(trimmed, ":"):
			trimmed += "null"
		}
		fixed = trimmed
		for i := len(stack) - 1; i >= 0; i-- {
			if stack[i] == '{' {
				fixed += "}"
			} else {
				fixed += "]"
			}
		}
	}
	var m map[string]any
	if json.Unmarshal([]byte(fixed), &m) != nil {
		// A key cut off before its colon ({"a": "x", "co): drop it.
		if i := strings.LastIndexAny(fixed, ",{"); i > 0 && len(stack) == 1 && fixed[i] == ',' {
			if json.Unmarshal([]byte(fixed[:i]+"}"), &m) != nil {
				return nil
			}
			return m
		}
		return nil
	}
	return m
}
