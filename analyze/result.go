package analyze

import (
	"time"

	"github.com/ledger-audit/ledger-audit/finding"
)

// SchemaVersion of the canonical JSON Result. Bump it on any change that
// renames or removes a field; `report --from` refuses other versions.
const SchemaVersion = 1

// TrustModel is printed by every report, verbatim.
const TrustModel = "The ledger is written by the agent being scored: a score of 100 means nothing suspicious was recorded, not that the agent behaved well. Treat the score as a hygiene signal, not proof."

// Result is everything one audit found. It is plain data: every report
// format renders it, and the JSON form can be re-rendered later.
type Result struct {
	SchemaVersion int               `json:"schema_version"`
	Tool          ToolInfo          `json:"tool"`
	GeneratedAt   time.Time         `json:"generated_at"` // the --now clock
	Window        Window            `json:"window"`
	Ledgers       []LedgerSummary   `json:"ledgers"`
	Summary       Summary           `json:"summary"`
	Ghosts        []Ghost           `json:"ghosts"`
	Findings      []finding.Finding `json:"findings"` // sorted, never deduplicated
	Score         finding.Score     `json:"score"`
	Suppressions  []SuppressionNote `json:"suppressions,omitempty"`
	Policy        *PolicyReport     `json:"policy,omitempty"`
	Loops         *LoopReport       `json:"loops,omitempty"`
	Warnings      []string          `json:"warnings,omitempty"`
	TrustModel    string            `json:"trust_model"`
	Redacted      bool              `json:"redacted"`

	// Rules lists every rule that was evaluated (with or without findings),
	// so SARIF and JUnit can show rules that passed. Optional.
	Rules []finding.Rule `json:"rules,omitempty"`
	// Fleet summarises per-ledger scores when several ledgers were
	// audited together (the merged Score above covers all their findings).
	Fleet *FleetSummary `json:"fleet,omitempty"`
}

// ToolInfo names the program that produced a Result.
type ToolInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Window is the time range audited; zero bounds are open.
type Window struct {
	Since time.Time `json:"since,omitzero"`
	Until time.Time `json:"until,omitzero"`
	First time.Time `json:"first,omitzero"` // earliest record seen
	Last  time.Time `json:"last,omitzero"`  // latest record seen
}

// LedgerSummary describes one input file. In a fleet audit each ledger
// also carries its own score.
type LedgerSummary struct {
	Path     string `json:"path"`
	Format   string `json:"format"`
	Calls    int    `json:"calls"`
	Events   int    `json:"events"`
	Sessions int    `json:"sessions"`
	Score    *int   `json:"score,omitempty"`
	Penalty  *int   `json:"penalty,omitempty"`
	Findings int    `json:"findings"`
	Ghosts   int    `json:"ghosts"`
}

// Summary counts what the ledgers recorded.
type Summary struct {
	Calls           int              `json:"calls"`
	Events          int              `json:"events"` // non-call events (llm_call, session_start, ...)
	ByTool          map[string]int   `json:"by_tool"`
	ByStatus        map[string]int   `json:"by_status"`
	Sessions        []SessionSummary `json:"sessions"`
	LLMCalls        int              `json:"llm_calls"`
	TokensIn        int64            `json:"tokens_in"`
	TokensOut       int64            `json:"tokens_out"`
	TokensCacheRead int64            `json:"tokens_cache_read"`

	// Timeline is a histogram of calls over the window (see TimelineBuilder);
	// the PDF report draws it. Optional.
	Timeline []TimeBucket `json:"timeline,omitempty"`
}

// SessionSummary is one session's activity.
type SessionSummary struct {
	Ledger string    `json:"ledger"`
	ID     string    `json:"id"`
	Calls  int       `json:"calls"`
	Errors int       `json:"errors"`
	First  time.Time `json:"first"`
	Last   time.Time `json:"last"`
}

// GhostClass classifies an unconfirmed call.
type GhostClass string

// Ghost classes (DESIGN.md §4).
const (
	// ClassGhost: the session went on after issue + grace — the strongest
	// sign of a swallowed turn.
	ClassGhost GhostClass = "ghost"
	// ClassStale: no later activity; the session may simply have died.
	ClassStale GhostClass = "stale"
	// ClassRevived: confirmed after being reported — a false ghost, shown
	// but not counted.
	ClassRevived GhostClass = "revived"
)

// Ghost is a state-changing call whose result never landed (or landed
// only after it was reported).
type Ghost struct {
	Ledger         string     `json:"ledger"`
	Row            int64      `json:"row"`
	CallID         string     `json:"call_id,omitempty"`
	Session        string     `json:"session"`
	Tool           string     `json:"tool"`
	IssuedAt       time.Time  `json:"issued_at"`
	Class          GhostClass `json:"class"`
	Grace          Duration   `json:"grace"`
	Age            Duration   `json:"age"` // at --now
	ReportedAt     time.Time  `json:"reported_at,omitzero"`
	ConfirmedAt    time.Time  `json:"confirmed_at,omitzero"`
	NextActivity   time.Time  `json:"next_activity,omitzero"` // first later event of the session
	NearCompaction bool       `json:"near_compaction,omitempty"`
	Args           string     `json:"args"`               // redacted excerpt
	Evidence       []string   `json:"evidence,omitempty"` // offline checks (--hermes-home)
}

// SuppressionNote reports a suppression entry that did not apply cleanly
// (expired, unused) so nothing is silently dropped.
type SuppressionNote struct {
	Match   string    `json:"match"` // fingerprint or rule id
	Reason  string    `json:"reason"`
	Expires time.Time `json:"expires"`
	Status  string    `json:"status"` // applied | expired | unused
	Count   int       `json:"count"`
}

// PolicyReport is the dry-run replay of policy packs over the ledger:
// what would have been blocked or warned.
type PolicyReport struct {
	Packs   []string    `json:"packs"`
	Hits    []PolicyHit `json:"hits"`
	Totals  []RuleTotal `json:"totals"`
	Blocked int         `json:"would_block"`
	Warned  int         `json:"would_warn"`
	// Calls is how many calls were replayed (policy replay only).
	Calls int `json:"calls,omitempty"`
}

// PolicyHit is one call a pack would have stopped or warned about.
type PolicyHit struct {
	Ledger   string           `json:"ledger"`
	Row      int64            `json:"row"`
	Session  string           `json:"session"`
	TS       time.Time        `json:"ts"`
	Tool     string           `json:"tool"`
	Pack     string           `json:"pack"`
	RuleID   string           `json:"rule_id"`
	Action   string           `json:"action"` // block | warn
	Severity finding.Severity `json:"severity"`
	Reason   string           `json:"reason"`
	Matched  string           `json:"matched"`         // the normalised command that matched, redacted
	Notes    []string         `json:"notes,omitempty"` // evasion-suspect, unparseable, cross-call...
}

// RuleTotal counts hits per rule.
type RuleTotal struct {
	Pack   string `json:"pack"`
	RuleID string `json:"rule_id"`
	Action string `json:"action"`
	Count  int    `json:"count"`
}

// LoopReport is the replay of the loop guardrails over the ledger.
type LoopReport struct {
	Config LoopConfig `json:"config"`
	Loops  []Loop     `json:"loops"`
	// Sessions and Calls count what was replayed; Notes state the limits
	// of an offline replay (e.g. results too long to recompute the
	// unfixed hash).
	Sessions int      `json:"sessions"`
	Calls    int      `json:"calls"`
	Notes    []string `json:"notes,omitempty"`
}

// LoopConfig is the guardrail configuration replayed.
type LoopConfig struct {
	Source                 string         `json:"source"` // file path or "defaults"
	WarningsEnabled        bool           `json:"warnings_enabled"`
	HardStopEnabled        bool           `json:"hard_stop_enabled"`
	NonInteractiveHardStop bool           `json:"non_interactive_hard_stop_enabled"`
	WarnAfter              map[string]int `json:"warn_after"`
	HardStopAfter          map[string]int `json:"hard_stop_after"`
	LoopCaps               map[string]int `json:"loop_caps"`
}

// Loop is one detected loop with its cost.
type Loop struct {
	Ledger   string    `json:"ledger"`
	Session  string    `json:"session"`
	Kind     string    `json:"kind"` // identical | exact_failure | same_tool_failure | idempotent_no_progress | cycle | near_duplicate | cap_breach
	Tool     string    `json:"tool"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	Calls    int       `json:"calls"`
	FirstRow int64     `json:"first_row"`
	LastRow  int64     `json:"last_row"`
	Evidence string    `json:"evidence"`
	Waste    Waste     `json:"waste"`
	// Call index (1-based, within the loop) where the configured guardrail
	// would have warned / hard-stopped; 0 = never.
	WarnAt     int `json:"warn_at"`
	HardStopAt int `json:"hard_stop_at"`
	// What the guardrail without the volatile-field fix would have done.
	UnfixedWarnAt     int   `json:"unfixed_warn_at"`
	UnfixedHardStopAt int   `json:"unfixed_hard_stop_at"`
	SavedIfStopped    Waste `json:"saved_if_stopped"`

	// Turn is the turn id when the loop stayed inside one turn (Hermes'
	// guardrail state is per turn). Platform comes from session_start;
	// HardStopEnabled says whether the configuration in effect for that
	// platform would really have stopped at HardStopAt (interactive
	// sessions only warn by default); HardStopAt is reported either way.
	Turn            string `json:"turn,omitempty"`
	Platform        string `json:"platform,omitempty"`
	HardStopEnabled bool   `json:"hard_stop_enabled"`
	// WarnCode / HardStopCode are the Hermes decision codes that fired
	// first (e.g. identical_call_streak, repeated_exact_failure_warning).
	WarnCode     string `json:"warn_code,omitempty"`
	HardStopCode string `json:"hard_stop_code,omitempty"`
	// Period is the cycle length for kind cycle.
	Period int `json:"period,omitempty"`
	// DistinctArgs counts distinct argument signatures in the loop (1 for
	// an identical streak, several for a near-duplicate loop).
	DistinctArgs int `json:"distinct_args"`
	// UnfixedUnknown counts calls whose full result was not stored (the
	// digest is capped at 300 characters), so the unfixed hash could not
	// be recomputed; the unfixed replay treats them as distinct.
	UnfixedUnknown int `json:"unfixed_unknown,omitempty"`
}

// Waste is what a loop cost.
type Waste struct {
	Calls           int     `json:"calls"`
	WallSeconds     float64 `json:"wall_seconds"`
	ToolSeconds     float64 `json:"tool_seconds"`
	LLMCalls        int     `json:"llm_calls"`     // main-model calls
	AuxLLMCalls     int     `json:"aux_llm_calls"` // other models (e.g. the approval model)
	TokensIn        int64   `json:"tokens_in"`
	TokensCacheRead int64   `json:"tokens_cache_read"`
	TokensOut       int64   `json:"tokens_out"`
	LatencySeconds  float64 `json:"latency_seconds"`
	ShareOfCalls    float64 `json:"share_of_calls,omitempty"`  // of the session's LLM calls
	ShareOfTokens   float64 `json:"share_of_tokens,omitempty"` // of the session's input tokens
}
