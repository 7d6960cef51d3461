"""Drives the real Hermes plugin (integrations/hermes/__init__.py) the way
Hermes does: register(ctx) on a fake ctx, then the hooks called with
Hermes' keyword arguments (including extra ones Hermes adds between
versions). Prints one JSON object with what the hooks returned; the Go test
then reads the ledger with the Go ledger package.

usage: hermes_driver.py PLUGIN_DIR SCENARIO [ARGS...]
"""

import importlib.util
import json
import os
import sys

T0 = 1796070000.0  # 2026-12-01T...Z; any fixed instant works


def load(plugin_dir):
    spec = importlib.util.spec_from_file_location(
        "ledger_audit_plugin", os.path.join(plugin_dir, "__init__.py"),
        submodule_search_locations=[plugin_dir])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class FakeCtx:
    def __init__(self):
        self.hooks = {}

    def register_hook(self, name, fn):
        self.hooks.setdefault(name, []).append(fn)

    def fire(self, name, **kwargs):
        # Hermes passes extra kwargs that change between versions.
        kwargs.setdefault("telemetry_schema_version", 3)
        kwargs.setdefault("middleware_trace", [])
        out = [fn(**kwargs) for fn in self.hooks.get(name, [])]
        return out[0] if out else None


class Clock:
    def __init__(self, t):
        self.t = t

    def __call__(self):
        return self.t


def tool(ctx, name, args, result=None, call_id=None, session="s1", turn="t1", status="ok", error_type=None,
         duration=7, post=True):
    pre = ctx.fire("pre_tool_call", tool_name=name, args=args, task_id="task", session_id=session,
                   tool_call_id=call_id, turn_id=turn, api_request_id="req")
    if post:
        ctx.fire("post_tool_call", tool_name=name, args=args, result=result, task_id="task", session_id=session,
                 tool_call_id=call_id, turn_id=turn, api_request_id="req", duration_ms=duration, status=status,
                 error_type=error_type, error_message=None if status == "ok" else "it failed")
    return pre


def scenario_main(plugin, ctx, clock):
    out = {}
    ctx.fire("on_session_start", session_id="s1", model="m", platform="cli", sender_id="u")
    out["first_context"] = ctx.fire("pre_llm_call", session_id="s1", task_id="task", turn_id="t1",
                                    user_message="hi", conversation_history=[], is_first_turn=True,
                                    model="m", platform="cli")
    ctx.fire("post_llm_call", session_id="s1", task_id="task", turn_id="t1", model="m",
             usage={"input_tokens": 1200, "output_tokens": 80, "cache_read_input_tokens": 1000}, duration_ms=950)
    # 1: paired by call id
    tool(ctx, "terminal", {"command": "ls -la", "timeout": 30}, '{"output":"a\\nb","exit_code":0}', call_id="c1")
    # 2: no call id: fallback pairing by session + tool
    tool(ctx, "write_file", {"path": "/tmp/x", "content": "h\u00e9llo \U0001F600"}, '{"bytes_written":9}')
    # 3: error outcome
    tool(ctx, "execute_code", {"code": "1/0"}, '{"error":"ZeroDivisionError"}', call_id="c3",
         status="error", error_type="tool_error")
    # read-only tool: not recorded
    tool(ctx, "read_file", {"path": "/etc/hosts"}, "127.0.0.1 localhost", call_id="c4")
    # 4,5: execute_code results differing only in volatile fields
    tool(ctx, "execute_code", {"code": "pass"},
         '{"output":"","duration_seconds":0.41,"kernel":{"execution_count":7,"id":"k"}}', call_id="c5")
    tool(ctx, "execute_code", {"code": "pass"},
         '{"kernel":{"id":"k","execution_count":8},"output":"","duration_seconds":1.93}', call_id="c6")
    # 6: blocked by another plugin: post fires with status=blocked
    tool(ctx, "terminal", {"command": "rm -rf /"}, '{"error":"nope"}', call_id="c7", status="blocked",
         error_type="plugin_block")
    # 7: oversized arguments are truncated and flagged
    tool(ctx, "patch", {"diff": "x" * 5000}, "ok", call_id="c8")
    # 8: a cronjob that never gets its post_tool_call: the ghost
    tool(ctx, "cronjob", {"action": "create", "schedule": "0 9 * * *", "prompt": "report",
                          "api_key": "sk-abcdefghijklmnopqrstuvwx"}, call_id="c9", post=False)
    out["early_context"] = ctx.fire("pre_llm_call", session_id="s1", task_id="task", turn_id="t2")
    clock.t += 3 * 60
    out["ghost_context"] = ctx.fire("pre_llm_call", session_id="s1", task_id="task", turn_id="t3")
    out["again_context"] = ctx.fire("pre_llm_call", session_id="s1", task_id="task", turn_id="t4")
    out["other_session_context"] = ctx.fire("pre_llm_call", session_id="s2", task_id="task2", turn_id="t1")
    # the ghost is confirmed late: revived, one call
    clock.t += 60
    ctx.fire("post_tool_call", tool_name="cronjob", args={}, result='{"job_id":"j1"}', session_id="s1",
             tool_call_id="c9", turn_id="t4", duration_ms=5, status="ok")
    return out


def scenario_mutating(plugin, ctx, clock, *names):
    return {"mutating": {n: plugin._mutating(n) for n in names}}


def scenario_enforce(plugin, ctx, clock, command):
    """One pre_tool_call under whatever policy_mode / LEDGER_AUDIT_BIN the
    test set up; reports what the hook returned."""
    ret = ctx.fire("pre_tool_call", tool_name="terminal", args={"command": command}, task_id="task",
                   session_id="s1", tool_call_id="e1", turn_id="t1", api_request_id="r")
    if ret is None:
        ctx.fire("post_tool_call", tool_name="terminal", args={"command": command}, result='{"exit_code":0}',
                 session_id="s1", tool_call_id="e1", turn_id="t1", duration_ms=3, status="ok")
    else:
        # Hermes fires post_tool_call with status=blocked after a refusal.
        ctx.fire("post_tool_call", tool_name="terminal", args={"command": command},
                 result=json.dumps({"error": ret.get("message")}), session_id="s1", tool_call_id="e1",
                 turn_id="t1", duration_ms=0, status="blocked", error_type="plugin_block")
    return {"pre": ret}


def scenario_broken(plugin, ctx, clock):
    """Every hook with a ledger it cannot open must return None, not raise."""
    out = {}
    out["pre"] = tool(ctx, "terminal", {"command": "ls"}, "x", call_id="b1")
    out["llm"] = ctx.fire("pre_llm_call", session_id="s1", turn_id="t")
    out["start"] = ctx.fire("on_session_start", session_id="s1")
    out["garbage"] = ctx.fire("post_tool_call", tool_name=None, result=object())
    return out


def main():
    plugin_dir, scenario = sys.argv[1], sys.argv[2]
    plugin = load(plugin_dir)
    clock = Clock(T0)
    plugin._now = clock
    ctx = FakeCtx()
    plugin.register(ctx)
    assert sorted(ctx.hooks) == ["on_session_start", "post_llm_call", "post_tool_call", "pre_llm_call", "pre_tool_call"], ctx.hooks
    fn = globals()["scenario_" + scenario]
    out = fn(plugin, ctx, clock, *sys.argv[3:])
    out["t0"] = plugin._ts(T0)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
