"""Rust: modules are files of a crate's ``src/`` tree; ``mod x;`` and ``use`` paths map to
them by Rust's own module rules.

``mod x;`` in ``src/main.rs`` (or ``lib.rs``, a ``mod.rs``, a ``tests/`` file) declares
``src/x.rs`` or ``src/x/mod.rs``; in ``src/a.rs`` it declares ``src/a/x.rs`` or
``src/a/x/mod.rs``. ``use crate::a::b::C;`` maps to the module ``src/a/b/C.rs`` (a module
named ``C``) or to ``src/a/b.rs`` / ``src/a/b/mod.rs`` with member ``C``; ``self::`` and
``super::`` paths are resolved from the importing file's module the same way.

Deliberately not mapped (they become dependency nodes): an item of the crate root
(``use crate::Config;``: ``src/lib.rs`` or ``src/main.rs``?), un-prefixed paths in a crate
root (``use config::X;`` in ``main.rs`` may name the ``config`` crate while ``src/config.rs``
belongs to ``lib.rs``) unless the file declares that module itself (``mod config;``: then
``use config::X;`` is ``X`` of the module the declaration binds), and ``crate::`` paths of
``src/bin/`` crates.
"""

from __future__ import annotations

import posixpath

from znt.index.languages import Candidate, ImportRef, LanguageSpec

_ROOT_DIRS = ("tests", "examples", "benches", "bin")


def _src_split(path: str) -> tuple[str, list[str]] | None:
    """``(crate src folder, path parts below it)`` of a file under a crate's ``src/``."""
    parts = path.split("/")
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] == "src":
            return "/".join(parts[: i + 1]), parts[i + 1 :]
    return None


def _module_path(path: str) -> tuple[str, list[str]] | None:
    """``(crate src folder, module segments)``: ``src/a/b.rs`` -> ``["a", "b"]``,
    ``src/a/mod.rs`` -> ``["a"]``, ``src/main.rs`` -> ``[]``; ``None`` outside ``src/`` and
    for the separate crates of ``src/bin/``."""
    split = _src_split(path)
    if split is None:
        return None
    src, rel = split
    if not rel or rel[0] == "bin" or not rel[-1].endswith(".rs"):
        return None
    if len(rel) == 1 and rel[0] in ("main.rs", "lib.rs"):
        return src, []
    if rel[-1] == "mod.rs":
        return src, rel[:-1]
    return src, [*rel[:-1], rel[-1][:-3]]


def _is_root_like(path: str) -> bool:
    """A file whose child modules sit next to it: a crate root or a ``mod.rs``."""
    parts = path.split("/")
    if parts[-1] in ("main.rs", "lib.rs", "mod.rs", "build.rs"):
        return True
    return len(parts) >= 2 and parts[-2] in _ROOT_DIRS


def _child_dir(path: str) -> str:
    """The folder holding the files of the modules a file declares with ``mod x;``."""
    if _is_root_like(path):
        return posixpath.dirname(path)
    return path[:-3] if path.endswith(".rs") else path


def module_name(path: str) -> str:
    """The module path inside its crate (``src/store/cache.rs`` -> ``store.cache``); a crate
    root is named by its file (``main``, ``lib``); other files by their path."""
    stem = path[:-3] if path.endswith(".rs") else path.rsplit(".", 1)[0]
    mod = _module_path(path)
    if mod is not None:
        return ".".join(mod[1]) or posixpath.basename(stem)
    split = _src_split(stem)
    parts = split[1] if split is not None else stem.split("/")
    return ".".join(parts) or stem


def _is_mod_decl(imp: ImportRef) -> bool:
    # `mod x;` is captured with the name as module and alias (a `use` never says `x as x`).
    return imp.name is None and imp.alias == imp.module and "::" not in imp.module


def local_name(imp: ImportRef) -> str:
    if imp.alias:
        return imp.alias
    if imp.name and imp.name != "self":
        return imp.name.rsplit("::", 1)[-1]
    return imp.module.rsplit("::", 1)[-1]


def _files(folder: str) -> list[str]:
    return [f"{folder}.rs", f"{folder}/mod.rs"]


def import_candidates(path: str, imp: ImportRef) -> list[Candidate]:
    if _is_mod_decl(imp):
        base = posixpath.join(_child_dir(path), imp.module)
        return [Candidate(p) for p in _files(base)]
    segs = [s for s in imp.module.split("::") if s]
    if imp.name and imp.name not in ("*", "self"):
        segs += [s for s in imp.name.split("::") if s]
    if not segs or not all(s.replace("_", "a").isalnum() for s in segs):
        return []
    mod = _module_path(path)
    head = segs[0]
    if head == "crate":
        if mod is None:
            return []
        folder, rest, at_root = mod[0], segs[1:], True
    elif head == "super":
        if mod is None:
            return []
        ups = 0
        while ups < len(segs) and segs[ups] == "super":
            ups += 1
        if ups > len(mod[1]):
            return []
        kept = mod[1][: len(mod[1]) - ups]
        folder, rest, at_root = "/".join([mod[0], *kept]), segs[ups:], not kept
    elif head == "self":
        folder, rest, at_root = _child_dir(path), segs[1:], False
    else:
        # An un-prefixed path names a child module of the importing one or another crate;
        # only a module file (not a crate root, whose folder a lib and a bin share) is sure.
        # Elsewhere ``use util::f;`` names the module ``util`` only when the file itself
        # binds that name to a project file (``mod util;``): a ``via`` candidate.
        if mod is None or not mod[1]:
            return [Candidate(head, mode="via", member=segs[1])] if len(segs) == 2 else []
        folder, rest, at_root = _child_dir(path), segs, False
    if not rest:
        if at_root or head == "self":
            return []
        return [Candidate(p) for p in _files(folder)]
    out = [Candidate(p) for p in _files("/".join([folder, *rest]))]
    if len(rest) >= 2:
        out += [Candidate(p, member=rest[-1]) for p in _files("/".join([folder, *rest[:-1]]))]
    elif not at_root and head == "super":
        out += [Candidate(p, member=rest[0]) for p in _files(folder)]
    return out


SPEC = LanguageSpec(
    name="rust",
    grammar="rust",
    extensions=(".rs",),
    exclude=("target/",),
    entrypoints=("main.rs", "src/bin/*.rs", "build.rs"),
    tests=("tests/", "*_test.rs", "*_tests.rs"),
    self_names=("self", "Self"),
    constructor_names=(),
    class_scope_visible=False,
    docstrings=False,
    comment_types=("line_comment", "block_comment"),
    wrapper_types=(),
    body_fields=("body",),
    module_name=module_name,
    local_name=local_name,
    import_candidates=import_candidates,
)
