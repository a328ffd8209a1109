"""Property: after any sequence of edits, renames and deletes, an incremental scan holds
exactly what a scan from scratch of the same tree holds (DESIGN §8)."""

from __future__ import annotations

import shutil
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import LEX_TERMS_SORTED, query
from znt import api

MODULES = [f"pkg{p}/m{m}.py" for p in range(2) for m in range(3)] + [
    "main.py",
    "web/app.js",
    "web/util.js",
]
FUNCS = ["alpha", "beta", "gamma", "run"]


def _py_source(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 3))):
        mod = draw(st.sampled_from([m for m in MODULES if m.endswith(".py") and m != "main.py"]))
        dotted = mod[:-3].replace("/", ".")
        name = draw(st.sampled_from([*FUNCS, "wrap"]))
        if draw(st.booleans()):
            lines.append(f"from {dotted} import {name}")
        else:
            lines.append(f"import {dotted} as alias_{name}")
    # A decorator that returns a wrapper or the function itself (the wrapper rule reads
    # another file's decorator: resolve._wrapper_edges).
    wrapper = draw(st.sampled_from(["", "inner", "register"]))
    if wrapper == "inner":
        lines += ["def wrap(f):", "    def inner(*a):", "        return f(*a)", "    return inner"]
    elif wrapper == "register":
        lines += ["def wrap(f):", "    return f"]
    funcs = draw(st.lists(st.sampled_from(FUNCS), max_size=3, unique=True))
    for f in funcs:
        callee = draw(st.sampled_from([*FUNCS, "alias_alpha.beta", "len"]))
        if draw(st.booleans()):
            lines.append("@wrap")
        lines += [f"def {f}(x):", f"    return {callee}(x)", ""]
    if draw(st.booleans()):
        method = draw(st.sampled_from(FUNCS))
        lines += [
            "class Worker(Base):",
            f"    def {method}(self):",
            "        return self.run()",
            "",
        ]
    return "\n".join(lines) + "\n"


def _js_source(draw: st.DrawFn) -> str:
    other = draw(st.sampled_from(["./app", "./util"]))
    name = draw(st.sampled_from(FUNCS))
    body = [f"import {{ {name} }} from '{other}';"]
    for f in draw(st.lists(st.sampled_from(FUNCS), max_size=2, unique=True)):
        body.append(f"export function {f}(x) {{ return {name}(x); }}")
    return "\n".join(body) + "\n"


@st.composite
def operations(draw: st.DrawFn) -> list[tuple[str, str, str]]:
    ops = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["write", "write", "delete", "rename"]))
        path = draw(st.sampled_from(MODULES))
        if kind == "write":
            text = _js_source(draw) if path.endswith(".js") else _py_source(draw)
            ops.append(("write", path, text))
        elif kind == "delete":
            ops.append(("delete", path, ""))
        else:
            ops.append(("rename", path, draw(st.sampled_from(MODULES))))
    return ops


def apply(root: Path, ops: list[tuple[str, str, str]]) -> None:
    for kind, path, arg in ops:
        target = root / path
        if kind == "write":
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(arg, encoding="utf-8")
        elif kind == "delete":
            target.unlink(missing_ok=True)
        elif target.exists() and path != arg:
            dest = root / arg
            dest.parent.mkdir(parents=True, exist_ok=True)
            target.replace(dest)


def snapshot(root: Path) -> dict[str, list[tuple]]:
    out = {}
    for table in (
        "files",
        "symbols",
        "refs",
        "imports",
        "import_candidates",
        "edges",
        "lex_docs",
        "lex_postings",
        "lex_terms",
        "embed_docs",
    ):
        cols = (
            "path, dir, language, size, hash, lines, status, module_name"
            if table == "files"
            else "*"
        )
        sql = LEX_TERMS_SORTED if table == "lex_terms" else f"SELECT {cols} FROM {table}"
        out[table] = sorted(query(root, sql), key=repr)
    return out


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(batches=st.lists(operations(), min_size=1, max_size=3))
def test_incremental_scan_equals_clean_scan(tmp_path_factory, batches):
    base = tmp_path_factory.mktemp("prop")
    work = base / "work"
    work.mkdir()
    (work / "pkg0").mkdir()
    (work / "pkg0" / "m0.py").write_text("def alpha(x):\n    return x\n")
    api.scan(str(work))
    for i, ops in enumerate(batches):
        apply(work, ops)
        api.scan(str(work))
        clean = base / f"clean{i}"
        shutil.copytree(work, clean, ignore=shutil.ignore_patterns(".znt"))
        api.scan(str(clean))
        assert snapshot(work) == snapshot(clean)
