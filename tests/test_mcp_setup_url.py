"""``setup`` for a remote provider through MCP returns a one-time ``setup_url``: the test, as
the user, opens the form with a plain HTTP client on 127.0.0.1 and submits a key; the key
lands in the keyring backend (a test backend of our own), the managed config holds only
``token_ref``, the URL is dead after one use or after its time, and no MCP message (either
direction), no stderr line and no file under the test's folder holds the key. The server is
a raw ``znt mcp`` subprocess so that every byte on the wire can be searched."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest
import yaml

from tests.embed_server import EmbedServer
from tests.mcp_client import initialize_message
from tests.test_secrets import KEYRING_MODULE

SECRET = "sk-test-FORMKEY-7e3d9a1c55b0f00d"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    kr = tmp_path / "keyring"
    kr.mkdir()
    (kr / "znt_test_keyring.py").write_text(KEYRING_MODULE)
    base = {k: v for k, v in os.environ.items() if k not in ("ZNT_CONFIG", "ZNT_PROJECT_ROOT")}
    return {
        **base,
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "PYTHONPATH": str(kr),
        "PYTHON_KEYRING_BACKEND": "znt_test_keyring.FileKeyring",
        "ZNT_TEST_KEYRING_FILE": str(kr / "store.json"),
        "ZNT_MCP_MONITOR": "0",
    }


class RawServer:
    """``znt mcp`` over pipes; every line in both directions is kept."""

    def __init__(self, cwd: Path, env: dict[str, str], stderr: Path) -> None:
        self._err = open(stderr, "w")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "znt", "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._err,
            text=True,
            cwd=cwd,
            env=env,
        )
        self.wire: list[str] = []
        self._id = 0
        self.send(initialize_message(self._next()))
        self.read(self._id)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _next(self) -> int:
        self._id += 1
        return self._id

    def send(self, msg: dict[str, Any]) -> None:
        line = json.dumps(msg) + "\n"
        self.wire.append(line)
        assert self.proc.stdin is not None
        self.proc.stdin.write(line)
        self.proc.stdin.flush()

    def read(self, want: int) -> dict[str, Any]:
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            assert line, "the server closed stdout"
            self.wire.append(line)
            msg = json.loads(line)
            if msg.get("id") == want:
                return msg

    def call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        n = self._next()
        self.send(
            {
                "jsonrpc": "2.0",
                "id": n,
                "method": "tools/call",
                "params": {"name": name, "arguments": args},
            }
        )
        result: dict[str, Any] = self.read(n)["result"]
        assert result["isError"] is False, result
        return result["structuredContent"]

    def close(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        self.wire.append(self.proc.stdout.read())
        self.proc.wait(timeout=60)
        self._err.close()


def request(
    url: str,
    method: str = "GET",
    fields: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, str, dict[str, str]]:
    """One plain HTTP request to the form (http.client: every header is ours to set)."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    body = urlencode(fields).encode() if fields is not None else None
    h = {"Host": parts.netloc, **(headers or {})}
    if body is not None:
        h.setdefault("Content-Type", "application/x-www-form-urlencoded")
    try:
        conn.request(method, parts.path, body=body, headers=h)
        resp = conn.getresponse()
        return resp.status, resp.read().decode(), {k.lower(): v for k, v in resp.getheaders()}
    finally:
        conn.close()


def dead(url: str) -> bool:
    """The form no longer answers: its listener is closed (or it says 410 Gone)."""
    try:
        status = request(url)[0]
    except OSError:  # connection refused: nothing listens any more
        return True
    return status == 410


def wait_dead(url: str, why: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not dead(url):
        assert time.monotonic() < deadline, why
        time.sleep(0.1)


def assert_key_nowhere(tmp_path: Path, wire: list[str], stderr: Path, keyring_file: Path) -> None:
    everything = "".join(wire) + stderr.read_text()
    assert SECRET not in everything and SECRET[8:] not in everything
    checked = 0
    for path in tmp_path.rglob("*"):
        if path.is_file() and path != keyring_file:
            assert SECRET.encode() not in path.read_bytes(), path
            checked += 1
    assert checked > 0


def test_setup_url_takes_the_key_into_the_keyring_and_works_once(
    tmp_path: Path, env: dict[str, str]
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "a.py").write_text("def alpha():\n    return 1\n")
    config_file = tmp_path / "xdg" / "znt" / "config.yaml"
    keyring_file = Path(env["ZNT_TEST_KEYRING_FILE"])
    stderr = tmp_path / "server.err"
    with EmbedServer(require_token=SECRET) as provider:
        server = RawServer(project, env, stderr)
        try:
            doc = server.call("setup", {"mode": "openai", "check_provider": True})
            url = doc["setup_url"]
            assert doc["action"] == "user_step_required" and doc["written"] is None
            assert url.startswith("http://127.0.0.1:") and "/setup/" in url
            token = url.rsplit("/", 1)[1]
            assert len(token) >= 40
            form = doc["setup_form"]
            assert form["single_use"] is True and form["keyring_available"] is True
            assert 0 < form["expires_in_s"] <= 600 and form["state"] == "open"
            assert not config_file.exists()  # nothing written by the agent's call

            # the user's browser opens the form
            status, page, headers = request(url)
            assert status == 200 and "<form method='post'" in page
            assert "type='password'" in page and "https://api.openai.com/v1" in page
            assert headers["cache-control"] == "no-store"
            assert headers["referrer-policy"] == "no-referrer"
            assert "default-src 'none'" in headers["content-security-policy"]
            # a wrong token, a foreign Host (DNS rebinding) and a foreign Origin are refused
            assert request(url[: -len(token)] + "x" * len(token))[0] == 404
            assert request(url, headers={"Host": f"evil.example:{urlsplit(url).port}"})[0] == 404
            fields = {"model": "text-embedding-3-small", "url": provider.openai_url, "key": SECRET}
            refused = request(url, "POST", fields, {"Origin": "http://evil.example"})
            assert refused[0] == 403 and not config_file.exists()

            # a mistake keeps the link alive and does not echo the key
            typo = request(
                url,
                "POST",
                {**fields, "url": "ftp://nowhere"},
                {"Origin": f"http://{urlsplit(url).netloc}"},
            )
            assert typo[0] == 400 and "must be an http:// or https:// URL" in typo[1]
            assert SECRET not in typo[1]

            saved = request(url, "POST", fields, {"Origin": f"http://{urlsplit(url).netloc}"})
            assert saved[0] == 200, saved[1]
            assert "znt-keyring://znt/openai" in saved[1] and SECRET not in saved[1]
            # check_provider: the provider was tried with the key before anything was saved
            assert {r["headers"].get("authorization") for r in provider.requests} == {
                f"Bearer {SECRET}"
            }

            # dead after one use
            wait_dead(url, "the setup URL still answers after use")
            again = server.call("setup_status", {"check_provider": True})
            assert again["credential"] == {
                "configured": True,
                "kind": "keyring",
                "reference": "znt-keyring://znt/openai",
                "present": True,
            }
            assert again["ready"] is True and again["provider_check"]["ok"] is True
            assert again["setup_form"]["state"] == "used"
            assert again["setup_form"]["setup_url"] is None
            assert again["setup_form"]["result"]["token_ref"] == "znt-keyring://znt/openai"
            status_doc = server.call("status", {})
            assert status_doc["provider"]["mode"] == "openai"
            assert status_doc["provider"]["chosen_by_user"] is True
        finally:
            server.close()

    # the key is in the keyring backend, and the config holds only the reference
    store = json.loads(keyring_file.read_text())
    assert list(store) == ["znt/openai"]
    assert bytes.fromhex(store["znt/openai"]).decode()[::-1] == SECRET
    emb = yaml.safe_load(config_file.read_text())["embedding"]
    assert emb["provider"] == "openai" and emb["url"] == provider.openai_url
    assert emb["token_ref"] == "znt-keyring://znt/openai"
    assert not {"token", "token_env", "api_key", "key"} & set(emb)
    assert_key_nowhere(tmp_path, server.wire, stderr, keyring_file)


def test_setup_url_dies_after_its_time(tmp_path: Path, env: dict[str, str]) -> None:
    env = {**env, "ZNT_SETUP_URL_TTL_S": "1"}
    stderr = tmp_path / "server.err"
    server = RawServer(tmp_path, env, stderr)
    try:
        doc = server.call("setup", {"mode": "gemini"})
        url = doc["setup_url"]
        assert doc["setup_form"]["expires_in_s"] <= 1
        wait_dead(url, "the setup URL outlived its time")
        late = server.call("setup_status", {})
        assert late["setup_form"]["state"] == "expired" and late["setup_form"]["setup_url"] is None
        # a new setup call gives a new link; the old one stays dead
        fresh = server.call("setup", {"mode": "gemini"})["setup_url"]
        assert fresh != url and dead(url)
    finally:
        server.close()
    assert not (tmp_path / "xdg" / "znt" / "config.yaml").exists()


def test_without_a_keyring_the_form_says_how_to_use_token_env(
    tmp_path: Path, env: dict[str, str]
) -> None:
    env = {**env, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    stderr = tmp_path / "server.err"
    server = RawServer(tmp_path, env, stderr)
    try:
        doc = server.call("setup", {"mode": "ollama"})
        form = doc["setup_form"]
        assert form["keyring_available"] is False
        assert "--token-env" in form["keyring_note"]
        url = doc["setup_url"]
        origin = {"Origin": f"http://{urlsplit(url).netloc}"}
        page = request(url)[1]
        assert "type='password'" not in page and "--token-env" in page
        with EmbedServer() as ollama:
            with_key = request(url, "POST", {"url": ollama.url, "key": SECRET}, origin)
            assert with_key[0] == 400 and "--token-env" in with_key[1]
            assert SECRET not in with_key[1]
            # a server that needs no key is still saved, with no key reference
            saved = request(url, "POST", {"url": ollama.url, "model": "nomic-embed-text"}, origin)
            assert saved[0] == 200 and "No key was stored" in saved[1]
        st = server.call("setup_status", {})
        assert st["config"]["provider"]["mode"] == "ollama"
        assert st["credential"]["configured"] is False
    finally:
        server.close()
    emb = yaml.safe_load((tmp_path / "xdg" / "znt" / "config.yaml").read_text())["embedding"]
    assert emb["provider"] == "ollama" and "token_ref" not in emb
    assert_key_nowhere(tmp_path, server.wire, stderr, Path(env["ZNT_TEST_KEYRING_FILE"]))
