"""The MCP server: the official Python SDK's low-level ``Server`` over stdio.

Each ``tools/call`` runs ``Toolbox.call`` in a worker thread under a deadline
(``ZNT_MCP_REQUEST_TIMEOUT_MS``, default 30000) and the client's cancellation; a call that
times out or is cancelled answers at once, and its thread finishes in the background (a
DuckDB query cannot be interrupted from outside) and is discarded. Every outcome, including
an internal error, is a tool result: the server never dies on a tool error.

stdout carries the protocol only: the real stdout descriptor is handed to the transport and
fd 1 is pointed at stderr before anything else runs, so a stray ``print`` (ours, a library's
or a C extension's) lands on stderr.
"""

from __future__ import annotations

import logging
import os
import sys
import time
import traceback
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.lowlevel import Server

from znt import __version__, api
from znt.errors import ZntError
from znt.mcp.schemas import INSTRUCTIONS
from znt.mcp.tools import Reply, Toolbox, error_reply

log = logging.getLogger("znt.mcp")
DEFAULT_TIMEOUT_MS = 30_000


def request_timeout() -> float:
    raw = os.environ.get("ZNT_MCP_REQUEST_TIMEOUT_MS", "")
    try:
        ms = int(raw) if raw else DEFAULT_TIMEOUT_MS
    except ValueError:
        ms = DEFAULT_TIMEOUT_MS
    return max(ms, 1) / 1000


def tool_list(box: Toolbox) -> list[types.Tool]:
    return [
        types.Tool(
            name=t.name,
            description=t.description,
            input_schema=t.input_schema(),
            annotations=types.ToolAnnotations(
                read_only_hint=True if t.read_only else None,
                destructive_hint=None if t.read_only else False,
                open_world_hint=False,
            ),
        )
        for t in box.definitions()
    ]


def to_result(reply: Reply) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(text=reply.text)],
        structured_content=reply.structured,
        is_error=reply.is_error,
    )


def build(box: Toolbox) -> Server[Any]:
    """The SDK server for ``box``'s tools (used by stdio and by in-process clients)."""
    tools = tool_list(box)

    async def list_tools(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        name = params.name
        args = params.arguments
        started = time.perf_counter()
        reply: Reply | None = None
        try:
            with anyio.fail_after(request_timeout()):
                reply = await anyio.to_thread.run_sync(box.call, name, args, abandon_on_cancel=True)
        except TimeoutError:
            reply = error_reply(
                _Timeout(
                    f"{name} did not finish within {request_timeout():g}s "
                    "(ZNT_MCP_REQUEST_TIMEOUT_MS); the index may be locked by a scan",
                    timeout_ms=int(request_timeout() * 1000),
                )
            )
        except anyio.get_cancelled_exc_class():
            box.record(name, None, (time.perf_counter() - started) * 1000, "cancelled")
            raise
        except Exception as exc:  # never let a tool error reach the transport
            log.error("tool %s failed:\n%s", name, traceback.format_exc())
            reply = error_reply(ZntError(f"internal error: {type(exc).__name__}: {exc}"))
        ms = (time.perf_counter() - started) * 1000
        box.record(name, reply, ms)  # one appended line: cheaper than another thread hop
        return to_result(reply)

    return Server(
        "znt",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


class _Timeout(ZntError):
    code = "timeout"


def _protocol_streams() -> tuple[Any, Any]:
    """stdin/stdout for the protocol on private descriptors; fd 0 -> /dev/null for children,
    fd 1 -> stderr for stray output."""
    import io

    wire_in = os.dup(0)
    wire_out = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    stdin = io.TextIOWrapper(io.FileIO(wire_in, "rb"), encoding="utf-8", errors="replace")
    stdout = io.TextIOWrapper(io.FileIO(wire_out, "wb"), encoding="utf-8", write_through=True)
    return anyio.wrap_file(stdin), anyio.wrap_file(stdout)


def serve(profile: str = "default") -> None:
    """Run the stdio server until the client closes stdin."""
    from mcp.server.stdio import stdio_server

    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="znt mcp: %(levelname)s %(message)s"
    )
    box = Toolbox(profile)
    server = build(box)
    # A long-lived process: answer from private copies of the index (znt/index/readcopy.py).
    api.use_read_copies(os.environ.get("ZNT_READ_COPY", "1") != "0")
    stdin, stdout = _protocol_streams()
    log.info("serving %s (profile %s) for %s", ", ".join(box.names), profile, box.base)

    async def main() -> None:
        async with stdio_server(stdin, stdout) as (read, write):
            await server.run(read, write, server.create_initialization_options())

    try:
        anyio.run(main)
    finally:
        box.close()  # this server's watcher ends with it
