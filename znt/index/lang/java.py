"""Java: a file's module is its path below the source root; an import names a class file.

``import com.acme.model.User;`` (module ``com.acme.model``, name ``User``) binds ``User``
to the one project file ending in ``com/acme/model/User.java`` (a ``suffix`` candidate,
whatever the source root), looking up the class ``User`` in it. A nested class (``com.acme.model.User.Role``) and a static member
(``import static com.acme.util.Strings.slug``) look up ``User.Role`` / ``Strings.slug`` in
the file of the outermost class, found as the first capitalized segment. Wildcard imports
(``com.acme.model.*``) bind nothing: which file defines a name they bring in is unknown.
"""

from __future__ import annotations

from znt.index.languages import Candidate, ImportRef, LanguageSpec

# Folders that hold a source root below ``src/<set>/`` (Maven, Gradle, Android, KMP).
SOURCE_DIRS = ("java", "kotlin")


def strip_source_root(path: str) -> list[str]:
    """The path's segments below its source root (``src/main/java/``, ``src/``)."""
    parts = path.split("/")
    for i in range(len(parts) - 2, 1, -1):
        if parts[i] in SOURCE_DIRS and parts[i - 2] == "src":
            return parts[i + 1 :]
    if parts[0] == "src" and len(parts) > 1:
        return parts[1:]
    return parts


def module_name(path: str) -> str:
    parts = strip_source_root(path)
    stem = parts[-1].rsplit(".", 1)[0] if "." in parts[-1] else parts[-1]
    return ".".join([*parts[:-1], stem])


def class_candidates(module: str, extensions: tuple[str, ...]) -> list[Candidate]:
    """Candidates for a dotted import of a class or of a class's member: the file named
    after the first capitalized segment (the top-level class, by convention), with the
    rest of the name looked up inside it. No capitalized segment: nothing (a package, or a
    Kotlin top-level function whose file is unknown)."""
    parts = [p for p in module.split(".") if p]
    for i, part in enumerate(parts):
        if part[:1].isupper():
            folder = "/".join(parts[:i])
            member = ".".join(parts[i:])
            prefix = f"{folder}/" if folder else ""
            return [Candidate(f"{prefix}{part}{ext}", "suffix", member) for ext in extensions]
    return []


def import_candidates(_path: str, imp: ImportRef) -> list[Candidate]:
    if imp.name == "*":
        return []
    full = f"{imp.module}.{imp.name}" if imp.name else imp.module
    return class_candidates(full, (".java", ".kt"))


SPEC = LanguageSpec(
    name="java",
    grammar="java",
    extensions=(".java",),
    exclude=("target/", "build/", ".gradle/"),
    entrypoints=("Main.java", "App.java", "*Application.java"),
    tests=("test/", "tests/", "*Test.java", "*Tests.java", "*IT.java"),
    self_names=("this",),
    constructor_names=(),
    class_scope_visible=True,
    package_scope=True,
    docstrings=False,
    comment_types=("line_comment", "block_comment"),
    wrapper_types=(),
    body_fields=("body",),
    module_name=module_name,
    import_candidates=import_candidates,
)
