"""What gets embedded for a symbol: a bounded text built from what names and explains it.

One symbol gives one or more texts ("windows"), each hashed; a vector is stored once per
distinct text hash (table ``embeddings``), so an unchanged symbol is never embedded twice,
not even when it moves to another file or line. The text therefore contains nothing that
changes when unrelated code changes: no line numbers, no neighbours' bodies.

* function: its own source (signature, docstring and body) in windows of ``WINDOW_CHARS``
  (at most ``MAX_WINDOWS``; later windows repeat the signature), a method behind its class's
  name in words;
* declaration (class, struct, interface…): header, docstring, and the names of its members;
* module: the path, its docstring and the names of its top-level symbols.

Members (fields, constants), dependencies and resource-file keys are not embedded: their
name is all they have, and the lexical index finds names. Test functions (role ``test``) are
not embedded unless the project's ``znt.yaml`` sets ``embed_tests: true``: on sympy they
were 40 % of the embedding time, and a question in words is asked of the code under test
(docs/decisions/0024-test-functions-not-embedded.md); test modules and classes still are. See
docs/search.md.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

WINDOW_CHARS = 1000
MAX_WINDOWS = 3
DOC_CHARS = 600
MAX_NAMES = 60
EMBEDDED_TYPES = ("function", "declaration")
RESOURCE_LANGUAGES = frozenset({"markdown", "yaml", "json", "toml", "dockerfile", "make"})

_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_SPACE = re.compile(r"\s+")


def words(name: str) -> str:
    """``SemanticStore.searchFTS5`` -> ``semantic store search fts 5``."""
    return " ".join(
        p.lower() for chunk in re.split(r"[^A-Za-z0-9]+", name) for p in _PART.findall(chunk)
    )


def text_hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=12).hexdigest()


def _path_words(path: str) -> str:
    return path.rsplit(".", 1)[0].replace("/", " / ").replace("_", " ")


def embed_rows(
    path: str,
    language: str,
    symbols: Sequence[Sequence[Any]],
    source: bytes,
    tests: bool = False,
) -> list[tuple[str, str, int, str, str]]:
    """``embed_docs`` rows (file, sym, part, text_hash, text) for one file's symbols (rows in
    the order of store.TABLES["symbols"]); test functions only with ``tests``."""
    children: dict[str, list[str]] = defaultdict(list)
    for row in symbols:
        if row[6] is not None and row[4] != "dependency":
            children[row[6]].append(row[2] or "")
    out: list[tuple[str, str, int, str, str]] = []
    where = _path_words(path)
    for row in symbols:
        sym_id, name, qname, typ, kind = row[0], row[2] or "", row[3] or "", row[4], row[5]
        signature, doc = (row[11] or "").strip(), (row[12] or "").strip()[:DOC_CHARS]
        if kind == "module":
            names = ", ".join(children.get(sym_id, [])[:MAX_NAMES])
            texts = [
                _join(f"module {words(qname or name)}", where, doc, names and f"defines {names}")
            ]
        elif (
            typ not in EMBEDDED_TYPES
            or language in RESOURCE_LANGUAGES
            or (typ == "function" and row[13] == "test" and not tests)
        ):
            continue
        elif typ == "declaration":
            names = ", ".join(children.get(sym_id, [])[:MAX_NAMES])
            texts = [
                _join(f"{kind} {words(qname)}", signature, doc, where, names and f"members {names}")
            ]
        else:
            owner = qname.rsplit(".", 1)[0] if "." in qname else ""
            texts = _function_windows(row, source, words(owner), signature, doc)
        for i, text in enumerate(texts):
            out.append((path, sym_id, i, text_hash(text), text))
    return out


def _function_windows(
    row: Sequence[Any], source: bytes, owner: str, signature: str, doc: str
) -> list[str]:
    """The function's own source, white space collapsed, in windows. Measured on CoSQA dev
    with all-MiniLM-L6-v2: the bare source scores MRR 0.541, the same source behind a header
    of kind, name words, signature, docstring and path 0.518 (the header repeats what the
    source says and pushes the body past the model's 256 tokens). A method keeps its class's
    name in front, which the source alone does not show."""
    start_b, end_b = row[9], row[10]
    body = ""
    if start_b is not None and end_b is not None:
        limit = int(start_b) + WINDOW_CHARS * MAX_WINDOWS * 2
        body = source[int(start_b) : min(int(end_b), limit)].decode("utf-8", "replace")
        body = _SPACE.sub(" ", body).strip()
    if not body:
        body = _join(signature, doc)
    prefix = f"{owner}: " if owner else ""
    texts = [prefix + body[:WINDOW_CHARS]]
    rest = body[WINDOW_CHARS:]
    while rest and len(texts) < MAX_WINDOWS:
        piece, rest = rest[:WINDOW_CHARS], rest[WINDOW_CHARS:]
        if len(piece.strip()) < 80:
            break
        texts.append(_join(prefix + signature, piece))
    return texts


def _join(*parts: str) -> str:
    """One line: the embedding models' tokenizers treat every run of white space alike, and
    so the text stays small and CSV-safe."""
    return _SPACE.sub(" ", " | ".join(p for p in parts if p)).strip()
