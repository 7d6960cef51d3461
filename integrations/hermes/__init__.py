"""ledger-audit plugin for Hermes: a tamper-evident ledger of tool calls.

Every state-changing tool call is written as an ``issued`` row before it
runs and closed by a ``confirmed`` / ``error`` / ``blocked`` row after, in
the ledger-audit SQLite schema (``schema.sql``, a byte-identical copy of the
Go package's) and on the same hash chain as the Go writer, so
``ledger-audit`` reads, audits and verifies what this plugin writes.

Rules this module keeps, because it runs inside the agent:

* It never raises into Hermes and returns in milliseconds. Every problem
  becomes one line in ``ledger-audit-errors.log`` next to the ledger
  (mode 0600, never arguments or secrets) and the hook returns None.
* It only INSERTs. Nothing already written is changed.
* No subprocess on the recording path. Only when a ``policy_mode`` file next
  to the ledger says ``dry_run`` or ``enforce`` does ``pre_tool_call`` ask
  ``ledger-audit capture --decide`` for a verdict, with a 2 s timeout, and
  a missing, slow or failing binary means "allow" (fail open).

Configuration (environment): LEDGER_AUDIT_DB (ledger path; default
``<HERMES_HOME or ~/.hermes>/plugin-data/agent-ledger/ledger.db``),
LEDGER_AUDIT_ALL_TOOLS=1 (record read-only tools too), LEDGER_AUDIT_BIN
(the ledger-audit binary for policy decisions; default: found on PATH).
"""

import datetime
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import threading
import time

SCHEMA_VERSION = 1
APP_NAME = "ledger-audit"
SOURCE = "hermes"
MAX_ARGS_CHARS = 4000
MAX_DIGEST_CHARS = 300
BUSY_TIMEOUT_S = 1.5
DECIDE_TIMEOUT_S = 2.0
ERROR_LOG = "ledger-audit-errors.log"
MAX_LISTED = 10

# Grace periods in seconds, as ledger.GraceFor.
DEFAULT_GRACE = 2 * 60
GRACE = {"terminal": 15 * 60, "Bash": 15 * 60, "delegate_task": 30 * 60, "Task": 30 * 60}

# Mirror of ledger.Mutating (Go); a Go test compares the two on a list of names.
_MUTATING = frozenset([
    "write_file", "patch", "terminal", "execute_code", "delegate_task",
    "Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "Task",
])
_KANBAN_READ_ONLY = ("_list", "_get", "_show", "_search", "_read", "_view")

_HASH_COLUMNS = (
    "prev_hash", "id", "ts", "kind", "source", "session_id", "turn_id", "call_id",
    "issued_id", "tool_name", "args_json", "args_truncated", "result_digest",
    "result_hash", "error_type", "duration_ms", "policy_rule", "policy_action",
    "tokens_in", "tokens_out", "tokens_cache_read", "cwd",
)
_INSERT = "INSERT INTO events (%s, hash) VALUES (%s)" % (
    ", ".join(_HASH_COLUMNS), ", ".join("?" * (len(_HASH_COLUMNS) + 1)))

_lock = threading.Lock()
_conn = None
_conn_path = None
_schema = None

# The clock; tests replace it. Seconds since the epoch, like time.time.
_now = time.time


def _mutating(tool):
    if tool in _MUTATING:
        return True
    if tool.startswith("cronjob") or tool.startswith("mcp__"):
        return True
    if tool.startswith("kanban"):
        return not tool.endswith(_KANBAN_READ_ONLY)
    return False


def _grace(tool):
    return GRACE.get(tool, DEFAULT_GRACE)


def _db_path():
    path = os.environ.get("LEDGER_AUDIT_DB")
    if path:
        return path
    home = os.environ.get("HERMES_HOME") or os.path.join(os.path.expanduser("~"), ".hermes")
    return os.path.join(home, "plugin-data", "agent-ledger", "ledger.db")


def _records_all():
    return os.environ.get("LEDGER_AUDIT_ALL_TOOLS", "") not in ("", "0", "false")


def _ts(t):
    """RFC 3339 UTC with milliseconds, truncated like Go's Truncate(ms)."""
    ms = int(t * 1000)
    dt = datetime.datetime.fromtimestamp(ms // 1000, tz=datetime.timezone.utc)
    return dt.strftime("%Y-%m-%dT%H:%M:%S") + ".%03dZ" % (ms % 1000)


def _parse_ts(s):
    try:
        dt = datetime.datetime.strptime(s[:19], "%Y-%m-%dT%H:%M:%S")
    except (TypeError, ValueError):
        return None
    frac = 0.0
    if len(s) > 20 and s[19] == ".":
        digits = re.match(r"\d+", s[20:])
        if digits:
            frac = float("0." + digits.group(0))
    return dt.replace(tzinfo=datetime.timezone.utc).timestamp() + frac


def _clean(s):
    """Text SQLite and the Go reader both accept: valid UTF-8, no lone surrogates."""
    if not isinstance(s, str):
        s = "" if s is None else str(s)
    return s.encode("utf-8", "replace").decode("utf-8")


def _canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _args_json(args):
    if args is None:
        return "", False
    if isinstance(args, str):
        text = args
    else:
        text = _canonical(_jsonable(args))
    text = _clean(text)
    if len(text) > MAX_ARGS_CHARS:
        return text[:MAX_ARGS_CHARS], True
    return text, False


def _jsonable(v):
    # Round-trip through json with default=str so odd objects (paths,
    # datetimes) become strings instead of raising.
    return json.loads(json.dumps(v, default=str))


def _result_text(result):
    if result is None:
        return ""
    if isinstance(result, str):
        return _clean(result)
    try:
        return _clean(_canonical(_jsonable(result)))
    except (TypeError, ValueError):
        return _clean(str(result))


def _result_hash(tool, text):
    """sha256 of the canonical JSON result (execute_code's duration_seconds
    and kernel.execution_count stripped), else of the raw text; as
    ledger.ResultHash."""
    try:
        value = json.loads(text)
    except ValueError:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()
    if tool == "execute_code" and isinstance(value, dict):
        value = {k: v for k, v in value.items() if k != "duration_seconds"}
        kernel = value.get("kernel")
        if isinstance(kernel, dict):
            value["kernel"] = {k: v for k, v in kernel.items() if k != "execution_count"}
    return hashlib.sha256(_canonical(value).encode("utf-8")).hexdigest()


def _row_hash(row):
    parts = []
    for col in _HASH_COLUMNS:
        v = row.get(col)
        if v is None:
            parts.append("")
        elif isinstance(v, bool):
            parts.append("1" if v else "0")
        else:
            parts.append(str(v))
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


def _log(hook, exc):
    """One line in the side log. Only the exception's type and text: never
    the call's arguments or results."""
    try:
        path = _db_path()
        directory = os.path.dirname(path) or "."
        os.makedirs(directory, mode=0o700, exist_ok=True)
        msg = " ".join(("%s: %s" % (type(exc).__name__, exc)).split())
        line = "%s plugin hook=%s: %s" % (_ts(time.time()), hook, msg)
        fd = os.open(os.path.join(directory, ERROR_LOG), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (line[:400] + "\n").encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except Exception:  # the log is the last resort; nothing is left to tell
        pass


# --- the ledger -------------------------------------------------------------

def _schema_sql():
    global _schema
    if _schema is None:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "schema.sql"), encoding="utf-8") as f:
            _schema = f.read()
    return _schema


def _statements(script):
    buf = ""
    for line in script.splitlines(True):
        buf += line
        if sqlite3.complete_statement(buf):
            yield buf
            buf = ""


def _connect():
    """The cached connection for the current ledger path, opened and
    initialised like ledger.OpenWriter: 0600 file, WAL, busy timeout,
    schema applied once under the write lock, foreign databases refused."""
    global _conn, _conn_path
    path = _db_path()
    if _conn is not None and _conn_path == path:
        return _conn
    if _conn is not None:
        _close()
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("PRAGMA busy_timeout = %d" % int(BUSY_TIMEOUT_S * 1000))
        # Refuse a foreign database before switching to WAL: the switch
        # itself rewrites the header of a file that is not ours.
        _check_foreign(conn)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        _init(conn)
    except Exception:
        conn.close()
        raise
    _conn, _conn_path = conn, path
    return conn


def _close():
    global _conn, _conn_path
    if _conn is not None:
        try:
            _conn.close()
        except Exception:
            pass
    _conn, _conn_path = None, None


def _check_foreign(conn):
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == SCHEMA_VERSION:
        return
    if version > SCHEMA_VERSION:
        raise RuntimeError("ledger schema version %d is newer than this plugin supports (%d)" % (version, SCHEMA_VERSION))
    if version != 0 or _foreign_tables(conn):
        raise RuntimeError("not a ledger-audit ledger (it holds other tables); refusing to write into it")


def _foreign_tables(conn):
    return conn.execute(
        "SELECT count(*) FROM sqlite_master WHERE type='table' AND name NOT IN ('meta','events')").fetchone()[0]


def _init(conn):
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == SCHEMA_VERSION:
        return
    if version > SCHEMA_VERSION:
        raise RuntimeError("ledger schema version %d is newer than this plugin supports (%d)" % (version, SCHEMA_VERSION))
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            if _foreign_tables(conn):
                raise RuntimeError("not a ledger-audit ledger (it holds other tables); refusing to write into it")
            for stmt in _statements(_schema_sql()):
                conn.execute(stmt)
            conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('app', ?), ('created', ?)",
                         (APP_NAME, _ts(_now())))
            conn.execute("PRAGMA user_version = %d" % SCHEMA_VERSION)
        conn.execute("COMMIT")
    except Exception:
        conn.execute("ROLLBACK")
        raise


def _chain_anchor(conn):
    row = conn.execute("SELECT value FROM meta WHERE key='chain_anchor_id'").fetchone()
    if row is None:
        return 0, ""
    try:
        anchor_id = int(str(row[0]).strip())
    except ValueError:
        anchor_id = 0
    h = conn.execute("SELECT value FROM meta WHERE key='chain_anchor_hash'").fetchone()
    return anchor_id, (h[0] if h else "")


def _insert(conn, row):
    """Assign the next id, chain the hash and insert; inside a transaction."""
    last = conn.execute("SELECT id, hash FROM events ORDER BY id DESC LIMIT 1").fetchone()
    if last is None:
        anchor_id, anchor_hash = _chain_anchor(conn)
        row["id"], row["prev_hash"] = anchor_id + 1, anchor_hash
    else:
        row["id"], row["prev_hash"] = last[0] + 1, last[1] or ""
    full = {
        "ts": _ts(_now()), "kind": "", "source": SOURCE, "session_id": "", "turn_id": "", "call_id": "",
        "issued_id": None, "tool_name": "", "args_json": "", "args_truncated": False, "result_digest": "",
        "result_hash": "", "error_type": "", "duration_ms": None, "policy_rule": "", "policy_action": "",
        "tokens_in": None, "tokens_out": None, "tokens_cache_read": None, "cwd": "",
    }
    full.update(row)
    for col in ("session_id", "turn_id", "call_id", "tool_name", "args_json", "result_digest", "error_type",
                "policy_rule", "policy_action", "cwd"):
        full[col] = _clean(full[col])
    full["hash"] = _row_hash(full)
    values = [full[c] for c in _HASH_COLUMNS]
    values[_HASH_COLUMNS.index("args_truncated")] = 1 if full["args_truncated"] else 0
    conn.execute(_INSERT, values + [full["hash"]])
    return full


def _write(fn):
    """Run fn(conn) in one BEGIN IMMEDIATE transaction."""
    conn = _connect()
    conn.execute("BEGIN IMMEDIATE")
    try:
        out = fn(conn)
        conn.execute("COMMIT")
        return out
    except Exception:
        try:
            conn.execute("ROLLBACK")
        except Exception:
            _close()
        raise


_OPEN = ("NOT EXISTS (SELECT 1 FROM events o WHERE o.issued_id=i.id "
         "AND o.kind IN ('confirmed','error','blocked'))")


def _pair(conn, session, call_id, tool):
    """As ledger/writer.go pair: the newest issued row of the session with
    this call id, else the oldest open call of the same session and tool."""
    if call_id:
        row = conn.execute("SELECT id FROM events WHERE kind='issued' AND session_id=? AND call_id=? "
                           "ORDER BY id DESC LIMIT 1", (session, call_id)).fetchone()
        if row is not None:
            return row[0]
    row = conn.execute("SELECT i.id FROM events i WHERE i.kind='issued' AND i.session_id=? AND i.tool_name=? AND "
                       + _OPEN + " ORDER BY i.id LIMIT 1", (session, tool)).fetchone()
    return row[0] if row is not None else None


# --- policy (only when a policy_mode file asks for it) ------------------------

def _policy_mode():
    try:
        with open(os.path.join(os.path.dirname(_db_path()), "policy_mode"), encoding="utf-8") as f:
            mode = f.read().strip()
    except FileNotFoundError:
        return ""
    return mode if mode in ("dry_run", "enforce") else ""


def _decide(tool_name, args, session, call_id, turn_id):
    """Ask ledger-audit for a verdict; None means allow. Fails open."""
    binary = os.environ.get("LEDGER_AUDIT_BIN") or shutil.which("ledger-audit")
    if not binary:
        raise FileNotFoundError("ledger-audit binary not found (set LEDGER_AUDIT_BIN); policy not applied")
    payload = json.dumps({"hook": "pre_tool_call", "tool_name": tool_name, "args": args, "session_id": session,
                          "tool_call_id": call_id, "turn_id": turn_id}, default=str)
    proc = subprocess.run([binary, "capture", "--client", "hermes", "--decide", "--db", _db_path()],
                          input=payload.encode("utf-8"), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          timeout=DECIDE_TIMEOUT_S, check=False)
    out = proc.stdout.decode("utf-8", "replace").strip()
    if proc.returncode != 0 or not out:
        return None
    verdict = json.loads(out.splitlines()[0])
    return verdict if verdict.get("action") in ("block", "warn") else None


# --- ghost context ------------------------------------------------------------

_REDACT = [
    re.compile(r"(?i)((?:api[_-]?key|token|secret|passw(?:or)?d|authorization|bearer)[\"']?\s*[:= ]\s*[\"']?)([^\s\"',;]+)"),
    re.compile(r"()(\b(?:sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16}|xox[baprs]-[A-Za-z0-9-]{10,}|\d{6,}:[A-Za-z0-9_-]{30,}))"),
]


def _excerpt(args):
    s = " ".join((args or "").split())
    for rx in _REDACT:
        s = rx.sub(lambda m: m.group(1) + "[REDACTED]", s)
    return s[:160] + "\u2026" if len(s) > 160 else s


def _age(seconds):
    minutes = int(seconds // 60)
    if minutes < 60:
        return "%dm" % minutes
    return "%dh%02dm" % (minutes // 60, minutes % 60)


def _context_text(ghosts, now):
    """The same wording as capture.ContextText (Go)."""
    if not ghosts:
        return ""
    if len(ghosts) == 1:
        lines = ["[ledger-audit] 1 tool call in this session was issued but never confirmed; it may not have taken effect:"]
    else:
        lines = ["[ledger-audit] %d tool calls in this session were issued but never confirmed; they may not have taken effect:" % len(ghosts)]
    for i, g in enumerate(ghosts):
        if i == MAX_LISTED:
            lines.append("- ... and %d more" % (len(ghosts) - MAX_LISTED))
            break
        line = "- %s at %sZ" % (g["tool"], g["ts"][:19])
        if g["call_id"]:
            line += " (call %s)" % g["call_id"]
        line += ", no result after %s" % _age(now - g["t"])
        ex = _excerpt(g["args"])
        if ex:
            line += ": " + ex
        lines.append(line)
    lines.append("Check whether these actions really happened before relying on them, and redo them if needed.")
    return "\n".join(lines)


def _report_ghosts(conn, session):
    now = _now()
    rows = conn.execute(
        "SELECT i.id, i.ts, i.turn_id, i.call_id, i.tool_name, i.args_json FROM events i "
        "WHERE i.kind='issued' AND i.session_id=? AND " + _OPEN +
        " AND NOT EXISTS (SELECT 1 FROM events g WHERE g.issued_id=i.id AND g.kind='ghost_reported') "
        "ORDER BY i.id", (session,)).fetchall()
    ghosts = []
    for rid, ts, turn, call_id, tool, args in rows:
        t = _parse_ts(ts)
        if t is None or now - t < _grace(tool):
            continue
        ghosts.append({"id": rid, "ts": ts, "t": t, "turn": turn, "call_id": call_id, "tool": tool, "args": args})
    for g in ghosts:
        _insert(conn, {"kind": "ghost_reported", "session_id": session, "turn_id": g["turn"],
                       "call_id": g["call_id"], "issued_id": g["id"], "tool_name": g["tool"]})
    return _context_text(ghosts, now)


# --- hooks ----------------------------------------------------------------------

def _session(session_id, task_id):
    return str(session_id or task_id or "")


def _text(v):
    return "" if v is None else str(v)


def pre_tool_call(tool_name=None, args=None, task_id=None, session_id=None, tool_call_id=None, turn_id=None, **kwargs):
    try:
        tool = _text(tool_name)
        session = _session(session_id, task_id)
        if not tool or not session:
            return None
        verdict, mode = None, _policy_mode()
        if mode:
            try:
                verdict = _decide(tool, args, session, _text(tool_call_id), _text(turn_id))
            except Exception as exc:  # fail open: no verdict, the call runs
                _log("pre_tool_call", exc)
        if verdict is None and not (_records_all() or _mutating(tool)):
            return None
        args_json, truncated = _args_json(args)
        row = {"kind": "issued", "session_id": session, "turn_id": _text(turn_id), "call_id": _text(tool_call_id),
               "tool_name": tool, "args_json": args_json, "args_truncated": truncated}
        refuse = False
        if verdict is not None:
            action = verdict["action"]
            refuse = mode == "enforce" and action == "block"
            row["policy_rule"] = _text(verdict.get("rule"))
            row["policy_action"] = action if mode == "enforce" else "would_" + action
        message = _text(verdict.get("message")) if verdict else ""
        with _lock:
            def write(conn):
                issued = _insert(conn, row)
                if refuse:
                    # Recorded now, not at post_tool_call: a refused call must
                    # never look like a ghost if Hermes skips the post hook.
                    _insert(conn, {"kind": "blocked", "session_id": session, "turn_id": row["turn_id"],
                                   "call_id": row["call_id"], "issued_id": issued["id"], "tool_name": tool,
                                   "error_type": "policy_block", "result_digest": message[:MAX_DIGEST_CHARS],
                                   "policy_rule": row["policy_rule"], "policy_action": row["policy_action"]})
            _write(write)
        if refuse:
            return {"action": "block", "message": message or "refused by ledger-audit policy"}
    except Exception as exc:
        _log("pre_tool_call", exc)
    return None


def post_tool_call(tool_name=None, args=None, result=None, task_id=None, session_id=None, tool_call_id=None,
                   turn_id=None, duration_ms=None, status=None, error_type=None, error_message=None, **kwargs):
    try:
        tool = _text(tool_name)
        session = _session(session_id, task_id)
        if not tool or not session:
            return None
        # A read-only call is recorded only if pre_tool_call recorded it
        # (a policy hit), which can only happen with a policy mode set.
        tracked = _records_all() or _mutating(tool)
        if not tracked and not _policy_mode():
            return None
        text = _result_text(result)
        if status == "blocked" or error_type == "plugin_block":
            kind, etype = "blocked", "plugin_block"
        elif status == "error" or (not status and error_type):
            kind, etype = "error", _text(error_type) or "tool_error"
            if not text:
                text = _clean(_text(error_message))
        else:
            kind, etype = "confirmed", ""
        row = {"kind": kind, "session_id": session, "turn_id": _text(turn_id), "call_id": _text(tool_call_id),
               "tool_name": tool, "result_digest": text[:MAX_DIGEST_CHARS], "error_type": etype,
               "result_hash": _result_hash(tool, text) if kind == "confirmed" else ""}
        if duration_ms is not None:
            row["duration_ms"] = int(duration_ms)
        with _lock:
            def write(conn):
                issued = _pair(conn, session, row["call_id"], tool)
                if issued is not None:
                    done = conn.execute("SELECT kind FROM events WHERE issued_id=? AND kind IN "
                                        "('confirmed','error','blocked') LIMIT 1", (issued,)).fetchone()
                    if done is not None and done[0] == "blocked" and kind == "blocked":
                        return  # our own refusal, already recorded with its rule
                elif not tracked:
                    return
                row["issued_id"] = issued
                _insert(conn, row)
            _write(write)
    except Exception as exc:
        _log("post_tool_call", exc)
    return None


def pre_llm_call(session_id=None, task_id=None, turn_id=None, **kwargs):
    try:
        session = _session(session_id, task_id)
        if not session:
            return None
        with _lock:
            text = _write(lambda conn: _report_ghosts(conn, session))
        if text:
            return {"context": text}
    except Exception as exc:
        _log("pre_llm_call", exc)
    return None


def on_session_start(session_id=None, model=None, platform=None, task_id=None, **kwargs):
    try:
        session = _session(session_id, task_id)
        if not session:
            return None
        with _lock:
            # model and platform tell the loop replay whether the session
            # was interactive (cli) or unattended (gateway, cron), which
            # decides whether Hermes' guardrail would have hard-stopped.
            info = {k: v for k, v in (("model", model), ("platform", platform)) if v}
            _write(lambda conn: _insert(conn, {"kind": "session_start", "session_id": session,
                                               "args_json": _canonical(info) if info else ""}))
    except Exception as exc:
        _log("on_session_start", exc)
    return None


def _first_int(d, *keys):
    for k in keys:
        v = d.get(k) if isinstance(d, dict) else None
        if isinstance(v, bool):
            continue
        if isinstance(v, (int, float)):
            return int(v)
    return None


def post_llm_call(session_id=None, task_id=None, turn_id=None, model=None, usage=None, **kwargs):
    """Records one model call with its token usage, for loop waste accounting.

    FACTS.md documents pre_llm_call only; Hermes versions that also fire a
    post-call hook pass usage under differing names, so every known
    spelling is tried and a call without usage is still counted.
    """
    try:
        session = _session(session_id, task_id)
        if not session:
            return None
        u = usage if isinstance(usage, dict) else kwargs
        tin = _first_int(u, "input_tokens", "prompt_tokens", "tokens_in")
        tout = _first_int(u, "output_tokens", "completion_tokens", "tokens_out")
        cache = _first_int(u, "cache_read_input_tokens", "cached_tokens", "cache_read_tokens", "tokens_cache_read")
        dur = _first_int(kwargs, "duration_ms", "latency_ms")
        info = {"model": model} if model else {}
        if kwargs.get("role"):
            info["role"] = str(kwargs["role"])
        row = {"kind": "llm_call", "session_id": session, "turn_id": _text(turn_id),
               "args_json": _canonical(info) if info else "",
               "tokens_in": tin, "tokens_out": tout, "tokens_cache_read": cache, "duration_ms": dur}
        with _lock:
            _write(lambda conn: _insert(conn, row))
    except Exception as exc:
        _log("post_llm_call", exc)
    return None


def register(ctx):
    ctx.register_hook("pre_tool_call", pre_tool_call)
    ctx.register_hook("post_tool_call", post_tool_call)
    ctx.register_hook("pre_llm_call", pre_llm_call)
    ctx.register_hook("on_session_start", on_session_start)
    # Not every Hermes version knows this hook; an unknown name must not
    # stop the four that matter from working.
    try:
        ctx.register_hook("post_llm_call", post_llm_call)
    except Exception as exc:
        _log("register", exc)
