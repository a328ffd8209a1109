"""Attacks a hostile embedding provider can make (issue 14): echo the key back in every
encoding and on every channel, and addresses that reach cloud metadata services.

The provider is a real HTTP server on 127.0.0.1 that answers every request with HTTP 401 and
puts the key where the case says: in the reason phrase, in the body plainly, JSON-escaped,
URL-encoded, or straddling the point where a long error body is cut. The key is random-looking
(no ``sk-`` prefix) so only knowing the value can redact it.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.conftest import run_znt
from tests.mcp_lines import Server, _tool

KEY = "Zq8vT3mW9pL2xR7kN4bCq1Hd"


def _json_escaped(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in text)


# name -> (reason phrase, body bytes)
ENCODINGS: dict[str, tuple[str, bytes]] = {
    "plain": ("Unauthorized", json.dumps({"error": f"bad key {KEY}"}).encode()),
    "reason_phrase": (f"Unauthorized key {KEY}", b"{}"),
    "json_escapes": (
        "Unauthorized",
        (
            '{"error": {"message": "bad key '
            + _json_escaped(KEY)
            + '", "pad": "'
            + "x" * 5000
            + '"}}'
        ).encode(),
    ),
    "json_escapes_in_cut_body": (
        "Unauthorized",
        ('{"message": "bad key ' + _json_escaped(KEY) + '"' + " " * 5000).encode(),
    ),
    "url_encoded": (
        "Unauthorized",
        json.dumps({"error": "bad key " + urllib.parse.quote(KEY, safe="")}).encode(),
    ),
    "url_encoded_all": (
        "Unauthorized",
        json.dumps({"error": "k=" + "".join(f"%{b:02X}" for b in KEY.encode())}).encode(),
    ),
    # The excerpt keeps 200 characters: the key starts just before the cut.
    "split_at_cut": ("Unauthorized", json.dumps({"error": "y" * 190 + KEY}).encode()),
    # The body read keeps 4096 bytes: the key starts just before that cut.
    "split_at_read": ("Unauthorized", (" " * 4085 + KEY + " tail").encode()),
}


class HostileProvider:
    def __init__(self, reason: str, body: bytes) -> None:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                outer.auth.append(self.headers.get("Authorization"))
                self.send_response(401, reason)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = _answer
            do_POST = _answer

        self.auth: list[str | None] = []
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    monkeypatch.delenv("ZNT_CONFIG", raising=False)
    yield {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "ZNT_TEST_KEY": KEY}


def _run(
    args: list[str], env: dict[str, str], cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return run_znt(*args, env=env, cwd=cwd)


def _leaks(text: str) -> list[str]:
    """The forms of the key found in ``text``: whole, any 8-character piece of it, escaped
    or URL-encoded."""
    found = []
    forms = {
        "plain": KEY,
        "json": _json_escaped(KEY[:8]),
        "url": "".join(f"%{b:02X}" for b in KEY[:8].encode()),
    }
    for name, form in forms.items():
        if form.lower() in text.lower():
            found.append(name)
    for i in range(len(KEY) - 7):
        if KEY[i : i + 8] in text:
            found.append(f"piece@{i}")
            break
    return found


def _mcp(cwd: Path, env: dict[str, str], calls: list[tuple[str, dict[str, object]]]) -> str:
    full = {k: v for k, v in os.environ.items() if k != "ZNT_CONFIG"}
    full.update(env)
    server = Server(cwd, full, drop=("ZNT_CONFIG",))
    try:
        out = []
        for i, (name, args) in enumerate(calls, 1):
            server.send(_tool(i, name, args))
            out.append(json.dumps(server.read(i, timeout=120)))
    finally:
        _code, err = server.close()
    return "\n".join(out) + err


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_the_key_echoed_by_a_provider_reaches_no_channel(
    tmp_path: Path, home: dict[str, str], encoding: str
) -> None:
    """Must-show 4: every encoding, every channel (stdout, stderr, logs, .znt/ files, MCP
    results and errors)."""
    reason, body = ENCODINGS[encoding]
    provider = HostileProvider(reason, body)
    try:
        project = tmp_path / "proj"
        project.mkdir()
        (project / "a.py").write_text("def f():\n    return 1\n")
        outs = [
            _run(
                [
                    "setup",
                    "--mode",
                    "openai",
                    "--model",
                    "m",
                    "--url",
                    provider.url,
                    "--token-env",
                    "ZNT_TEST_KEY",
                ],
                home,
            )
        ]
        assert outs[0].returncode == 0, outs[0].stderr
        outs.append(_run(["setup", "status", "--check-provider"], home))
        outs.append(_run(["setup", "status", "--check-provider", "--format", "json"], home))
        outs.append(_run(["scan", str(project)], home))
        outs.append(_run(["scan", "--format", "json", str(project)], home))
        outs.append(_run(["logs", "-C", str(project)], home))
        outs.append(_run(["logs", "-C", str(project), "--format", "json"], home))
        outs.append(_run(["status", str(project), "--format", "json"], home))
        outs.append(_run(["search", "-C", str(project), "--mode", "vector", "f"], home))
        mcp = _mcp(
            project,
            home,
            [
                ("setup_status", {"check_provider": True}),
                ("logs", {}),
                ("search", {"query": "f", "mode": "vector"}),
                ("status", {}),
            ],
        )
        assert provider.auth and all(a == f"Bearer {KEY}" for a in provider.auth)
        # the provider's answer did reach the user, redacted
        assert "401" in outs[1].stdout + outs[1].stderr
        for proc in outs:
            assert not _leaks(proc.stdout + proc.stderr), (
                proc.args,
                _leaks(proc.stdout + proc.stderr),
            )
        assert not _leaks(mcp), _leaks(mcp)
        for path in [*project.rglob("*"), *(tmp_path / "xdg").rglob("*")]:
            if path.is_file():
                text = path.read_bytes().decode("utf-8", "replace")
                assert not _leaks(text), (path, _leaks(text))
    finally:
        provider.close()


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest",
        "http://[fd00:ec2::254]/v1",
        "http://metadata.google.internal/computeMetadata/v1",
        "http://[fe80::1]/v1",
        "http://2852039166/v1",  # 169.254.169.254 written as one number
        "http://[::ffff:169.254.169.254]/v1",
    ],
)
def test_metadata_and_link_local_urls_are_refused(home: dict[str, str], url: str) -> None:
    r = _run(["setup", "--mode", "openai", "--model", "m", "--url", url], home)
    assert r.returncode == 2, (url, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    r = _run(
        ["setup", "--mode", "openai", "--model", "m", "--url", url, "--allow-private-url"], home
    )
    assert r.returncode == 2, (url, r.stdout, r.stderr)


def test_a_config_file_naming_a_metadata_url_is_refused(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("embedding:\n  provider: openai\n  model: m\n  url: http://169.254.169.254/v1\n")
    r = _run(["setup", "status"], {"ZNT_CONFIG": str(cfg)})
    assert r.returncode != 0 and "169.254.169.254" in r.stderr
    assert "link-local" in r.stderr or "metadata" in r.stderr


@pytest.mark.parametrize(
    "url", ["http://10.1.2.3:11434", "http://192.168.1.5/v1", "http://[fd12::1]/v1"]
)
def test_private_ranges_need_an_explicit_opt_in(home: dict[str, str], url: str) -> None:
    r = _run(["setup", "--mode", "ollama", "--model", "m", "--url", url], home)
    assert r.returncode == 2 and "--allow-private-url" in r.stderr, r.stderr
    r = _run(
        ["setup", "--mode", "ollama", "--model", "m", "--url", url, "--allow-private-url"], home
    )
    assert r.returncode == 0, r.stderr
    r = _run(["setup", "status", "--format", "json"], home)
    assert json.loads(r.stdout)["config"]["provider"]["url"] == url


def test_loopback_stays_allowed(home: dict[str, str]) -> None:
    for url in ("http://localhost:11434", "http://127.0.0.1:11434", "http://[::1]:11434"):
        r = _run(["setup", "--mode", "ollama", "--model", "m", "--url", url], home)
        assert r.returncode == 0, r.stderr
