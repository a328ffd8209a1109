"""Python: modules are dotted paths; imports map to ``.py`` files or packages."""

from __future__ import annotations

from znt.index.languages import Candidate, ImportRef, LanguageSpec


def module_name(path: str) -> str:
    stem = path[:-3] if path.endswith(".py") else path.rsplit(".", 1)[0]
    parts = stem.split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if parts and parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    return ".".join(parts) or stem


def local_name(imp: ImportRef) -> str:
    if imp.alias:
        return imp.alias
    if imp.name:
        return imp.name
    return imp.module


def import_candidates(path: str, imp: ImportRef) -> list[Candidate]:
    """Imports name modules; they are matched against the dotted module names of the
    project's Python files (``module`` candidates), so ``src/`` layouts and packages work."""
    module = imp.module
    if module.startswith("."):
        level = len(module) - len(module.lstrip("."))
        rest = module[level:]
        package = module_name(path).split(".")
        if not path.endswith("__init__.py"):
            package = package[:-1]
        if level - 1 > len(package):
            return []
        parts = package[: len(package) - (level - 1)] + (rest.split(".") if rest else [])
        base = ".".join(p for p in parts if p)
    else:
        base = module
    if not base:
        return []
    if imp.name and imp.name != "*":
        return [
            Candidate(f"{base}.{imp.name}", "module"),
            Candidate(base, "module", member=imp.name),
        ]
    return [Candidate(base, "module")]


SPEC = LanguageSpec(
    name="python",
    grammar="python",
    extensions=(".py", ".pyi"),
    exclude=("__pycache__/", ".pytest_cache/", ".venv/", "venv/", ".tox/"),
    entrypoints=("main.py", "app.py", "run.py", "manage.py", "__main__.py", "wsgi.py", "asgi.py"),
    tests=("test_*.py", "*_test.py", "tests/", "test/", "conftest.py"),
    self_names=("self", "cls"),
    constructor_names=("__init__", "__new__"),
    class_scope_visible=False,
    docstrings=True,
    wrapper_types=("decorated_definition",),
    module_name=module_name,
    local_name=local_name,
    import_candidates=import_candidates,
)
