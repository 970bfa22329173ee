"""Interop peer: an MCP Tasks server built on FastMCP 4 + fastmcp-tasks.

Protocol 2026-07-28 with the `io.modelcontextprotocol/tasks` extension, served
as Streamable HTTP at /mcp on 127.0.0.1 only. The tools mirror the reference
server's demo tools (build, deploy, flaky, long_job).

Usage: server.py [--port N]   (0 or absent: a free port)

Once the server accepts connections it prints exactly one line on stdout,
`listening on http://127.0.0.1:PORT/mcp`, and flushes it. SIGTERM (or SIGINT)
stops it.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import re
import signal
import socket
import sys
from datetime import timedelta
from typing import Any

# The task engine's Docket backend: in-process memory, one process. Pin it
# here so a stray FASTMCP_DOCKET_URL or .env cannot point the peer elsewhere.
os.environ["FASTMCP_DOCKET_URL"] = "memory://"
# Keep FastMCP's own logging on stderr and quiet; stdout carries one line.
os.environ.setdefault("FASTMCP_LOG_LEVEL", "WARNING")

import mcp_types  # noqa: E402
import uvicorn  # noqa: E402
from fastmcp import Context, FastMCP  # noqa: E402
from fastmcp.utilities.tasks import TaskConfig  # noqa: E402
from fastmcp_tasks import TasksExtension  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402
from starlette.middleware.cors import CORSMiddleware  # noqa: E402

HOST = "127.0.0.1"
PATH = "/mcp"
POLL = timedelta(milliseconds=500)

# Task tools run as tasks whenever the request declares the tasks extension;
# build/deploy/flaky still answer inline for a client that does not declare it,
# long_job only runs as a task (-32021 without the extension).
OPTIONAL_TASK = TaskConfig(mode="optional", poll_interval=POLL)
REQUIRED_TASK = TaskConfig(mode="required", poll_interval=POLL)

mcp = FastMCP("mcp-tasks-interop-fastmcp4", version="0.1.0")
mcp.add_extension(TasksExtension(url="memory://"))


def _num(value: float) -> int | float:
    """Echo a whole number as an integer (1, not 1.0) in structured output."""
    return int(value) if float(value).is_integer() else value


async def _status(ctx: Context, step: int, total: int, message: str) -> None:
    # In a task worker this lands in the Docket execution's progress record,
    # which tasks/get reports as `statusMessage`.
    await ctx.report_progress(progress=step, total=total, message=message)


@mcp.tool(task=OPTIONAL_TASK)
async def build(ctx: Context, seconds: float = 5, target: str = "app") -> dict[str, Any]:
    """Pretend to build `target` for `seconds` seconds, updating the status message."""
    steps = 3
    await _status(ctx, 0, steps, f"queued {target}")
    per_step = max(float(seconds), 0.0) / steps
    for i in range(1, steps + 1):
        await _status(ctx, i - 1, steps, f"compiling {i}/{steps}")
        await asyncio.sleep(per_step)
    await _status(ctx, steps, steps, f"built {target}")
    return {"ok": True, "target": target, "seconds": _num(seconds)}


CONFIRM_KEY = "confirm"


def _confirm_request(service: str, environment: str) -> mcp_types.InputRequiredResult:
    schema = {
        "type": "object",
        "properties": {
            "confirm": {
                "type": "boolean",
                "title": "Confirm deploy",
                "description": f"Deploy {service} to {environment}?",
            },
            "reason": {
                "type": "string",
                "title": "Reason",
                "description": "Why (optional)",
            },
        },
        "required": ["confirm"],
    }
    request = mcp_types.ElicitRequest(
        params=mcp_types.ElicitRequestFormParams(
            message=f"Approve deploying {service} to {environment}?",
            requested_schema=schema,
        )
    )
    return mcp_types.InputRequiredResult(input_requests={CONFIRM_KEY: request})


@mcp.tool(task=OPTIONAL_TASK)
async def deploy(ctx: Context, service: str, environment: str) -> Any:
    """Deploy `service` to `environment` once a human confirms (form elicitation)."""
    responses = ctx.input_responses
    if not responses or CONFIRM_KEY not in responses:
        # First leg: ask. As a task this parks the task in input_required; the
        # answer from tasks/update re-runs this function with input_responses.
        await _status(ctx, 0, 1, "waiting for approval")
        return _confirm_request(service, environment)
    answer = responses[CONFIRM_KEY]
    action = getattr(answer, "action", None)
    content = getattr(answer, "content", None) or {}
    if action != "accept":
        raise MCPError(code=-32603, message=f"deploy not approved (action={action})")
    confirm = content.get("confirm")
    if confirm is not True:
        raise MCPError(code=-32603, message="deploy not confirmed (confirm is not true)")
    reason = content.get("reason")
    await _status(ctx, 1, 1, f"deploying {service} to {environment}")
    await asyncio.sleep(0.2)
    return {
        "service": service,
        "environment": environment,
        "confirm": True,
        "reason": reason,
    }


@mcp.tool(task=OPTIONAL_TASK)
async def flaky(ctx: Context, seconds: float = 1) -> dict[str, Any]:
    """Fail after `seconds` seconds with JSON-RPC error -32603 (task ends `failed`)."""
    await _status(ctx, 0, 1, "about to fail")
    await asyncio.sleep(max(float(seconds), 0.0))
    # An MCPError is a protocol-level fault: fastmcp-tasks lets it escape the
    # worker, so the task ends `failed` with this error inlined by tasks/get.
    # (Any other exception becomes a `completed` task with isError:true.)
    raise MCPError(code=-32603, message=f"flaky failed after {_num(seconds)}s")


@mcp.tool(task=REQUIRED_TASK)
async def long_job(ctx: Context, seconds: float = 300) -> dict[str, Any]:
    """Run for `seconds` (default 300) unless cancelled with tasks/cancel."""
    total = max(float(seconds), 0.0)
    steps = max(int(total), 1)
    for i in range(steps):
        await _status(ctx, i, steps, f"working {i}/{steps}")
        await asyncio.sleep(total / steps)
    return {"ok": True, "seconds": _num(seconds)}


# --- HTTP ------------------------------------------------------------------

LOOPBACK_ORIGIN = r"^http://(127\.0\.0\.1|localhost)(:[0-9]{1,5})?$"
ALLOW_HEADERS = [
    "content-type",
    "mcp-session-id",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "authorization",
    "last-event-id",
]
EXPOSE_HEADERS = [
    "Mcp-Session-Id",
    "MCP-Protocol-Version",
    "Retry-After",
    "Content-Type",
    "WWW-Authenticate",
]
_PARAM_HEADER = re.compile(r"^mcp-param-[A-Za-z0-9!#$%&'*+.^_`|~-]+$", re.IGNORECASE)


class LoopbackCors:
    """CORS for browser pages on loopback origins.

    Starlette's CORSMiddleware does the work (origin echo, preflight, exposed
    headers). Its allow-list is fixed, so preflights that ask for headers
    beyond it are checked here first: `mcp-param-*` names are fine and get
    added to the list for this request; anything else is refused by Starlette.
    """

    def __init__(self, app: Any) -> None:
        self.inner = CORSMiddleware(
            app,
            allow_origin_regex=LOOPBACK_ORIGIN,
            allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
            allow_headers=ALLOW_HEADERS,
            expose_headers=EXPOSE_HEADERS,
            allow_credentials=False,
            max_age=600,
        )
        self.base_allow = set(self.inner.allow_headers)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "OPTIONS":
            requested = ""
            for name, value in scope.get("headers", []):
                if name == b"access-control-request-headers":
                    requested = value.decode("latin-1")
            extra = {
                h.strip().lower()
                for h in requested.split(",")
                if h.strip() and _PARAM_HEADER.match(h.strip())
            }
            if extra - self.base_allow:
                # Per-request copy; the shared middleware keeps its base list.
                mw = CORSMiddleware.__new__(CORSMiddleware)
                mw.__dict__.update(self.inner.__dict__)
                mw.allow_headers = sorted(self.base_allow | extra)
                mw.preflight_headers = dict(self.inner.preflight_headers)
                mw.preflight_headers["Access-Control-Allow-Headers"] = ", ".join(
                    mw.allow_headers
                )
                await mw(scope, receive, send)
                return
        await self.inner(scope, receive, send)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="0 or absent: a free port")
    args = parser.parse_args()

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, args.port))
    sock.listen(128)
    sock.set_inheritable(True)
    port = sock.getsockname()[1]

    # FastMCP leaves its Host/Origin guard off by default; "auto" turns it on
    # for a loopback-bound server: Host must be a loopback name and a browser
    # Origin must be loopback too, else 421 / 403 before any MCP handling.
    inner = mcp.http_app(path=PATH, transport="http", host_origin_protection="auto")
    app = LoopbackCors(inner)
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=2,
    )
    server = uvicorn.Server(config)

    async def announce() -> None:
        while not server.started:
            if server.should_exit:
                return
            await asyncio.sleep(0.02)
        sys.stdout.write(f"listening on http://{HOST}:{port}{PATH}\n")
        sys.stdout.flush()

    async def run() -> None:
        watcher = asyncio.create_task(announce())
        try:
            await server.serve(sockets=[sock])
        finally:
            watcher.cancel()

    # uvicorn installs its own SIGTERM/SIGINT handlers inside serve() and
    # shuts down gracefully (open streams get timeout_graceful_shutdown); once
    # done it re-raises the signal against the handlers found before serve(),
    # so these ones must only ask for a stop (and cover the start-up window).
    def stop(_signum: int, _frame: Any) -> None:
        server.should_exit = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    asyncio.run(run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
