"""Safety of ``znt mcp`` (seeds 001 and 004): every path argument stays in the project and is
refused before anything is read; no sequence of MCP calls can point znt at a new server,
switch to a provider that sends source text away, or hand it a key."""

from __future__ import annotations

import os
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import ClassVar

import anyio
import pytest

from tests.mcp_client import call, connect, ok
from tests.test_mcp import make_project

SECRET_TEXT = "TOP-SECRET-OUTSIDE-THE-PROJECT"


@pytest.fixture()
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """A scanned project and, next to it, an outside folder the agent must never reach."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text(f"def leak():\n    return '{SECRET_TEXT}'\n")
    project = make_project(tmp_path / "proj")
    # Links made after the scan: each leads out of the project.
    (project / "pkg" / "link.py").symlink_to(outside / "secret.py")
    (project / "outlink").symlink_to(outside, target_is_directory=True)
    (project / "rootlink.py").symlink_to(outside / "secret.py")
    # A FIFO outside: anything that opened it for reading would block until the deadline.
    os.mkfifo(outside / "pipe.py")
    (project / "pkg" / "pipe.py").symlink_to(outside / "pipe.py")
    return project, outside


def test_paths_outside_the_project_are_refused_before_anything_is_read(
    layout: tuple[Path, Path],
) -> None:
    project, outside = layout

    async def main() -> None:
        async with connect(project, env={"ZNT_MCP_REQUEST_TIMEOUT_MS": "20000"}) as s:
            cases = [
                ("outline", {"file": "../../etc/passwd"}),
                ("outline", {"file": "../outside/secret.py"}),
                ("outline", {"file": "/etc/passwd"}),
                ("outline", {"file": str(outside / "secret.py")}),
                ("outline", {"file": "~/.bashrc"}),
                ("outline", {"file": "pkg/link.py"}),
                ("outline", {"file": "outlink/secret.py"}),
                ("outline", {"file": "pkg/pipe.py"}),
                ("outline", {"path": "pkg/../../outside/secret.py"}),
                ("graph", {"from": "../outside/secret.py"}),
                ("graph", {"from": "start", "to": str(outside / "secret.py") + "::leak"}),
                ("graph", {"from": "pkg/link.py"}),
                ("graph", {"from": "rootlink.py"}),
                ("similar", {"target": "rootlink.py::leak"}),
                ("search", {"query": "leak", "path": "../outside/*"}),
                ("search", {"query": "leak", "file_pattern": "/tmp/**"}),
                ("similar", {"target": "outlink/secret.py::leak"}),
                ("status", {"project_path": str(outside)}),
                ("status", {"project_path": "../outside"}),
                ("scan", {"project_path": "/"}),
                ("scan", {"project_path": "outlink"}),
            ]
            for name, args in cases:
                bad = await call(s, name, args)
                assert bad.error["code"] == "path_outside_project", (name, args, bad.text)
                assert "refused" in bad.error["message"]
                assert SECRET_TEXT not in bad.text
            # inside paths still work: relative, absolute, and a subfolder as project_path
            assert (await ok(s, "outline", {"file": "pkg/a.py"})).data["file"] == "pkg/a.py"
            absolute = await ok(s, "outline", {"file": str(project / "pkg" / "a.py")})
            assert absolute.data["file"] == "pkg/a.py"
            sub = await ok(s, "status", {"project_path": "pkg"})
            assert sub.data["coverage"] == "ancestor"

    anyio.run(main)
    assert not (project / ".znt" / "mcp-scan.log").exists()


class _Recorder(BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        type(self).hits.append(self.path)
        self.send_response(500)
        self.end_headers()

    do_GET = do_POST

    def log_message(self, *args: object) -> None:
        pass


def test_no_mcp_call_can_redirect_source_text_or_take_a_key(tmp_path: Path) -> None:
    """With a writable managed config (no ZNT_CONFIG): remote modes are only recommended, a
    URL or key argument is refused, the config file is unchanged and nothing reaches the
    HTTP server an agent names."""
    project = make_project(tmp_path / "proj")
    xdg = tmp_path / "xdg"
    managed = xdg / "znt" / "config.yaml"
    managed.parent.mkdir(parents=True)
    managed.write_text("embedding:\n  provider: bm25\n")
    before = managed.read_bytes()
    http = HTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{http.server_address[1]}/v1"
    key = "sk-test-0123456789abcdef0123456789abcdef"
    env = {"XDG_CONFIG_HOME": str(xdg)}

    async def main() -> None:
        async with connect(project, env=env, drop=("ZNT_CONFIG",)) as s:
            for mode in ("openai", "ollama"):
                rec = await ok(s, "setup", {"mode": mode, "model": "m"})
                assert rec.data["action"] == "user_step_required"
                assert rec.data["written"] is None
                assert rec.data["command"].startswith(f"znt setup --mode {mode}")
            refused = [
                ("setup", {"mode": "openai", "url": url}),
                ("setup", {"mode": "openai", "token": key}),
                ("setup", {"mode": "openai", "api_key": key}),
                ("setup", {"mode": "ollama", "endpoint": url}),
                ("setup", {"mode": "openai", "token_env": "OPENAI_API_KEY"}),
                ("setup", {"mode": "openai", "token_stdin": True}),
                ("setup_status", {"check_provider": True, "url": url}),
                ("search", {"query": "start", "token": key}),
                ("scan", {"url": url}),
                ("similar", {"query": "start", "url": url}),
            ]
            for name, args in refused:
                bad = await call(s, name, args)
                assert bad.error["code"] == "invalid_params", (name, args, bad.text)
                assert key not in bad.text and key not in str(bad.data)
            # what an agent can do: read the state, check the (bm25) provider, search
            st = await ok(s, "setup_status", {"check_provider": True})
            assert key not in st.text
            await ok(s, "search", {"query": "start"})
            await ok(s, "similar", {"query": "start the chain"})

    try:
        anyio.run(main)
    finally:
        http.shutdown()
    assert managed.read_bytes() == before
    assert _Recorder.hits == []


def test_setup_writes_only_on_device_modes(tmp_path: Path) -> None:
    """bm25 (and local) keep source text on the machine, so MCP may write them; an external
    ZNT_CONFIG is never written."""
    project = make_project(tmp_path / "proj")
    xdg = tmp_path / "xdg"
    env = {"XDG_CONFIG_HOME": str(xdg)}

    async def main() -> None:
        async with connect(project, env=env, drop=("ZNT_CONFIG",)) as s:
            done = await ok(s, "setup", {"mode": "bm25"})
            assert done.data["via"] == "mcp" and done.data["written"]

    anyio.run(main)
    assert "bm25" in (xdg / "znt" / "config.yaml").read_text()

    async def external() -> None:
        async with connect(project) as s:  # tests run with ZNT_CONFIG set
            bad = await call(s, "setup", {"mode": "bm25"})
            assert bad.error["code"] == "invalid_params"
            assert "never writes it" in bad.error["message"]

    anyio.run(external)
