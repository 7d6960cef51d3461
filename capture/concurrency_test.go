package capture

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// TestConcurrentCaptureProcesses is the "must show": 8 real
// `ledger-audit capture` processes (not goroutines sharing one handle)
// append 2,000 events each to one ledger at the same time. Afterwards there
// are exactly 16,000 events, every issued call is paired with its own
// confirmation, the hash chain is intact and the side log is empty.
func TestConcurrentCaptureProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 8 processes writing 16,000 events")
	}
	bin := ledgerAuditBinary(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "ledger.db")
	const procs, pairs = 8, 1000

	cmds := make([]*exec.Cmd, procs)
	stderr := make([]bytes.Buffer, procs)
	for p := 0; p < procs; p++ {
		in := filepath.Join(dir, fmt.Sprintf("in%d.jsonl", p))
		writeEvents(t, in, p, pairs)
		f, err := os.Open(in)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmds[p] = exec.Command(bin, "capture", "--client", "generic", "--stream", "--db", db)
		cmds[p].Stdin, cmds[p].Stderr = f, &stderr[p]
	}
	start := time.Now()
	for p, c := range cmds {
		if err := c.Start(); err != nil {
			t.Fatalf("process %d: %v", p, err)
		}
	}
	for p, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("process %d: %v\n%s", p, err, stderr[p].String())
		}
	}
	t.Logf("8 processes x 2,000 events: %s", time.Since(start).Round(time.Millisecond))

	if b, err := os.ReadFile(filepath.Join(dir, ErrorLog)); err == nil && len(b) > 0 {
		t.Fatalf("side log not empty:\n%s", b)
	}
	h := &harness{t: t, db: db}
	if n := h.count("1=1"); n != procs*pairs*2 {
		t.Fatalf("%d events, want %d", n, procs*pairs*2)
	}
	if n := h.count("kind='confirmed' AND issued_id IS NULL"); n != 0 {
		t.Fatalf("%d unpaired confirmations", n)
	}
	seen := map[string]bool{}
	for _, c := range h.calls() {
		if c.Status != ledger.StatusConfirmed {
			t.Fatalf("call %s in %s is %s", c.CallID, c.SessionID, c.Status)
		}
		// Each confirmation carries its call's own result: pairing went to
		// the right issued row, not merely to some open one.
		if c.ResultDigest != "done "+c.SessionID+"/"+c.CallID {
			t.Fatalf("call %s/%s paired with %q", c.SessionID, c.CallID, c.ResultDigest)
		}
		seen[c.SessionID+"/"+c.CallID] = true
	}
	if len(seen) != procs*pairs {
		t.Fatalf("%d distinct calls, want %d", len(seen), procs*pairs)
	}
	if n := verifyChain(t, db); n != procs*pairs*2 {
		t.Fatalf("chain covers %d rows", n)
	}
}

func writeEvents(t *testing.T, path string, p, pairs int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := 0; i < pairs; i++ {
		fmt.Fprintf(w, `{"event":"pre_tool","session_id":"p%d","call_id":"c%d","tool":"terminal","args":{"command":"echo %d"}}`+"\n", p, i, i)
		fmt.Fprintf(w, `{"event":"post_tool","session_id":"p%d","call_id":"c%d","tool":"terminal","result":"done p%d/c%d"}`+"\n", p, i, p, i)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}
