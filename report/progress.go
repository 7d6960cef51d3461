package report

import (
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

// ProgressThreshold is the number of rows below which no bar is shown:
// a small ledger is read before a bar would even draw.
const ProgressThreshold = 50_000

// Progress reports rows processed. Callers always get a usable value, so
// the reading loop never checks whether a bar is shown.
type Progress interface {
	Add(n int)
	// Finish clears the bar so the report starts on a clean line.
	Finish()
}

type noProgress struct{}

func (noProgress) Add(int) {}
func (noProgress) Finish() {}

type barProgress struct{ b *progressbar.ProgressBar }

func (p barProgress) Add(n int) { _ = p.b.Add(n) }
func (p barProgress) Finish()   { _ = p.b.Finish() }

// NewProgress returns a progress bar on w (stderr) when isTTY is true and
// total reaches ProgressThreshold rows, and a no-op otherwise: pipes, CI
// logs and tests never see bar output. The caller decides isTTY (e.g.
// term.IsTerminal on stderr's descriptor); this package never probes.
func NewProgress(w io.Writer, total int64, isTTY bool) Progress {
	if !isTTY || total < ProgressThreshold || w == nil {
		return noProgress{}
	}
	return barProgress{progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("reading ledger"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		// Draw at once: on a slow disk the first throttled update may
		// be seconds away.
		progressbar.OptionSetRenderBlankState(true),
	)}
}
