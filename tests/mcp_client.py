"""A real MCP client for the tests: ``znt mcp`` started as a subprocess and driven through
the SDK's stdio client (``mcp.client.stdio.stdio_client`` + ``ClientSession``)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


def server_env(extra: dict[str, str] | None = None, drop: tuple[str, ...] = ()) -> dict[str, str]:
    """The test process's environment (so ZNT_CONFIG points to the bm25 test config),
    without ``drop`` and ZNT_PROJECT_ROOT, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in ("ZNT_PROJECT_ROOT", *drop)}
    env.update(extra or {})
    return env


def initialize_message(request_id: int) -> dict[str, Any]:
    """The ``initialize`` request of a raw JSON-RPC client (for tests that read every byte)."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        },
    }


@asynccontextmanager
async def connect(
    cwd: Path,
    env: dict[str, str] | None = None,
    args: tuple[str, ...] = (),
    drop: tuple[str, ...] = (),
) -> AsyncIterator[ClientSession]:
    """An initialized session with ``znt mcp`` running in ``cwd``."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "znt", "mcp", *args],
        cwd=str(cwd),
        env=server_env(env, drop),
    )
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


class Answer:
    """One tool result, for assertions."""

    def __init__(self, result: Any) -> None:
        self.is_error: bool = result.is_error
        assert len(result.content) == 1 and result.content[0].type == "text"
        self.text: str = result.content[0].text
        self.data: dict[str, Any] = result.structured_content or {}

    @property
    def error(self) -> dict[str, Any]:
        assert self.is_error, self.text
        return self.data["error"]

    def tokens(self) -> int:
        raw = self.text + json.dumps(self.data, ensure_ascii=False, separators=(",", ":"))
        return -(-len(raw) // 4)


async def call(session: ClientSession, name: str, args: dict[str, Any] | None = None) -> Answer:
    return Answer(await session.call_tool(name, args or {}))


async def ok(session: ClientSession, name: str, args: dict[str, Any] | None = None) -> Answer:
    answer = await call(session, name, args)
    assert not answer.is_error, answer.text
    return answer
