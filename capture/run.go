package capture

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"time"
)

// maxPayload bounds one hook payload. Claude Code sends whole file
// contents in tool_response; anything past this is not a hook event we
// can afford to parse inside the agent's latency budget.
const maxPayload = 32 << 20

// Config is one hook invocation.
type Config struct {
	Options
	DB string // ledger path, already resolved (DefaultPath)
	// Stream reads JSON lines until EOF, one event each, through one
	// ledger handle (bulk import and the concurrency test).
	Stream bool
	// Decide only evaluates the policy for a pre-tool event and prints
	// {"action", "rule", "message", "mode"}; nothing is recorded.
	Decide bool
	// ExitAfter says the process ends right after Run, so the ledger is
	// left open rather than closed: closing the last connection to a WAL
	// database checkpoints it, two fsyncs that cost more than everything
	// else a hook does. Every committed row is already in the WAL, which
	// SQLite recovers exactly as after a crash; the next writer's
	// auto-checkpoint (every ~1000 pages) folds it into the file.
	ExitAfter bool
}

// Run handles the event(s) on stdin and writes the hook's answer to
// stdout. It never fails: every problem goes to the side log next to the
// ledger and the hook stays silent, so the agent carries on (fail open).
// It reports how many events failed, for tests.
func Run(cfg Config, stdin io.Reader, stdout io.Writer) (failed int) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Stream && cfg.LockWait == 0 {
		cfg.LockWait = StreamBusyTimeout
	}
	s := &session{cfg: cfg, dir: filepath.Dir(cfg.DB)}
	defer s.close()
	if !cfg.Stream {
		data, err := io.ReadAll(io.LimitReader(stdin, maxPayload+1))
		if err == nil && len(data) > maxPayload {
			err = errors.New("hook payload larger than 32 MiB")
		}
		if err != nil {
			s.fail("", err)
			return 1
		}
		if !s.one(data, stdout) {
			failed++
		}
		return failed
	}
	r := bufio.NewReaderSize(stdin, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 && !s.one(line, stdout) {
			failed++
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.fail("", err)
				failed++
			}
			return failed
		}
	}
}

// session holds the ledger handle across the events of one Run.
type session struct {
	cfg Config
	dir string
	c   *Capturer
}

func (s *session) fail(event string, err error) {
	LogError(s.dir, s.cfg.Client, event, err, s.cfg.Now())
}

// walCheckpointBytes is the WAL size past which a hook that is about to
// exit checkpoints. Each hook process must replay the whole WAL when it
// opens the ledger (the previous one exited without closing), so the WAL
// is kept short; at about 4 KiB a row that is one checkpoint (and its
// fsyncs) every few hundred events.
const walCheckpointBytes = 1 << 20

func (s *session) close() {
	if s.c == nil {
		return
	}
	if s.cfg.ExitAfter {
		if st, err := os.Stat(s.cfg.DB + "-wal"); err == nil && st.Size() > walCheckpointBytes {
			// Busy means another writer is active and will get there; not
			// worth holding the agent up for.
			if err := s.c.w.Checkpoint(); err != nil && !isBusy(err) {
				s.fail("", err)
			}
		}
		return
	}
	if err := s.c.Close(); err != nil {
		s.fail("", err)
	}
}

// one handles one payload; false when it failed (and was logged).
func (s *session) one(data []byte, stdout io.Writer) bool {
	h, err := Parse(s.cfg.Client, data)
	if err != nil {
		s.fail("", err)
		return false
	}
	if (s.cfg.Decide && h.Type != PreTool) || (!s.cfg.Decide && Skips(h, s.cfg.AllTools, s.dir)) {
		return true
	}
	if s.c == nil {
		c, err := Open(s.cfg.DB, s.cfg.Options)
		if err != nil {
			s.fail(h.Event, err)
			return false
		}
		s.c = c
	}
	var out []byte
	if s.cfg.Decide {
		out, err = s.c.decideOutput(h)
	} else {
		out, err = s.c.Handle(h)
	}
	if err != nil {
		s.fail(h.Event, err)
	}
	// A refusal or context computed before a later error still goes out:
	// the rows it depends on are either written or logged as missing.
	if len(out) > 0 {
		if _, werr := stdout.Write(out); werr != nil {
			s.fail(h.Event, werr)
		}
	}
	return err == nil
}

// decideOutput renders a Decide verdict for the Hermes plugin.
func (c *Capturer) decideOutput(h *Hook) ([]byte, error) {
	d, err := c.Decide(h)
	if err != nil || d.Action == "" {
		return nil, err
	}
	return jsonLine(map[string]any{"action": string(d.Action), "rule": d.Rule, "message": d.message(), "mode": string(d.Mode)})
}
