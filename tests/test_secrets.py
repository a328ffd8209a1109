"""The key-safety proof: a distinctive key, given through --token-env and through
--token-stdin (into a real keyring backend), reaches the server's Authorization header and
nothing else: not the config, not any output or error message, not the project's .znt/."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_znt
from tests.embed_server import EmbedServer
from znt.index.embed import ProviderConfig, ProviderError
from znt.index.embed.remote import RemoteEmbedder
from znt.secrets import REDACTED, redact

SECRET = "sk-test-SECRET-4f9a7c1e0b2d55aa"

# A keyring backend of our own, loaded by the keyring package through PYTHON_KEYRING_BACKEND:
# the real keyring code path (lookup, set, get), with the value stored reversed and hex-encoded
# so that a byte search of the whole temporary tree can prove znt wrote the key nowhere.
KEYRING_MODULE = """
import json, os
from pathlib import Path
from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError


class FileKeyring(KeyringBackend):
    priority = 1

    def _path(self):
        return Path(os.environ["ZNT_TEST_KEYRING_FILE"])

    def _load(self):
        p = self._path()
        return json.loads(p.read_text()) if p.exists() else {}

    def get_password(self, service, username):
        value = self._load().get(f"{service}/{username}")
        return bytes.fromhex(value).decode()[::-1] if value else None

    def set_password(self, service, username, password):
        data = self._load()
        data[f"{service}/{username}"] = password[::-1].encode().hex()
        self._path().write_text(json.dumps(data))

    def delete_password(self, service, username):
        data = self._load()
        if data.pop(f"{service}/{username}", None) is None:
            raise PasswordDeleteError(username)
        self._path().write_text(json.dumps(data))
"""


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A private config home and the test keyring backend."""
    monkeypatch.delenv("ZNT_CONFIG", raising=False)
    kr = tmp_path / "keyring"
    kr.mkdir()
    (kr / "znt_test_keyring.py").write_text(KEYRING_MODULE)
    return {
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "PYTHONPATH": str(kr),
        "PYTHON_KEYRING_BACKEND": "znt_test_keyring.FileKeyring",
        "ZNT_TEST_KEYRING_FILE": str(kr / "store.json"),
    }


def run(
    *args: str, env: dict[str, str], stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k != "ZNT_PROJECT_ROOT"}
    full.update(env)
    return subprocess.run(
        [sys.executable, "-m", "znt", *args],
        env=full,
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=120,
    )


def assert_nowhere(root: Path, outputs: list[subprocess.CompletedProcess[str]]) -> None:
    """The key is in no output and in no file under ``root`` (config, keyring store, .znt/)."""
    for proc in outputs:
        assert SECRET not in proc.stdout, proc.args
        assert SECRET not in proc.stderr, proc.args
        assert SECRET[8:] not in proc.stdout + proc.stderr  # not even a tail of it
    checked = 0
    for path in root.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
            checked += 1
    assert checked > 0


def authorizations(server: EmbedServer) -> set[str | None]:
    return {r["headers"].get("authorization") for r in server.requests if r["method"] == "POST"}


def test_token_env_reaches_the_server_and_nothing_else(tmp_path: Path, env: dict[str, str]) -> None:
    env = {**env, "ZNT_SECRET_KEY": SECRET}
    outs = []
    with EmbedServer() as server:
        outs.append(
            run(
                "setup",
                "--mode",
                "openai",
                "--url",
                server.openai_url,
                "--token-env",
                "ZNT_SECRET_KEY",
                "--check-provider",
                env=env,
            )
        )
        assert outs[-1].returncode == 0, outs[-1].stderr
        for fmt in ("text", "json"):
            outs.append(run("setup", "--format", fmt, env=env))
            outs.append(run("setup", "status", "--format", fmt, env=env))
            outs.append(run("setup", "status", "--check-provider", "--format", fmt, env=env))
            assert outs[-1].returncode == 0, outs[-1].stderr
        status = json.loads(outs[-1].stdout)
        assert authorizations(server) == {f"Bearer {SECRET}"}  # the key is really used
    assert status["credential"] == {
        "configured": True,
        "kind": "env",
        "reference": "ZNT_SECRET_KEY",
        "present": True,
    }
    config = (tmp_path / "xdg" / "znt" / "config.yaml").read_text()
    assert "token_env: ZNT_SECRET_KEY" in config
    assert_nowhere(tmp_path, outs)


def test_token_stdin_goes_to_the_keyring_only(tmp_path: Path, env: dict[str, str]) -> None:
    outs = []
    with EmbedServer() as server:
        proc = run(
            "setup",
            "--mode",
            "openai",
            "--url",
            server.openai_url,
            "--token-stdin",
            "--format",
            "json",
            env=env,
            stdin=SECRET + "\n",
        )
        assert proc.returncode == 0, proc.stderr
        outs.append(proc)
        doc = json.loads(proc.stdout)
        assert doc["written"]["key_stored_in_keyring"] == "znt-keyring://znt/openai"
        assert doc["credential"]["present"] is True and doc["keyring"]["available"] is True
        for fmt in ("text", "json"):
            outs.append(run("setup", "status", "--check-provider", "--format", fmt, env=env))
            assert outs[-1].returncode == 0, outs[-1].stderr
            outs.append(run("setup", "--format", fmt, env=env))
        assert authorizations(server) == {f"Bearer {SECRET}"}
    config = yaml.safe_load((tmp_path / "xdg" / "znt" / "config.yaml").read_text())
    assert config["embedding"]["token_ref"] == "znt-keyring://znt/openai"
    assert "token_env" not in config["embedding"]
    store = json.loads(Path(env["ZNT_TEST_KEYRING_FILE"]).read_text())
    assert list(store) == ["znt/openai"]  # it is in the keyring (encoded by the backend)
    assert_nowhere(tmp_path, outs)


def test_a_server_that_echoes_the_key_in_errors_is_redacted(
    tmp_path: Path, env: dict[str, str]
) -> None:
    env = {**env, "ZNT_SECRET_KEY": SECRET}
    outs = []
    with EmbedServer(require_token="another-key", echo_auth=True) as server:
        outs.append(
            run(
                "setup",
                "--mode",
                "openai",
                "--url",
                server.openai_url,
                "--token-env",
                "ZNT_SECRET_KEY",
                env=env,
            )
        )
        for fmt in ("text", "json"):
            proc = run("setup", "status", "--check-provider", "--format", fmt, env=env)
            assert proc.returncode == 5
            assert "answered HTTP 401" in proc.stdout and REDACTED in proc.stdout
            outs.append(proc)
        proc = run(
            "setup",
            "--mode",
            "openai",
            "--url",
            server.openai_url,
            "--token-env",
            "ZNT_SECRET_KEY",
            "--check-provider",
            "--format",
            "json",
            env=env,
        )
        assert proc.returncode == 5 and "config not written" in proc.stderr
        outs.append(proc)
        assert authorizations(server) == {f"Bearer {SECRET}"}
    with EmbedServer(status=500, echo_auth=True) as server:
        cfg = ProviderConfig(
            mode="openai", model="m", url=server.openai_url, token_env="ZNT_SECRET_KEY"
        )
        os.environ["ZNT_SECRET_KEY"] = SECRET
        try:
            with pytest.raises(ProviderError) as err:
                RemoteEmbedder(cfg, retries=0).embed(["a"])
        finally:
            del os.environ["ZNT_SECRET_KEY"]
        assert "Bearer" in json.dumps(server.requests[0]["headers"])
    assert "HTTP 500" in err.value.message and SECRET not in err.value.message
    assert SECRET not in str(err.value.to_dict())
    assert_nowhere(tmp_path, outs)


def test_scan_with_a_remote_provider_keeps_the_key_out_of_the_index(
    tmp_path: Path, env: dict[str, str]
) -> None:
    project = tmp_path / "proj"
    (project / "pkg").mkdir(parents=True)
    (project / "pkg" / "mod.py").write_text(
        "class Client:\n    def send(self, x):\n        return retry(x)\n\n\n"
        "def retry(x):\n    return x\n"
    )
    env = {**env, "ZNT_SECRET_KEY": SECRET}
    outs = []
    with EmbedServer() as server:
        outs.append(
            run(
                "setup",
                "--mode",
                "openai",
                "--url",
                server.openai_url,
                "--token-env",
                "ZNT_SECRET_KEY",
                env=env,
            )
        )
        scan = run_znt("scan", str(project), "--format", "json", env=env)
        assert scan.returncode == 0, scan.stderr
        outs.append(scan)
        embeddings = json.loads(scan.stdout)["embeddings"]
        assert embeddings["status"] == "completed", embeddings
        posts = [r for r in server.requests if r["method"] == "POST"]
        assert posts, "the scan did not call the provider"
        assert authorizations(server) == {f"Bearer {SECRET}"}
        outs.append(run_znt("logs", "-C", str(project), env=env))
        # The provider object itself: its vectors and repr carry no key.
        cfg = ProviderConfig(
            mode="openai", model="m", url=server.openai_url, token_env="ZNT_SECRET_KEY"
        )
        os.environ["ZNT_SECRET_KEY"] = SECRET
        try:
            emb = RemoteEmbedder(cfg)
            vectors = emb.embed(["class Client", "def retry(x)"])
        finally:
            del os.environ["ZNT_SECRET_KEY"]
        assert SECRET not in repr(emb) and SECRET.encode() not in vectors.tobytes()
    assert (project / ".znt" / "index.duckdb").exists()
    assert_nowhere(tmp_path, outs)


def test_a_failing_scan_logs_no_key(tmp_path: Path, env: dict[str, str]) -> None:
    """A server that rejects the key and echoes it: the scan's warning, its log and its
    index hold the redacted message only."""
    project = tmp_path / "proj"
    project.mkdir()
    (project / "a.py").write_text("def f():\n    return 1\n")
    env = {**env, "ZNT_SECRET_KEY": SECRET}
    outs = []
    with EmbedServer(require_token="another-key", echo_auth=True) as server:
        outs.append(
            run(
                "setup",
                "--mode",
                "openai",
                "--url",
                server.openai_url,
                "--token-env",
                "ZNT_SECRET_KEY",
                env=env,
            )
        )
        scan = run_znt("scan", str(project), "--format", "json", env=env)
        outs.append(scan)
        assert scan.returncode == 0, scan.stderr  # the lexical index and graph are written
        assert authorizations(server) == {f"Bearer {SECRET}"}
    assert "HTTP 401" in scan.stdout + scan.stderr
    logs = run_znt("logs", "-C", str(project), env=env)
    outs.append(logs)
    assert "HTTP 401" in logs.stdout
    assert_nowhere(tmp_path, outs)


@pytest.mark.parametrize(
    "args",
    [
        ["--token", SECRET],
        [f"--token={SECRET}"],
        ["--api-key", SECRET],
        [f"--api-key={SECRET}"],
        ["--mode", "openai", "--token", SECRET],
        [SECRET],
        ["--mode", "openai", SECRET],
        ["--mode", "openai", "--token-env", SECRET],
        ["--mode", "openai", f"--token-env={SECRET}"],
        ["--mode", "openai", "--url", f"https://user:{SECRET}@api.example.com/v1"],
        ["--mode", "openai", "--url", f"https://api.example.com/v1?api_key={SECRET}"],
        ["--mode", "openai", "--model", SECRET],
        ["status", SECRET],
    ],
)
def test_a_key_on_the_command_line_is_refused_without_echo(
    args: list[str], env: dict[str, str]
) -> None:
    proc = run("setup", *args, env=env)
    assert proc.returncode == 2, proc.stderr
    assert SECRET not in proc.stdout + proc.stderr
    assert SECRET[8:] not in proc.stdout + proc.stderr
    assert not Path(env["XDG_CONFIG_HOME"]).exists()


def test_redact() -> None:
    assert SECRET not in redact(f"bad key {SECRET}")
    assert redact("Authorization: Bearer abcdefgh12345") == f"Authorization: {REDACTED}"
    assert "zzz-custom-value" not in redact('{"api_key": "zzz-custom-value"}')
    assert redact("opaque value 1234abcd", ["1234abcd"]) == f"opaque value {REDACTED}"
    assert redact("no secrets here: 404 model not found") == "no secrets here: 404 model not found"
