"""znt's own architecture (znt.yaml's ``check:`` section) holds on its code, and the CI
self-check (scripts/check-architecture, run by scripts/test) fails on a planted violation of
each of its rules."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import typing
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "scripts" / "check-architecture"

# file -> what is planted in it, and the rules that planting breaks
PLANTED = {
    # storage importing analysis and a front end
    "znt/index/planted.py": "from znt.graph import traverse\nfrom znt.cli import output\n",
    # the api importing the MCP front end
    "znt/api.py": "from znt.mcp import metrics as _planted\n",
    # a front end reaching past the api into storage
    "znt/mcp/metrics.py": "from znt.index import readcopy as _planted\n",
    # a renderer that queries
    "znt/formats/json.py": "from znt.index import store as _planted\n",
    # analysis talking to the terminal
    "znt/graph/planted.py": "import click\n",
    # a cycle: project imports errors
    "znt/errors.py": "import znt.project as _planted\n",
}
BROKEN = {
    "layering",
    "storage-knows-no-analysis",
    "front-ends-through-the-api",
    "formats-only-render",
    "terminal-and-protocol-in-front-ends",
    "no-import-cycles",
}


def _self_check(tree: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ZNT_PROJECT_ROOT"}
    env["ZNT_PYTHON"] = sys.executable
    return subprocess.run(
        [str(SCRIPT), str(tree)], env=env, capture_output=True, text=True, timeout=900
    )


def test_own_layers_hold_and_each_planted_violation_fails_the_self_check(tmp_path: Path) -> None:
    tree = tmp_path / "znt-tree"
    shutil.copytree(REPO / "znt", tree / "znt", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "znt.yaml", tree / "znt.yaml")

    clean = _self_check(tree)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "No violations: 6 rules passed" in clean.stdout

    for rel, line in PLANTED.items():
        path = tree / rel
        path.write_text((path.read_text() if path.exists() else "") + line)
    broken = _self_check(tree)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    reported = {rule for rule in BROKEN if f"[{rule}]" in broken.stdout}
    assert reported == BROKEN, broken.stdout
    assert "znt/index/planted.py" in broken.stdout and "znt/errors.py" in broken.stdout


class _Loose(typing.TypedDict):
    rows: list[dict[str, typing.Any]]


def _any_in(tp: object, seen: set[int]) -> list[str]:
    """Where ``Any`` hides in the type ``tp``: its generic arguments, a TypedDict's fields, a
    forward reference to a name of znt/results.py (the recursive JSON alias)."""
    from znt import results

    if tp is typing.Any:
        return ["Any"]
    if isinstance(tp, typing.ForwardRef):
        tp = getattr(results, tp.__forward_arg__)
    if id(tp) in seen:
        return []
    seen.add(id(tp))
    if typing.is_typeddict(tp):
        hints = typing.get_type_hints(tp, vars(sys.modules[tp.__module__]))
        return [f"{tp.__name__}.{k}: {w}" for k, v in hints.items() for w in _any_in(v, seen)]
    return [w for arg in typing.get_args(tp) for w in _any_in(arg, seen)]


def test_the_public_api_returns_typed_documents_without_any() -> None:
    """Every public function of znt/api.py declares its result, and no part of it (down to
    the fields of the documents) is ``Any`` (mypy holds the code to these types:
    pyproject.toml's overrides for znt.api and znt.results)."""
    import inspect

    from znt import api, results

    # The documents are imported for the type checker only (a one-shot command never builds
    # the classes): the annotations are read in results' names, then api's own.
    names = {**vars(results), **vars(api)}
    public = [
        (name, fn)
        for name, fn in vars(api).items()
        if inspect.isfunction(fn) and not name.startswith("_") and fn.__module__ == api.__name__
    ]
    assert len(public) >= 20
    found = {}
    for name, fn in public:
        annotation = fn.__annotations__.get("return")
        assert annotation not in (None, "Any"), name
        found[name] = _any_in(eval(annotation, names), set())
    assert {k: v for k, v in found.items() if v} == {}
    # the walk finds an Any wherever it sits (a generic argument, a document's field)
    assert _any_in(_Loose, set()) == ["_Loose.rows: Any"]


def test_dataclass_results_have_their_documents_keys() -> None:
    """``ScanResult`` and ``ExportReport`` become their documents field for field (their
    ``to_dict`` casts to the TypedDict): a field added to one must be added to the other."""
    import dataclasses

    from znt import results
    from znt.export.parquet import ExportReport
    from znt.pipeline.scan import ScanResult

    for cls, doc in ((ScanResult, results.ScanBody), (ExportReport, results.ExportBody)):
        fields = {f.name for f in dataclasses.fields(cls)}
        assert fields == doc.__required_keys__ | doc.__optional_keys__, cls.__name__
