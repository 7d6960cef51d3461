package capture

import (
	"errors"
	"math/rand/v2"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
	sqlite3 "github.com/mattn/go-sqlite3"
)

// BusyTimeout bounds how long one hook event waits for other writers.
// Past it the event is dropped into the side log: a lost row is cheaper
// than an agent held up by its own audit hook.
const BusyTimeout = 1500 * time.Millisecond

// StreamBusyTimeout is the per-event bound with --stream, a bulk writer
// that no agent waits on.
const StreamBusyTimeout = 15 * time.Second

// sqliteBusy is the driver's own busy timeout. It is kept tiny on purpose:
// SQLite's busy handler backs off to sleeps of 25–100 ms, so under steady
// contention a waiting writer keeps losing the lock to writers that come
// back sooner and can starve past any deadline. withLock polls instead,
// every millisecond or so with jitter, which shares the lock fairly.
const sqliteBusy = 2 * time.Millisecond

// withLock runs op until it succeeds, fails for a reason other than a busy
// lock, or the deadline passes. Every op is one transaction (or a read),
// so a busy failure means nothing was written and a retry cannot
// duplicate a row.
func withLock[T any](wait time.Duration, op func() (T, error)) (T, error) {
	deadline := time.Now().Add(wait)
	for {
		v, err := op()
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return v, err
		}
		time.Sleep(time.Duration(200+rand.IntN(1300)) * time.Microsecond)
	}
}

func isBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
}

// openWriter opens the ledger within the lock deadline. Opening takes
// locks too: switching a brand-new file to WAL while another process
// initialises it fails at once with "database is locked".
func openWriter(path string, wait time.Duration) (*ledger.Writer, error) {
	return withLock(wait, func() (*ledger.Writer, error) {
		return ledger.OpenWriter(path, ledger.WriterOptions{BusyTimeout: sqliteBusy})
	})
}

// The writer operations capture uses, each under withLock.

func (c *Capturer) append(e ledger.Event) error {
	_, err := withLock(c.opt.LockWait, func() (ledger.Event, error) { return c.w.Append(e) })
	return err
}

func (c *Capturer) appendWithOutcome(issued, outcome ledger.Event) error {
	_, err := withLock(c.opt.LockWait, func() (ledger.Event, error) {
		_, _, err := c.w.AppendWithOutcome(issued, outcome)
		return issued, err
	})
	return err
}

func (c *Capturer) openCalls(session string) ([]ledger.Call, error) {
	return withLock(c.opt.LockWait, func() ([]ledger.Call, error) { return c.w.OpenCalls(session) })
}

func (c *Capturer) recentCalls(session string, n int) ([]ledger.Call, error) {
	return withLock(c.opt.LockWait, func() ([]ledger.Call, error) { return c.w.RecentCalls(session, n) })
}
