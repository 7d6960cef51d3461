-- ledger-audit ledger schema, version 1 (PRAGMA user_version = 1).
--
-- Append-only: writers only INSERT. Nothing UPDATEs or DELETEs rows except
-- the explicit `ledger-audit prune` command, which records a chain anchor in
-- `meta` so the remaining hash chain still verifies.
--
-- Every column has a non-NULL default so the two writers (the Go capture
-- hook and the Python Hermes plugin) produce byte-identical rows and the
-- same hash chain. Integer columns that can be unknown are NULL.

CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS events (
    id                INTEGER PRIMARY KEY,
    ts                TEXT    NOT NULL,             -- RFC 3339 UTC, millisecond precision
    kind              TEXT    NOT NULL,             -- issued|confirmed|error|blocked|ghost_reported|llm_call|session_start|session_end|compaction
    source            TEXT    NOT NULL DEFAULT '',  -- hermes|claude-code|generic|import:<format>
    session_id        TEXT    NOT NULL DEFAULT '',
    turn_id           TEXT    NOT NULL DEFAULT '',
    call_id           TEXT    NOT NULL DEFAULT '',  -- the client's own id (tool_call_id, tool_use_id)
    issued_id         INTEGER,                      -- outcome rows: the id of the issued row they close
    tool_name         TEXT    NOT NULL DEFAULT '',
    args_json         TEXT    NOT NULL DEFAULT '',  -- verbatim, at most 4000 characters
    args_truncated    INTEGER NOT NULL DEFAULT 0,
    result_digest     TEXT    NOT NULL DEFAULT '',  -- at most 300 characters
    result_hash       TEXT    NOT NULL DEFAULT '',  -- sha256 of the canonical full result
    error_type        TEXT    NOT NULL DEFAULT '',
    duration_ms       INTEGER,
    policy_rule       TEXT    NOT NULL DEFAULT '',
    policy_action     TEXT    NOT NULL DEFAULT '',
    tokens_in         INTEGER,
    tokens_out        INTEGER,
    tokens_cache_read INTEGER,
    cwd               TEXT    NOT NULL DEFAULT '',
    prev_hash         TEXT    NOT NULL DEFAULT '',
    hash              TEXT    NOT NULL DEFAULT ''
);

CREATE INDEX IF NOT EXISTS events_issued_id ON events(issued_id) WHERE issued_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_open ON events(session_id, tool_name, kind);
CREATE INDEX IF NOT EXISTS events_call_id ON events(session_id, call_id) WHERE call_id <> '';

-- The agent-ledger article's shape, so its sqlite3 one-liners work on our files.
CREATE VIEW IF NOT EXISTS ledger AS
SELECT i.id,
       i.ts,
       i.session_id,
       i.tool_name,
       COALESCE(
         (SELECT CASE o.kind
                   WHEN 'confirmed' THEN 'CONFIRMED'
                   WHEN 'blocked'   THEN 'BLOCKED'
                   ELSE 'ERROR:' || CASE o.error_type WHEN '' THEN 'tool_error' ELSE o.error_type END
                 END
            FROM events o
           WHERE o.issued_id = i.id AND o.kind IN ('confirmed', 'error', 'blocked')
           ORDER BY o.id LIMIT 1),
         (SELECT 'GHOST_REPORTED' FROM events g
           WHERE g.issued_id = i.id AND g.kind = 'ghost_reported' LIMIT 1),
         'PENDING') AS status,
       i.args_json
  FROM events i
 WHERE i.kind = 'issued';
