package main

import (
	"fmt"
	"strings"
	"testing"
)

func TestPruneCLIThenVerify(t *testing.T) {
	path, rows := chainFile(t, 10)
	out, errOut, code := runArgs(t, "prune", "--keep", "4", "--dry-run", path)
	want := fmt.Sprintf("%s: would prune 6 rows (1–6), kept 4; checkpoint 6:%s\n", path, rows[5].Hash)
	if code != 0 || out != want {
		t.Fatalf("dry run: exit %d\n%q\nwant %q\n%s", code, out, want, errOut)
	}
	out, _, code = runArgs(t, "prune", "--keep", "4", "--now", "2026-12-01T00:00:00Z", path)
	if code != 0 || !strings.Contains(out, "pruned 6 rows (1–6), kept 4") {
		t.Fatalf("prune: exit %d %q", code, out)
	}
	out, _, code = runArgs(t, "verify", path)
	want = fmt.Sprintf("%s: OK 4 rows (7–10) from prune checkpoint 6, head 10:%s\n", path, rows[9].Hash)
	if code != 0 || out != want {
		t.Fatalf("verify after prune: exit %d\n%q\nwant %q", code, out, want)
	}
}

func TestPruneCLIKeepsPairsTogether(t *testing.T) {
	path, _ := chainFile(t, 10)
	// Keeping 5 rows would cut between issued row 5 and its confirmation 6.
	out, _, code := runArgs(t, "prune", "--keep", "5", path)
	if code != 0 || !strings.Contains(out, "pruned 4 rows (1–4), kept 6") || !strings.Contains(out, "kept 1 more rows than --keep so call row 5 keeps its outcome") {
		t.Fatalf("exit %d %q", code, out)
	}
}

func TestPruneCLIRefusesTamperedLedger(t *testing.T) {
	path, _ := chainFile(t, 8)
	tamper(t, path, `UPDATE events SET tool_name='Bash' WHERE id=2`)
	_, errOut, code := runArgs(t, "prune", "--keep", "2", path)
	if code != 2 || !strings.Contains(errOut, "hash chain is broken at row 2") || strings.Count(errOut, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if _, _, code := runArgs(t, "prune", "--keep", "2", "--force", path); code != 0 {
		t.Fatalf("--force: exit %d", code)
	}
}

func TestPruneCLIUsage(t *testing.T) {
	path, _ := chainFile(t, 2)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"prune", path}, "--keep N is required"},
		{[]string{"prune", "--keep", "-3", path}, "--keep: want 0 or more"},
		{[]string{"prune", "--keep", "1"}, "no ledger given"},
		{[]string{"prune", "--keep", "1", path, path}, "one ledger"},
		{[]string{"prune", "--keep", "x", path}, "invalid argument"},
	} {
		_, errOut, code := runArgs(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, errOut)
		}
	}
}
