"""Text that came from a repository, made safe to show: control characters escaped for a
terminal, and code fenced so that it cannot close its own fence.

A file name can hold ESC (a terminal would obey it) or a newline (it would forge a line of
output), and source text can hold a fence followed by a fake answer. ``escape_doc`` escapes
control characters in every string of a document before a text renderer sees it (newlines
kept only in the values that are multi-line by nature, such as code), and ``fence`` returns a
backtick fence longer than any backtick run in the text it encloses (CommonMark's rule).
"""

from __future__ import annotations

import re
from typing import Any

# C0 and C1 controls, DEL, and the bidirectional overrides that reorder what a reader sees.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_CONTROLS_KEEP_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

# Values that are several lines by nature; everything else is shown on one line.
MULTILINE_KEYS = frozenset(
    {"code", "doc", "docstring", "signature", "description", "formatted_text", "text"}
)


def _escape(match: re.Match[str]) -> str:
    c = match.group(0)
    if c in _NAMED:
        return _NAMED[c]
    code = ord(c)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with control characters written as escapes (``\\x1b``, ``\\n``)."""
    pattern = _CONTROLS_KEEP_LINES if keep_newlines else _CONTROLS
    return pattern.sub(_escape, text)


def escape_doc(value: Any, key: str | None = None) -> Any:
    """A copy of ``value`` with ``escape_controls`` applied to every string in it."""
    if isinstance(value, str):
        return escape_controls(value, keep_newlines=key in MULTILINE_KEYS)
    if isinstance(value, dict):
        return {k: escape_doc(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [escape_doc(v, key) for v in value]
    return value


_BACKTICKS = re.compile("`+")


def fence(text: str) -> str:
    """A backtick fence for ``text``: at least three, and longer than its longest run."""
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    return "`" * max(3, longest + 1)
