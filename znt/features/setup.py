"""``znt setup`` and ``znt setup status``: show, choose and check the embedding provider.

``setup`` without a mode only describes: the current state and what each provider would
mean, never choosing one for the user (sending code to a server is the user's decision).
With a mode it writes the managed config (never a ``ZNT_CONFIG`` file). ``status`` checks the
config and whether the key is there (yes/no) and, when asked, probes the endpoint. No result
ever contains a key; ``--token-stdin`` is the only way a key enters, and it goes straight to
the OS keyring.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from znt import config as cfg
from znt.config import MODES, ProviderConfig, ProviderError
from znt.errors import UsageError

if TYPE_CHECKING:
    from znt.results import ProviderChoice, SetupBody, SetupEnvironment, SetupStatusBody


SecretReader = Callable[[], str]


def _read_stdin_secret() -> str:
    import sys

    return sys.stdin.readline()


def describe(loaded: cfg.LoadedConfig) -> dict[str, Any]:
    """The config part of a result: where it came from and what it says (no key)."""
    c = loaded.provider
    return {
        "path": str(loaded.path) if loaded.path else None,
        "source": loaded.source,
        "managed_path": str(cfg.managed_path()),
        "external": loaded.source == cfg.ENV_CONFIG,
        "warnings": list(loaded.warnings),
        "notice": loaded.notice,
        "provider": {
            "mode": c.mode,
            "model": c.model,
            "url": c.url,
            "timeout_seconds": c.timeout_s,
            "batch_size": c.batch_size,
            "max_batch_bytes": c.max_batch_bytes,
        },
    }


def environment() -> SetupEnvironment:
    """What this machine offers: the embed extra, a keyring backend."""
    from znt.secrets import keyring_backend

    return {"embed_extra": cfg.embed_extra_installed(), "keyring": keyring_backend()}


def recommendations(current: str, env: SetupEnvironment) -> list[dict[str, Any]]:
    """One entry per provider: what it means, what it needs, the command. Chooses nothing."""
    extra = env["embed_extra"]
    keyring_ok = env["keyring"]["available"]
    return [
        {
            "mode": "bm25",
            "current": current == "bm25",
            "available": True,
            "leaves_machine": False,
            "summary": "lexical search and the code graph only, no vectors; nothing to install",
            "command": "znt setup --mode bm25",
        },
        {
            "mode": "local",
            "current": current == "local",
            "available": extra,
            "leaves_machine": False,
            "summary": f"on-device sentence-transformers ({cfg.DEFAULT_LOCAL_MODEL}); "
            "code never leaves this machine",
            "requires": None if extra else "pip install 'znt[embed]'",
            "command": "znt setup --mode local",
        },
        {
            "mode": "ollama",
            "current": current == "ollama",
            "available": True,
            "leaves_machine": "only if the URL is another machine",
            "summary": f"an Ollama server (default {cfg.DEFAULT_OLLAMA_URL}, "
            f"model {cfg.DEFAULT_OLLAMA_MODEL}); source text is sent to that server",
            "requires": f"a running Ollama with the model pulled (ollama pull {cfg.DEFAULT_OLLAMA_MODEL})",
            "command": f"znt setup --mode ollama --model {cfg.DEFAULT_OLLAMA_MODEL}",
        },
        {
            "mode": "openai",
            "current": current == "openai",
            "available": True,
            "leaves_machine": True,
            "summary": f"any OpenAI-compatible /embeddings endpoint (default "
            f"{cfg.DEFAULT_OPENAI_URL}, model {cfg.DEFAULT_OPENAI_MODEL}); source text is "
            "sent to that service",
            "requires": "an API key, kept in an environment variable (--token-env VAR)"
            + (" or the OS keyring (--token-stdin)" if keyring_ok else "; no OS keyring here"),
            "command": "znt setup --mode openai --token-env OPENAI_API_KEY",
        },
        {
            "mode": "gemini",
            "current": current == "gemini",
            "available": True,
            "leaves_machine": True,
            "summary": f"the Gemini embedding API ({cfg.DEFAULT_GEMINI_URL}, model "
            f"{cfg.DEFAULT_GEMINI_MODEL}); source text is sent to Google",
            "requires": "a Gemini API key, kept in an environment variable (--token-env VAR)"
            + (" or the OS keyring (--token-stdin)" if keyring_ok else "; no OS keyring here"),
            "command": "znt setup --mode gemini --token-env GEMINI_API_KEY",
        },
    ]


def provider_choice() -> ProviderChoice:
    """Which provider the next scan embeds with and whether the user chose it (the original
    refuses to scan until setup ran; znt scans with its default, and says so). Never raises:
    a config file that cannot be used is reported, and the scan would report it too."""
    try:
        loaded = cfg.load_config()
    except UsageError as exc:
        return {
            "mode": None,
            "model": None,
            "source": None,
            "chosen_by_user": None,
            "error": exc.message,
        }
    c = loaded.provider
    out: ProviderChoice = {
        "mode": c.mode,
        "model": c.model,
        "source": loaded.source,
        "chosen_by_user": loaded.source != "default",
        "leaves_machine": c.mode in cfg.REMOTE_MODES and not cfg.is_loopback(c.url or ""),
    }
    if loaded.source == "default":
        out["note"] = f"znt's default ({c.mode}): no provider was chosen with `znt setup`" + (
            f"; {loaded.notice}" if loaded.notice else ""
        )
    return out


def _key_summary(c: ProviderConfig) -> dict[str, Any]:
    from znt.secrets import credential_status

    return credential_status(c)


def show() -> SetupBody:
    """The state and the recommendations (``znt setup`` with no mode). Writes nothing."""
    loaded = cfg.load_config()
    env = environment()
    return {
        "action": "show",
        "config": describe(loaded),
        "credential": _key_summary(loaded.provider),
        **env,
        "recommendations": recommendations(loaded.provider.mode, env),
        "written": None,
    }


def _previous_managed() -> ProviderConfig | None:
    """The managed config as it is now, if readable (a broken one is simply replaced)."""
    path = cfg.managed_path()
    if not path.is_file():
        return None
    try:
        return cfg.read_config_file(path, "managed").provider
    except UsageError:
        return None


def _plan(
    mode: str,
    model: str | None,
    url: str | None,
    token_env: str | None,
    token_stdin: bool,
    allow_private_url: bool = False,
) -> tuple[ProviderConfig, list[str]]:
    """The config ``setup --mode`` would write (before any key is stored), and notes."""
    if mode not in MODES:
        raise UsageError(f"--mode must be one of {', '.join(MODES)}, got {mode!r}")
    if token_env and token_stdin:
        raise UsageError("give either --token-env or --token-stdin, not both")
    notes: list[str] = []
    from znt.secrets import redact

    for name, value in (("--model", model), ("--url", url)):
        if value and redact(value) != value:
            # Not echoed: it looks like a key was typed where a name belongs.
            raise UsageError(
                f"{name} looks like it contains a key (value not shown); a key is never "
                "accepted on the command line: use --token-env VAR or --token-stdin"
            )
    if mode in ("bm25", "local"):
        if url:
            raise UsageError(f"--url is for the {', '.join(cfg.REMOTE_MODES)} modes, not {mode}")
        if token_env or token_stdin:
            raise UsageError(f"the {mode} mode needs no key (--token-env/--token-stdin)")
    if mode == "bm25":
        if model:
            raise UsageError("the bm25 mode has no model")
        return ProviderConfig(mode="bm25", source="managed"), notes
    if mode == "local":
        if not cfg.embed_extra_installed():
            notes.append(
                "the embed extra is not installed: pip install 'znt[embed]' "
                "(until then scans write no vectors)"
            )
        return ProviderConfig(
            mode="local", model=model or cfg.DEFAULT_LOCAL_MODEL, source="managed"
        ), notes
    if not model:
        model = cfg.DEFAULT_MODELS[mode]
        notes.append(f"model not given: using {model} (choose another with --model)")
    final_url = (
        cfg.check_url(url, "--url", allow_private=allow_private_url)
        if url
        else cfg.DEFAULT_URLS[mode]
    )
    if token_env:
        try:
            cfg.check_env_name(token_env, "--token-env")
        except cfg.ConfigError as exc:
            raise UsageError(exc.message) from None
    token_ref = None
    if not token_env and not token_stdin:
        prev = _previous_managed()
        if (
            prev
            and prev.mode == mode
            and prev.url == final_url
            and (prev.token_env or prev.token_ref)
        ):
            token_env, token_ref = prev.token_env, prev.token_ref
            notes.append(
                f"kept the key reference of the previous config ({token_env or token_ref})"
            )
        elif mode in ("openai", "gemini"):
            notes.append(
                "no key configured: if the endpoint needs one, run again with "
                "--token-env VAR or --token-stdin"
            )
    keyed = bool(token_env or token_ref or token_stdin)
    if keyed and not cfg.is_loopback(final_url) and final_url.startswith("http://"):
        notes.append(f"warning: the key would be sent unencrypted to {final_url} (http://)")
    if not cfg.is_loopback(final_url):
        notes.append(f"source text will be sent to {final_url} when znt embeds")
    return ProviderConfig(
        mode=mode,
        model=model,
        url=final_url,
        token_env=token_env,
        token_ref=token_ref,
        source="managed",
        allow_private_url=allow_private_url,
    ), notes


def configure(
    mode: str,
    *,
    model: str | None = None,
    url: str | None = None,
    token_env: str | None = None,
    token_stdin: bool = False,
    read_secret: SecretReader | None = None,
    check_provider: bool = False,
    allow_private_url: bool = False,
) -> SetupBody:
    """Write the managed config for ``mode`` (``znt setup --mode``) and report what was written.

    With ``token_stdin`` the key is read by ``read_secret`` (default: one line of stdin) and
    stored in the OS keyring; the config keeps only the reference. With ``check_provider`` the
    endpoint is probed first and nothing is written when the probe fails."""
    from znt import secrets

    ext = cfg.external_path()
    if ext is not None:
        # Refuse before reading any key: the user should not type a key for nothing.
        raise UsageError(
            f"{cfg.ENV_CONFIG} is set ({ext}): znt reads that file but never writes it; edit it "
            f"yourself, or unset {cfg.ENV_CONFIG} to let `znt setup` write {cfg.managed_path()}"
        )
    planned, notes = _plan(mode, model, url, token_env, token_stdin, allow_private_url)
    stored = None
    if token_stdin:
        secrets.require_keyring()
        secret = (read_secret or _read_stdin_secret)().strip()
        if not secret:
            raise UsageError("--token-stdin: no key on standard input")
        if any(ch.isspace() for ch in secret) or not secret.isprintable():
            raise UsageError("--token-stdin: the key must be one line without spaces")
        ref = secrets.keyring_ref(mode)
        secrets.store_in_keyring(ref, secret)
        del secret
        planned = dataclasses.replace(planned, token_ref=ref, token_env=None)
        stored = ref
    check = None
    if check_provider:
        check = probe(planned)
        if not check["ok"]:
            raise ProviderError(
                f"provider check failed, config not written: {check['error']}",
                provider_check=check,
            )
    path = cfg.write_managed(planned)
    loaded = cfg.read_config_file(path, "managed")
    env = environment()
    return {
        "action": "write",
        "config": describe(loaded),
        "credential": _key_summary(loaded.provider),
        **env,
        "written": {"path": str(path), "mode": mode, "key_stored_in_keyring": stored},
        "notes": notes,
        "provider_check": check,
    }


def probe(c: ProviderConfig) -> dict[str, Any]:
    """Embed one short text with ``c`` and say how it went: ok, dimension, latency, models.

    Never raises for a provider failure: the error (already free of any key) is reported."""
    out: dict[str, Any] = {"mode": c.mode, "model": c.model, "url": c.url, "ok": False}
    if c.mode == "bm25":
        out.update(ok=True, detail="bm25 uses no embedding provider", dimension=None)
        return out
    from znt.index.embed import make_embedder

    started = time.monotonic()
    try:
        embedder = make_embedder(c)
        assert embedder is not None
        if c.mode in ("ollama", "gemini"):
            from znt.index.embed.remote import RemoteEmbedder

            assert isinstance(embedder, RemoteEmbedder)
            models = embedder.list_models()
            out["models"] = models[:50]
            name = (c.model or "").removeprefix("models/")
            out["model_listed"] = name in models or f"{name}:latest" in models
        vectors = embedder.embed(["znt provider check"], "query")
    except ProviderError as exc:
        out["error"] = exc.message
    except ImportError as exc:
        ours = (exc.name or "").startswith("znt")
        out["error"] = f"the {c.mode} provider cannot load ({exc.name or exc})" + (
            "" if ours else "; pip install 'znt[embed]'"
        )
    except Exception as exc:  # a provider library failing in its own way: reported, not raised
        from znt.secrets import redact

        out["error"] = f"the {c.mode} provider failed: {type(exc).__name__}: {redact(str(exc))}"
    else:
        out.update(ok=True, dimension=int(vectors.shape[1]))
    out["latency_ms"] = round((time.monotonic() - started) * 1000, 1)
    return out


def status(check_provider: bool = False) -> SetupStatusBody:
    """Config, credential presence (yes/no) and, with ``check_provider``, a live probe."""
    loaded = cfg.load_config()
    c = loaded.provider
    cred = _key_summary(c)
    env = environment()
    problems: list[str] = []
    if c.mode == "local" and not env["embed_extra"]:
        problems.append("provider local needs the embed extra: pip install 'znt[embed]'")
    if cred["configured"] and not cred["present"]:
        where = (
            f"environment variable {cred['reference']} is not set"
            if cred["kind"] == "env"
            else f"no key found under {cred['reference']}"
            + ("" if env["keyring"]["available"] else " (no OS keyring backend on this machine)")
        )
        problems.append(f"key missing: {where}")
    check = probe(c) if check_provider else None
    if check is not None and not check["ok"]:
        problems.append(f"provider check failed: {check['error']}")
    return {
        "config": describe(loaded),
        "credential": cred,
        **env,
        "ready": not problems,
        "problems": problems,
        "provider_check": check,
    }
