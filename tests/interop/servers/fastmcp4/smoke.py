"""Raw-wire smoke test for the FastMCP 4 interop peer (stdlib only).

Usage: smoke.py VENV_PYTHON [--trace]

Starts server.py (next to this file) with VENV_PYTHON on a free port, waits
for its `listening on ...` line, then drives it with plain HTTP POSTs the way
our client does: per-request `_meta` and the MCP-Protocol-Version / Mcp-Method
/ Mcp-Name headers, JSON or SSE answers. Prints `ok <check>` per check and
`note <what>` for observed behaviour worth knowing (listen, second cancel,
error statuses). Exits non-zero on the first mismatch, with the reason.
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
VERSION = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"
ORIGIN = "http://127.0.0.1:5173"
TRACE = False
PASSED = 0


class Mismatch(Exception):
    pass


def ok(check: str) -> None:
    global PASSED
    PASSED += 1
    print(f"ok {check}", flush=True)


def note(text: str) -> None:
    print(f"note {text}", flush=True)


def expect(cond: bool, what: str, got: Any = None) -> None:
    if not cond:
        raise Mismatch(f"{what}; got: {json.dumps(got)[:1500] if got is not None else '-'}")


def request_meta() -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {"form": {}},
            "extensions": {TASKS: {}},
        },
        "io.modelcontextprotocol/clientInfo": {"name": "fastmcp4-smoke", "version": "0.1.0"},
    }


def parse_sse(text: str) -> list[dict[str, Any]]:
    messages = []
    data: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n") + [""]:
        if line == "":
            if data:
                messages.append(json.loads("\n".join(data)))
                data = []
        elif line.startswith(":"):
            continue
        elif line.startswith("data:"):
            data.append(line[5:].lstrip(" ") if line[5:6] == " " else line[5:])
    return messages


class Peer:
    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self.next_id = 1

    def headers(self, method: str, name: str | None) -> dict[str, str]:
        h = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Origin": ORIGIN,
            "MCP-Protocol-Version": VERSION,
            "Mcp-Method": method,
        }
        if name is not None:
            h["Mcp-Name"] = name
        return h

    def body(self, method: str, params: dict[str, Any] | None, meta: dict | None) -> tuple[int, bytes]:
        rid = self.next_id
        self.next_id += 1
        p = dict(params or {})
        p["_meta"] = request_meta() if meta is None else meta
        return rid, json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": p}).encode()

    def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        name: str | None = None,
        meta: dict | None = None,
    ) -> tuple[int, dict[str, str], dict[str, Any]]:
        """One POST; returns (HTTP status, headers, the JSON-RPC response)."""
        rid, body = self.body(method, params, meta)
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            conn.request("POST", "/mcp", body=body, headers=self.headers(method, name))
            resp = conn.getresponse()
            raw = resp.read().decode("utf-8")
            headers = {k.lower(): v for k, v in resp.getheaders()}
        finally:
            conn.close()
        ctype = headers.get("content-type", "")
        if TRACE:
            print(f"> {method} {body.decode()}\n< {resp.status} {ctype} {raw}", file=sys.stderr)
        if ctype.startswith("text/event-stream"):
            msgs = parse_sse(raw)
        elif raw.strip():
            msgs = [json.loads(raw)]
        else:
            msgs = []
        final = [m for m in msgs if m.get("id") == rid]
        expect(len(final) == 1, f"{method}: one JSON-RPC response with id {rid} (HTTP {resp.status})", raw)
        return resp.status, headers, final[0]

    def result(self, method: str, params: dict | None = None, name: str | None = None) -> dict[str, Any]:
        status, _, msg = self.call(method, params, name)
        expect(status == 200 and "result" in msg, f"{method}: HTTP 200 with a result", [status, msg])
        return msg["result"]

    def get(self, task_id: str) -> dict[str, Any]:
        res = self.result("tasks/get", {"taskId": task_id}, task_id)
        expect(res.get("taskId") == task_id, "tasks/get: taskId echoed", res)
        expect(res.get("resultType") == "complete", 'tasks/get: resultType "complete"', res)
        expect("ttlMs" in res, "tasks/get: ttlMs present", res)
        return res

    def start_task(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        res = self.result("tools/call", {"name": tool, "arguments": arguments}, tool)
        expect(res.get("resultType") == "task", f'{tool}: resultType "task"', res)
        expect(isinstance(res.get("taskId"), str) and res["taskId"], f"{tool}: taskId", res)
        for field in ("result", "error", "inputRequests"):
            expect(field not in res, f"{tool}: no {field} on the CreateTaskResult", res)
        expect(isinstance(res.get("ttlMs"), int) or res.get("ttlMs") is None, f"{tool}: ttlMs", res)
        expect(isinstance(res.get("pollIntervalMs"), int), f"{tool}: integer pollIntervalMs", res)
        return res

    def poll_until(
        self, task_id: str, statuses: set[str], limit: float, seen: list[dict] | None = None
    ) -> dict[str, Any]:
        deadline = time.monotonic() + limit
        last: dict[str, Any] = {}
        while time.monotonic() < deadline:
            last = self.get(task_id)
            if seen is not None:
                seen.append(last)
            if last["status"] in statuses:
                return last
            expect(
                last["status"] not in {"completed", "failed", "cancelled"},
                f"task {task_id}: reached {sorted(statuses)}, not another terminal status",
                last,
            )
            time.sleep(min(last.get("pollIntervalMs", 500), 500) / 1000)
        raise Mismatch(f"task {task_id}: no status in {sorted(statuses)} within {limit}s; last: {last}")


def start_server(python: str) -> tuple[subprocess.Popen, str, int]:
    proc = subprocess.Popen(
        [python, os.path.join(HERE, "server.py"), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=None if TRACE else subprocess.DEVNULL,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    try:
        line = lines.get(timeout=60)
    except queue.Empty:
        proc.kill()
        raise Mismatch("server printed no line within 60 s")
    m = re.fullmatch(r"listening on http://127\.0\.0\.1:(\d+)/mcp\n", line)
    expect(m is not None, "server's first stdout line is `listening on http://127.0.0.1:PORT/mcp`", line)
    return proc, "127.0.0.1", int(m.group(1))


def check_cors(peer: Peer) -> None:
    conn = http.client.HTTPConnection(peer.host, peer.port, timeout=10)
    conn.request(
        "OPTIONS",
        "/mcp",
        headers={
            "Origin": ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type,mcp-session-id,mcp-protocol-version,"
            "mcp-method,mcp-name,authorization,mcp-param-region",
        },
    )
    resp = conn.getresponse()
    resp.read()
    h = {k.lower(): v for k, v in resp.getheaders()}
    conn.close()
    expect(resp.status in (200, 204), "preflight: 200/204", [resp.status, h])
    expect(h.get("access-control-allow-origin") == ORIGIN, "preflight: origin echoed", h)
    allowed = {x.strip().lower() for x in h.get("access-control-allow-headers", "").split(",")}
    want = {"content-type", "mcp-session-id", "mcp-protocol-version", "mcp-method", "mcp-name",
            "authorization", "mcp-param-region"}
    expect(want <= allowed, f"preflight: allows {sorted(want)}", h)
    expect("POST" in h.get("access-control-allow-methods", ""), "preflight: allows POST", h)
    ok("cors preflight (loopback origin echoed, mcp-param-* allowed)")

    conn = http.client.HTTPConnection(peer.host, peer.port, timeout=10)
    conn.request("OPTIONS", "/mcp", headers={
        "Origin": "http://evil.example", "Access-Control-Request-Method": "POST"})
    resp = conn.getresponse()
    resp.read()
    h = {k.lower(): v for k, v in resp.getheaders()}
    conn.close()
    expect("access-control-allow-origin" not in h, "preflight: foreign origin not echoed", [resp.status, h])
    ok(f"cors preflight from a non-loopback origin refused (HTTP {resp.status})")


def check_discover(peer: Peer) -> None:
    status, h, msg = peer.call("server/discover")
    expect(status == 200, "server/discover: HTTP 200", [status, msg])
    res = msg.get("result", {})
    expect(VERSION in res.get("supportedVersions", []), f"discover: supportedVersions has {VERSION}", res)
    expect(res.get("capabilities", {}).get("extensions", {}).get(TASKS) == {},
           "discover: capabilities.extensions advertises the tasks extension as {}", res)
    expect(h.get("access-control-allow-origin") == ORIGIN, "discover: CORS origin echoed", h)
    exposed = {x.strip().lower() for x in h.get("access-control-expose-headers", "").split(",")}
    want = {"mcp-session-id", "mcp-protocol-version", "retry-after", "content-type", "www-authenticate"}
    expect(want <= exposed, f"discover: exposes {sorted(want)}", h)
    ok("server/discover advertises io.modelcontextprotocol/tasks")

    rid, body = peer.body("server/discover", None, None)
    h = peer.headers("server/discover", None)
    h["Origin"] = "http://evil.example"
    conn = http.client.HTTPConnection(peer.host, peer.port, timeout=10)
    conn.request("POST", "/mcp", body=body, headers=h)
    resp = conn.getresponse()
    raw = resp.read()
    conn.close()
    expect(resp.status == 403, "POST from a non-loopback Origin: HTTP 403", [resp.status, raw.decode()])
    note(f"POST with Origin http://evil.example -> HTTP {resp.status} {raw.decode()!r}")
    ok("POST from a non-loopback Origin refused (403)")

    tools = {t["name"]: t for t in peer.result("tools/list").get("tools", [])}
    for name in ("build", "deploy", "flaky", "long_job"):
        expect(name in tools, f"tools/list has {name}", sorted(tools))
    props = tools["build"]["inputSchema"]["properties"]
    expect(props["seconds"].get("default") == 5 and props["target"].get("default") == "app",
           "build defaults seconds=5 target=app", props)
    ok("tools/list: build, deploy, flaky, long_job")


def check_build(peer: Peer) -> None:
    handle = peer.start_task("build", {"seconds": 2, "target": "smoke"})
    seen: list[dict] = []
    done = peer.poll_until(handle["taskId"], {"completed"}, 20, seen)
    messages = [s.get("statusMessage") for s in seen if s.get("statusMessage")]
    expect(any(m.startswith("compiling") for m in messages), "build: statusMessage compiling i/3 seen", messages)
    result = done.get("result", {})
    expect(any(c.get("type") == "text" for c in result.get("content", [])), "build: text content", result)
    sc = result.get("structuredContent")
    expect(sc == {"ok": True, "target": "smoke", "seconds": 2}, "build: structuredContent", sc)
    ok(f"build: task -> completed with inline result (statusMessages {sorted(set(messages))})")
    note(f"build handle: ttlMs={handle.get('ttlMs')} pollIntervalMs={handle.get('pollIntervalMs')} "
         f"status={handle.get('status')} inner result resultType={result.get('resultType')!r}")

    time.sleep(0.05)
    again = peer.get(handle["taskId"])
    note(f"completed task polled twice: lastUpdatedAt {done['lastUpdatedAt']} then {again['lastUpdatedAt']} "
         f"(createdAt {done['createdAt']}; handle createdAt {handle['createdAt']})")

    status, _, msg = peer.call("tasks/result", {"taskId": handle["taskId"]}, handle["taskId"])
    expect(msg.get("error", {}).get("code") == -32601, "tasks/result: -32601", msg)
    note(f"tasks/result -> HTTP {status} {json.dumps(msg['error'])}")
    ok("tasks/result is gone (-32601)")


def deploy_until_input(peer: Peer) -> tuple[str, str, dict]:
    handle = peer.start_task("deploy", {"service": "api", "environment": "staging"})
    tid = handle["taskId"]
    waiting = peer.poll_until(tid, {"input_required"}, 20)
    reqs = waiting.get("inputRequests")
    expect(isinstance(reqs, dict) and len(reqs) == 1, "deploy: one inputRequests entry", waiting)
    key, req = next(iter(reqs.items()))
    expect(req.get("method") == "elicitation/create", "deploy: elicitation/create", req)
    schema = req.get("params", {}).get("requestedSchema", {})
    expect(schema.get("type") == "object", "deploy: requestedSchema is an object", schema)
    expect(schema.get("properties", {}).get("confirm", {}).get("type") == "boolean",
           "deploy: confirm is boolean", schema)
    expect(schema.get("properties", {}).get("reason", {}).get("type") == "string",
           "deploy: reason is string", schema)
    expect(schema.get("required") == ["confirm"], "deploy: only confirm required", schema)
    again = peer.get(tid)
    expect(again.get("inputRequests") == reqs, "deploy: same inputRequests on a repeat poll", again)
    return tid, key, req


def check_deploy(peer: Peer) -> None:
    tid, key, req = deploy_until_input(peer)
    ok(f"deploy: input_required with inputRequests (key {key!r}, mode {req['params'].get('mode')!r})")
    ack = peer.result("tasks/update", {
        "taskId": tid,
        "inputResponses": {key: {"action": "accept", "content": {"confirm": True, "reason": "smoke"}}},
    }, tid)
    expect(ack.get("resultType") == "complete", "tasks/update: ack resultType complete", ack)
    extra = set(ack) - {"resultType", "_meta"}
    expect(not extra, "tasks/update: empty ack", ack)
    done = peer.poll_until(tid, {"completed"}, 20)
    sc = done.get("result", {}).get("structuredContent")
    expect(sc == {"service": "api", "environment": "staging", "confirm": True, "reason": "smoke"},
           "deploy: structuredContent echoes the answer", sc)
    ok("deploy: tasks/update accepted -> completed echoing service, environment, confirm, reason")

    tid, key, _ = deploy_until_input(peer)
    peer.result("tasks/update", {"taskId": tid, "inputResponses": {key: {"action": "decline"}}}, tid)
    failed = peer.poll_until(tid, {"failed"}, 20)
    expect(isinstance(failed.get("error", {}).get("code"), int), "deploy declined: error with code", failed)
    ok(f"deploy: declined -> failed {json.dumps(failed['error'])}")


def check_flaky(peer: Peer) -> None:
    handle = peer.start_task("flaky", {"seconds": 1})
    failed = peer.poll_until(handle["taskId"], {"failed"}, 20)
    err = failed.get("error")
    expect(isinstance(err, dict) and isinstance(err.get("code"), int) and isinstance(err.get("message"), str),
           "flaky: JSON-RPC error {code, message}", failed)
    expect("result" not in failed, "flaky: no result on a failed task", failed)
    ok(f"flaky: failed with error {json.dumps(err)} statusMessage={failed.get('statusMessage')!r}")


def check_long_job(peer: Peer) -> None:
    handle = peer.start_task("long_job", {"seconds": 300})
    tid = handle["taskId"]
    peer.poll_until(tid, {"working"}, 10)
    ack = peer.result("tasks/cancel", {"taskId": tid}, tid)
    expect(ack.get("resultType") == "complete" and not (set(ack) - {"resultType", "_meta"}),
           "tasks/cancel: empty ack", ack)
    done = peer.poll_until(tid, {"cancelled"}, 10)
    ok(f"long_job: tasks/cancel acked -> cancelled (statusMessage={done.get('statusMessage')!r})")
    status, _, msg = peer.call("tasks/cancel", {"taskId": tid}, tid)
    note(f"second tasks/cancel -> HTTP {status} {json.dumps(msg.get('result', msg.get('error')))}")
    after = peer.get(tid)
    expect(after["status"] == "cancelled", "long_job: still cancelled after a second cancel", after)
    ok("long_job: second cancel answered, task stays cancelled")


def check_errors(peer: Peer) -> None:
    status, _, msg = peer.call("tasks/get", {"taskId": "no-such-task"}, "no-such-task")
    expect(msg.get("error", {}).get("code") == -32602, "unknown task: -32602", msg)
    note(f"tasks/get unknown task -> HTTP {status} {json.dumps(msg['error'])}")
    ok("tasks/get on an unknown task: -32602")

    meta = request_meta()
    meta["io.modelcontextprotocol/clientCapabilities"] = {"elicitation": {"form": {}}}
    status, _, msg = peer.call("tasks/get", {"taskId": "no-such-task"}, "no-such-task", meta=meta)
    expect(msg.get("error", {}).get("code") == -32021, "tasks/get without the extension: -32021", msg)
    note(f"tasks/get without the extension -> HTTP {status} {json.dumps(msg['error'])}")
    ok("tasks/get without the extension declared: -32021")

    status, _, msg = peer.call("tools/call", {"name": "long_job", "arguments": {}}, "long_job", meta=meta)
    expect(msg.get("error", {}).get("code") == -32021, "long_job without the extension: -32021", msg)
    note(f"tools/call long_job without the extension -> HTTP {status} {json.dumps(msg['error'])}")
    ok("long_job without the extension declared: -32021")

    status, _, msg = peer.call("tasks/get", {"taskId": "abc"}, "xyz")
    expect(msg.get("error", {}).get("code") == -32020, "Mcp-Name mismatch: -32020", msg)
    note(f"tasks/get with Mcp-Name != taskId -> HTTP {status} {json.dumps(msg['error'])}")
    ok("Mcp-Name mismatch: -32020")


def check_listen(peer: Peer) -> None:
    handle = peer.start_task("build", {"seconds": 2, "target": "listen"})
    tid = handle["taskId"]
    rid, body = peer.body("subscriptions/listen", {"notifications": {"taskIds": [tid]}}, None)
    events: queue.Queue[tuple[float, Any]] = queue.Queue()
    t0 = time.monotonic()
    conn = http.client.HTTPConnection(peer.host, peer.port, timeout=15)

    def reader() -> None:
        try:
            conn.request("POST", "/mcp", body=body, headers=peer.headers("subscriptions/listen", None))
            resp = conn.getresponse()
            buf = ""
            ctype = resp.getheader("content-type", "")
            events.put((time.monotonic() - t0, ("status", resp.status, ctype)))
            if not ctype.startswith("text/event-stream"):
                raw = resp.read().decode("utf-8")
                if raw.strip():
                    events.put((time.monotonic() - t0, ("msg", json.loads(raw))))
                events.put((time.monotonic() - t0, ("eof",)))
                return
            while True:
                line = resp.readline()
                if not line:
                    events.put((time.monotonic() - t0, ("eof",)))
                    return
                text = line.decode("utf-8")
                buf += text
                if text in ("\n", "\r\n"):
                    for m in parse_sse(buf):
                        events.put((time.monotonic() - t0, ("msg", m)))
                    buf = ""
        except Exception as exc:  # timeout or reset: record it
            events.put((time.monotonic() - t0, ("exc", repr(exc))))

    th = threading.Thread(target=reader, daemon=True)
    th.start()
    got: list[tuple[float, Any]] = []
    deadline = time.monotonic() + 12
    while time.monotonic() < deadline:
        try:
            at, ev = events.get(timeout=0.5)
        except queue.Empty:
            continue
        got.append((at, ev))
        if ev[0] in ("eof", "exc"):
            break
    conn.close()
    for at, ev in got:
        if ev[0] == "msg":
            m = ev[1]
            note(f"listen +{at:.2f}s {json.dumps(m)[:600]}")
        else:
            note(f"listen +{at:.2f}s {ev}")
    if not got or got[-1][1][0] not in ("eof", "exc"):
        note("listen: stream still open after 12 s; closed by the client")
    msgs = [ev[1] for _, ev in got if ev[0] == "msg"]
    status = next((ev for _, ev in got if ev[0] == "status"), None)
    expect(status is not None, "listen: an HTTP answer", got)
    acks = [m for m in msgs if m.get("method") == "notifications/subscriptions/acknowledged"]
    task_notes = [m for m in msgs if m.get("method") == "notifications/tasks"]
    errors = [m for m in msgs if "error" in m]
    note(f"listen summary: HTTP {status[1]} {status[2]}; {len(acks)} ack(s), {len(task_notes)} "
         f"notifications/tasks, {len(errors)} error(s), final response: "
         f"{json.dumps(next((m for m in msgs if m.get('id') == rid), None))}")
    expect(acks or errors, "listen: an ack or an error", msgs)
    ok("subscriptions/listen answered (behaviour recorded above)")
    peer.poll_until(tid, {"completed"}, 20)


def main() -> int:
    global TRACE
    args = [a for a in sys.argv[1:] if a != "--trace"]
    TRACE = len(args) != len(sys.argv[1:]) or os.environ.get("SMOKE_TRACE") == "1"
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    proc = None
    try:
        proc, host, port = start_server(args[0])
        ok(f"server started on http://{host}:{port}/mcp")
        peer = Peer(host, port)
        check_cors(peer)
        check_discover(peer)
        check_build(peer)
        check_deploy(peer)
        check_flaky(peer)
        check_long_job(peer)
        check_errors(peer)
        check_listen(peer)
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            raise Mismatch("server did not exit within 15 s of SIGTERM")
        ok(f"server exited on SIGTERM (code {code})")
        proc = None
    except Mismatch as exc:
        print(f"FAIL {exc}", flush=True)
        print(f"smoke: {PASSED} passed, 1 failed", flush=True)
        return 1
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
    print(f"smoke: {PASSED} passed, 0 failed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
