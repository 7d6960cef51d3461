package capture

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// ErrorLog is the side log next to the ledger where capture notes every
// problem it swallowed to stay out of the agent's way.
const ErrorLog = "ledger-audit-errors.log"

// maxLogLine bounds one side-log line; messages never carry arguments,
// but a driver error could still be long.
const maxLogLine = 400

// LogError appends one line to <dir>/ledger-audit-errors.log (mode 0600).
// It is best effort: if even that fails there is nowhere left to tell, and
// the hook must still exit 0.
func LogError(dir string, client Client, event string, err error, now time.Time) {
	logErr(dir, client, event, err, now)
}

func logErr(dir string, client Client, event string, err error, now time.Time) {
	if err == nil || dir == "" {
		return
	}
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if event == "" {
		event = "-"
	}
	line := fmt.Sprintf("%s capture client=%s event=%s: %s", ledger.FormatTime(now), client, oneWord(event), msg)
	line, _ = ledger.Truncate(line, maxLogLine)
	if os.MkdirAll(dir, 0o700) != nil {
		return
	}
	f, ferr := os.OpenFile(filepath.Join(dir, ErrorLog), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if ferr != nil {
		return
	}
	defer f.Close()
	f.WriteString(line + "\n")
}

// oneWord keeps a client-supplied event name from smuggling text into the
// log: the first 40 characters of its first field.
func oneWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return "-"
	}
	w, _ := ledger.Truncate(f[0], 40)
	return w
}
