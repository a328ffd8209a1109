"""``znt setup`` and ``znt setup status`` through the real command line, with the managed
config in a temporary XDG_CONFIG_HOME and real HTTP servers on 127.0.0.1."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_znt
from tests.embed_server import EmbedServer, dead_port


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private config home: the managed config goes to <home>/znt/config.yaml."""
    monkeypatch.delenv("ZNT_CONFIG", raising=False)
    monkeypatch.delenv("PYTHON_KEYRING_BACKEND", raising=False)
    cfg_home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(cfg_home))
    return cfg_home


def managed(home: Path) -> Path:
    return home / "znt" / "config.yaml"


def znt_json(*args: str, env: dict[str, str] | None = None, code: int = 0) -> dict:
    proc = run_znt(*args, "--format", "json", env=env)
    assert proc.returncode == code, proc.stderr + proc.stdout
    return json.loads(proc.stdout)


def test_setup_without_mode_recommends_and_writes_nothing(home: Path) -> None:
    doc = znt_json("setup")
    assert doc["schema_version"] == 1 and doc["kind"] == "setup"
    assert doc["action"] == "show" and doc["written"] is None
    assert [r["mode"] for r in doc["recommendations"]] == [
        "bm25",
        "local",
        "ollama",
        "openai",
        "gemini",
    ]
    assert all("command" in r and r["summary"] for r in doc["recommendations"])
    assert doc["config"]["source"] == "default" and doc["config"]["path"] is None
    assert doc["config"]["managed_path"] == str(managed(home))
    # This venv has the embed extra: the default is local, and it is marked, not chosen anew.
    assert doc["embed_extra"] is True
    assert doc["config"]["provider"]["mode"] == "local"
    assert [r["mode"] for r in doc["recommendations"] if r["current"]] == ["local"]
    assert not home.exists()
    text = run_znt("setup")
    assert text.returncode == 0
    assert "znt chooses none for you" in text.stdout and "znt setup --mode ollama" in text.stdout
    assert not home.exists()


def test_mode_ollama_writes_a_valid_private_config(home: Path) -> None:
    with EmbedServer() as server:
        doc = znt_json("setup", "--mode", "ollama", "--url", server.url)
    path = managed(home)
    assert doc["action"] == "write" and doc["written"]["path"] == str(path)
    assert any("nomic-embed-text" in n for n in doc["notes"])  # the default model is said
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    data = yaml.safe_load(path.read_text())
    assert data["embedding"]["provider"] == "ollama"
    assert data["embedding"]["model"] == "nomic-embed-text"
    assert data["embedding"]["url"] == server.url
    assert "token" not in data["embedding"]
    status = znt_json("setup", "status")
    assert status["kind"] == "setup_status"
    assert status["config"]["source"] == "managed" and status["config"]["path"] == str(path)
    assert status["config"]["provider"]["mode"] == "ollama"
    assert status["credential"]["configured"] is False
    assert status["ready"] is True


@pytest.mark.parametrize(
    ("args", "expect"),
    [
        (
            ["--mode", "local"],
            {"provider": "local", "model": "sentence-transformers/all-MiniLM-L6-v2"},
        ),
        (["--mode", "bm25"], {"provider": "bm25"}),
        (
            ["--mode", "openai", "--token-env", "MY_KEY", "--model", "m-1"],
            {
                "provider": "openai",
                "model": "m-1",
                "url": "https://api.openai.com/v1",
                "token_env": "MY_KEY",
            },
        ),
        (
            ["--mode", "gemini", "--token-env", "GEMINI_API_KEY"],
            {
                "provider": "gemini",
                "model": "gemini-embedding-001",
                "url": "https://generativelanguage.googleapis.com/v1beta",
                "token_env": "GEMINI_API_KEY",
            },
        ),
    ],
)
def test_mode_defaults(home: Path, args: list[str], expect: dict) -> None:
    znt_json("setup", *args)
    emb = yaml.safe_load(managed(home).read_text())["embedding"]
    assert {k: emb[k] for k in expect} == expect


def test_setup_replaces_the_previous_config(home: Path) -> None:
    znt_json("setup", "--mode", "openai", "--token-env", "MY_KEY")
    znt_json("setup", "--mode", "bm25")
    assert yaml.safe_load(managed(home).read_text()) == {"embedding": {"provider": "bm25"}}
    assert [p.name for p in managed(home).parent.iterdir()] == ["config.yaml"]  # no temp left


def test_znt_config_is_read_and_never_written(home: Path, tmp_path: Path) -> None:
    ext = tmp_path / "mine.yaml"
    ext.write_text("embedding:\n  provider: bm25\n")
    before = ext.read_bytes()
    env = {"ZNT_CONFIG": str(ext)}
    status = znt_json("setup", "status", env=env)
    assert status["config"]["source"] == "ZNT_CONFIG" and status["config"]["external"] is True
    assert status["config"]["provider"]["mode"] == "bm25"
    for args in (["--mode", "local"], ["--mode", "openai", "--token-stdin"]):
        proc = run_znt("setup", *args, env=env)
        assert proc.returncode == 2, proc.stderr
        assert "ZNT_CONFIG is set" in proc.stderr and "never writes it" in proc.stderr
    assert ext.read_bytes() == before
    assert not home.exists()


def test_znt_config_that_does_not_exist(home: Path, tmp_path: Path) -> None:
    proc = run_znt("setup", "status", env={"ZNT_CONFIG": str(tmp_path / "nope.yaml")})
    assert proc.returncode == 2
    assert "ZNT_CONFIG names" in proc.stderr and "not a file" in proc.stderr


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "embedding:\n  provider: gpt\n",
            "embedding.provider must be one of bm25, local, ollama, openai",
        ),
        (
            "embedding:\n  provider: ollama\n  model: m\n  batch_size: ten\n",
            "embedding.batch_size must be a positive integer",
        ),
        (
            "embedding:\n  provider: ollama\n  model: m\n  timeout_seconds: -1\n",
            "embedding.timeout_seconds must be a positive number",
        ),
        ("embedding:\n  provider: ollama\n", "embedding.model is required for provider ollama"),
        (
            "embedding:\n  provider: ollama\n  model: m\n  url: ftp://x\n",
            "must be an http:// or https:// URL",
        ),
        (
            "embedding:\n  provider: openai\n  model: m\n  token_env: A\n  token_ref: znt-keyring://znt/openai\n",
            "not both",
        ),
        ("embedding: [1, 2]\n", "'embedding' must be a mapping"),
        ("other: 1\n", "no 'embedding' section"),
        ("embedding:\n  provider: [unclosed\n", "not valid YAML at line"),
    ],
)
def test_invalid_configs_are_usage_errors(home: Path, text: str, message: str) -> None:
    path = managed(home)
    path.parent.mkdir(parents=True)
    path.write_text(text)
    for args in (["setup", "status"], ["setup"]):
        proc = run_znt(*args)
        assert proc.returncode == 2, proc.stderr
        assert message in proc.stderr and str(path) in proc.stderr
        assert "Traceback" not in proc.stderr


def test_plaintext_key_in_config_is_refused_without_echo(home: Path) -> None:
    path = managed(home)
    path.parent.mkdir(parents=True)
    path.write_text("embedding:\n  provider: openai\n  model: m\n  token: sk-plain-VALUE-77\n")
    proc = run_znt("setup", "status")
    assert proc.returncode == 2
    assert "embedding.token holds a key in plain text" in proc.stderr
    assert "--token-stdin" in proc.stderr and "--token-env" in proc.stderr
    assert "sk-plain-VALUE-77" not in proc.stderr + proc.stdout
    # A key put where a variable NAME belongs is refused without being repeated either.
    path.write_text("embedding:\n  provider: openai\n  model: m\n  token_env: sk-plain-VALUE-77\n")
    proc = run_znt("setup", "status")
    assert proc.returncode == 2 and "NAME of an environment variable" in proc.stderr
    assert "sk-plain-VALUE-77" not in proc.stderr + proc.stdout
    # `setup --mode` replaces a broken managed config.
    znt_json("setup", "--mode", "bm25")
    assert "sk-plain-VALUE-77" not in path.read_text()


def test_unknown_keys_are_warnings(home: Path) -> None:
    path = managed(home)
    path.parent.mkdir(parents=True)
    path.write_text("embedding:\n  provider: bm25\n  colour: blue\nextra: 1\n")
    doc = znt_json("setup", "status")
    assert len(doc["config"]["warnings"]) == 2
    assert any("embedding.colour" in w for w in doc["config"]["warnings"])
    text = run_znt("setup", "status")
    assert "warning:" in text.stdout and "'extra'" in text.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--mode", "local", "--url", "http://x"], "--url is for the ollama, openai, gemini modes"),
        (["--mode", "bm25", "--model", "m"], "bm25 mode has no model"),
        (["--mode", "openai", "--token-env", "A", "--token-stdin"], "not both"),
        (["--model", "m"], "need --mode"),
        (["--mode", "ollama", "--url", "localhost:11434"], "must be an http:// or https:// URL"),
        (["--mode", "gpt"], "Invalid value for '--mode'"),
        (["--mode", "local", "--token-env", "A"], "needs no key"),
    ],
)
def test_usage_errors(home: Path, args: list[str], message: str) -> None:
    proc = run_znt("setup", *args)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert not home.exists()


def test_status_check_provider_ok(home: Path) -> None:
    with EmbedServer(dim=16) as server:
        znt_json("setup", "--mode", "ollama", "--url", server.url)
        doc = znt_json("setup", "status", "--check-provider")
        text = run_znt("setup", "status", "--check-provider")
        paths = [r["path"] for r in server.requests]
    check = doc["provider_check"]
    assert check["ok"] is True and check["dimension"] == 16
    assert check["model_listed"] is True and "nomic-embed-text:latest" in check["models"]
    assert check["latency_ms"] >= 0 and doc["ready"] is True
    assert "/api/tags" in paths and "/api/embed" in paths
    assert text.returncode == 0 and "Provider check: ok, dimension 16" in text.stdout


def test_status_check_provider_dead_port(home: Path) -> None:
    port = dead_port()
    znt_json("setup", "--mode", "ollama", "--url", f"http://127.0.0.1:{port}")
    doc = znt_json("setup", "status", "--check-provider", code=5)
    check = doc["provider_check"]
    assert check["ok"] is False
    assert check["error"].startswith(
        f"cannot reach Ollama at http://127.0.0.1:{port}: connection refused"
    )
    assert doc["ready"] is False
    text = run_znt("setup", "status", "--check-provider")
    assert text.returncode == 5
    assert "Provider check: FAILED: cannot reach Ollama" in text.stdout
    assert "znt: error: provider check failed" in text.stderr


def test_setup_check_provider_writes_only_when_the_probe_succeeds(home: Path) -> None:
    port = dead_port()
    proc = run_znt(
        "setup", "--mode", "ollama", "--url", f"http://127.0.0.1:{port}", "--check-provider"
    )
    assert proc.returncode == 5
    assert "config not written" in proc.stderr and "connection refused" in proc.stderr
    assert not managed(home).exists()
    with EmbedServer() as server:
        doc = znt_json("setup", "--mode", "openai", "--url", server.openai_url, "--check-provider")
    assert doc["provider_check"]["ok"] is True and doc["provider_check"]["dimension"] == 8
    assert managed(home).exists()


def test_status_reports_a_missing_env_key(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ZNT_TEST_UNSET_KEY", raising=False)
    znt_json("setup", "--mode", "openai", "--token-env", "ZNT_TEST_UNSET_KEY")
    doc = znt_json("setup", "status")
    assert doc["credential"] == {
        "configured": True,
        "kind": "env",
        "reference": "ZNT_TEST_UNSET_KEY",
        "present": False,
    }
    assert doc["ready"] is False
    assert "environment variable ZNT_TEST_UNSET_KEY is not set" in doc["problems"][0]
    doc = znt_json("setup", "status", env={"ZNT_TEST_UNSET_KEY": "x" * 20})
    assert doc["credential"]["present"] is True


def test_token_stdin_without_a_keyring_points_to_token_env(home: Path) -> None:
    proc = run_znt("setup", "--mode", "openai", "--token-stdin")
    assert proc.returncode == 5
    assert "no OS keyring backend" in proc.stderr and "--token-env VAR" in proc.stderr
    assert not home.exists()


def test_setup_help_lists_the_options() -> None:
    proc = run_znt("setup", "--help")
    assert proc.returncode == 0
    for opt in ("--mode", "--model", "--url", "--token-env", "--token-stdin", "--check-provider"):
        assert opt in proc.stdout
    assert "--token " not in proc.stdout and "--api-key" not in proc.stdout
