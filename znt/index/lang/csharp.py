"""C#: files hold namespaces; ``using`` imports a namespace (no single file), a type alias or
a static class.

A namespace ``using Shop.Models;`` names no file (C# does not tie namespaces to folders), so
it stays a dependency node. ``using U = Shop.Models.User;`` and ``using static Shop.Util;``
name one type: they map to a file named like the type (``Shop/Models/User.cs``, by suffix, so
it must match exactly one project file), where the member looked up is the type's full
namespace-qualified name; failing that, to the project files that define a type of that
qualified name (a ``symbol`` candidate: ``Shop.Models.Base`` declared in ``src/Models.cs``).
"""

from __future__ import annotations

import re

from znt.index.languages import Candidate, ImportRef, LanguageSpec

_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\Z")


def module_name(path: str) -> str:
    stem = path[:-3] if path.endswith(".cs") else path.rsplit(".", 1)[0]
    parts = stem.split("/")
    if parts and parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    return ".".join(parts) or stem


def local_name(imp: ImportRef) -> str:
    # ``using A.B;`` binds the namespace under its full name (as Python's ``import a.b``).
    return imp.alias or imp.module


def import_candidates(path: str, imp: ImportRef) -> list[Candidate]:
    module = imp.module.removeprefix("global::")
    names_a_type = imp.alias is not None or imp.name == "*"
    if not names_a_type or not _DOTTED.match(module) or "." not in module:
        return []
    return [
        Candidate(module.replace(".", "/") + ".cs", mode="suffix", member=module),
        # Else the project files that define a type of that namespace-qualified name.
        Candidate(module, mode="symbol", member=module),
    ]


SPEC = LanguageSpec(
    name="csharp",
    grammar="csharp",
    extensions=(".cs",),
    exclude=("bin/", "obj/", ".vs/", "packages/", "*.g.cs", "*.g.i.cs", "*.Designer.cs"),
    entrypoints=("Program.cs", "Startup.cs"),
    tests=("*Tests.cs", "*Test.cs", "tests/", "test/"),
    self_names=("this",),
    constructor_names=(),
    class_scope_visible=True,
    docstrings=False,
    comment_types=("comment",),
    wrapper_types=(),
    body_fields=("body",),
    module_name=module_name,
    local_name=local_name,
    import_candidates=import_candidates,
)
