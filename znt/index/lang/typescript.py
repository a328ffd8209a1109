"""TypeScript (``.ts``, ``.tsx`` with the tsx grammar, ``.mts``, ``.cts``).

Imports map to files as in JavaScript (see ``javascript.py``): only relative specifiers,
TypeScript sources first, ``./x.js`` also naming the ``x.ts`` it compiles from.
"""

from __future__ import annotations

from znt.index.lang.javascript import (
    EXCLUDE,
    JS_EXTENSIONS,
    LOCAL_SCOPES,
    THIS_BINDERS,
    TS_EXTENSIONS,
    local_name,
    module_name,
    relative_candidates,
)
from znt.index.languages import Candidate, ImportRef, LanguageSpec

_RESOLVE_ORDER = (".ts", ".tsx", ".d.ts", ".mts", ".cts", *JS_EXTENSIONS)


def import_candidates(path: str, imp: ImportRef) -> list[Candidate]:
    return relative_candidates(path, imp, _RESOLVE_ORDER)


SPEC = LanguageSpec(
    name="typescript",
    grammar="typescript",
    extensions=TS_EXTENSIONS,
    grammar_by_extension={".tsx": "tsx"},
    exclude=EXCLUDE,
    entrypoints=("main.ts", "main.tsx", "server.ts", "cli.ts", "app.ts", "bin/"),
    tests=(
        "*.test.ts",
        "*.spec.ts",
        "*.test.tsx",
        "*.spec.tsx",
        "*.e2e-spec.ts",
        "__tests__/",
        "__mocks__/",
        "test/",
        "tests/",
        "spec/",
        "e2e/",
    ),
    self_names=("this",),
    constructor_names=("constructor",),
    class_scope_visible=False,
    docstrings=False,
    comment_types=("comment",),
    wrapper_types=("export_statement",),
    this_binders=THIS_BINDERS,
    local_scopes=LOCAL_SCOPES,
    body_fields=("body",),
    module_name=module_name,
    local_name=local_name,
    import_candidates=import_candidates,
)
