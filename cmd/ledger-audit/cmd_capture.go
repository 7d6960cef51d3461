package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ledger-audit/ledger-audit/capture"
	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/spf13/pflag"
)

// captureDeadline is the hard bound on one hook invocation: if stdin never
// closes or the disk hangs, the process gives up (logged) and exits 0, so
// the agent is never held up longer than this. Tests shorten it.
var captureDeadline = 4 * time.Second

// captureExit ends the process when the deadline passes. Tests replace it.
var captureExit = func() { os.Exit(exitOK) }

func init() {
	c := &command{name: "capture", summary: "hook entry point: record one agent hook event from stdin (fails open)",
		usage: "--client claude-code|generic|hermes [--db PATH] [--all-tools] [--stream]"}
	c.run = func(e *env, args []string) error { return runCapture(e, c, args) }
	register(c)
}

func runCapture(e *env, c *command, args []string) error {
	fs := newFlags(e, c)
	client := fs.String("client", "", "hook dialect: claude-code, generic or hermes")
	db := fs.String("db", "", "ledger file (default: $LEDGER_AUDIT_DB, else the client's standard path)")
	allTools := fs.Bool("all-tools", false, "record read-only tools too (default: only state-changing tools)")
	stream := fs.Bool("stream", false, "read JSON lines until EOF, one event each")
	decide := fs.Bool("decide", false, "only print the policy decision for a pre-tool event; record nothing (used by the Hermes plugin)")
	now := fs.String("now", "", "fixed clock, RFC 3339 (for tests)")
	if err := fs.MarkHidden("now"); err != nil {
		return err
	}
	err := parseFlags(e, c, fs, args)
	if errors.Is(err, pflag.ErrHelp) {
		return err
	}
	cfg := capture.Config{DB: *db, Stream: *stream, Decide: *decide}
	if err == nil {
		err = captureConfig(e, fs, &cfg, *client, *allTools, *now)
	}
	if err != nil {
		// A misconfigured hook must not block the agent: Claude Code treats
		// exit 2 from PreToolUse as a refusal. Say it, log it, exit 0.
		fmt.Fprintf(e.stderr, "ledger-audit: capture: %s (event not recorded)\n", oneLine(err.Error()))
		if cfg.DB != "" {
			capture.LogError(filepath.Dir(cfg.DB), cfg.Client, "", err, time.Now())
		}
		return nil
	}
	if !cfg.Stream {
		cfg.ExitAfter = true
		limit := captureDeadline
		t := time.AfterFunc(limit, func() {
			capture.LogError(filepath.Dir(cfg.DB), cfg.Client, "", fmt.Errorf("gave up after %s (stdin still open or ledger stuck)", limit), time.Now())
			captureExit()
		})
		defer t.Stop()
	}
	capture.Run(cfg, e.stdin, e.stdout)
	return nil
}

// captureConfig resolves the flags into cfg; DB is filled in as early as
// possible so even a bad --client can be logged next to the right ledger.
func captureConfig(e *env, fs *pflag.FlagSet, cfg *capture.Config, client string, allTools bool, now string) error {
	if cfg.DB == "" {
		p, err := capture.DefaultPath(capture.Client(client), e.getenv)
		if err != nil {
			return err
		}
		cfg.DB = p
	}
	if fs.NArg() > 0 {
		return usagef("capture takes no arguments (the event comes on stdin)")
	}
	if client == "" {
		return usagef("--client is required (claude-code, generic or hermes)")
	}
	cl, err := capture.ParseClient(client)
	if err != nil {
		return usagef("--client: %s", err)
	}
	cfg.Client, cfg.AllTools = cl, allTools
	if now != "" {
		t, ok := ledger.ParseTime(now)
		if !ok {
			return usagef("--now: cannot read %q as a time", now)
		}
		cfg.Now = func() time.Time { return t }
	}
	return nil
}
