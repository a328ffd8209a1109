"""Where a provider key comes from, and how it is kept out of everything znt shows or writes.

A key is only ever *referenced* by the config (DESIGN §6): ``token_env`` names an environment
variable read at use time, ``token_ref`` (``znt-keyring://SERVICE/NAME``) names an OS keyring
entry. ``znt setup --token-stdin`` stores a key in the keyring; there is no way to pass one as
a command-line value or an MCP argument. Error messages name the variable or the reference,
never the value, and ``redact`` scrubs text that came back from a server before it is shown.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from znt.config import KEYRING_SCHEME, ProviderConfig, ProviderError, parse_keyring_ref
from znt.errors import EXIT_FAILURE, ZntError
from znt.redact import REDACTED as REDACTED
from znt.redact import redact as _redact
from znt.redact import remember

KEYRING_SERVICE = "znt"


class KeyringUnavailable(ZntError):
    """No usable OS keyring on this machine (exit 5); the fix is ``--token-env VAR``."""

    exit_code = EXIT_FAILURE
    code = "keyring_unavailable"


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with every known secret and every secret-looking token replaced (the work is
    znt/redact.py's, where every outgoing message passes)."""
    return _redact(text, secrets)


def keyring_ref(mode: str) -> str:
    """The reference ``znt setup --token-stdin`` stores a key under, one per provider mode."""
    return f"{KEYRING_SCHEME}{KEYRING_SERVICE}/{mode}"


def keyring_backend() -> dict[str, Any]:
    """Whether a keyring backend that can store secrets exists here, and which one."""
    try:
        import keyring
        from keyring.backends import chainer, fail
    except ImportError:
        return {"available": False, "backend": None, "reason": "the keyring package is missing"}
    try:
        kr = keyring.get_keyring()
    except Exception as exc:  # a broken backend configuration must not crash `setup status`
        return {"available": False, "backend": None, "reason": type(exc).__name__}
    name = f"{type(kr).__module__}.{type(kr).__name__}"
    unusable = isinstance(kr, fail.Keyring) or (
        isinstance(kr, chainer.ChainerBackend) and not kr.backends
    )
    if not unusable:
        try:
            from keyring.backends import null

            unusable = isinstance(kr, null.Keyring)
        except ImportError:
            pass
    if unusable:
        return {
            "available": False,
            "backend": name,
            "reason": "no OS keyring backend is available on this machine",
        }
    return {"available": True, "backend": name, "reason": None}


def require_keyring() -> None:
    """Raise ``KeyringUnavailable`` with the way out, before anyone types a key."""
    info = keyring_backend()
    if not info["available"]:
        raise KeyringUnavailable(
            f"cannot store the key: {info['reason']} ({info['backend'] or 'none'}); "
            "keep the key in an environment variable instead and run "
            "`znt setup --mode MODE --token-env VAR`"
        )


def store_in_keyring(ref: str, secret: str) -> None:
    """Store ``secret`` under ``ref``; failures name the reference and the error type only."""
    import keyring

    require_keyring()
    service, name = parse_keyring_ref(ref)
    try:
        keyring.set_password(service, name, secret)
    except Exception as exc:
        raise KeyringUnavailable(
            f"the OS keyring refused to store {ref} ({type(exc).__name__}); "
            "use `--token-env VAR` instead"
        ) from None


def _keyring_get(ref: str) -> str | None:
    import keyring

    service, name = parse_keyring_ref(ref)
    try:
        return keyring.get_password(service, name)
    except Exception as exc:
        raise ProviderError(
            f"cannot read {ref} from the OS keyring ({type(exc).__name__})", token_ref=ref
        ) from None


def resolve_token(config: ProviderConfig) -> str | None:
    """The key ``config`` refers to, read now; ``None`` when it refers to none.

    Raises ``ProviderError`` naming the variable or reference when it is missing."""
    if config.token_env:
        import os

        value = os.environ.get(config.token_env)
        if not value:
            raise ProviderError(
                f"the environment variable {config.token_env} (embedding.token_env) is not set "
                "or empty; export it, or run `znt setup` again",
                token_env=config.token_env,
            )
        remember(value)
        return value
    if config.token_ref:
        info = keyring_backend()
        if not info["available"]:
            raise ProviderError(
                f"the key {config.token_ref} is in the OS keyring, but {info['reason']}; "
                "run `znt setup --mode MODE --token-env VAR` to use an environment variable",
                token_ref=config.token_ref,
            )
        value = _keyring_get(config.token_ref)
        if not value:
            raise ProviderError(
                f"no key stored under {config.token_ref} in the OS keyring; "
                f"run `znt setup --mode {config.mode} --token-stdin` to store one",
                token_ref=config.token_ref,
            )
        remember(value)
        return value
    return None


def credential_status(config: ProviderConfig) -> dict[str, Any]:
    """Whether the configured key is there: yes or no, never the key."""
    if config.token_env:
        import os

        return {
            "configured": True,
            "kind": "env",
            "reference": config.token_env,
            "present": bool(os.environ.get(config.token_env)),
        }
    if config.token_ref:
        present: bool | None
        if keyring_backend()["available"]:
            try:
                present = bool(_keyring_get(config.token_ref))
            except ProviderError:
                present = None
        else:
            present = None
        return {
            "configured": True,
            "kind": "keyring",
            "reference": config.token_ref,
            "present": present,
        }
    return {"configured": False, "kind": None, "reference": None, "present": None}
