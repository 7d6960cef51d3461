package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
	"github.com/ledger-audit/ledger-audit/redact"
)

// maxLineBytes bounds one record. Claude Code inlines tool results of
// several megabytes; beyond this a line is skipped rather than held.
const maxLineBytes = 64 << 20

// skip is why one line was not used. Its text names the line.
type skip struct {
	line   int
	reason string
}

func (s skip) Error() string { return fmt.Sprintf("line %d: %s", s.line, s.reason) }

// lineParser is what the Claude Code and Codex readers share: fed one
// line at a time, it either recognises the line or says why not.
type lineParser interface {
	// line handles one non-blank line; a non-nil error is the reason it
	// was skipped.
	line(b []byte) error
	// finish is called once after the last line.
	finish()
	// result is the events read so far, in file order.
	result() []ledger.Event
}

// fileStats counts what reading one file produced.
type fileStats struct {
	Lines      int    // non-blank lines
	Recognised int    // lines the reader understood
	Skipped    int    // lines skipped
	FirstSkip  string // reason for the first skipped line
}

func (s *fileStats) skipped(line int, reason string) {
	s.Skipped++
	if s.FirstSkip == "" {
		s.FirstSkip = skip{line, reason}.Error()
	}
}

// readLines feeds every non-blank line of r to p. A last line with no
// newline that does not parse is reported as truncated: the agent may
// still be writing that file.
func readLines(r io.Reader, p lineParser) (fileStats, error) {
	var st fileStats
	br := bufio.NewReaderSize(r, 256<<10)
	n := 0
	for {
		b, tooLong, eof, err := readLine(br)
		if err != nil {
			return st, err
		}
		if len(b) == 0 && !tooLong && eof {
			break
		}
		n++
		switch {
		case tooLong:
			st.Lines++
			st.skipped(n, fmt.Sprintf("record longer than %d MiB", maxLineBytes>>20))
		case len(bytes.TrimSpace(b)) == 0:
			// blank lines are not records
		default:
			st.Lines++
			if perr := p.line(b); perr != nil {
				reason := perr.Error()
				if eof && !json.Valid(b) {
					reason = "truncated last line (file still being written?)"
				}
				st.skipped(n, reason)
			} else {
				st.Recognised++
			}
		}
		if eof {
			break
		}
	}
	p.finish()
	return st, nil
}

// readLine returns the next line without its newline. A line longer than
// maxLineBytes is drained and reported with tooLong; eof is true when the
// line was not newline-terminated (or there was nothing left).
func readLine(br *bufio.Reader) (line []byte, tooLong, eof bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > maxLineBytes {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case err == nil:
			return bytes.TrimRight(buf, "\r\n"), tooLong, false, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return buf, tooLong, true, nil
		default:
			return nil, false, false, err
		}
	}
}

// tsOr parses a record timestamp; records without a usable one take the
// previous record's time (prev), so events stay in order.
func tsOr(s string, prev time.Time) time.Time {
	if t, ok := ledger.ParseTime(s); ok {
		return t
	}
	return prev
}

// unknownType is the skip reason for a record type the reader does not
// know. The type is the file's text and lands in a warning: cut short and
// redacted like everything else a user is shown.
func unknownType(t string) error {
	t, _ = ledger.Truncate(t, 40)
	return fmt.Errorf("unknown record type %q", redact.String(t))
}
