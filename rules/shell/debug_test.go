package shell

import (
	"fmt"
	"os"
	"testing"
)

func TestDebugDump(t *testing.T) {
	src := os.Getenv("SHDBG")
	if src == "" {
		t.Skip()
	}
	st := NewState()
	for _, part := range splitCalls(src) {
		cmds, err := Parse(part, st)
		fmt.Println("==", part, err)
		for _, c := range cmds {
			fmt.Printf("  %q via=%v unres=%v codefrom=%v notes=%v pipe=%d/%d\n", c.String(), c.Via, c.Unresolved, c.CodeFrom, c.Notes, c.PipeIndex, c.PipeLen)
		}
	}
}

func splitCalls(s string) []string {
	var out []string
	cur := ""
	for _, line := range []rune(s) {
		_ = line
	}
	for _, p := range splitOn(s, "\n@@\n") {
		out = append(out, p)
	}
	_ = cur
	return out
}

func splitOn(s, sep string) []string {
	var out []string
	for {
		i := indexOf(s, sep)
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i])
		s = s[i+len(sep):]
	}
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
