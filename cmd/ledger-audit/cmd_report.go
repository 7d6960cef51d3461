package main

import (
	"errors"
	"io"
	"os"
	"strings"

	"github.com/ledger-audit/ledger-audit/report"
	"golang.org/x/term"
)

// report re-renders a saved audit: the canonical JSON is the source of
// truth, and every other format can be produced from it later (for
// example a PDF for a reviewer from last night's CI JSON).
func init() {
	c := &command{name: "report", summary: "re-render a saved JSON result as table, md, json, pdf, sarif or junit", usage: "--from RESULT.json [--format F] [-o FILE]"}
	c.run = func(e *env, args []string) error {
		fs := newFlags(e, c)
		from := fs.String("from", "", "the JSON result to render (written by `audit --format json`; - for stdin)")
		format := fs.String("format", "", "table, md, json, pdf, sarif or junit (default: from the -o extension, else table)")
		out := fs.StringP("output", "o", "", "write to this file instead of stdout (atomically)")
		history := fs.String("history", "", "history file (JSONL from `daily`) for the PDF score-trend chart")
		color := fs.String("color", "auto", "colour in the table format: auto (only on a terminal), always or never")
		if err := parseFlags(e, c, fs, args); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return usagef("unexpected argument %q (the input is --from)", fs.Arg(0))
		}
		if *from == "" {
			return usagef("--from is required")
		}
		f, err := resolveFormat(*format, *out)
		if err != nil {
			return err
		}
		if f == "pdf" && (*out == "" || *out == "-") && writerIsTTY(e.stdout) {
			return usagef("refusing to write a PDF to a terminal; use -o FILE")
		}
		useColor, err := colorFlag(*color, e.stdout, *out)
		if err != nil {
			return err
		}

		var rd io.Reader = e.stdin
		name := "stdin"
		if *from != "-" {
			file, err := os.Open(*from)
			if err != nil {
				return errors.New(*from + ": " + unwrapPathErr(err).Error())
			}
			defer file.Close()
			rd, name = file, *from
		}
		res, err := report.ReadJSON(rd, name)
		if err != nil {
			return err
		}
		opts := report.Options{Color: useColor, Width: terminalWidth(e.stdout)}
		if *history != "" {
			if opts.History, err = report.ReadHistory(*history); err != nil {
				return err
			}
		}
		rep, err := report.New(f, opts)
		if err != nil {
			return usagef("--format: %v", err)
		}
		return writeOutput(e, *out, func(w io.Writer) error { return rep.Render(w, res) })
	}
	register(c)
}

// resolveFormat picks the format: the flag, else the output extension,
// else the terminal table.
func resolveFormat(flag, out string) (string, error) {
	f := strings.ToLower(flag)
	if f == "" {
		f = report.FormatFromPath(out)
	}
	if f == "" {
		f = "table"
	}
	if _, err := report.New(f, report.Options{}); err != nil {
		return "", usagef("--format: %v", err)
	}
	return f, nil
}

// colorFlag decides table colour: auto means only when writing to a
// terminal (never into a file).
func colorFlag(v string, stdout io.Writer, out string) (bool, error) {
	switch v {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto", "":
		return (out == "" || out == "-") && writerIsTTY(stdout), nil
	}
	return false, usagef("--color: want auto, always or never, not %q", v)
}

// writerIsTTY reports whether w is a terminal (tests pass buffers, which
// never are).
func writerIsTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// terminalWidth is the width of a terminal stdout, or 0 (the report
// default) for files and pipes.
func terminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols >= 60 {
		return cols
	}
	return 0
}
