package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ledger-audit/ledger-audit/importer"
	"github.com/ledger-audit/ledger-audit/ledger"
)

// import reads the records agents keep anyway (Claude Code transcripts,
// Codex rollouts) into a ledger, for sessions that ran without the hook.
func init() {
	c := &command{
		name:    "import",
		summary: "import Claude Code transcripts or Codex rollouts into a ledger",
		usage:   "--from claude-code|codex [PATH...] -o LEDGER [--all-tools] [--since T] [--until T] [--tz ZONE]",
	}
	c.run = func(e *env, args []string) error {
		fs := newFlags(e, c)
		var from, out, tz string
		var all bool
		var w window
		fs.StringVar(&from, "from", "", "transcript format: claude-code or codex")
		fs.StringVarP(&out, "output", "o", "", "ledger to append to (created if missing); importing twice adds nothing")
		fs.BoolVar(&all, "all-tools", false, "record read-only tool calls too (default: state-changing calls only)")
		fs.StringVar(&tz, "tz", "", "time zone of --since/--until values without an offset (IANA name, e.g. Europe/Paris; default UTC)")
		w.add(fs)
		if err := parseFlags(e, c, fs, args); err != nil {
			return err
		}
		switch from {
		case importer.FromClaudeCode, importer.FromCodex:
		case "":
			return usagef("--from is required: claude-code or codex")
		default:
			return usagef("--from %q: want claude-code or codex", from)
		}
		if out == "" || out == "-" {
			return usagef("-o LEDGER is required: the ledger file to import into")
		}
		loc := time.UTC
		if tz != "" {
			l, err := time.LoadLocation(tz)
			if err != nil {
				return usagef("--tz %q: unknown time zone", tz)
			}
			loc = l
		}
		_, since, until, err := w.resolveIn(loc)
		if err != nil {
			return err
		}
		paths := fs.Args()
		for _, p := range paths {
			if strings.HasPrefix(p, "-") && p != "-" {
				return usagef("unknown flag %s", p)
			}
		}
		if len(paths) == 0 {
			paths = importer.DefaultPaths(from, e.getenv)
			if len(paths) == 0 {
				return fmt.Errorf("no PATH given and no %s directory found (looked in %s)", from, strings.Join(importDefaultPlaces(from), ", "))
			}
		}
		sum, err := importer.Import(from, paths, out, importer.Options{
			AllTools: all, Since: since, Until: until, Session: w.session, Warn: e.stderr,
		})
		if err != nil {
			return err
		}
		printImportSummary(e.stdout, out, sum)
		return nil
	}
	register(c)
}

// defaultPlaces names the default search paths for the error message.
func importDefaultPlaces(from string) []string {
	if from == importer.FromCodex {
		return []string{"$CODEX_HOME/sessions", "~/.codex/sessions"}
	}
	return []string{"$CLAUDE_CONFIG_DIR/projects", "~/.config/claude/projects", "~/.claude/projects"}
}

// resolveIn is window.resolve with zone-less times read in loc: transcript
// timestamps are UTC, but "--since 2026-11-30 --tz Europe/Paris" means
// Paris midnight.
func (w *window) resolveIn(loc *time.Location) (now, since, until time.Time, err error) {
	now = time.Now().UTC()
	if w.now != "" {
		t, ok := parseTimeIn(w.now, loc)
		if !ok {
			return now, since, until, usagef("--now: cannot read %q as a time (want RFC 3339, e.g. 2026-12-01T08:00:00Z)", w.now)
		}
		now = t
	}
	read := func(flag, s string) (time.Time, error) {
		if s == "" {
			return time.Time{}, nil
		}
		if t, ok := parseTimeIn(s, loc); ok {
			return t, nil
		}
		if d, err := time.ParseDuration(s); err == nil && d > 0 {
			return now.Add(-d), nil
		}
		return time.Time{}, usagef("%s: cannot read %q as a time or a duration", flag, s)
	}
	if since, err = read("--since", w.since); err != nil {
		return
	}
	if until, err = read("--until", w.until); err != nil {
		return
	}
	if !since.IsZero() && !until.IsZero() && !since.Before(until) {
		err = usagef("--since (%s) must be before --until (%s)", ledger.FormatTime(since), ledger.FormatTime(until))
	}
	return
}

// parseIn reads a time; forms with an offset keep it, the others are
// wall-clock times in loc.
func parseTimeIn(s string, loc *time.Location) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

func printImportSummary(w io.Writer, ledgerPath string, s importer.Summary) {
	kind := "Claude Code transcript"
	if s.From == importer.FromCodex {
		kind = "Codex rollout"
	}
	fmt.Fprintf(w, "imported %d %s %s into %s\n", s.Files, kind, importPlural(s.Files, "file", "files"), ledgerPath)
	fmt.Fprintf(w, "  sessions:     %d\n", s.Sessions)
	fmt.Fprintf(w, "  tool calls:   %d (%d confirmed, %d error, %d pending)\n", s.Calls, s.Confirmed, s.Errors, s.Pending)
	if s.ReadOnly > 0 {
		fmt.Fprintf(w, "  not recorded: %d read-only %s (--all-tools keeps them)\n", s.ReadOnly, importPlural(s.ReadOnly, "call", "calls"))
	}
	fmt.Fprintf(w, "  compactions:  %d\n", s.Compactions)
	fmt.Fprintf(w, "  llm calls:    %d\n", s.LLMCalls)
	fmt.Fprintf(w, "  events:       %d written, %d already in the ledger\n", s.Written, s.Present)
	var skipped []string
	if s.SkippedLines > 0 {
		skipped = append(skipped, fmt.Sprintf("%d %s in %d %s", s.SkippedLines, importPlural(s.SkippedLines, "line", "lines"),
			s.FilesWithSkips, importPlural(s.FilesWithSkips, "file", "files")))
	}
	if s.FilesSkipped > 0 {
		skipped = append(skipped, fmt.Sprintf("%d %s not recognised", s.FilesSkipped, importPlural(s.FilesSkipped, "file", "files")))
	}
	if len(skipped) > 0 {
		fmt.Fprintf(w, "  skipped:      %s (warnings on stderr)\n", strings.Join(skipped, ", "))
	}
}

func importPlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
