package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"unicode/utf8"
)

// CanonicalJSON re-encodes a JSON document with sorted keys and no
// insignificant whitespace, the way Python's
// json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
// does, so the Go capture hook and the Python Hermes plugin hash alike.
// Numbers keep their literal text. ok is false when s is not JSON.
func CanonicalJSON(s string) (string, bool) {
	v, ok := decodeJSON(s)
	if !ok {
		return "", false
	}
	var b bytes.Buffer
	writeCanonical(&b, v)
	return b.String(), true
}

func decodeJSON(s string) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if dec.More() {
		return nil, false
	}
	return v, true
}

func writeCanonical(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case json.Number:
		b.WriteString(x.String())
	case string:
		writeString(b, x)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			writeCanonical(b, x[k])
		}
		b.WriteByte('}')
	default:
		panic(fmt.Sprintf("ledger: unexpected JSON value %T", v))
	}
}

// writeString escapes like Python with ensure_ascii=False: only the quote,
// the backslash and control characters.
func writeString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// ArgsHash is the loop-guardrail argument signature: sha256 of the
// canonical JSON of the arguments, or of the raw text when they are not JSON.
func ArgsHash(args string) string {
	if c, ok := CanonicalJSON(args); ok {
		return sha256Hex(c)
	}
	return sha256Hex(args)
}

// ResultHash hashes a tool result the way Hermes' fixed guardrail does:
// sha256 of the canonical JSON, else of the raw text. For execute_code only,
// the per-call bookkeeping fields duration_seconds (top level) and
// kernel.execution_count are stripped first; for every other tool those
// keys may be real output and are kept.
func ResultHash(tool, result string) string {
	return resultHash(tool, result, true)
}

// ResultHashUnfixed is the hash before the volatile-field fix (Hermes PR
// #124724): used to show what an unfixed guardrail would have seen.
func ResultHashUnfixed(result string) string {
	return resultHash("", result, false)
}

func resultHash(tool, result string, strip bool) string {
	v, ok := decodeJSON(result)
	if !ok {
		return sha256Hex(result)
	}
	if strip && tool == "execute_code" {
		v = withoutExecuteCodeMetadata(v)
	}
	var b bytes.Buffer
	writeCanonical(&b, v)
	return sha256Hex(b.String())
}

func withoutExecuteCodeMetadata(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m))
	for k, e := range m {
		if k == "duration_seconds" {
			continue
		}
		out[k] = e
	}
	if kernel, ok := out["kernel"].(map[string]any); ok {
		k2 := make(map[string]any, len(kernel))
		for k, e := range kernel {
			if k != "execution_count" {
				k2[k] = e
			}
		}
		out["kernel"] = k2
	}
	return out
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Truncate cuts s to at most n characters (code points, as Python counts
// them) and reports whether it cut anything. Invalid UTF-8 bytes count as
// one character each.
func Truncate(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	count := 0
	for i := 0; i < len(s); {
		if count == n {
			return s[:i], true
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	return s, false
}
