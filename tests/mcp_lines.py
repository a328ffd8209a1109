"""``znt mcp`` spoken to line by line over its real stdin/stdout, for tests that must control
exactly when stdin closes (tests/mcp_client.py drives the SDK client for the rest)."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _tool(i: int, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": i,
        "method": "tools/call",
        "params": {"name": name, "arguments": args},
    }


class Server:
    """``znt mcp`` as a child process spoken to line by line."""

    def __init__(
        self, cwd: Path, env: dict[str, str] | None = None, drop: tuple[str, ...] = ()
    ) -> None:
        full = {k: v for k, v in os.environ.items() if k not in ("ZNT_PROJECT_ROOT", *drop)}
        full.update(env or {})
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "znt", "mcp", "--profile", "full"],
            cwd=cwd,
            env=full,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.send(INIT)
        assert self.read(0)["result"]
        self.send(INITIALIZED)

    def send(self, doc: dict[str, Any] | str) -> None:
        assert self.proc.stdin is not None
        raw = doc if isinstance(doc, str) else json.dumps(doc)
        self.proc.stdin.write(raw.encode() + b"\n")
        self.proc.stdin.flush()

    def read(self, msg_id: int, timeout: float = 60) -> dict[str, Any]:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.proc.stdout], [], [], deadline - time.monotonic())
            if not ready:
                break
            line = self.proc.stdout.readline()
            if not line:
                break
            doc = json.loads(line)
            if doc.get("id") == msg_id:
                return doc
        raise AssertionError(f"no answer to request {msg_id} within {timeout}s")

    def close(self, timeout: float = 30) -> tuple[int, str]:
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise
        return code, self.proc.stderr.read().decode("utf-8", "replace")


def ask(
    cwd: Path, calls: list[tuple[str, dict[str, Any]]], env: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """Each call's JSON-RPC answer, from one session that closes after the last answer."""
    server = Server(cwd, env)
    try:
        answers = []
        for i, (name, args) in enumerate(calls, 1):
            server.send(_tool(i, name, args))
            answers.append(server.read(i, timeout=120))
    finally:
        server.close()
    return answers
