"""Python: modules are dotted paths; imports map to ``.py`` files or packages."""

from __future__ import annotations

import posixpath

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


def _module_files(base: str) -> list[str]:
    return [f"{base}.py", f"{base}/__init__.py"] if base else ["__init__.py"]


def import_candidates(path: str, imp: ImportRef) -> list[Candidate]:
    module = imp.module
    if module.startswith("."):
        level = len(module) - len(module.lstrip("."))
        rest = module[level:]
        folder = posixpath.dirname(path)
        for _ in range(level - 1):
            folder = posixpath.dirname(folder)
        base = posixpath.join(folder, *rest.split(".")) if rest else folder
        roots = [base]
    else:
        rel = module.replace(".", "/")
        roots = [rel, f"src/{rel}"]
    out: list[Candidate] = []
    for root in roots:
        root = root.strip("/")
        if imp.name and imp.name != "*":
            sub = f"{root}/{imp.name}" if root else imp.name
            out.extend(Candidate(p) for p in _module_files(sub))
            out.extend(Candidate(p, member=imp.name) for p in _module_files(root))
        else:
            out.extend(Candidate(p) for p in _module_files(root))
    return out


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
