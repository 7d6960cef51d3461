package ledger

import "time"

// Kind is the kind of one event row.
type Kind string

// Event kinds written to the events table.
const (
	KindIssued        Kind = "issued"
	KindConfirmed     Kind = "confirmed"
	KindError         Kind = "error"
	KindBlocked       Kind = "blocked"
	KindGhostReported Kind = "ghost_reported"
	KindLLMCall       Kind = "llm_call"
	KindSessionStart  Kind = "session_start"
	KindSessionEnd    Kind = "session_end"
	// KindCompaction marks a context compaction boundary (from imported
	// transcripts or a PreCompact hook): ghosts next to one are explained.
	KindCompaction Kind = "compaction"
)

// IsOutcome reports whether an event of this kind closes an issued call.
func (k Kind) IsOutcome() bool {
	return k == KindConfirmed || k == KindError || k == KindBlocked
}

// Limits on what is stored verbatim.
const (
	MaxArgsChars   = 4000
	MaxDigestChars = 300
)

// Event is one row of the events table.
type Event struct {
	ID              int64
	TS              time.Time
	Kind            Kind
	Source          string
	SessionID       string
	TurnID          string
	CallID          string
	IssuedID        int64 // outcome rows: the issued row they close; 0 when unpaired
	ToolName        string
	ArgsJSON        string
	ArgsTruncated   bool
	ResultDigest    string
	ResultHash      string
	ErrorType       string
	DurationMS      *int64
	PolicyRule      string
	PolicyAction    string
	TokensIn        *int64
	TokensOut       *int64
	TokensCacheRead *int64
	Cwd             string
	PrevHash        string
	Hash            string

	rawTS string // the ts text as read from disk
}

// Status is the state of a call as far as the ledger knows.
type Status string

// Call statuses.
const (
	StatusPending   Status = "pending"
	StatusConfirmed Status = "confirmed"
	StatusError     Status = "error"
	StatusBlocked   Status = "blocked"
)

// Call is one tool call: its issued row joined with its first outcome and
// its first ghost report, if any.
type Call struct {
	ID            int64 // row id of the issued event (the SARIF/evidence anchor)
	Ledger        string
	Source        string
	TS            time.Time
	SessionID     string
	TurnID        string
	CallID        string
	Tool          string
	Args          string
	ArgsTruncated bool
	Cwd           string

	Status       Status
	OutcomeID    int64
	OutcomeTS    time.Time // zero while pending
	ErrorType    string
	ResultDigest string
	ResultHash   string
	DurationMS   *int64

	// GhostReportedAt is when the call was surfaced to the agent as a ghost;
	// zero if never. A call with both this and an outcome was revived.
	GhostReportedAt time.Time

	// PolicyRule / PolicyAction come from the issued row (a dry-run hit
	// recorded by capture) or from a blocked outcome.
	PolicyRule   string
	PolicyAction string
}

// Open reports whether the call has no outcome yet.
func (c *Call) Open() bool { return c.Status == StatusPending }

// Record is one item of the analysis stream: exactly one of Call and Event
// is set. Events are the non-call rows (llm_call, session_start, ...).
type Record struct {
	Call  *Call
	Event *Event
}

// Filter narrows what a Reader yields. Zero values mean "no bound".
type Filter struct {
	Since   time.Time // inclusive, on the issued/event timestamp
	Until   time.Time // exclusive
	Session string
}

func (f Filter) match(ts time.Time, session string) bool {
	if !f.Since.IsZero() && ts.Before(f.Since) {
		return false
	}
	if !f.Until.IsZero() && !ts.Before(f.Until) {
		return false
	}
	if f.Session != "" && session != f.Session {
		return false
	}
	return true
}

// TimeFormat is the ts column format: RFC 3339, UTC, milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// FormatTime renders t the way the ts column stores it.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// ParseTime reads a ts value. Foreign writers use several RFC 3339 shapes
// and sometimes a space instead of T, or unix seconds; all are accepted.
func ParseTime(s string) (time.Time, bool) {
	if t, ok := parseCanonical(s); ok {
		return t, true
	}
	for _, layout := range []string{
		TimeFormat, time.RFC3339Nano, "2006-01-02 15:04:05.999999999Z07:00",
		"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02",
	} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// parseCanonical reads TimeFormat, the shape every row written by this
// tool has, without time.Parse's general layout machinery (a reader
// parses two or three timestamps per call). Anything else, including an
// out-of-range field, is left to time.Parse.
func parseCanonical(s string) (time.Time, bool) {
	if len(s) != len(TimeFormat) || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
		s[16] != ':' || s[19] != '.' || s[23] != 'Z' {
		return time.Time{}, false
	}
	num := func(i, n int) int {
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	y, mo, d, h, mi, sec, ms := num(0, 4), num(5, 2), num(8, 2), num(11, 2), num(14, 2), num(17, 2), num(20, 3)
	if y < 0 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59 || ms < 0 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, ms*int(time.Millisecond), time.UTC)
	if t.Day() != d { // 31 April, 29 February of a common year: time.Parse refuses these
		return time.Time{}, false
	}
	return t, true
}
