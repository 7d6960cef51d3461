package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledger-audit/ledger-audit/samples"
)

func TestSampleList(t *testing.T) {
	out, _, code := runArgs(t, "sample", "--list")
	if code != 0 || !strings.HasPrefix(out, "synth ") {
		t.Fatalf("exit %d %q", code, out)
	}
	for _, n := range samples.Names() {
		if !strings.Contains(out, "\n"+n+" ") {
			t.Errorf("--list lacks %s", n)
		}
	}
}

func TestSampleSynthIsDeterministicAndAtomic(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	outA, errA, code := runArgs(t, "sample", "synth", "--calls", "300", "--sessions", "4", "--seed", "9", "-o", a)
	if code != 0 {
		t.Fatalf("exit %d %s", code, errA)
	}
	outB, _, _ := runArgs(t, "sample", "synth", "--calls", "300", "--sessions", "4", "--seed", "9", "-o", b)
	headA, headB := outA[strings.Index(outA, " rows"):], outB[strings.Index(outB, " rows"):]
	if !strings.HasPrefix(outA, "wrote "+a+": ") || headA != headB {
		t.Fatalf("same seed, different output:\n%s%s", outA, outB)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") || strings.HasSuffix(e.Name(), "-wal") {
			t.Errorf("left behind %s", e.Name())
		}
	}
	if out, _, code := runArgs(t, "verify", a); code != 0 || !strings.Contains(out, "OK") {
		t.Fatalf("synthetic ledger does not verify: %s", out)
	}
}

func TestSampleNamedWithHome(t *testing.T) {
	names := samples.Names()
	var withHome string
	for _, n := range names {
		if s, _ := samples.Get(n); s.Home != nil {
			withHome = n
		}
	}
	if withHome == "" {
		t.Fatal("no registered sample has a companion home (incident-90985 should)")
	}
	dir := t.TempDir()
	path, home := filepath.Join(dir, "s.db"), filepath.Join(dir, "home")
	if _, errOut, code := runArgs(t, "sample", withHome, "-o", path, "--home", home); code != 0 {
		t.Fatalf("exit %d %s", code, errOut)
	}
	if entries, err := os.ReadDir(home); err != nil || len(entries) == 0 {
		t.Fatalf("home not written: %v", err)
	}
	if out, _, code := runArgs(t, "verify", path); code != 0 {
		t.Fatalf("%s does not verify: %s", withHome, out)
	}
}

func TestSampleRefusesToOverwrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	os.WriteFile(path, []byte("precious"), 0o600)
	_, errOut, code := runArgs(t, "sample", "synth", "--calls", "5", "-o", path)
	if code != 2 || !strings.Contains(errOut, "already exists") {
		t.Fatalf("exit %d %q", code, errOut)
	}
	if b, _ := os.ReadFile(path); string(b) != "precious" {
		t.Fatal("existing file changed")
	}
	if _, errOut, code := runArgs(t, "sample", "synth", "--calls", "5", "--force", "-o", path); code != 0 {
		t.Fatalf("--force: exit %d %s", code, errOut)
	}
}

func TestSampleUsage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sample"}, "want one sample name"},
		{[]string{"sample", "synth"}, "-o FILE is required"},
		{[]string{"sample", "nope", "-o", filepath.Join(dir, "n.db")}, `unknown sample "nope"`},
		{[]string{"sample", "synth", "--sessions", "0", "-o", filepath.Join(dir, "z.db")}, "--sessions >= 1"},
		{[]string{"sample", "synth", "-o", filepath.Join(dir, "missing", "z.db")}, "does not exist"},
		{[]string{"sample", "synth", "--force", "-o", os.DevNull}, "not a regular file"},
		{[]string{"sample", "synth", "--force", "-o", dir}, "not a regular file"},
	} {
		_, errOut, code := runArgs(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, errOut)
		}
	}
	if n := samples.Names(); len(n) > 0 {
		if _, errOut, code := runArgs(t, "sample", n[0], "--calls", "3", "-o", filepath.Join(dir, "q.db")); code != 2 || !strings.Contains(errOut, "synth only") {
			t.Errorf("--calls on a named sample: exit %d %q", code, errOut)
		}
	}
}
