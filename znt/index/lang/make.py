"""Makefiles: rule targets, variables, and ``include``d makefiles."""

from __future__ import annotations

import posixpath

from znt.index.languages import Candidate, ImportRef, LanguageSpec


def local_name(imp: ImportRef) -> str:
    return imp.module


def import_candidates(path: str, imp: ImportRef) -> list[Candidate]:
    # make reads an include from the folder it runs in: the one of the including makefile.
    target = posixpath.normpath(posixpath.join(posixpath.dirname(path), imp.module))
    return [] if target.startswith("../") or posixpath.isabs(target) else [Candidate(target)]


SPEC = LanguageSpec(
    name="make",
    grammar="make",
    extensions=(".mk",),
    filenames=("Makefile", "makefile", "GNUmakefile"),
    resource=True,
    grammar_limit="GNU make syntax such as conditionals and define blocks is partly outside it",
    uppercase_constants=False,
    local_name=local_name,
    import_candidates=import_candidates,
)
