package main

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Broken input through the real commands: exit 2, one line on stderr that
// names the file, nothing on stdout, no output file, the input untouched.
func TestFaultyLedgersThroughTheCLI(t *testing.T) {
	dir := t.TempDir()
	good, _ := chainFile(t, 40)
	whole, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	notLedger := filepath.Join(dir, "notes.db")
	tamper(t, notLedger, `CREATE TABLE notes(body TEXT)`)
	files := map[string][]byte{
		"empty.db":     nil,
		"garbage.db":   []byte(strings.Repeat("\x00\xffgarbage", 700)),
		"truncated.db": whole[:len(whole)/2],
		"header.db":    whole[:60],
	}
	paths := []string{notLedger}
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	for _, p := range paths {
		before, _ := os.ReadFile(p)
		for _, cmd := range [][]string{
			{"verify", p},
			{"prune", "--keep", "1", p},
			{"audit", "--now", "2026-12-01T00:00:00Z", "-o", filepath.Join(dir, "out.json"), p},
		} {
			if _, ok := commands[cmd[0]]; !ok {
				continue // not registered in this build
			}
			out, errOut, code := runArgs(t, cmd...)
			if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "ledger-audit: "+p+": ") {
				t.Errorf("%v: exit %d, stdout %q, stderr %q", cmd, code, out, errOut)
			}
			if _, err := os.Stat(filepath.Join(dir, "out.json")); err == nil {
				t.Errorf("%v left an output file", cmd)
			}
		}
		after, _ := os.ReadFile(p)
		if sha256.Sum256(before) != sha256.Sum256(after) {
			t.Errorf("%s changed", p)
		}
	}
}
