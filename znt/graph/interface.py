"""What the edges of other files read from a file: its interface, as one digest per file.

An incremental scan re-derives the edges of a changed file and, because their calls may
now resolve differently, those of every file that could see it (``resolve._set_scope``):
for a module the whole project imports, that is almost every file. But the edges of those
other files read only some of a file's rows: its path, folder, module name and language;
its symbols' names, kinds, owners and ids (and the signatures of the languages whose rules
read types from them); the order of its bases; what it returns, exports and declares, its
stub methods, its decorators and the wrappers its decorators return; its
import candidates (re-exports are followed through them); and its own ``inherits``,
``implements`` and ``imports`` edges (class hierarchies and include graphs). An edit that
leaves all of that as it was (a function's body, a comment, a docstring, code moved down a
few lines) cannot change another file's edges, so only the file's own edges are re-derived.

``row_digests`` digests the first part; ``resolve.rebuild_edges`` compares the file's own
new edges of those kinds with the old ones and, if they differ, widens the scope as for any
other change. A rule in ``resolve`` that starts reading another column of another file's
rows must be reflected here, or an incremental scan would differ from a clean one (tests/test_incremental_*.py).

``row_digests`` also gives a second digest per file: of every row the resolver reads of the
file itself (``INPUT_TABLES``, all their columns but ``UNREAD_COLUMNS``). A file's edges are
a function of its own rows and of the rest of the index; when both digests of every changed
file are what they were (a comment or docstring edited in place, text appended after the
last line), no edge of the index can come out different and the scan derives none
(tests/test_unread_columns.py changes the unread columns of every fixture file and checks
that a full rebuild gives the same edges).

Both are computed by the parse worker from the rows it writes (``row_digests``, handed to
``parse_files`` by the scan: storage knows nothing of what the resolver reads) and stored
with the file (``files.interface_digest``, ``files.inputs_digest``), so a rescan compares an
edit's digests with the stored ones without a query over the changed files' rows, and
before touching the index at all.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from operator import itemgetter
from typing import Any

# Reference kinds other files' edges read: bases (in order), returned functions, exported
# and declared names, stub methods, decorators, the wrappers decorators return and the
# objects a JavaScript function mixes into what it returns, and a JavaScript function's
# other names.
REF_KINDS = (
    "inherits",
    "implements",
    "returns",
    "exports",
    "declares",
    "abstract",
    "decorated",
    "wraps",
    "mixes",
    "aliases",
)


def _signature_languages() -> list[str]:
    """Languages whose rules read another file's signatures: declared results and field
    types (packages, method sets, chains of declared types: znt/graph/typechains.py),
    file-local definitions (includes)."""
    from znt.graph import resolve

    return sorted(
        set(resolve._package_scope_languages())
        | set(resolve._method_set_languages())
        | set(resolve._typed_member_languages())
        | set(resolve._include_languages())
    )


# The tables the resolver reads a file's own rows from, and their columns that no rule
# reads: what a line appended at the end, or an edited comment or docstring, changes of the
# rows (a symbol's end, its offset in bytes, its docstring and search card; the file's size,
# hash and line count).
INPUT_TABLES = ("files", "symbols", "refs", "imports", "import_candidates")
UNREAD_COLUMNS = {
    "files": (
        "size",
        "mtime_ns",
        "hash",
        "lines",
        "interface_digest",
        "inputs_digest",
        "rows_digest",
    ),
    "symbols": ("end_line", "start_byte", "end_byte", "doc", "card"),
}


def _read_positions(table: str) -> tuple[int, ...]:
    """Where the columns of ``table`` that some rule reads sit in its rows (all but the
    file key and ``UNREAD_COLUMNS``)."""
    from znt.index.store import TABLES

    key = "path" if table == "files" else "file"
    skip = {key, *UNREAD_COLUMNS.get(table, ())}
    return tuple(i for i, (name, _type) in enumerate(TABLES[table]) if name not in skip)


@lru_cache(maxsize=1)
def _getters() -> dict[str, Callable[[Sequence[Any]], Any]]:
    return {table: itemgetter(*_read_positions(table)) for table in INPUT_TABLES}


@lru_cache(maxsize=1)
def _signed() -> frozenset[str]:
    return frozenset(_signature_languages())


# A symbol's interface: its names, type, kind, owner, language and id, and its signature in
# the languages whose rules read one (``_signature_languages``).
_SYMBOL_FACE = itemgetter(2, 3, 4, 5, 6, 14, 0)
_SIGNED_SYMBOL_FACE = itemgetter(2, 3, 4, 5, 6, 14, 0, 11)
_BASES = ("inherits", "implements")


def row_digests(rows: Mapping[str, Sequence[Sequence[Any]]]) -> tuple[str, str]:
    """The two digests of one file (its interface, its rows as the resolver reads them) from
    the rows a parse worker writes: ``rows`` maps each of ``INPUT_TABLES`` to the file's
    rows, each in the order of ``store.TABLES`` (a ``files`` row may stop before the digest
    columns).

    The interface is: the file's folder, language and module name; each symbol's id, names,
    type, kind, owner and language (its signature where ``_signature_languages`` read
    one); its references of ``REF_KINDS`` without their position, but with the order of
    its bases; its import candidates with their order rather than their lines.

    The rows are digested in the order the worker made them, which is a function of the
    file's content: the same content gives the same digests, and rows that only moved
    (two functions swapped) give other ones, which costs a wider rebuild, never a wrong
    one). Each table's read columns are one ``itemgetter`` mapped over its rows; the
    whole digest costs a worker about 0.23 ms per file on sympy."""
    files, symbols = rows.get("files", ()), rows.get("symbols", ())
    refs, candidates = rows.get("refs", ()), rows.get("import_candidates", ())
    signed = bool(symbols) and symbols[0][14] in _signed()
    face: list[list[Any]] = [[(f[1], f[2], f[9]) for f in files]]
    face.append(list(map(_SIGNED_SYMBOL_FACE if signed else _SYMBOL_FACE, symbols)))
    rank: dict[tuple[str, str], int] = {}
    kept = []
    for r in sorted((r for r in refs if r[2] in REF_KINDS), key=itemgetter(4, 5)):
        if r[2] in _BASES:
            n = rank[r[1], r[2]] = rank.get((r[1], r[2]), 0) + 1
        else:
            n = 0
        kept.append((r[2], r[1], r[3], r[7], r[8], n))
    face.append(kept)
    order = {line: n for n, line in enumerate(sorted({c[1] for c in candidates}))}
    face.append([(order[c[1]], *c[2:7]) for c in candidates])
    getters = _getters()
    read = [list(map(getters[table], rows.get(table, ()))) for table in INPUT_TABLES]
    return _digest(face), _digest(read)


def _digest(parts: list[list[Any]]) -> str:
    """Pickled rather than ``repr``'d (2.6 times faster on sympy's rows). A pickle also
    records which equal strings are one object; the extraction shares them the same way
    for the same content, and if it did not, the cost would be a wider rebuild."""
    return hashlib.blake2b(pickle.dumps(parts, protocol=5), digest_size=16).hexdigest()
