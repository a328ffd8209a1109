"""Kotlin: a file's module is its path below the source root; an import names a class file.

``import com.acme.model.User`` binds ``User`` to the one project file ending in
``com/acme/model/User.kt`` (or ``User.java``: Kotlin imports Java classes the same way),
looking up the class ``User`` in it; ``import com.acme.model.User as Person`` binds
``Person``. A nested class or an object's member (``com.acme.Registry.lookup``) is looked up
in the file of the first capitalized segment. Kotlin file names are free, though: a
top-level function or property (``import com.acme.util.slugify``, ``...util.MAX_LEN``) or a
class in a file named otherwise (``com.acme.model.Admin`` in ``User.kt``) binds, when no file
is named after it, the one file of package ``com.acme.util`` that defines that name at its
top level (a ``package`` candidate: the package is the segments before the first
capitalized one, else all but the last), and nothing when none or several files do.
Wildcard imports bind nothing.
"""

from __future__ import annotations

from znt.index.lang.java import class_candidates, strip_source_root
from znt.index.languages import Candidate, ImportRef, LanguageSpec


def module_name(path: str) -> str:
    parts = strip_source_root(path)
    last = parts[-1]
    for ext in (".kts", ".kt"):
        if last.endswith(ext):
            last = last[: -len(ext)]
            break
    return ".".join([*parts[:-1], last])


def import_candidates(_path: str, imp: ImportRef) -> list[Candidate]:
    if imp.name == "*":
        return []
    parts = [p for p in imp.module.split(".") if p]
    head = next((i for i, p in enumerate(parts) if p[:1].isupper()), len(parts) - 1)
    package, member = ".".join(parts[:head]), ".".join(parts[head:])
    fallback = [Candidate(package, "package", member)] if package and member else []
    return class_candidates(imp.module, (".kt", ".java")) + fallback


SPEC = LanguageSpec(
    name="kotlin",
    grammar="kotlin",
    extensions=(".kt", ".kts"),
    exclude=("build/", ".gradle/", ".kotlin/", "target/"),
    entrypoints=("Main.kt", "App.kt", "*Application.kt"),
    tests=(
        "test/",
        "tests/",
        "commonTest/",
        "jvmTest/",
        "androidTest/",
        "*Test.kt",
        "*Tests.kt",
    ),
    self_names=("this",),
    constructor_names=(),
    class_scope_visible=True,
    package_scope=True,
    docstrings=False,
    comment_types=("line_comment", "multiline_comment"),
    wrapper_types=(),
    body_fields=("body",),
    module_name=module_name,
    import_candidates=import_candidates,
)
