package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/spf13/pflag"
)

func ledgerSchema() int { return ledger.SchemaVersion }
func resultSchema() int { return analyze.SchemaVersion }

// window holds the flags every analysis command shares.
type window struct {
	now, since, until, session string
}

func (w *window) add(fs *pflag.FlagSet) {
	fs.StringVar(&w.now, "now", "", "the clock for grace periods and reports (RFC 3339; default: current time)")
	fs.StringVar(&w.since, "since", "", "only records at or after this time (RFC 3339, date, or a duration before --now such as 24h)")
	fs.StringVar(&w.until, "until", "", "only records before this time (same forms as --since)")
	fs.StringVar(&w.session, "session", "", "only this session id")
}

// resolve turns the flags into a clock and a ledger filter.
func (w *window) resolve() (time.Time, ledger.Filter, error) {
	now := time.Now().UTC()
	if w.now != "" {
		t, ok := ledger.ParseTime(w.now)
		if !ok {
			return now, ledger.Filter{}, usagef("--now: cannot read %q as a time (want RFC 3339, e.g. 2026-12-01T08:00:00Z)", w.now)
		}
		now = t
	}
	f := ledger.Filter{Session: w.session}
	var err error
	if f.Since, err = relTime("--since", w.since, now); err != nil {
		return now, f, err
	}
	if f.Until, err = relTime("--until", w.until, now); err != nil {
		return now, f, err
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		return now, f, usagef("--since (%s) must be before --until (%s)", ledger.FormatTime(f.Since), ledger.FormatTime(f.Until))
	}
	return now, f, nil
}

func relTime(flag, s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, ok := ledger.ParseTime(s); ok {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, usagef("%s: cannot read %q as a time or a duration", flag, s)
}

// writeOutput writes what render produces to path atomically (a temp file
// in the same directory, then rename), or to stdout when path is "" or
// "-". A failed render leaves no partial file behind.
func writeOutput(e *env, path string, render func(w io.Writer) error) error {
	if path == "" || path == "-" {
		return render(e.stdout)
	}
	// A device or a FIFO (-o /dev/null, -o >(gzip)) is written in place:
	// renaming over it would replace the special file with a regular one.
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		if st.IsDir() {
			return fmt.Errorf("%s: is a directory", path)
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("%s: cannot write output: %v", path, unwrapPathErr(err))
		}
		if err := render(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("%s: cannot write output: %v", path, unwrapPathErr(err))
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("%s: %v", path, unwrapPathErr(err))
	}
	if err := render(tmp); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %v", path, unwrapPathErr(err))
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("%s: %v", path, unwrapPathErr(err))
	}
	ok = true
	return nil
}

// unwrapPathErr drops the *PathError's own copy of the path so the line
// names the file once.
func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// needLedgers checks that at least one ledger path was given.
func needLedgers(paths []string) error {
	if len(paths) == 0 {
		return usagef("no ledger given")
	}
	for _, p := range paths {
		if strings.HasPrefix(p, "-") && p != "-" {
			return usagef("unknown flag %s", p)
		}
	}
	return nil
}

// tracker is an analysis pass fed one ledger after another (the ghost and
// loop trackers): records carry no ledger path, so each ledger is announced.
type tracker interface {
	BeginLedger(path string)
	Observe(rec ledger.Record)
}

// streamLedger opens one ledger read-only, streams it into t and passes
// on the reader's warnings (unreadable timestamps, unknown statuses).
func streamLedger(e *env, t tracker, path string, f ledger.Filter) error {
	r, err := ledger.Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	t.BeginLedger(path)
	if err := r.Scan(f, func(rec ledger.Record) error { t.Observe(rec); return nil }); err != nil {
		return err
	}
	for _, w := range r.Warnings() {
		fmt.Fprintf(e.stderr, "ledger-audit: warning: %s: %s\n", path, w)
	}
	return nil
}

// listFlags are the output flags of the focused analysis commands (ghosts,
// loops, policy replay): a format from a fixed list, -o and --no-redact,
// declared and checked the same way everywhere.
type listFlags struct {
	formats  []string
	format   string
	out      string
	noRedact bool
}

// add declares the flags; the first format is the default.
func (l *listFlags) add(fs *pflag.FlagSet, redactHelp string, formats ...string) {
	l.formats = formats
	fs.StringVar(&l.format, "format", formats[0], strings.Join(formats, ", "))
	fs.StringVarP(&l.out, "output", "o", "", "write to this file instead of stdout (atomically)")
	fs.BoolVar(&l.noRedact, "no-redact", false, redactHelp)
}

// parse parses args and returns the ledger paths, rejecting a missing
// ledger and a format the command does not render.
func (l *listFlags) parse(e *env, c *command, fs *pflag.FlagSet, args []string) ([]string, error) {
	if err := parseFlags(e, c, fs, args); err != nil {
		return nil, err
	}
	paths := fs.Args()
	if err := needLedgers(paths); err != nil {
		return nil, err
	}
	if !slices.Contains(l.formats, l.format) {
		return nil, usagef("--format: want one of %s, not %q", strings.Join(l.formats, ", "), l.format)
	}
	return paths, nil
}
