package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit codes, mapped in exitCode and nowhere else.
const (
	exitOK    = 0
	exitGate  = 1 // --fail-under / --fail-on tripped, verify found a break, selftest failed
	exitInput = 2 // usage or input error
)

// env is what a command may touch of the outside world. Tests build one
// with buffers and a fake environment.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

// command is one subcommand. Each lives in its own cmd_<name>.go file and
// registers itself in init.
type command struct {
	name    string
	summary string
	usage   string // one line of arguments, e.g. "[flags] LEDGER..."
	run     func(e *env, args []string) error
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("duplicate command " + c.name)
	}
	commands[c.name] = c
}

// Typed errors: each maps to one exit code in exitCode.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// usagef reports a bad flag or argument (exit 2).
func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// gateError means the run worked but a gate failed (exit 1). Its message
// is printed unless empty.
type gateError struct{ msg string }

func (e gateError) Error() string { return e.msg }

func exitCode(err error) int {
	var g gateError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &g):
		return exitGate
	default:
		return exitInput
	}
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runEnv(&env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv}, args)
}

func runEnv(e *env, args []string) int {
	if len(args) == 0 {
		printUsage(e.stderr)
		return exitInput
	}
	name := args[0]
	switch name {
	case "-h", "--help", "help":
		printUsage(e.stdout)
		return exitOK
	case "--version":
		name = "version"
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(e.stderr, "ledger-audit: unknown command %q\n", name)
		printUsage(e.stderr)
		return exitInput
	}
	err := c.run(e, args[1:])
	if errors.Is(err, pflag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		var g gateError
		if !errors.As(err, &g) || g.msg != "" {
			fmt.Fprintf(e.stderr, "ledger-audit: %s\n", oneLine(err.Error()))
		}
		var u usageError
		if errors.As(err, &u) {
			fmt.Fprintf(e.stderr, "usage: ledger-audit %s %s\n", c.name, c.usage)
		}
	}
	return exitCode(err)
}

// oneLine keeps error output to the single line the CLI contract promises.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: ledger-audit <command> [flags] [LEDGER...]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'ledger-audit <command> --help' for a command's flags.")
}

// newFlags builds a flag set that reports errors instead of exiting and
// prints help on the command's own stream.
func newFlags(_ *env, c *command) *pflag.FlagSet {
	fs := pflag.NewFlagSet(c.name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SortFlags = false
	return fs
}

// parseFlags parses args, turning flag errors into usage errors and --help
// into a printed flag list.
func parseFlags(e *env, c *command, fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprintf(e.stdout, "usage: ledger-audit %s %s\n\n%s\n\nflags:\n", c.name, c.usage, c.summary)
			fs.SetOutput(e.stdout)
			fs.PrintDefaults()
			return pflag.ErrHelp
		}
		return usagef("%s", err)
	}
	return nil
}

func init() {
	c := &command{name: "version", summary: "print the version", usage: ""}
	c.run = func(e *env, args []string) error {
		fs := newFlags(e, c)
		if err := parseFlags(e, c, fs, args); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return usagef("version takes no arguments")
		}
		fmt.Fprintf(e.stdout, "ledger-audit %s (ledger schema %d, result schema %d)\n", version, ledgerSchema(), resultSchema())
		return nil
	}
	register(c)
}
