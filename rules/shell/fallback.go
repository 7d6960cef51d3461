package shell

import (
	"strings"
)

// fallback splits text the parser rejected into commands at shell
// operators and whitespace, strips quote characters, and normalises each
// like a parsed command. The result is marked "unparseable": a match made
// this way is weaker evidence, and the input itself is suspicious.
func (w *walker) fallback(src string, c ctx) {
	w.psNetExec(src, c)
	segs := splitOps(src)
	for i, seg := range segs {
		words := strings.Fields(strings.NewReplacer(`"`, "", `'`, "", "\\\n", "", `\`, "", "{", " ", "}", " ").Replace(seg.text))
		if len(words) == 0 {
			continue
		}
		r := newRaw(words)
		// The whole rejected text: a pattern spanning the split points
		// (":(){ :|:& };:") must still be visible to text matchers.
		r.text = src
		r.notes = []string{"unparseable"}
		sc := c
		if seg.pipeLen > 1 {
			sc.pipeID, sc.pipeIdx, sc.pipeLen = 100000+seg.pipeID, seg.pipeIdx, seg.pipeLen
		}
		var in stdinInfo
		if seg.pipeIdx > 0 {
			for _, prev := range segs[:i] {
				if prev.pipeID == seg.pipeID && prev.pipeIdx < seg.pipeIdx {
					fw := strings.Fields(strings.NewReplacer(`"`, "", `'`, "").Replace(prev.text))
					if len(fw) > 0 {
						in.sources = append(in.sources, Source{Kind: "pipe", Name: baseName(fw[0]), Args: fw[1:], Text: prev.text})
					}
				}
			}
			in.kind = "pipe"
		}
		w.depth++
		w.emit(r, sc, in)
		w.depth--
	}
}

func baseName(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 && i < len(s)-1 {
		return s[i+1:]
	}
	return s
}

type segment struct {
	text                     string
	pipeID, pipeIdx, pipeLen int
}

// splitOps cuts at ; & && || | newline and parentheses, numbering pipe
// stages.
func splitOps(s string) []segment {
	var out []segment
	id, idx := 0, 0
	start := 0
	flush := func(end int, pipe bool) {
		out = append(out, segment{text: s[start:end], pipeID: id, pipeIdx: idx})
		if pipe {
			idx++
		} else {
			id++
			idx = 0
		}
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '|':
			if i+1 < len(s) && s[i+1] == '|' {
				flush(i, false)
				i++
				start = i + 1
				continue
			}
			flush(i, true)
			start = i + 1
		case ';', '\n', '(', ')', '`':
			flush(i, false)
			start = i + 1
		case '&':
			flush(i, false)
			if i+1 < len(s) && s[i+1] == '&' {
				i++
			}
			start = i + 1
		}
	}
	flush(len(s), false)
	// Pipe lengths.
	n := map[int]int{}
	for _, sg := range out {
		n[sg.pipeID]++
	}
	for i := range out {
		out[i].pipeLen = n[out[i].pipeID]
	}
	return out
}
