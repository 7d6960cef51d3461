package policy

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestDbgCheck(t *testing.T) {
	src := os.Getenv("PCHK")
	if src == "" {
		t.Skip()
	}
	e, _ := Default()
	rep := e.NewReplay()
	for _, c := range SplitCalls(src) {
		d := rep.Evaluate(&c)
		fmt.Println(strings.Join(d.Explain(), "\n"))
	}
}
