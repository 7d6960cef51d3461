package main

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/ledger-audit/ledger-audit/samples"
)

// sample writes a bundled incident ledger, or a synthetic one of any size
// for benchmarks, always into a new file that appears only when complete.
func init() {
	c := &command{name: "sample", summary: "write a bundled sample ledger, or a synthetic one of any size",
		usage: "NAME -o FILE [--home DIR] | synth [--calls N] [--sessions S] [--seed X] -o FILE | --list"}
	c.run = func(e *env, args []string) error {
		fs := newFlags(e, c)
		list := fs.Bool("list", false, "list the samples")
		out := fs.StringP("output", "o", "", "the ledger file to write (required)")
		force := fs.Bool("force", false, "replace FILE if it exists")
		home := fs.String("home", "", "also write the sample's companion Hermes home (if it has one) into DIR")
		calls := fs.Int("calls", 10000, "synth: number of tool calls")
		sessions := fs.Int("sessions", 50, "synth: number of sessions")
		seed := fs.Int64("seed", 1, "synth: random seed (same seed, same ledger)")
		if err := parseFlags(e, c, fs, args); err != nil {
			return err
		}
		if *list {
			if fs.NArg() > 0 {
				return usagef("--list takes no arguments")
			}
			fmt.Fprintf(e.stdout, "%-18s %s\n", "synth", "synthetic ledger of any size (--calls, --sessions, --seed)")
			for _, n := range samples.Names() {
				s, _ := samples.Get(n)
				fmt.Fprintf(e.stdout, "%-18s %s\n", n, s.Description)
			}
			return nil
		}
		if fs.NArg() != 1 {
			return usagef("want one sample name (see --list)")
		}
		name := fs.Arg(0)
		if *out == "" || *out == "-" {
			return usagef("-o FILE is required: a ledger is a SQLite file, not a stream")
		}
		synth := name == "synth"
		if synth {
			if *calls < 0 || *sessions < 1 {
				return usagef("synth: want --calls >= 0 and --sessions >= 1")
			}
		} else {
			if _, err := samples.Get(name); err != nil {
				return usagef("%v", err)
			}
			for _, f := range []string{"calls", "sessions", "seed"} {
				if fs.Changed(f) {
					return usagef("--%s applies to synth only", f)
				}
			}
		}
		if _, err := os.Lstat(*out); err == nil && !*force {
			return fmt.Errorf("%s: already exists (pass --force to replace it)", *out)
		}
		err := writeLedgerFile(*out, func(tmp string) error {
			if synth {
				return samples.Synth(tmp, samples.SynthOptions{Calls: *calls, Sessions: *sessions, Seed: *seed})
			}
			return samples.Generate(name, tmp)
		})
		if err != nil {
			return err
		}
		if *home != "" && !synth {
			s, _ := samples.Get(name)
			if s.Home == nil {
				return usagef("sample %s has no companion home", name)
			}
			if err := os.MkdirAll(*home, 0o700); err != nil {
				return fmt.Errorf("%s: %v", *home, unwrapPathErr(err))
			}
			if err := s.Home(*home); err != nil {
				return fmt.Errorf("%s: %v", *home, err)
			}
		}
		v, err := ledger.Head(*out)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %s: %d rows, head %d:%s\n", *out, v.Rows, v.LastID, v.HeadHash)
		return nil
	}
	register(c)
}

func rollbackJournal(path string) error {
	db, err := sql.Open("sqlite3", "file:"+(&url.URL{Path: path}).EscapedPath()+"?_journal_mode=DELETE")
	if err != nil {
		return err
	}
	defer db.Close()
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil {
		return err
	}
	if mode != "delete" {
		return fmt.Errorf("cannot leave WAL mode (journal_mode is %s)", mode)
	}
	return nil
}

// writeLedgerFile builds a ledger under a temporary name beside path and
// renames it into place only when gen succeeded, so a failed or
// interrupted run never leaves a half-written ledger at path.
func writeLedgerFile(path string, gen func(tmp string) error) error {
	// Renaming over a device or a pipe (-o /dev/null as root) would replace
	// it with a regular file.
	if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file; a ledger must be written to a file", path)
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("%s: directory %s does not exist", path, dir)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("%s: cannot write: %v", path, unwrapPathErr(err))
	}
	tmp := f.Name()
	f.Close()
	// The generators refuse to write into an existing file.
	os.Remove(tmp)
	cleanup := func() {
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			os.Remove(tmp + suffix)
		}
	}
	if err := gen(tmp); err != nil {
		cleanup()
		return fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), tmp+": "))
	}
	// Generators write WAL, as capture does. A finished file is switched to
	// the rollback journal so that read-only analysis of it never leaves
	// -wal/-shm files beside it.
	if err := rollbackJournal(tmp); err != nil {
		cleanup()
		return fmt.Errorf("%s: %v", path, err)
	}
	// A replaced ledger's own WAL must not be applied to the new file.
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			cleanup()
			return fmt.Errorf("%s: %v", path+suffix, unwrapPathErr(err))
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		cleanup()
		return fmt.Errorf("%s: %v", path, unwrapPathErr(err))
	}
	return nil
}
