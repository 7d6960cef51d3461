package policy

import (
	"bufio"
	"fmt"
	"os"
	"testing"
)

func TestHoldout(t *testing.T) {
	dir := os.Getenv("HO")
	if dir == "" {
		t.Skip()
	}
	e := defaultEngine(t)
	for _, f := range []struct {
		file  string
		block bool
	}{{"pos.txt", true}, {"neg.txt", false}} {
		fh, _ := os.Open(dir + "/" + f.file)
		sc := bufio.NewScanner(fh)
		n, bad := 0, 0
		for sc.Scan() {
			ex := unescapeEval(sc.Text())
			if ex == "" {
				continue
			}
			n++
			blocked := false
			rep := e.NewReplay()
			for _, c := range SplitCalls(ex) {
				if rep.Evaluate(&c).Decision == "block" {
					blocked = true
				}
			}
			if blocked != f.block {
				bad++
				fmt.Printf("%s WRONG: %s\n", f.file, ex)
			}
		}
		fmt.Printf("%s: %d/%d wrong\n", f.file, bad, n)
	}
}
