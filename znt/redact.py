"""The one place every message passes through on its way out: keys are replaced here.

A provider key is known to this process once it has been read (``znt.secrets.resolve_token``
calls ``remember``); from then on every message that leaves znt — an error (``ZntError``
redacts its own message and data), a scan log line, a line on stdout or stderr, an MCP result
— has each remembered key replaced, in every encoding a server or a formatter could have put
it in: plain, JSON ``\\u00XX`` escapes, ``\\xXX``, URL ``%XX`` encoding, HTML character
references, and a piece of it cut at either end (a message cut for length before it got here).
Text that merely looks like a key (``Authorization: ...``, ``api_key=...``, ``sk-...``) is
replaced too, for keys this process never read.

No imports from the rest of znt: ``znt.errors`` uses this module.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

REDACTED = "[REDACTED]"
# A piece of a key at least this long (and at least half of it) at the edge of a cut counts.
MIN_PIECE = 8

_PATTERNS = [
    re.compile(r"(?i)(authorization\s*[:=]\s*[\"']?\s*)(bearer|basic|token)?\s*[^\s\"',;}]+"),
    re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]{4,}"),
    re.compile(r"(?i)((?:api[_-]?key|token|secret|password)[\"']?\s*[:=]\s*[\"']?)[^\s\"',;}&]+"),
    re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_-]{8,}"),
]

_known: dict[str, re.Pattern[str]] = {}


def _char(c: str) -> str:
    """A regex for one character of a key in any of the encodings above."""
    code = ord(c)
    forms = [re.escape(c), rf"\\+u0*{code:x}", rf"&#0*{code};", rf"&#x0*{code:x};"]
    forms += [rf"\\+x{b:02x}" for b in c.encode("utf-8")][:1]
    utf8 = c.encode("utf-8")
    forms.append("".join(f"%{b:02x}" for b in utf8))
    if c == " ":
        forms.append(r"\+")
    return "(?:" + "|".join(forms) + ")"


def _pattern(secret: str) -> re.Pattern[str]:
    chars = [_char(c) for c in secret]
    whole = "".join(chars)
    piece = max(MIN_PIECE, (len(secret) + 1) // 2)
    pieces = []
    if len(secret) > piece:
        # A head of the key at the end of the text or before a cut mark, and a tail of it at
        # the start of the text or after one: what is left when a message was cut inside it.
        for n in range(len(secret) - 1, piece - 1, -1):
            pieces.append("".join(chars[:n]) + r"(?=$|\.\.\.|…|[\s\"'])")
            pieces.append(r"(?:(?<=^)|(?<=\.\.\.)|(?<=…)|(?<=[\s\"']))" + "".join(chars[-n:]))
    return re.compile("|".join([whole, *pieces]), re.IGNORECASE)


def remember(secret: str | None) -> None:
    """Redact ``secret`` from everything this process shows or writes from now on."""
    if secret and len(secret) >= 4 and secret not in _known:
        _known[secret] = _pattern(secret)


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with every remembered key (and ``secrets``), in any encoding, and every
    key-looking token replaced by ``[REDACTED]``."""
    if not text:
        return text
    for secret in secrets:
        remember(secret)
    for pattern in _known.values():
        text = pattern.sub(REDACTED, text)
    for pat in _PATTERNS:
        if pat.groups:
            text = pat.sub(lambda m: (m.group(1) or "") + REDACTED, text)
        else:
            text = pat.sub(REDACTED, text)
    return text


def scrub(text: str) -> str:
    """``text`` with every remembered key replaced, and nothing else: for whole outputs
    (stdout, an MCP result), where source code saying ``token = ...`` must stay as it is.
    Costs nothing while no key was read."""
    if not _known or not text:
        return text
    for pattern in _known.values():
        text = pattern.sub(REDACTED, text)
    return text


def redact_data(value: Any, *, messages: bool = True) -> Any:
    """``value`` (JSON-like data) with every string in it redacted (``messages``) or scrubbed
    of remembered keys only; other values as they are."""
    if not messages and not _known:
        return value
    if isinstance(value, str):
        return redact(value) if messages else scrub(value)
    if isinstance(value, dict):
        return {k: redact_data(v, messages=messages) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_data(v, messages=messages) for v in value]
    return value
