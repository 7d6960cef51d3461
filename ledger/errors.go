package ledger

import (
	"errors"
	"fmt"
	"strings"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// Error is a problem with one ledger file. Its text is the single line the
// CLI prints: "<path>: <problem>".
type Error struct {
	Path    string
	Problem string
	Err     error
}

func (e *Error) Error() string { return e.Path + ": " + e.Problem }
func (e *Error) Unwrap() error { return e.Err }

func fileErr(path string, err error) error {
	if err == nil {
		return nil
	}
	var le *Error
	if errors.As(err, &le) {
		return err
	}
	return &Error{Path: path, Problem: describe(err), Err: err}
}

// describe turns driver errors into the short problem statements users see.
func describe(err error) string {
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrNotADB:
			return "not a SQLite database"
		case sqlite3.ErrCorrupt:
			return "database is corrupt or truncated (" + se.Error() + ")"
		case sqlite3.ErrBusy, sqlite3.ErrLocked:
			return "ledger is locked by another process (" + se.Error() + ")"
		case sqlite3.ErrCantOpen:
			return "cannot open file (" + se.Error() + ")"
		case sqlite3.ErrReadonly:
			return "file is read-only"
		case sqlite3.ErrFull:
			return "disk is full"
		case sqlite3.ErrIoErr:
			return "I/O error (" + se.Error() + ")"
		}
		return se.Error()
	}
	msg := err.Error()
	if strings.Contains(msg, "no such file or directory") {
		return "no such file"
	}
	return msg
}

// NotALedger reports that a file is SQLite but holds neither our schema nor
// an agent-ledger table.
func notALedger(path, why string) error {
	return &Error{Path: path, Problem: fmt.Sprintf("not a ledger: %s", why)}
}
