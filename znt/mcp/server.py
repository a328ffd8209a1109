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

import contextlib
import logging
import os
import re
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
                destructive_hint=None if t.read_only else t.destructive,
                open_world_hint=False,
            ),
        )
        for t in box.definitions()
    ]


def to_result(reply: Reply) -> types.CallToolResult:
    """The wire form of a reply: any key this process read is scrubbed from the text and the
    structured content (znt/redact.py), and lone surrogates (which cannot be encoded as
    UTF-8, so the answer would never be sent) become U+FFFD."""
    from znt.redact import redact_data, scrub

    return types.CallToolResult(
        content=[types.TextContent(text=_wire_text(scrub(reply.text)))],
        structured_content=_wire_data(redact_data(reply.structured, messages=False)),
        is_error=reply.is_error,
    )


def _wire_text(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


def _wire_data(value: Any) -> Any:
    if isinstance(value, str):
        return _wire_text(value)
    if isinstance(value, dict):
        return {_wire_text(str(k)): _wire_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_wire_data(v) for v in value]
    return value


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
    # errors="replace" on the way out too: a lone surrogate that slipped into an answer must
    # not make the answer unwritable (the client would wait for it forever).
    stdout = io.TextIOWrapper(
        io.FileIO(wire_out, "wb"), encoding="utf-8", errors="replace", write_through=True
    )
    lines: Any = _SurrogateSafeLines(stdin)  # the file methods the transport uses
    return anyio.wrap_file(lines), anyio.wrap_file(stdout)


# A \uD800-\uDFFF escape (not itself escaped by a preceding backslash): JSON allows it, but a
# lone one decodes to a string that is not UTF-8, which the SDK drops without an answer.
_SURROGATE_ESCAPE = re.compile(
    r"(?<!\\)((?:\\\\)*)\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?<!\\)((?:\\\\)*)\\u([dD][89a-fA-F][0-9a-fA-F]{2})"
)


def _fix_surrogates(line: str) -> str:
    """``line`` with every lone surrogate escape replaced by ``\\ufffd``; pairs are kept."""
    if "\\u" not in line:
        return line

    def repl(m: re.Match[str]) -> str:
        if m.group(2):  # a high surrogate followed by a low one: a real character
            return m.group(0)
        return f"{m.group(4)}\\ufffd"

    return _SURROGATE_ESCAPE.sub(repl, line)


class _SurrogateSafeLines:
    """The protocol's stdin, line by line, with lone surrogate escapes made harmless."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def readline(self, *args: Any) -> str:
        line = self._inner.readline(*args)
        if not line:
            _on_stdin_closed()
        return _fix_surrogates(line)

    def read(self, *args: Any) -> str:
        return _fix_surrogates(self._inner.read(*args))

    def __iter__(self) -> Any:
        return self

    def __next__(self) -> str:
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


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

    _CLEANUPS.append(box.close)  # this server's watcher ends with it
    try:
        anyio.run(main)
    finally:
        _exit_now(0)


# After stdin closes, the answers already made get this long to be written before the process
# exits without them.
EOF_GRACE_S = 1.0


# What must still happen before the process ends (stopping the watcher child).
_CLEANUPS: list[Any] = []


def _exit_now(code: int) -> None:
    """End the process without the interpreter's teardown, after ``_CLEANUPS``.

    A call abandoned by its client (timed out, cancelled, or in flight when stdin closed)
    keeps running in a worker thread, inside DuckDB: waiting for it kept a closed server
    alive for its whole duration, holding the index, and tearing the interpreter down under
    it aborted the process ("terminate called ..." from a C++ thread unwound at exit). Every
    file znt writes is complete before its call answers, the locks are the kernel's, and the
    read copies are unlinked as soon as they are attached; only the cleanups run."""
    while _CLEANUPS:
        with contextlib.suppress(Exception):
            _CLEANUPS.pop()()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


def _on_stdin_closed() -> None:
    """The client went away: give the loop ``EOF_GRACE_S`` to end by itself, then exit."""
    import threading

    def later() -> None:
        time.sleep(EOF_GRACE_S)
        _exit_now(0)

    threading.Thread(target=later, name="znt-mcp-eof", daemon=True).start()
