"""``znt mcp install``: the client's own config file, with znt added to it.

Each client has its own shape (the seed's generic ``mcpServers``; VS Code's ``servers`` with
``"type": "stdio"``). An existing file is merged, never replaced: other servers and keys are
kept, and a file that is not valid JSON is left alone with an error. Writes are atomic.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from znt.errors import UsageError

CLIENTS = {
    # client: (file relative to the project, top-level key, extra fields of an entry)
    "claude-code": (".mcp.json", "mcpServers", {"type": "stdio"}),
    "cursor": (".cursor/mcp.json", "mcpServers", {}),
    "vscode": (".vscode/mcp.json", "servers", {"type": "stdio"}),
}


def command() -> tuple[str, list[str]]:
    """How to start this znt: the ``znt`` script of this environment, else the module."""
    script = Path(sys.executable).with_name("znt")
    if script.is_file() and os.access(script, os.X_OK):
        return str(script), ["mcp"]
    return sys.executable, ["-m", "znt", "mcp"]


def entry(client: str, root: Path, profile: str) -> dict[str, Any]:
    exe, args = command()
    if profile != "default":
        args = [*args, "--profile", profile]
    return {
        **CLIENTS[client][2],
        "command": exe,
        "args": args,
        "env": {"ZNT_PROJECT_ROOT": str(root)},
    }


def plan(client: str, root: Path, profile: str = "default", name: str = "znt") -> dict[str, Any]:
    """The config file and its merged content (nothing written)."""
    if client not in CLIENTS:
        raise UsageError(f"unknown client {client!r}; choose one of {', '.join(CLIENTS)}")
    rel, key, _ = CLIENTS[client]
    path = root / rel
    existing: dict[str, Any] = {}
    if path.exists():
        try:
            existing = json.loads(path.read_text("utf-8") or "{}")
        except ValueError as exc:
            raise UsageError(
                f"{path} is not valid JSON ({exc}); fix it first, znt will not overwrite it"
            ) from None
        if not isinstance(existing, dict) or not isinstance(existing.get(key, {}), dict):
            raise UsageError(f"{path}: unexpected content; expected an object with {key!r}")
    servers = dict(existing.get(key) or {})
    new = entry(client, root, profile)
    action = (
        "unchanged" if servers.get(name) == new else ("updated" if name in servers else "added")
    )
    servers[name] = new
    merged = {**existing, key: servers}
    return {"client": client, "path": str(path), "action": action, "config": merged}


def write(result: dict[str, Any]) -> None:
    path = Path(result["path"])
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(result["config"], ensure_ascii=False, indent=2) + "\n"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
