"""C: ``#include "x.h"`` maps to a project header, ``#include <x.h>`` is external.

The query cannot keep the quotes or angle brackets of an include path (the engine strips
them from the module text), so ``c.scm`` marks a system include by capturing its
``<path>`` spelling as ``@import.name``: an import whose name starts with ``<`` is a system
header and maps to no project file.
"""

from __future__ import annotations

import posixpath

from znt.index.languages import Candidate, ImportRef, LanguageSpec


def module_name(path: str) -> str:
    """``src/net/socket.c`` -> ``src.net.socket`` (the path without its extension)."""
    stem = path.rsplit(".", 1)[0] if "." in posixpath.basename(path) else path
    return stem.replace("/", ".")


def is_system_include(imp: ImportRef) -> bool:
    return bool(imp.name and imp.name.startswith("<"))


def local_name(imp: ImportRef) -> str:
    """An include binds no name: the include as written (never a C identifier)."""
    if is_system_include(imp):
        return imp.name or f"<{imp.module}>"
    return f'"{imp.module}"'


def import_candidates(path: str, imp: ImportRef) -> list[Candidate]:
    """``#include "x.h"``: the file next to the includer, else the one project file whose
    path ends with ``x.h``. ``#include <x.h>``: none (a system or library header)."""
    if is_system_include(imp):
        return []
    module = imp.module.strip()
    if not module or module.startswith("/"):
        return []
    out: list[Candidate] = []
    rel = posixpath.normpath(posixpath.join(posixpath.dirname(path), module))
    if not rel.startswith("../") and rel != "..":
        out.append(Candidate(rel))
    parts = [p for p in posixpath.normpath(module).split("/") if p not in ("", ".", "..")]
    if parts:
        out.append(Candidate("/".join(parts), mode="suffix"))
    return out


SPEC = LanguageSpec(
    name="c",
    grammar="c",
    extensions=(".c", ".h"),
    exclude=("CMakeFiles/", "cmake-build-*/"),
    entrypoints=("main.c",),
    tests=("test_*.c", "*_test.c", "tests/", "test/"),
    self_names=(),
    constructor_names=(),
    class_scope_visible=False,
    comment_types=("comment",),
    body_fields=("body",),
    module_name=module_name,
    local_name=local_name,
    import_candidates=import_candidates,
)

# An ``#include "x.h"`` makes visible what x.h declares (prototypes, ``declares`` rows) or
# defines, and what it includes: the resolver binds a call through it to the one project
# definition of the name (docs/languages.md). A ``static`` definition is seen only by the
# files of its own translation unit.
INCLUDE_VISIBLE = True
FILE_LOCAL = "static "
