package owasp

import (
	"time"

	"github.com/ledger-audit/ledger-audit/rules/shell"
)

// Caps on per-session memory. A session that exceeds one loses only the
// oldest entries of that set, never correctness of the other rules.
const (
	maxTainted    = 64 // secret files / variables followed per session
	maxArchives   = 64 // archive files followed per session
	maxRetrySigs  = 32 // failing call signatures remembered
	maxCandidates = 32 // busiest minutes kept for the rate rule
	maxWindow     = 512
)

// session is everything the rules remember about one session.
type session struct {
	ledger, id string
	cwd, home  string
	sh         *shell.State // variables, aliases and files across calls

	// ASI02 mass edit: distinct files changed within the window.
	edits []mark
	// ASI02 exfiltration chain: archive files created, by path.
	archives *capped[mark]

	// ASI08 streaks.
	streak      []mark // current run of failed calls
	streakFired bool
	retries     *capped[retryState] // by tool+args signature
	lastSig     string
	errWindow   []mark // recent failures for the cascade rule

	// ASI10 rate: the current minute and a histogram of calls per active
	// minute (bounded by the number of distinct counts).
	minute     int64
	minuteN    int
	minuteMark mark
	hist       map[int]int
	candidates []rateCandidate
	// ASI10 fan-out: delegations per turn or window.
	fanKey   string
	fanStart time.Time
	fanN     int
	fanFired bool
	// ASI10 taint: secret files and variables and where they came from.
	taintFiles *capped[mark]
	taintVars  *capped[mark]

	// ASI11 breadth.
	mutTools   map[string]bool
	targets    map[string]bool
	firstMut   *mark
	lastMut    *mark
	targetsCut bool
}

type retryState struct {
	n     int
	first mark
	fired bool
}

type rateCandidate struct {
	minute int64
	n      int
	first  mark
}

func newSession(ledger, id string) *session {
	return &session{
		ledger: ledger, id: id, minute: -1, sh: shell.NewState(),
		archives:   newCapped[mark](maxArchives),
		retries:    newCapped[retryState](maxRetrySigs),
		taintFiles: newCapped[mark](maxTainted),
		taintVars:  newCapped[mark](maxTainted),
		hist:       map[int]int{},
		mutTools:   map[string]bool{},
		targets:    map[string]bool{},
	}
}

// capped is a small map that forgets its oldest key beyond a size.
type capped[V any] struct {
	max   int
	order []string
	m     map[string]V
}

func newCapped[V any](max int) *capped[V] { return &capped[V]{max: max, m: map[string]V{}} }

func (c *capped[V]) get(k string) (V, bool) { v, ok := c.m[k]; return v, ok }

func (c *capped[V]) put(k string, v V) {
	if _, ok := c.m[k]; !ok {
		c.order = append(c.order, k)
		if len(c.order) > c.max {
			delete(c.m, c.order[0])
			c.order = c.order[1:]
		}
	}
	c.m[k] = v
}

func (c *capped[V]) del(k string) {
	if _, ok := c.m[k]; !ok {
		return
	}
	delete(c.m, k)
	for i, o := range c.order {
		if o == k {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
}

func (c *capped[V]) len() int { return len(c.m) }
