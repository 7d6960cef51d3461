package capture

import (
	"database/sql"
	"encoding/binary"
	"errors"
	"io"
	"net/url"
	"os"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// guardForeign refuses, before anything opens the file for writing, a
// database that is not a ledger-audit ledger. ledger.OpenWriter would refuse
// it too, but only after switching it to WAL mode, which already rewrites
// its header: capture must leave files it does not own byte-for-byte alone.
// The common case (our own ledger, in WAL mode) costs one 100-byte read.
func guardForeign(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var hdr [100]byte
	n, err := io.ReadFull(f, hdr[:])
	f.Close()
	if n == 0 {
		return nil // empty file: ours to initialise
	}
	if err != nil || string(hdr[:16]) != "SQLite format 3\x00" {
		return errors.New(path + ": not a SQLite database; refusing to write into it")
	}
	if hdr[18] == 2 && hdr[19] == 2 {
		// Already in WAL mode: opening it changes nothing on disk, and
		// ledger.OpenWriter refuses foreign content by itself. The header's
		// user_version may still read 0 while the schema sits in the WAL
		// (hooks exit without checkpointing), so it proves nothing here.
		return nil
	}
	switch binary.BigEndian.Uint32(hdr[60:64]) {
	case ledger.SchemaVersion:
		return nil
	case 0:
		return checkUninitialised(path)
	default:
		return errors.New(path + ": not a ledger-audit ledger (unknown schema version); refusing to write into it")
	}
}

// checkUninitialised accepts a schema-less SQLite file only if it holds no
// tables besides ours (e.g. created empty by a crashed first run).
func checkUninitialised(path string) error {
	db, err := sql.Open("sqlite3", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	var others int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type='table' AND name NOT IN ('meta','events')`).Scan(&others); err != nil {
		return err
	}
	if others > 0 {
		return errors.New(path + ": not a ledger-audit ledger (it holds other tables); refusing to write into it")
	}
	return nil
}
