"""Measure znt's call graph against published ground truth (edge precision/recall).

Three suites, each read from a folder given on the command line (never copied into the
repository; see /work/shared/eval/README.md §3):

* ``pycg-micro``: PyCG's micro-benchmark, ``micro-benchmark/snippets/<category>/<case>/``
  with the case's modules and ``callgraph.json`` (an adjacency list keyed by dotted names;
  module-level code is named after the module, ``<builtin>.len`` for builtins).
* ``pycg-macro``: PyCG's macro-benchmark (pycg-evaluation ``data/macro-benchmark``): the five
  projects under ``projects/`` at their pinned commits and ``ground-truth-cgs/<name>.json``.
  Each project is analysed from the package root and with the files PyCG's own evaluation
  script passed it (``scripts/generate_pycg_cgs.sh``).
* ``jcg``: the Python cases of JCG (``jcg_testcases/src/main/resources/python/*.md``): code
  listings plus ``directLinks`` that a sound call graph must contain. They are not a
  complete graph, so only their recall is scored (extra edges are counted, not judged).
* ``jelly``: Jelly's JavaScript micro tests (``cs-au-dk/jelly`` ``tests/micro/``; give the
  folder that holds ``tests/micro`` or that folder itself). Each ``<case>.json`` with a
  ``fun2fun`` list is a call graph recorded at run time: ``files`` (paths relative to
  ``tests/micro``), ``functions`` as ``file:line:col:endLine:endCol`` (1-based, end
  exclusive; a file's own code is the function spanning the whole file) and ``fun2fun``
  pairs of indices into ``functions``. znt's symbols are matched to those spans by their
  byte offsets (end, then start); a call from code Jelly has no function for counts for the
  nearest enclosing one. The graph is dynamic: it holds only the calls one run made, so
  recall is against what really happened and precision is a lower bound (a call the run did
  not make is counted false).

Real repositories at pinned commits, each a folder prepared by
``benchmarks/callgraph_inputs.py`` (give the folder, or the folder that holds several):

* ``go-repo``: the call graph of ``callgraph -algo=vta -test`` (golang.org/x/tools) over
  the module's packages and tests. A function is ``<folder>.<qualified name>``
  (``.Context.Next``, ``binding.Default``), a function literal counts for the function
  around it, synthetic callees (wrappers, bound methods), package initializers and
  interface methods (no body, no node of that graph) are left out; only edges between
  functions of the module are scored.
* ``js-repo``: calls recorded while the project's test suite ran, in Jelly's format
  (``benchmarks/js_callrecorder.cjs``): scored like ``jelly``, every project file (tests,
  examples) but ``node_modules``; a recorded call from a function znt has no symbol for
  (a callback, a getter inside a method) counts for the innermost named one around it.
* ``py-repo``: calls recorded with ``sys.setprofile`` while the project's tests ran
  (``benchmarks/py_callrecorder.py``), PyCG's names, edges inside the package only.

For ``js-repo`` and ``py-repo`` a second precision is printed over the edges the recording
can judge: the caller ran (is a node of the recorded graph), for ``js-repo`` the call
itself ran (its line, or one of the next ``RAN_WINDOW``, holds a call expression the
recording saw call a project function: a call in a branch the tests never took says
nothing), and for ``py-repo`` the callee is neither a lambda nor a generator function (the
recorder never records those as callees). A recorded graph knows only what ran, so an edge
from a function or a call the run never entered cannot be judged by it.

Every case is copied to a temporary folder and scanned in-process with ``znt.api.scan``. znt's
``call`` edges are mapped to dotted names: a symbol is ``<module name>.<qualified name>``
(``pkg/mod.py::Cls.method`` -> ``pkg.mod.Cls.method``, ``pkg/__init__.py`` -> ``pkg``), a
module node (module-level code) is the module name. Edges to a class are left out (a
constructor call is scored through its ``__init__`` edge, as PyCG names it), as are edges
to variables. An external node reached through an import (resolution ``external``) keeps its
dotted name, which is how PyCG names calls into other packages; any other ``ext::`` node
(builtins, unresolved names) is dropped. On the ground-truth side ``<builtin>`` and the other
``<**Py…**>`` pseudo-nodes are dropped. ``--internal`` scores only edges whose two ends are
defined in the case's own files.

    python benchmarks/callgraph.py pycg-micro /work/bench/callgraph/micro-benchmark/snippets
    python benchmarks/callgraph.py pycg-macro /work/bench/callgraph/macro --show-errors
    python benchmarks/callgraph.py jcg /work/bench/callgraph/jcg/.../python --out x.md
    python benchmarks/callgraph.py jelly /work/bench/callgraph/jelly/tests/micro
    python benchmarks/callgraph.py go-repo /work/bench/callgraph/repos
"""

from __future__ import annotations

import argparse
import ast
import datetime as dt
import inspect
import json
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Edge = tuple[str, str]

# Anchors from the eval README (PyCG's own figures on the same suites).
ANCHORS = {
    "pycg-micro": "PyCG: precision 0.976, recall 0.932; 113/119 cases with no false edge, "
    "109/119 with no missing edge",
    "pycg-macro": "average of 5 projects, precision / recall: PyCG 0.992 / 0.699, "
    "Pyan 0.744 / 0.206, Depends 0.987 / 0.144; a name-based resolver (code2flow) ≈ 0.87 / 0.15",
    "jcg": "JCG scores soundness: the share of directLinks found",
    "jelly": "Jelly's expected graphs are dynamic (one run): precision is a lower bound",
    "go-repo": "callgraph -algo=vta -test (golang.org/x/tools), project-internal edges; "
    "target precision >= 0.95, recall >= 0.80",
    "js-repo": "calls recorded while the project's test suite ran (precision is a lower "
    "bound), project-internal edges; target precision >= 0.95, recall >= 0.70",
    "py-repo": "calls recorded with sys.setprofile while the project's tests ran (precision "
    "is a lower bound), edges inside the package; target precision >= 0.95, recall >= 0.70",
}

# pycg-macro: project -> (package root inside the project, file filter), as in PyCG's
# evaluation script ``generate_pycg_cgs.sh``.
MACRO = {
    "autojump": ("bin", "*.py", ()),
    "fabric": ("", "**/*.py", ("tests", "setup.py")),
    "asciinema": ("", "asciinema/**/*.py", ()),
    "face_classification": ("src", "**/*.py", ()),
    "Sublist3r": ("", "**/*.py", ()),
}


@dataclass
class Case:
    category: str
    name: str
    files: dict[str, bytes]  # relative path -> content
    expected: set[Edge]
    complete: bool = True  # False: the expected edges are a subset to find (JCG)
    # JCG names symbols by short name and line; filled in by the jcg loader.
    jcg_prefix: str = ""
    # Jelly: the case's files in its index order and its function spans.
    jelly_files: list[str] = field(default_factory=list)
    jelly_functions: list[str] = field(default_factory=list)
    # js-repo: the (file, line) of call expressions the recording saw run (``ran`` of
    # callgraph_inputs.py); None where the input predates it.
    ran_lines: set[tuple[str, int]] | None = None


@dataclass
class Result:
    case: Case
    found: set[Edge]
    true_pos: set[Edge] = field(default_factory=set)
    false_pos: set[Edge] = field(default_factory=set)
    missing: set[Edge] = field(default_factory=set)
    # Recorded suites: the false edges the recording can judge (the caller ran, the callee
    # is a function the recorder records when called).
    false_ran: set[Edge] = field(default_factory=set)
    recorded: bool = False


# Suites whose ground truth is one recorded run: a second precision is printed over the
# edges that run can judge (a false edge from a function the run never entered, or into a
# callee the recorder never records, says nothing).
RECORDED = ("js-repo", "py-repo")


def _generators(case: Case, modules: dict[str, str]) -> set[str]:
    """Dotted names of the case's Python generator functions: py_callrecorder.py sees a
    generator's body start at its first iteration step (no call instruction), and a lambda
    never, so no recorded edge can name them as a callee."""
    import ast

    out: set[str] = set()

    def walk(node: ast.AST, prefix: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                walk(child, [*prefix, child.name])
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                if _yields(child):
                    out.add(".".join([*prefix, child.name]))
                walk(child, [*prefix, child.name])
            else:
                walk(child, prefix)

    for rel, data in case.files.items():
        module = modules.get(rel)
        if module is None or not rel.endswith(".py"):
            continue
        try:
            tree = ast.parse(data)
        except (SyntaxError, ValueError):
            continue
        walk(tree, [module])
    return out


def _yields(fn: ast.AST) -> bool:
    """Whether ``fn``'s own body (not a nested function's) yields."""
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Yield | ast.YieldFrom):
            return True
        if not isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(n))
    return False


# -- loading suites --------------------------------------------------------------------


def _pseudo(name: str) -> bool:
    return name.startswith("<") and not name.startswith("<lambda")


def _graph_edges(graph: dict[str, list[str]]) -> set[Edge]:
    return {
        (src, dst)
        for src, dsts in graph.items()
        for dst in dsts
        if not _pseudo(src) and not _pseudo(dst)
    }


def _read_files(root: Path, paths: Iterable[Path]) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(paths)}


def load_pycg_micro(path: Path) -> list[Case]:
    cases = []
    for cg in sorted(path.glob("*/*/callgraph.json")):
        case_dir = cg.parent
        files = _read_files(case_dir, (p for p in case_dir.rglob("*.py") if p.is_file()))
        expected = _graph_edges(json.loads(cg.read_text(encoding="utf-8")))
        cases.append(Case(case_dir.parent.name, case_dir.name, files, expected))
    return cases


def load_pycg_macro(path: Path) -> list[Case]:
    cases = []
    for project, (sub, pattern, excluded) in MACRO.items():
        truth = path / "ground-truth-cgs" / f"{project}.json"
        root = path / "projects" / project / sub if sub else path / "projects" / project
        if not truth.is_file() or not root.is_dir():
            print(f"skipping {project}: {truth} or {root} missing", file=sys.stderr)
            continue
        chosen = [
            p
            for p in root.glob(pattern)
            if p.is_file() and not any(x in p.relative_to(root).parts for x in excluded)
        ]
        files = _read_files(root, chosen)
        expected = _graph_edges(json.loads(truth.read_text(encoding="utf-8")))
        cases.append(Case(project, project, files, expected))
    return cases


_JCG_CASE = re.compile(r"^## (\S+)\s*$(.*?)^\[//\]: # \(END\)", re.M | re.S)
_JCG_JSON = re.compile(r"```json\n(.*?)```", re.S)
_JCG_CODE = re.compile(r"```python\n# (\S+)\n(.*?)```", re.S)


def load_jcg(path: Path) -> list[Case]:
    cases = []
    for md in sorted(path.glob("*.md")):
        text = md.read_text(encoding="utf-8")
        for m in _JCG_CASE.finditer(text):
            name, body = m.group(1), m.group(2)
            spec = _JCG_JSON.search(body)
            if spec is None:
                continue
            links = json.loads(spec.group(1)).get("directLinks", [])
            files: dict[str, bytes] = {}
            for code in _JCG_CODE.finditer(body):
                # The listing's first line names its file; line numbers count after it.
                rel = code.group(1).split("/", 1)[-1]
                files[rel] = code.group(2).encode()
            expected = {
                (a, b)
                for a, b in links
                if not b.startswith("Native.") and not a.startswith("Native.")
            }
            if files:
                cases.append(Case(md.stem, name, files, expected, complete=False, jcg_prefix=name))
    return cases


def _jelly_category(stem: str) -> str:
    """``classes2`` -> ``classes``, ``client5`` -> ``client``: numbered variants of one topic."""
    return re.sub(r"\d+[a-z]?$", "", stem) or stem


def load_jelly(path: Path) -> list[Case]:
    root = path / "tests" / "micro" if (path / "tests" / "micro").is_dir() else path
    cases = []
    for spec_path in sorted(root.glob("*.json")):
        try:
            spec = json.loads(spec_path.read_text(encoding="utf-8"))
        except ValueError:
            continue
        if not isinstance(spec, dict) or "fun2fun" not in spec or "functions" not in spec:
            continue
        names = spec.get("files")
        if not isinstance(names, list) or not all((root / n).is_file() for n in names):
            continue  # e.g. files named as ``package@version:file``
        files = {n: (root / n).read_bytes() for n in names}
        functions = list(spec["functions"])
        expected = {
            (functions[a], functions[b])
            for a, b in spec["fun2fun"]
            if a < len(functions) and b < len(functions)
        }
        cases.append(
            Case(
                _jelly_category(spec_path.stem),
                spec_path.stem,
                files,
                expected,
                jelly_files=list(names),
                jelly_functions=functions,
            )
        )
    return cases


# -- real repositories (prepared by benchmarks/callgraph_inputs.py) ---------------------


def _repos(path: Path, language: str) -> Iterable[tuple[Path, dict[str, Any]]]:
    """(folder, manifest) of the prepared folder itself, or of every prepared folder under
    it, for one language."""
    dirs = (
        [path]
        if (path / "manifest.json").is_file()
        else sorted(p.parent for p in path.glob("*/manifest.json"))
    )
    for d in dirs:
        man = json.loads((d / "manifest.json").read_text(encoding="utf-8"))
        if man["language"] == language:
            yield d, man


def _go_name(fn: str, import_path: str) -> str | None:
    """``(*github.com/gin-gonic/gin.Context).Next`` -> ``.Context.Next`` (``<folder below the
    module>.<qualified name>``), closures folded into their function (``F$1`` -> ``F``); None
    for a function outside the module or the package initializer."""
    fn = re.sub(r"\[[^\]]*\]", "", fn.split("$", 1)[0])  # closures, instantiations
    recv = ""
    if fn.startswith("("):
        close = fn.find(")")
        recv, method = fn[1:close].lstrip("*"), fn[close + 2 :]
        pkg, _, typ = recv.rpartition(".")
        qual = f"{typ}.{method}"
    else:
        slash = fn.rfind("/")
        dot = fn.find(".", slash + 1)
        pkg, qual = fn[:dot], fn[dot + 1 :]
    if pkg.endswith("_test"):
        pkg = pkg[: -len("_test")]  # the external test package shares the folder
    if pkg != import_path and not pkg.startswith(import_path + "/"):
        return None
    if qual == "init" or not qual:
        return None
    qual = re.sub(r"#\d+$", "", qual)  # init#1: a declared init function
    return pkg[len(import_path) :].lstrip("/") + "." + qual


def load_go_repo(path: Path) -> list[Case]:
    cases = []
    for d, man in _repos(path, "go"):
        src = d / "src"
        # go.mod says which import paths are the module's own packages.
        files = _read_files(
            src,
            (
                p
                for p in src.rglob("*")
                if p.is_file() and (p.suffix == ".go" or p.name == "go.mod")
            ),
        )
        expected = set()
        for line in (d / "callgraph.tsv").read_text(encoding="utf-8").splitlines():
            parts = line.split("\t")
            if len(parts) < 3 or parts[2]:
                continue  # a synthetic callee: a wrapper, a bound method, a thunk
            if "$" in parts[1]:
                continue  # a function literal: no symbol of any reader's
            a, b = _go_name(parts[0], man["import_path"]), _go_name(parts[1], man["import_path"])
            if a is not None and b is not None:
                expected.add((a, b))
        cases.append(Case(man["name"], man["name"], files, expected))
    return cases


def load_js_repo(path: Path) -> list[Case]:
    cases = []
    for d, man in _repos(path, "js"):
        src = d / "src"
        spec = json.loads((d / "callgraph.json").read_text(encoding="utf-8"))
        files = _read_files(
            src,
            (
                p
                for p in src.rglob("*")
                # package.json too: ``require('..')`` names a folder by its ``main``.
                if (p.suffix in (".js", ".cjs", ".mjs") or p.name == "package.json")
                and p.is_file()
                and "node_modules" not in p.relative_to(src).parts
            ),
        )
        names = list(spec["files"])
        functions = list(spec["functions"])
        expected = {(functions[a], functions[b]) for a, b in spec["fun2fun"]}
        ran_lines = None
        if "ran" in spec:
            ran_lines = {
                (names[int(fi)], int(line))
                for fi, line in (site.split(":") for site in spec["ran"])
            }
        cases.append(
            Case(
                man["name"],
                man["name"],
                files,
                expected,
                jelly_files=names,
                jelly_functions=functions,
                ran_lines=ran_lines,
            )
        )
    return cases


def load_py_repo(path: Path) -> list[Case]:
    cases = []
    for d, man in _repos(path, "python"):
        root = d / "src" / man["package_root"]
        files = _read_files(
            root,
            (
                p
                for p in root.rglob("*.py")
                if p.is_file() and p.relative_to(root).parts[0] != "tests"
            ),
        )
        expected = _graph_edges(json.loads((d / "callgraph.json").read_text(encoding="utf-8")))
        cases.append(Case(man["name"], man["name"], files, expected))
    return cases


LOADERS = {
    "go-repo": load_go_repo,
    "js-repo": load_js_repo,
    "py-repo": load_py_repo,
    "pycg-micro": load_pycg_micro,
    "pycg-macro": load_pycg_macro,
    "jcg": load_jcg,
    "jelly": load_jelly,
}


# -- running znt -----------------------------------------------------------------------


@dataclass
class Graph:
    """znt's call edges of one scanned case, with what is needed to name their ends."""

    edges: list[tuple[str, str, str]]  # src, dst, resolution
    # id -> file, qualified name, type, name, line, parent id
    symbols: dict[str, tuple[str, str, str, str, int, str | None]]
    modules: dict[str, str]  # file -> module name
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)  # id -> start, end byte
    kinds: dict[str, str] = field(default_factory=dict)  # id -> kind (``interface``, ...)
    # (src, dst) -> (file, line) of its first call
    sites: dict[tuple[str, str], tuple[str, int]] = field(default_factory=dict)


def scan_case(case: Case, tmp: Path) -> Graph:
    from znt import api
    from znt.index.store import connect

    project = tmp / "project"
    if project.exists():
        shutil.rmtree(project)
    for rel, data in case.files.items():
        target = project / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    # The call graph is what is measured: no embeddings (when this znt computes them).
    if "no_embed" in inspect.signature(api.scan).parameters:
        api.scan(str(project), no_embed=True)
    else:
        api.scan(str(project))
    con = connect(project / ".znt" / "index.duckdb", read_only=True)
    try:
        calls = con.execute(
            "SELECT src, dst, resolution, file, line FROM edges WHERE kind = 'call'"
        ).fetchall()
        edges = [(src, dst, res) for src, dst, res, _file, _line in calls]
        sites = {(src, dst): (file, line) for src, dst, _res, file, line in calls}
        symbols = {
            row[0]: (row[1], row[2], row[3], row[4], row[5], row[6])
            for row in con.execute(
                "SELECT id, file, qualified_name, type, name, start_line, parent_id FROM symbols"
            ).fetchall()
        }
        modules = dict(con.execute("SELECT path, module_name FROM files").fetchall())
        spans = {
            row[0]: (row[1], row[2])
            for row in con.execute("SELECT id, start_byte, end_byte FROM symbols").fetchall()
        }
        kinds = dict(con.execute("SELECT id, kind FROM symbols").fetchall())
    finally:
        con.close()
    return Graph(edges, symbols, modules, spans, kinds, sites)


def dotted(graph: Graph, node: str, resolution: str | None, *, as_target: bool) -> str | None:
    """PyCG's name for a znt node, or None when the node is left out of the comparison."""
    if node.startswith("ext::"):
        return node[5:] if as_target and resolution == "external" else None
    sym = graph.symbols.get(node)
    if sym is None:
        return None
    file, qname, typ, _name, _line, parent = sym
    if typ == "member" and not as_target and parent is not None:
        # A variable's initializer runs in the code around it (PyCG's caller).
        return dotted(graph, parent, None, as_target=False)
    if node == file:
        return graph.modules.get(file, qname)
    if as_target and typ != "function":
        return None
    return f"{graph.modules[file]}.{qname}"


def pycg_edges(graph: Graph) -> set[Edge]:
    out = set()
    for src, dst, resolution in graph.edges:
        a = dotted(graph, src, None, as_target=False)
        b = dotted(graph, dst, resolution, as_target=True)
        if a is not None and b is not None:
            out.add((a, b))
    return out


def jcg_edges(graph: Graph, case: Case) -> set[Edge]:
    """znt's edges named the JCG way: ``<global>`` for module code, else ``<case>.<name>``
    (the function's short name, or ``Class.name`` for a dunder method), with ``:<line>``
    when the expected links use a line to tell same-named functions apart; a lambda is
    ``<case>.<anonymous:<line>>``."""
    wanted = {n for e in case.expected for n in e}

    def names(node: str) -> set[str]:
        sym = graph.symbols.get(node)
        if sym is None:
            return set()
        file, qname, typ, name, line, parent = sym
        if typ == "member" and parent is not None:
            return names(parent)
        if node == file:
            return {"<global>"}
        if typ != "function":
            return set()
        if name.startswith("<lambda"):
            return {f"{case.jcg_prefix}.<anonymous:{line}>"}
        short = f"{case.jcg_prefix}.{name}"
        return {short, f"{short}:{line}", f"{case.jcg_prefix}.{qname}"} & wanted or {short}

    out = set()
    for src, dst, _res in graph.edges:
        for a in names(src):
            for b in names(dst):
                out.add((a, b))
    return out


def _offset(line_starts: list[int], line: int, col: int) -> int:
    return line_starts[min(line, len(line_starts)) - 1] + col - 1


def _span_key(span: str) -> tuple[int, tuple[int, int], tuple[int, int]]:
    fi, line, col, end_line, end_col = (int(x) for x in span.split(":"))
    return fi, (line, col), (end_line, end_col)


def fold_callers(expected: set[Edge], named: set[str]) -> set[Edge]:
    """js-repo: a call from a function znt has no symbol for (a callback, a getter defined
    inside a method) counts for the innermost function around it that znt names, as a
    function literal's calls do in Go: the two graphs then name callers alike."""
    spans = [_span_key(s) for s in named]
    out: set[Edge] = set()
    for a, b in expected:
        if a not in named:
            fi, start, end = _span_key(a)
            around = [
                (s, e, f)
                for f, s, e in spans
                if f == fi and s <= start and end <= e and (s, e) != (start, end)
            ]
            if around:
                s, e, f = max(around, key=lambda x: (x[0], (-x[1][0], -x[1][1])))
                a = f"{f}:{s[0]}:{s[1]}:{e[0]}:{e[1]}"
        out.add((a, b))
    return out


def module_span(case: Case, rel: str) -> str:
    """A span for a file's own code (Jelly's function spanning the whole file), for a
    file whose own code the recording never saw calling (a test file's top level only
    calls ``describe``): its callbacks' calls count for it."""
    lines = case.files[rel].count(b"\n") + 1
    return f"{case.jelly_files.index(rel)}:1:1:{lines}:1"


def jelly_spans(graph: Graph, case: Case, *, modules: bool = False) -> dict[str, str]:
    """znt node id -> the Jelly span it is matched to (see the module docstring); with
    ``modules``, every recorded file's own code has a span (``module_span``)."""
    by_span: dict[str, str] = {}  # znt node id -> Jelly span
    fallback: list[tuple[str, list[str]]] = []
    for span in case.jelly_functions:
        fi, line, col, end_line, end_col = (int(x) for x in span.split(":"))
        rel = case.jelly_files[fi]
        data = case.files[rel]
        if line == 1 and col == 1 and end_line >= data.count(b"\n"):
            by_span.setdefault(rel, span)  # the file's own code
            continue
        starts = [0] + [i + 1 for i, b in enumerate(data) if b == 0x0A]
        start, end = _offset(starts, line, col), _offset(starts, end_line, end_col)
        same_end = [
            node
            for node, (s, e) in graph.spans.items()
            if graph.symbols[node][0] == rel and e == end and s <= start
        ]
        exact = [n for n in same_end if graph.spans[n][0] == start]
        if exact:
            by_span.setdefault(exact[0], span)
        elif same_end:
            # ``const f = function () {}``: the declaration ends where the function does.
            fallback.append((span, sorted(same_end, key=lambda n: -graph.spans[n][0])))
    for span, nodes in fallback:  # after every exact match, so none is taken twice
        free = [n for n in nodes if n not in by_span]
        if free:
            by_span[free[0]] = span
    if modules:
        for rel in case.jelly_files:
            if rel in case.files and rel in graph.symbols:
                by_span.setdefault(rel, module_span(case, rel))
    # Jelly's function for a class is its constructor: ``constructor`` calls count for it.
    for node, sym in graph.symbols.items():
        if sym[3] == "constructor" and sym[5] in by_span:
            by_span.setdefault(node, by_span[sym[5]])
    return by_span


def jelly_edges(
    graph: Graph,
    case: Case,
    *,
    modules: bool = False,
    sites: dict[Edge, set[tuple[str, int]]] | None = None,
) -> set[Edge]:
    """znt's edges named by Jelly's function spans (see the module docstring); ``sites``
    collects the (file, first line) of the znt edges behind each."""
    by_span = jelly_spans(graph, case, modules=modules)

    def caller(node: str | None) -> str | None:
        while node is not None:
            if node in by_span:
                return by_span[node]
            sym = graph.symbols.get(node)
            if sym is None:
                return None
            # The nearest enclosing symbol, then the file's own code.
            node = sym[5] if sym[5] is not None else (sym[0] if node != sym[0] else None)
        return None

    out = set()
    for src, dst, _res in graph.edges:
        a = caller(src)
        b = by_span.get(dst)
        if a is not None and b is not None:
            out.add((a, b))
            if sites is not None and (src, dst) in graph.sites:
                sites.setdefault((a, b), set()).add(graph.sites[(src, dst)])
    return out


# A call znt places on line L counts as run when the recording saw a call expression run on
# lines L..L+RAN_WINDOW: V8 reports a member call at its property, which a chained call puts
# on a later line than the call's start. The window errs toward judging an edge.
RAN_WINDOW = 3


def _site_ran(sites: set[tuple[str, int]], ran: set[tuple[str, int]]) -> bool:
    return any((f, line + k) in ran for f, line in sites for k in range(RAN_WINDOW + 1))


def go_edges(graph: Graph) -> set[Edge]:
    """znt's edges named the way ``_go_name`` names the Go call graph: ``<folder>.<qualified
    name>`` of a function or method, a call from a function literal counting for the
    function around it. A package-level initializer (the ``init`` of the call graph) and
    an interface's method (no body, so no node of a call graph) are left out."""

    def name(node: str, *, as_target: bool) -> str | None:
        sym = graph.symbols.get(node)
        while sym is not None and sym[2] not in ("function", "method") and not as_target:
            # A call inside a literal or a local declaration counts for its function.
            parent = sym[5]
            if parent is None:
                return None
            node, sym = parent, graph.symbols.get(parent)
        if sym is None or sym[2] not in ("function", "method"):
            return None
        file, qname, _typ, _name, _line, parent = sym
        if parent is not None and graph.kinds.get(parent) == "interface":
            return None
        return f"{posixpath.dirname(file)}.{qname}"

    out = set()
    for src, dst, _res in graph.edges:
        a, b = name(src, as_target=False), name(dst, as_target=True)
        if a is not None and b is not None:
            out.add((a, b))
    return out


def internal_only(edges: set[Edge], graph_names: set[str]) -> set[Edge]:
    return {(a, b) for a, b in edges if a in graph_names and b in graph_names}


def evaluate(suite: str, cases: list[Case], *, internal: bool, tmp: Path) -> list[Result]:
    results = []
    for case in cases:
        graph = scan_case(case, tmp)
        sites: dict[Edge, set[tuple[str, int]]] = {}
        if suite == "jcg":
            found = jcg_edges(graph, case)
            expected = case.expected
        elif suite == "go-repo":
            found = go_edges(graph)
            expected = case.expected
        elif suite in ("jelly", "js-repo"):
            repo = suite == "js-repo"
            found = jelly_edges(graph, case, modules=repo, sites=sites)
            expected = case.expected
            if repo:
                named = set(jelly_spans(graph, case, modules=True).values())
                expected = fold_callers(expected, named)
        else:
            found = pycg_edges(graph)
            expected = case.expected
            if internal or suite == "py-repo":
                defined = {
                    n
                    for node in graph.symbols
                    if (n := dotted(graph, node, None, as_target=False)) is not None
                }
                found = internal_only(found, defined)
                expected = internal_only(expected, defined)
        res = Result(case, found)
        res.true_pos = found & expected
        res.missing = expected - found
        res.false_pos = found - expected if case.complete else set()
        ran = {n for e in (*case.expected, *expected) for n in e}
        blind = _generators(case, graph.modules) if suite == "py-repo" else set()
        res.false_ran = {
            (a, b) for a, b in res.false_pos if a in ran and b not in blind and "<lambda" not in b
        }
        if case.ran_lines is not None:
            # js-repo: and the call itself ran (a call in a branch the tests never took,
            # ``if (!module.parent) app.listen()``, says nothing either).
            res.false_ran = {
                e for e in res.false_ran if _site_ran(sites.get(e, set()), case.ran_lines)
            }
        res.recorded = suite in RECORDED
        results.append(res)
    return results


# -- reporting -------------------------------------------------------------------------


def _ratio(num: int, den: int) -> str:
    return f"{num / den:.3f}" if den else "n/a"


def table(results: list[Result], suite: str) -> str:
    by_cat: dict[str, list[Result]] = {}
    for r in results:
        by_cat.setdefault(r.case.category, []).append(r)
    complete = all(r.case.complete for r in results)
    head = "| category | cases | expected | found | true | precision | recall |"
    head += " no false edge | no missing edge |" if complete else ""
    recorded = suite in RECORDED
    head += " precision, judgeable edges |" if recorded else ""
    lines = [head, "|" + "---|" * (head.count("|") - 1)]

    def row(label: str, rs: list[Result]) -> str:
        tp = sum(len(r.true_pos) for r in rs)
        fp = sum(len(r.false_pos) for r in rs)
        exp = sum(len(r.true_pos) + len(r.missing) for r in rs)
        found = sum(len(r.found) for r in rs)
        cells = [label, str(len(rs)), str(exp), str(found), str(tp)]
        cells.append(_ratio(tp, tp + fp) if complete else "—")
        cells.append(_ratio(tp, exp))
        if complete:
            cells.append(f"{sum(1 for r in rs if not r.false_pos)}/{len(rs)}")
            cells.append(f"{sum(1 for r in rs if not r.missing)}/{len(rs)}")
        if recorded:
            ran_fp = sum(len(r.false_ran) for r in rs)
            cells.append(_ratio(tp, tp + ran_fp))
        return "| " + " | ".join(cells) + " |"

    for cat in sorted(by_cat):
        lines.append(row(cat, by_cat[cat]))
    lines.append(row("**all (edges)**", results))
    if suite == "pycg-macro":
        precisions = [
            len(r.true_pos) / (len(r.true_pos) + len(r.false_pos))
            for r in results
            if r.true_pos or r.false_pos
        ]
        recalls = [
            len(r.true_pos) / (len(r.true_pos) + len(r.missing))
            for r in results
            if r.true_pos or r.missing
        ]
        if precisions and recalls:
            lines.append(
                f"| **average of projects** | {len(results)} | | | | "
                f"{sum(precisions) / len(precisions):.3f} | "
                f"{sum(recalls) / len(recalls):.3f} | | |"
            )
    return "\n".join(lines)


def errors(results: list[Result]) -> str:
    out = []
    for r in results:
        if not r.false_pos and not r.missing:
            continue
        out.append(f"### {r.case.category}/{r.case.name}")
        out.extend(
            f"- false{' (not judgeable)' if r.recorded and (a, b) not in r.false_ran else ''}"
            f": `{a}` -> `{b}`"
            for a, b in sorted(r.false_pos)
        )
        out.extend(f"- missing: `{a}` -> `{b}`" for a, b in sorted(r.missing))
    return "\n".join(out)


def _commit() -> str:
    """The commit of the znt being measured: the checkout ``import znt`` finds (a
    ``PYTHONPATH`` export of another revision is named by its folder)."""
    import znt

    repo = Path(znt.__file__).resolve().parent.parent
    if not (repo / ".git").exists():
        return f"from {repo}"
    try:
        head = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" with uncommitted changes" if dirty else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suite", choices=sorted(LOADERS))
    parser.add_argument("path", type=Path, help="the suite's folder (see the module docstring)")
    parser.add_argument("--out", type=Path, help="also write the markdown report here")
    parser.add_argument("--case-filter", help="only cases whose category/name contains this")
    parser.add_argument("--show-errors", action="store_true", help="list false/missing edges")
    parser.add_argument(
        "--internal", action="store_true", help="score only edges between the case's own symbols"
    )
    args = parser.parse_args(argv)

    cases = LOADERS[args.suite](args.path)
    if args.case_filter:
        cases = [c for c in cases if args.case_filter in f"{c.category}/{c.name}"]
    if not cases:
        print(f"no cases found under {args.path}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="znt-callgraph-") as tmp:
        results = evaluate(args.suite, cases, internal=args.internal, tmp=Path(tmp))

    when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    scope = " (internal edges only)" if args.internal else ""
    report = [
        f"## {args.suite}{scope}",
        "",
        f"`python benchmarks/callgraph.py {args.suite} {args.path}"
        + (" --internal" if args.internal else "")
        + (f" --case-filter {args.case_filter}" if args.case_filter else "")
        + f"` — {when}, znt {_commit()}",
        "",
        table(results, args.suite),
        "",
        f"Anchor: {ANCHORS[args.suite]}.",
    ]
    if args.show_errors:
        report += ["", errors(results)]
    text = "\n".join(report) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
