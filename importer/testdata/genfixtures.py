#!/usr/bin/env python3
"""Regenerates the Claude Code and Codex fixtures in this directory.

The fixtures are committed; this script documents how they were built and
rebuilds them byte for byte: python3 testdata/genfixtures.py (from importer/)."""
import json, os, uuid, hashlib
BASE = os.path.dirname(os.path.abspath(__file__))
def uid(tag):
    return str(uuid.UUID(hashlib.md5(tag.encode()).hexdigest()))
def toolu(tag):
    return "toolu_01" + hashlib.sha1(tag.encode()).hexdigest()[:22]
def msgid(tag):
    return "msg_01" + hashlib.sha1(("m"+tag).encode()).hexdigest()[:22]
def reqid(tag):
    return "req_011" + hashlib.sha1(("r"+tag).encode()).hexdigest()[:21]

class Session:
    def __init__(self, sid, cwd, version="2.1.72", sidechain=False, agent=None):
        self.sid, self.cwd, self.version = sid, cwd, version
        self.lines, self.parent = [], None
        self.sidechain, self.agent = sidechain, agent
    def env(self, typ, ts, **kw):
        u = uid(self.sid + (self.agent or "") + str(len(self.lines)))
        d = {"parentUuid": self.parent, "isSidechain": self.sidechain, "userType": "external", "cwd": self.cwd,
             "sessionId": self.sid, "version": self.version, "gitBranch": "main"}
        if self.agent: d["agentId"] = self.agent
        d["type"] = typ
        d.update(kw)
        d["uuid"] = u
        d["timestamp"] = ts
        self.parent = u
        self.lines.append(json.dumps(d, separators=(",", ":"), ensure_ascii=False))
        return u
    def prompt(self, ts, text):
        return self.env("user", ts, message={"role": "user", "content": text})
    def assistant(self, ts, tag, blocks, usage, model="claude-sonnet-4-5-20250929"):
        # Claude Code writes one record per content block, same message id and usage.
        for b in blocks:
            self.env("assistant", ts, message={"id": msgid(tag), "type": "message", "role": "assistant", "model": model,
                     "content": [b], "stop_reason": None, "stop_sequence": None, "usage": usage}, requestId=reqid(tag))
    def result(self, ts, tid, content, is_error=False, extra=None):
        blk = {"tool_use_id": tid, "type": "tool_result", "content": content}
        if is_error: blk["is_error"] = True
        kw = {"message": {"role": "user", "content": [blk]}}
        if extra is not None: kw["toolUseResult"] = extra
        return self.env("user", ts, **kw)
    def raw(self, obj):
        self.lines.append(json.dumps(obj, separators=(",", ":"), ensure_ascii=False))
    def write(self, path, trailing_newline=True, tail=None):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("\n".join(self.lines))
            if trailing_newline: f.write("\n")
            if tail is not None: f.write(tail)

def usage(i, o, cr, cc=0):
    return {"input_tokens": i, "cache_creation_input_tokens": cc, "cache_read_input_tokens": cr, "output_tokens": o, "service_tier": "standard"}
def tu(tag, name, inp):
    return {"type": "tool_use", "id": toolu(tag), "name": name, "input": inp}
def text(t):
    return {"type": "text", "text": t}

# 1. normal session ---------------------------------------------------------
proj = BASE + "/claude/projects/-home-dev-shop"
sid = "5f0c2b7e-8d41-4c2a-9b0e-3e1f6a9d2c11"
s = Session(sid, "/home/dev/shop")
s.raw({"type": "summary", "summary": "Fix flaky checkout test", "leafUuid": uid("leaf-normal")})
s.raw({"type": "file-history-snapshot", "messageId": uid("fh1"), "snapshot": {"messageId": uid("fh1"), "trackedFileBackups": {}, "timestamp": "2026-11-30T09:00:02.100Z"}, "isSnapshotUpdate": False})
s.prompt("2026-11-30T09:00:02.118Z", "The checkout test fails about one run in five. Find out why and fix it.")
s.assistant("2026-11-30T09:00:06.530Z", "n1", [text("Let me look at the test first."), tu("n-read", "Read", {"file_path": "/home/dev/shop/tests/checkout.test.ts"})], usage(4, 96, 0, 14210))
s.result("2026-11-30T09:00:06.702Z", toolu("n-read"), "     1\timport { checkout } from '../src/checkout'\n     2\t\n     3\ttest('applies discount', async () => {\n     4\t  const total = await checkout(cart, { now: Date.now() })\n     5\t  expect(total).toBe(90)\n     6\t})\n", extra={"type": "text"})
s.assistant("2026-11-30T09:00:11.004Z", "n2", [text("The test depends on the wall clock. Let me run it a few times to confirm."), tu("n-bash1", "Bash", {"command": "for i in 1 2 3 4 5; do npx jest tests/checkout.test.ts --silent || echo FAIL; done", "description": "Run the checkout test five times"})], usage(6, 141, 14210, 310))
s.result("2026-11-30T09:00:31.877Z", toolu("n-bash1"), "PASS tests/checkout.test.ts\nPASS tests/checkout.test.ts\nFAIL tests/checkout.test.ts\n  ● applies discount\n    expected 90, received 100\nFAIL\nPASS tests/checkout.test.ts\nPASS tests/checkout.test.ts", extra={"stdout": "...", "stderr": "", "interrupted": False})
s.assistant("2026-11-30T09:00:38.250Z", "n3", [tu("n-edit", "Edit", {"file_path": "/home/dev/shop/tests/checkout.test.ts", "old_string": "{ now: Date.now() }", "new_string": "{ now: new Date('2026-01-15T12:00:00Z').getTime() }"})], usage(5, 220, 14520, 400))
s.result("2026-11-30T09:00:38.611Z", toolu("n-edit"), "The file /home/dev/shop/tests/checkout.test.ts has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n     4\t  const total = await checkout(cart, { now: new Date('2026-01-15T12:00:00Z').getTime() })")
s.assistant("2026-11-30T09:00:41.020Z", "n4", [tu("n-bash2", "Bash", {"command": "npx tsc --noEmit -p .", "description": "Type-check"})], usage(5, 61, 14920, 120))
s.result("2026-11-30T09:00:49.300Z", toolu("n-bash2"), "src/checkout.ts(41,7): error TS2322: Type 'string' is not assignable to type 'number'.", is_error=True)
s.assistant("2026-11-30T09:00:53.870Z", "n5", [text("That type error predates my change; I will leave src/ alone and push the fix."), tu("n-bash3", "Bash", {"command": "git push --force origin main", "description": "Push the fix"})], usage(5, 88, 15040, 90))
s.result("2026-11-30T09:00:58.002Z", toolu("n-bash3"), "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.", is_error=True)
s.prompt("2026-11-30T09:01:20.441Z", "Don't force-push. Open a branch instead.")
s.assistant("2026-11-30T09:01:24.100Z", "n6", [tu("n-bash4", "Bash", {"command": "git switch -c fix/checkout-clock && git commit -am 'test: pin checkout clock' && git push -u origin fix/checkout-clock", "description": "Commit on a branch and push"})], usage(5, 120, 15200, 150))
s.result("2026-11-30T09:01:29.950Z", toolu("n-bash4"), "Switched to a new branch 'fix/checkout-clock'\n[fix/checkout-clock 3e9a1f2] test: pin checkout clock\n 1 file changed, 1 insertion(+), 1 deletion(-)\nbranch 'fix/checkout-clock' set up to track 'origin/fix/checkout-clock'.")
s.assistant("2026-11-30T09:01:33.480Z", "n7", [text("Done: the test now pins the clock, committed on fix/checkout-clock.")], usage(5, 40, 15400, 0))
s.env("system", "2026-11-30T09:01:33.500Z", subtype="turn_duration", durationMs=91382, isMeta=False)
s.write(proj + "/" + sid + ".jsonl")

# 2. compaction + unanswered tool_use ---------------------------------------
sid2 = "a41d9e07-2f6b-4b8e-8c3d-7d0b5e2f9a64"
c = Session(sid2, "/home/dev/shop")
c.prompt("2026-11-30T10:02:10.004Z", "Add the loyalty_points column, migrate the database and backfill it from orders.")
c.assistant("2026-11-30T10:02:14.900Z", "c1", [tu("c-write", "Write", {"file_path": "/home/dev/shop/db/migrations/0042_loyalty_points.sql", "content": "ALTER TABLE customers ADD COLUMN loyalty_points INTEGER NOT NULL DEFAULT 0;\n"})], usage(4, 210, 0, 30120))
c.result("2026-11-30T10:02:15.130Z", toolu("c-write"), "File created successfully at: /home/dev/shop/db/migrations/0042_loyalty_points.sql")
t = 10*3600 + 2*60 + 20
for i in range(6):
    tag = "c-grep%d" % i
    c.assistant("2026-11-30T10:%02d:%02d.100Z" % (3 + i, 5), "cg%d" % i, [tu(tag, "Grep", {"pattern": "loyalty", "path": "/home/dev/shop/src"})], usage(5, 30, 30120 + 900*i, 200))
    c.result("2026-11-30T10:%02d:%02d.400Z" % (3 + i, 6), toolu(tag), "src/loyalty.ts\nsrc/orders/backfill.ts")
c.assistant("2026-11-30T10:14:58.221Z", "c2", [text("Running the migration now."), tu("c-migrate", "Bash", {"command": "npm run db:migrate -- --env production", "description": "Apply pending migrations", "timeout": 600000})], usage(5, 75, 35520, 180))
# The context hits its limit while the migration runs: Claude Code compacts,
# and the tool_result for c-migrate is never written.
c.env("system", "2026-11-30T10:15:31.870Z", subtype="compact_boundary", content="Conversation compacted", isMeta=False, level="info",
      compactMetadata={"trigger": "auto", "preTokens": 167012}, logicalParentUuid=c.parent)
c.parent = None
c.env("user", "2026-11-30T10:15:31.871Z", message={"role": "user", "content": "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nAnalysis: the user asked to add loyalty_points, migrate and backfill. A migration file was written and `npm run db:migrate` was started.\n\nPlease continue the conversation from where we left it off without asking the user any further questions."},
      isVisibleInTranscriptOnly=True, isCompactSummary=True)
c.assistant("2026-11-30T10:15:40.002Z", "c3", [text("Continuing with the backfill."), tu("c-backfill", "Write", {"file_path": "/home/dev/shop/scripts/backfill_loyalty.ts", "content": "import { db } from '../src/db'\nawait db.query('UPDATE customers SET loyalty_points = (SELECT count(*) FROM orders o WHERE o.customer_id = customers.id)')\n"})], usage(4, 330, 0, 9800))
c.result("2026-11-30T10:15:40.318Z", toolu("c-backfill"), "File created successfully at: /home/dev/shop/scripts/backfill_loyalty.ts")
c.assistant("2026-11-30T10:31:12.540Z", "c4", [tu("c-run", "Bash", {"command": "npx tsx scripts/backfill_loyalty.ts", "description": "Run the backfill"})], usage(5, 52, 9800, 380))
c.result("2026-11-30T10:31:19.002Z", toolu("c-run"), "error: column \"loyalty_points\" of relation \"customers\" does not exist", is_error=True)
c.assistant("2026-11-30T10:40:03.777Z", "c5", [text("The column is missing: the migration never ran. I'll stop here so you can check the database.")], usage(5, 61, 10180, 100))
c.write(proj + "/" + sid2 + ".jsonl")

# 3. sub-agents -------------------------------------------------------------
sid3 = "0b7e3c55-91a2-4f0d-8e6b-c2d4a1f3e980"
m = Session(sid3, "/home/dev/shop")
m.prompt("2026-11-30T11:00:00.250Z", "Audit the repo for hard-coded secrets, and in parallel bump lodash.")
m.assistant("2026-11-30T11:00:04.100Z", "s1", [tu("s-task1", "Task", {"description": "Scan for secrets", "prompt": "Search the repository for hard-coded credentials and report file:line.", "subagent_type": "general-purpose"}),
                                               tu("s-task2", "Agent", {"description": "Bump lodash", "prompt": "Upgrade lodash to the latest 4.x and run the tests.", "subagent_type": "general-purpose"})], usage(4, 190, 0, 12000))
m.result("2026-11-30T11:01:40.512Z", toolu("s-task1"), [{"type": "text", "text": "Found one hard-coded key in config/dev.env (line 3). agentId: a3f9c2e"}])
m.result("2026-11-30T11:02:10.060Z", toolu("s-task2"), [{"type": "text", "text": "lodash upgraded to 4.17.21; 212 tests pass. agentId: b81d044"}])
m.assistant("2026-11-30T11:02:15.330Z", "s2", [text("Both done.")], usage(5, 30, 12000, 300))
m.write(proj + "/" + sid3 + ".jsonl")
a = Session(sid3, "/home/dev/shop", sidechain=True, agent="a3f9c2e")
a.prompt("2026-11-30T11:00:04.300Z", "Search the repository for hard-coded credentials and report file:line.")
a.assistant("2026-11-30T11:00:09.000Z", "a1", [tu("a-grep", "Grep", {"pattern": "(api|secret)_?key", "-i": True, "output_mode": "content"})], usage(3, 60, 0, 5200), model="claude-haiku-4-5-20251001")
a.result("2026-11-30T11:00:09.800Z", toolu("a-grep"), "config/dev.env:3:AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE")
a.assistant("2026-11-30T11:00:15.000Z", "a2", [tu("a-bash", "Bash", {"command": "git log -p -S AWS_ACCESS_KEY_ID --oneline -- config/dev.env | head -40", "description": "When was the key added"})], usage(3, 70, 5200, 300), model="claude-haiku-4-5-20251001")
a.result("2026-11-30T11:00:16.600Z", toolu("a-bash"), "9c1e2d4 add dev env\n+AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE")
a.assistant("2026-11-30T11:01:39.900Z", "a3", [text("Found one hard-coded key in config/dev.env (line 3).")], usage(3, 40, 5500, 100), model="claude-haiku-4-5-20251001")
a.write(proj + "/" + sid3 + "/subagents/agent-a3f9c2e.jsonl")
b = Session(sid3, "/home/dev/shop", sidechain=True, agent="b81d044")
b.prompt("2026-11-30T11:00:04.400Z", "Upgrade lodash to the latest 4.x and run the tests.")
b.assistant("2026-11-30T11:00:10.000Z", "b1", [tu("b-bash1", "Bash", {"command": "npm install lodash@^4.17.21", "description": "Upgrade lodash"})], usage(3, 50, 0, 5100))
b.result("2026-11-30T11:00:31.000Z", toolu("b-bash1"), "changed 1 package, and audited 812 packages in 19s")
b.assistant("2026-11-30T11:00:33.000Z", "b2", [tu("b-bash2", "Bash", {"command": "npm test -- --silent", "description": "Run tests"})], usage(3, 40, 5100, 200))
b.result("2026-11-30T11:02:05.000Z", toolu("b-bash2"), "Tests: 212 passed, 212 total")
b.write(proj + "/" + sid3 + "/subagents/agent-b81d044.jsonl")
with open(proj + "/" + sid3 + "/subagents/agent-a3f9c2e.meta.json", "w") as f:
    f.write(json.dumps({"agentType": "general-purpose", "spawnDepth": 1}) + "\n")

# 4. huge tool_result -------------------------------------------------------
sid4 = "e2c8a1f0-6b3d-4d59-a7e1-90f4c3b2d817"
h = Session(sid4, "/home/dev/shop")
h.prompt("2026-11-30T12:00:00.000Z", "Why is the nightly job slow? The log is in /var/log/shop/nightly.log")
h.assistant("2026-11-30T12:00:03.000Z", "h1", [tu("h-cat", "Bash", {"command": "cat /var/log/shop/nightly.log", "description": "Read the nightly log"})], usage(4, 44, 0, 9000))
logl = []
for i in range(4000):
    logl.append("2026-11-29T23:%02d:%02d.%03dZ INFO worker-%d processed batch %d in %dms (rows=%d)" % (i // 60 % 60, i % 60, i % 1000, i % 8, i, 50 + (i * 37) % 900, 1000 + i))
big = "\n".join(logl)
h.result("2026-11-30T12:00:04.000Z", toolu("h-cat"), big)
h.assistant("2026-11-30T12:00:20.000Z", "h2", [text("Batches slow down as rows grow; an index on orders.customer_id would help.")], usage(4, 80, 9000, 60000))
h.write(BASE + "/claude/huge/" + sid4 + ".jsonl")

# 5. broken lines -----------------------------------------------------------
sid5 = "77d1c0aa-3e5f-4c6b-b8a9-1f2e3d4c5b6a"
k = Session(sid5, "/home/dev/shop")
k.prompt("2026-11-30T13:00:00.000Z", "Clean the build directory.")
k.lines.append("<<<<<<< this line was pasted into the file by hand")
k.assistant("2026-11-30T13:00:03.000Z", "k1", [tu("k-rm", "Bash", {"command": "rm -rf ./build", "description": "Remove build output"})], usage(4, 30, 0, 8000))
k.raw({"type": "telemetry-beacon", "timestamp": "2026-11-30T13:00:03.100Z", "payload": {"ok": True}})
k.result("2026-11-30T13:00:03.500Z", toolu("k-rm"), "")
k.assistant("2026-11-30T13:00:06.000Z", "k2", [tu("k-mk", "Bash", {"command": "mkdir -p build && touch build/.keep", "description": "Recreate build"})], usage(4, 30, 8000, 50))
k.write(BASE + "/claude/broken/" + sid5 + ".jsonl", trailing_newline=True,
        tail='{"parentUuid":"' + k.parent + '","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"' + toolu("k-mk") + '","type":"tool_result","content":"')

# 6. not a transcript -------------------------------------------------------
os.makedirs(BASE + "/claude/notatranscript", exist_ok=True)
with open(BASE + "/claude/notatranscript/app-log.jsonl", "w") as f:
    for i in range(3):
        f.write(json.dumps({"level": "info", "ts": "2026-11-30T08:00:0%dZ" % i, "msg": "request served", "status": 200}) + "\n")

# ---- Codex rollouts ----
BASE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "codex")
def line(ts, typ, payload):
    return json.dumps({"timestamp": ts, "type": typ, "payload": payload}, separators=(",", ":"), ensure_ascii=False)
def fc(ts, name, args, cid):
    return line(ts, "response_item", {"type": "function_call", "name": name, "arguments": json.dumps(args, separators=(",", ":")), "call_id": cid})
def fco(ts, cid, output):
    return line(ts, "response_item", {"type": "function_call_output", "call_id": cid, "output": output})
def tokens(ts, total, last):
    def u(t): return {"input_tokens": t[0], "cached_input_tokens": t[1], "output_tokens": t[2], "reasoning_output_tokens": t[3], "total_tokens": t[0] + t[2]}
    return line(ts, "event_msg", {"type": "token_count", "info": {"total_token_usage": u(total), "last_token_usage": u(last), "model_context_window": 272000},
                                   "rate_limits": {"primary": {"used_percent": 4.0, "window_minutes": 300}}})

sid = "019a7c3e-5b21-7d40-9e8f-2c6a1b0d4e93"
L = []
L.append(line("2026-11-30T14:00:00.412Z", "session_meta", {"id": sid, "timestamp": "2026-11-30T14:00:00.398Z", "cwd": "/home/dev/api", "originator": "codex_cli_rs", "cli_version": "0.63.0", "model_provider": "openai", "git": {"branch": "main", "commit_hash": "a1b2c3d"}}))
L.append(line("2026-11-30T14:00:00.500Z", "response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context>\n  <cwd>/home/dev/api</cwd>\n</environment_context>"}]}))
L.append(line("2026-11-30T14:00:03.100Z", "turn_context", {"turn_id": "turn-1", "cwd": "/home/dev/api", "approval_policy": "on-request", "sandbox_policy": {"mode": "workspace-write"}, "model": "gpt-5.1-codex", "effort": "medium", "summary": "auto"}))
L.append(line("2026-11-30T14:00:03.101Z", "event_msg", {"type": "task_started", "turn_id": "turn-1", "model_context_window": 272000}))
L.append(line("2026-11-30T14:00:03.102Z", "response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Rotate the log files, fix the failing health test and bump the version."}]}))
L.append(line("2026-11-30T14:00:03.102Z", "event_msg", {"type": "user_message", "message": "Rotate the log files, fix the failing health test and bump the version.", "images": []}))
L.append(line("2026-11-30T14:00:06.870Z", "response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": "**Inspecting the logs directory**"}], "content": None, "encrypted_content": "gAAAAABp-opaque"}))
# 1. shell with argv [bash, -lc, ...], old JSON output form
L.append(fc("2026-11-30T14:00:07.010Z", "shell", {"command": ["bash", "-lc", "ls -la logs && du -sh logs"], "workdir": "/home/dev/api", "timeout_ms": 120000}, "call_a1"))
L.append(line("2026-11-30T14:00:07.020Z", "event_msg", {"type": "exec_command_begin", "call_id": "call_a1", "command": ["bash", "-lc", "ls -la logs && du -sh logs"], "cwd": "/home/dev/api"}))
L.append(line("2026-11-30T14:00:07.210Z", "event_msg", {"type": "exec_command_end", "call_id": "call_a1", "stdout": "total 48\n-rw-r--r-- 1 dev dev 41M app.log\n41M\tlogs\n", "stderr": "", "aggregated_output": "total 48\n-rw-r--r-- 1 dev dev 41M app.log\n41M\tlogs\n", "exit_code": 0, "duration": {"secs": 0, "nanos": 182113000}, "formatted_output": "..."}))
L.append(fco("2026-11-30T14:00:07.214Z", "call_a1", json.dumps({"output": "total 48\n-rw-r--r-- 1 dev dev 41M app.log\n41M\tlogs\n", "metadata": {"exit_code": 0, "duration_seconds": 0.2}})))
L.append(tokens("2026-11-30T14:00:07.300Z", (9120, 6912, 312, 192), (9120, 6912, 312, 192)))
L.append(tokens("2026-11-30T14:00:07.301Z", (9120, 6912, 312, 192), (9120, 6912, 312, 192)))
# 2. local_shell_call, output paired by call_id
L.append(line("2026-11-30T14:00:10.500Z", "response_item", {"type": "local_shell_call", "id": "lsh_68ab", "call_id": "call_b2", "status": "completed", "action": {"type": "exec", "command": ["gzip", "-9", "logs/app.log"], "working_directory": "/home/dev/api", "env": {}}}))
L.append(fco("2026-11-30T14:00:12.010Z", "call_b2", json.dumps({"output": "", "metadata": {"exit_code": 0, "duration_seconds": 1.4}})))
L.append(tokens("2026-11-30T14:00:12.100Z", (18410, 15104, 398, 224), (9290, 8192, 86, 32)))
# 3. exec_command, new text output form, exit code 1 -> error
L.append(fc("2026-11-30T14:00:15.000Z", "exec_command", {"cmd": "go test ./internal/health/...", "workdir": "/home/dev/api", "yield_time_ms": 10000}, "call_c3"))
L.append(fco("2026-11-30T14:00:19.700Z", "call_c3", "Chunk ID: 4f1a\nWall time: 4.6 seconds\nProcess exited with code 1\nOriginal token count: 61\nOutput:\n--- FAIL: TestHealthz (0.00s)\n    health_test.go:18: status = 503, want 200\nFAIL\nFAIL\tgithub.com/acme/api/internal/health\t0.012s\n"))
# 4. apply_patch as custom tool
patch = "*** Begin Patch\n*** Update File: internal/health/health.go\n@@\n-\tif db == nil {\n+\tif db == nil || !db.Ready() {\n*** End Patch\n"
L.append(line("2026-11-30T14:00:25.000Z", "response_item", {"type": "custom_tool_call", "status": "completed", "call_id": "call_d4", "name": "apply_patch", "input": patch}))
L.append(line("2026-11-30T14:00:25.050Z", "event_msg", {"type": "patch_apply_begin", "call_id": "call_d4", "auto_approved": True, "changes": {"/home/dev/api/internal/health/health.go": {"update": {"unified_diff": "...", "move_path": None}}}}))
L.append(line("2026-11-30T14:00:25.080Z", "event_msg", {"type": "patch_apply_end", "call_id": "call_d4", "stdout": "Success. Updated the following files:\nM internal/health/health.go\n", "stderr": "", "success": True}))
L.append(line("2026-11-30T14:00:25.090Z", "response_item", {"type": "custom_tool_call_output", "call_id": "call_d4", "output": json.dumps({"output": "Success. Updated the following files:\nM internal/health/health.go\n", "metadata": {"exit_code": 0, "duration_seconds": 0.0}})}))
# 5. read-only tool: update_plan
L.append(fc("2026-11-30T14:00:26.000Z", "update_plan", {"plan": [{"step": "rotate logs", "status": "completed"}, {"step": "fix health test", "status": "in_progress"}]}, "call_e5"))
L.append(fco("2026-11-30T14:00:26.010Z", "call_e5", "Plan updated"))
# 6. MCP tool (server__tool)
L.append(fc("2026-11-30T14:00:40.000Z", "github__create_pull_request", {"owner": "acme", "repo": "api", "title": "Fix healthz when DB not ready", "head": "fix/healthz", "base": "main"}, "call_f6"))
L.append(fco("2026-11-30T14:00:41.300Z", "call_f6", {"content": [{"type": "text", "text": "{\"number\": 418, \"html_url\": \"https://github.com/acme/api/pull/418\"}"}], "success": True}))
L.append(tokens("2026-11-30T14:00:41.400Z", (30110, 26112, 720, 300), (11700, 10998, 322, 76)))
# 7. compaction
L.append(line("2026-11-30T14:01:00.000Z", "compacted", {"message": "Summary: rotated logs, fixed healthz, opened PR #418.", "replacement_history": []}))
L.append(line("2026-11-30T14:01:00.001Z", "event_msg", {"type": "context_compacted"}))
# 8. a call whose output never arrives
L.append(line("2026-11-30T14:01:05.000Z", "turn_context", {"turn_id": "turn-2", "cwd": "/home/dev/api", "approval_policy": "on-request", "sandbox_policy": {"mode": "workspace-write"}, "model": "gpt-5.1-codex"}))
L.append(fc("2026-11-30T14:01:06.000Z", "shell", {"command": ["bash", "-lc", "sed -i 's/0.9.3/0.9.4/' VERSION && git commit -am 'bump 0.9.4'"], "workdir": "/home/dev/api"}, "call_g7"))
L.append(line("2026-11-30T14:20:00.000Z", "response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Version bumped."}]}))
os.makedirs(BASE + "/sessions/2026/11/30", exist_ok=True)
with open(BASE + "/sessions/2026/11/30/rollout-2026-11-30T14-00-00-" + sid + ".jsonl", "w") as f:
    f.write("\n".join(L) + "\n")

# broken rollout: non-JSON line, unknown type, truncated tail
sid2 = "019a7d01-0c3f-7a55-b2d1-8e9f0a1b2c3d"
B = []
B.append(line("2026-11-30T15:00:00.000Z", "session_meta", {"id": sid2, "timestamp": "2026-11-30T15:00:00.000Z", "cwd": "/home/dev/api", "cli_version": "0.63.0"}))
B.append("not json at all")
B.append(line("2026-11-30T15:00:01.000Z", "world_snapshot_v9", {"x": 1}))
B.append(fc("2026-11-30T15:00:02.000Z", "shell", {"command": ["rm", "-rf", "tmp/cache dir"]}, "call_x1"))
B.append(fco("2026-11-30T15:00:02.500Z", "call_x1", json.dumps({"output": "", "metadata": {"exit_code": 0, "duration_seconds": 0.1}})))
os.makedirs(BASE + "/broken", exist_ok=True)
with open(BASE + "/broken/rollout-2026-11-30T15-00-00-" + sid2 + ".jsonl", "w") as f:
    f.write("\n".join(B) + "\n" + '{"timestamp":"2026-11-30T15:00:03.000Z","type":"response_item","payload":{"type":"function_call","name":"sh')
