"""The user's embedding-provider config: where it lives, what it may say, how it is read.

Two files can hold it (DESIGN §6):

* the *managed* config, ``platformdirs.user_config_dir("znt")/config.yaml``, written only by
  ``znt setup`` (atomically, mode 0600);
* an *external* config named by ``ZNT_CONFIG``: read and validated, never written.

Without either, the provider is ``local`` when the ``embed`` extra is installed and ``bm25``
otherwise. A key is never part of the file: only a reference to it (``token_env``, the name of
an environment variable, or ``token_ref``, an entry in the OS keyring). A plaintext key in the
file is refused, and no message here ever repeats a value that might be a key.
"""

from __future__ import annotations

import contextlib
import importlib.util
import ipaddress
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from znt.errors import UsageError, ZntError

MODES = ("bm25", "local", "ollama", "openai", "gemini")
DEFAULT_LOCAL_MODEL = "sentence-transformers/all-MiniLM-L6-v2"


class ProviderError(ZntError):
    """The embedding provider failed (unreachable, bad answer, model missing).

    Messages name the provider, URL and model, never a key."""

    code = "provider_error"


@dataclass(frozen=True)
class ProviderConfig:
    """Which provider embeds, resolved from the config files (``znt.config``).

    ``token_env``/``token_ref`` name where the key lives; the key itself is never held here.
    ``source`` says where the settings came from (``default``, ``managed``, ``ZNT_CONFIG``)."""

    mode: str = "bm25"
    model: str | None = None
    url: str | None = None
    token_env: str | None = None
    token_ref: str | None = None
    timeout_s: float = 60.0
    batch_size: int = 64
    max_batch_bytes: int = 32768
    source: str = "default"
    # The user opted in to a provider in a private network range (znt/urlpolicy.py).
    allow_private_url: bool = False


ENV_CONFIG = "ZNT_CONFIG"
DEFAULT_OLLAMA_URL = "http://localhost:11434"
DEFAULT_OLLAMA_MODEL = "nomic-embed-text"
DEFAULT_OPENAI_URL = "https://api.openai.com/v1"
DEFAULT_OPENAI_MODEL = "text-embedding-3-small"
DEFAULT_GEMINI_URL = "https://generativelanguage.googleapis.com/v1beta"
DEFAULT_GEMINI_MODEL = "gemini-embedding-001"
DEFAULT_URLS = {
    "ollama": DEFAULT_OLLAMA_URL,
    "openai": DEFAULT_OPENAI_URL,
    "gemini": DEFAULT_GEMINI_URL,
}
DEFAULT_MODELS = {
    "local": DEFAULT_LOCAL_MODEL,
    "ollama": DEFAULT_OLLAMA_MODEL,
    "openai": DEFAULT_OPENAI_MODEL,
    "gemini": DEFAULT_GEMINI_MODEL,
}
REMOTE_MODES = ("ollama", "openai", "gemini")
KEYRING_SCHEME = "znt-keyring://"
ENABLE_EMBEDDINGS_NOTICE = (
    "embeddings are off (provider bm25): to enable them, "
    "pip install 'znt[embed]' then run `znt setup --mode local`"
)

_KNOWN_TOP = {"embedding"}
_KNOWN_EMBEDDING = {
    "provider",
    "model",
    "url",
    "token_env",
    "token_ref",
    "timeout_seconds",
    "batch_size",
    "max_batch_bytes",
    "allow_private_url",
}
# Keys under which people put a key itself; refused, and their value is never shown.
_PLAINTEXT_KEYS = {"token", "api_key", "apikey", "key", "secret", "password"}
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_REF = re.compile(r"^znt-keyring://([A-Za-z0-9._-]+)/([A-Za-z0-9._@:-]+)$")
_MAX_BATCH_SIZE = 4096
_MIN_BATCH_BYTES = 256


class ConfigError(UsageError):
    """The config file cannot be used as it is (exit 2); the message names file and key."""

    code = "invalid_config"


@dataclass(frozen=True)
class LoadedConfig:
    """A resolved provider config plus what the user should know about where it came from."""

    provider: ProviderConfig
    path: Path | None  # the file read, or None for the built-in default
    source: str  # "managed" | "ZNT_CONFIG" | "default"
    warnings: tuple[str, ...] = ()
    notice: str | None = None  # the one-line "how to enable embeddings" hint for bm25 default


def managed_path() -> Path:
    """Where ``znt setup`` writes (platformdirs honours XDG_CONFIG_HOME on Linux)."""
    import platformdirs

    return Path(platformdirs.user_config_dir("znt")) / "config.yaml"


def external_path() -> Path | None:
    """The file ``ZNT_CONFIG`` names, if it is set (expanded, not resolved)."""
    value = os.environ.get(ENV_CONFIG)
    return Path(value).expanduser() if value else None


def embed_extra_installed() -> bool:
    """Whether the ``embed`` extra is importable, found without importing it (that costs ~1 s)."""
    return all(
        importlib.util.find_spec(name) is not None
        for name in ("onnxruntime", "sentence_transformers")
    )


def default_config() -> LoadedConfig:
    """What znt uses with no config file at all."""
    if embed_extra_installed():
        return LoadedConfig(
            ProviderConfig(mode="local", model=DEFAULT_LOCAL_MODEL), None, "default"
        )
    return LoadedConfig(
        ProviderConfig(mode="bm25"), None, "default", notice=ENABLE_EMBEDDINGS_NOTICE
    )


def parse_keyring_ref(ref: str) -> tuple[str, str]:
    """``znt-keyring://service/name`` -> ``(service, name)``; a ConfigError otherwise."""
    m = _REF.match(ref)
    if not m:
        raise ConfigError(
            "token_ref must look like znt-keyring://SERVICE/NAME "
            "(a reference into the OS keyring, not the key itself)"
        )
    return m.group(1), m.group(2)


def check_env_name(name: str, where: str = "token_env") -> str:
    """An environment variable *name*; the value is not echoed in case it is the key itself."""
    if not _ENV_NAME.match(name):
        raise ConfigError(
            f"{where} must be the NAME of an environment variable (letters, digits, _), "
            "not the key itself; the value given is not shown"
        )
    return name


def check_url(url: str, where: str = "url", *, allow_private: bool = False) -> str:
    """An http(s) URL without credentials in it, to a host znt may talk to
    (znt/urlpolicy.py); returned without a trailing slash."""
    from znt.urlpolicy import RefusedURL, check_host

    try:
        parts = urlsplit(url)
    except ValueError:
        raise ConfigError(f"{where} is not a valid URL") from None
    if parts.username is not None or parts.password is not None:
        # The URL itself may carry a key: do not repeat it.
        raise ConfigError(
            f"{where} must not contain credentials (user:password@); "
            "use --token-env VAR or --token-stdin for the key"
        )
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{where} must be an http:// or https:// URL with a host, got {url!r}")
    try:
        check_host(parts.hostname, allow_private=allow_private)
    except RefusedURL as exc:
        raise ConfigError(f"{where}: {exc}") from None
    return url.rstrip("/")


def is_loopback(url: str) -> bool:
    """True when ``url`` points at this machine (no data leaves it)."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _positive(value: Any, name: str, where: str, *, integer: bool) -> Any:
    number = isinstance(value, int) or (not integer and isinstance(value, float))
    if isinstance(value, bool) or not number or value <= 0:
        what = "a positive integer" if integer else "a positive number"
        raise ConfigError(f"{where}: embedding.{name} must be {what}, got {value!r}")
    return value


def parse_config(data: Any, where: str, source: str) -> tuple[ProviderConfig, list[str]]:
    """Validate a parsed YAML document; returns the config and warnings (unknown keys)."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping at the top level")
    warnings = [
        f"{where}: unknown key {k!r} ignored (known: {sorted(_KNOWN_TOP)})"
        for k in data
        if k not in _KNOWN_TOP
    ]
    emb = data.get("embedding")
    if emb is None:
        raise ConfigError(f"{where}: no 'embedding' section; run `znt setup --mode ...`")
    if not isinstance(emb, dict):
        raise ConfigError(f"{where}: 'embedding' must be a mapping")
    plaintext = sorted(str(k) for k in emb if str(k).lower() in _PLAINTEXT_KEYS)
    if plaintext:
        raise ConfigError(
            f"{where}: embedding.{plaintext[0]} holds a key in plain text, which znt refuses; "
            "remove it and run `znt setup --mode MODE --token-stdin` (OS keyring) or "
            "`znt setup --mode MODE --token-env VAR` (environment variable)"
        )
    warnings += [
        f"{where}: unknown key 'embedding.{k}' ignored (known: {sorted(_KNOWN_EMBEDDING)})"
        for k in emb
        if k not in _KNOWN_EMBEDDING
    ]
    provider = emb.get("provider")
    if not isinstance(provider, str) or provider not in MODES:
        raise ConfigError(
            f"{where}: embedding.provider must be one of {', '.join(MODES)}, got {provider!r}"
        )
    for key in ("model", "url", "token_env", "token_ref"):
        value = emb.get(key)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            # Not echoed: a misplaced key could be sitting under any of these names.
            raise ConfigError(f"{where}: embedding.{key} must be a non-empty string")
    model = emb.get("model")
    url = emb.get("url")
    token_env = emb.get("token_env")
    token_ref = emb.get("token_ref")
    allow_private = emb.get("allow_private_url", False)
    if not isinstance(allow_private, bool):
        raise ConfigError(f"{where}: embedding.allow_private_url must be true or false")
    try:
        if url is not None:
            url = check_url(url, "embedding.url", allow_private=allow_private)
        if token_env is not None:
            check_env_name(token_env, "embedding.token_env")
        if token_ref is not None:
            parse_keyring_ref(token_ref)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc.message}") from None
    if token_env and token_ref:
        raise ConfigError(
            f"{where}: set either embedding.token_env or embedding.token_ref, not both"
        )
    if provider in REMOTE_MODES:
        if model is None:
            raise ConfigError(
                f"{where}: embedding.model is required for provider {provider} "
                f"(for example {DEFAULT_MODELS[provider]})"
            )
        url = url or DEFAULT_URLS[provider]
    elif provider == "local":
        model = model or DEFAULT_LOCAL_MODEL
    timeout = _positive(emb.get("timeout_seconds", 60), "timeout_seconds", where, integer=False)
    batch_size = _positive(emb.get("batch_size", 64), "batch_size", where, integer=True)
    if batch_size > _MAX_BATCH_SIZE:
        raise ConfigError(f"{where}: embedding.batch_size must be at most {_MAX_BATCH_SIZE}")
    max_bytes = _positive(emb.get("max_batch_bytes", 32768), "max_batch_bytes", where, integer=True)
    if max_bytes < _MIN_BATCH_BYTES:
        raise ConfigError(f"{where}: embedding.max_batch_bytes must be at least {_MIN_BATCH_BYTES}")
    config = ProviderConfig(
        mode=provider,
        model=model,
        url=url,
        token_env=token_env,
        token_ref=token_ref,
        timeout_s=float(timeout),
        batch_size=int(batch_size),
        max_batch_bytes=int(max_bytes),
        source=source,
        allow_private_url=allow_private,
    )
    return config, warnings


def read_config_file(path: Path, source: str) -> LoadedConfig:
    """Read and validate one config file (a ConfigError names the file and the problem)."""
    import yaml

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file {path}: {type(exc).__name__}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}" if mark is not None else ""
        # The YAML error text quotes the source line, which could hold a key: not shown.
        raise ConfigError(f"{path}: not valid YAML{at}") from None
    config, warnings = parse_config(data, str(path), source)
    return LoadedConfig(config, path, source, tuple(warnings))


def load_config() -> LoadedConfig:
    """``ZNT_CONFIG`` if set (it must exist), else the managed file if present, else defaults."""
    ext = external_path()
    if ext is not None:
        if not ext.is_file():
            raise ConfigError(f"{ENV_CONFIG} names {ext}, which is not a file")
        return read_config_file(ext, ENV_CONFIG)
    managed = managed_path()
    if managed.is_file():
        return read_config_file(managed, "managed")
    return default_config()


def load_provider_config(notice: Callable[[str], None] | None = None) -> ProviderConfig:
    """The provider config the scan and the search use; warnings and the bm25 notice go to
    ``notice`` when given."""
    loaded = load_config()
    if notice is not None:
        for w in loaded.warnings:
            notice(w)
        if loaded.notice:
            notice(loaded.notice)
    return loaded.provider


def to_yaml_dict(config: ProviderConfig) -> dict[str, Any]:
    """The ``embedding`` section for ``config``, only the keys that mean something for its mode."""
    emb: dict[str, Any] = {"provider": config.mode}
    if config.mode != "bm25":
        emb["model"] = config.model
    if config.mode in REMOTE_MODES:
        emb["url"] = config.url
        if config.token_env:
            emb["token_env"] = config.token_env
        if config.token_ref:
            emb["token_ref"] = config.token_ref
        t = config.timeout_s
        emb["timeout_seconds"] = int(t) if float(t).is_integer() else t
        emb["batch_size"] = config.batch_size
        emb["max_batch_bytes"] = config.max_batch_bytes
        if config.allow_private_url:
            emb["allow_private_url"] = True
    return {"embedding": emb}


_HEADER = (
    "# znt user config, written by `znt setup` (run it again to change this file).\n"
    "# No key is stored here: token_env names an environment variable, token_ref an OS\n"
    "# keyring entry.\n"
)


def write_managed(config: ProviderConfig, path: Path | None = None) -> Path:
    """Write the managed config atomically with mode 0600 and return its path.

    Refuses when ``ZNT_CONFIG`` is set: that file is the user's, and writing the managed one
    instead would silently have no effect."""
    import yaml

    ext = external_path()
    if ext is not None:
        raise ConfigError(
            f"{ENV_CONFIG} is set ({ext}): znt reads that file but never writes it; "
            f"edit it yourself, or unset {ENV_CONFIG} to let `znt setup` write {managed_path()}"
        )
    target = path or managed_path()
    text = _HEADER + yaml.safe_dump(to_yaml_dict(config), sort_keys=False)
    # Round trip: what we write must read back as the same config.
    parse_config(yaml.safe_load(text), str(target), "managed")
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(prefix=".config.", suffix=".tmp", dir=target.parent)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return target
