"""Errors that carry their exit code, so every front end reports them the same way.

The CLI maps ``ZntError.exit_code`` to the process exit status (DESIGN §5); the MCP server
maps ``ZntError.code`` to a tool error. Anything that is not a ``ZntError`` is an internal
failure (exit 5).
"""

from __future__ import annotations

from typing import Any

EXIT_OK = 0
EXIT_NOTHING_FOUND = 1
EXIT_USAGE = 2
EXIT_INDEX = 3
EXIT_NOT_FOUND = 4
EXIT_FAILURE = 5


class ZntError(Exception):
    """A failure the user can act on; the message is shown without a traceback."""

    exit_code = EXIT_FAILURE
    code = "internal_error"

    def __init__(self, message: str, **data: Any) -> None:
        # Every error message passes here: a key a server echoed into it never goes further
        # (znt/redact.py).
        from znt.redact import redact, redact_data

        message = redact(message)
        super().__init__(message)
        self.message = message
        self.data = redact_data(data)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **self.data}


class UsageError(ZntError):
    exit_code = EXIT_USAGE
    code = "invalid_params"


class ScopeTooBig(UsageError):
    """``znt scan`` in a big folder that is not a repository (a home folder, /tmp), without
    the user's word that it is meant."""

    code = "scope_too_big"


class IndexMissing(ZntError):
    exit_code = EXIT_INDEX
    code = "index_missing"


class IndexIncompatible(ZntError):
    exit_code = EXIT_INDEX
    code = "index_incompatible"


class IndexCorrupt(ZntError):
    """The index file is damaged or is not a file znt wrote (truncated, overwritten, a
    folder or a link in its place); ``znt scan`` rebuilds it."""

    exit_code = EXIT_INDEX
    code = "index_corrupt"


class IndexStale(ZntError):
    """The index is older than the working tree and ``--stale-policy error`` was asked."""

    exit_code = EXIT_INDEX
    code = "index_stale"


class NotFound(ZntError):
    exit_code = EXIT_NOT_FOUND
    code = "not_found"


class Ambiguous(ZntError):
    exit_code = EXIT_NOT_FOUND
    code = "ambiguous"


class Busy(ZntError):
    exit_code = EXIT_FAILURE
    code = "busy"
