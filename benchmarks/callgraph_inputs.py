"""Prepare the real-repository call-graph inputs of ``benchmarks/callgraph.py`` (suites
``go-repo``, ``js-repo``, ``py-repo``): the project at a pinned commit and a call graph from
an established tool or from a recorded run of the project's own tests.

    python benchmarks/callgraph_inputs.py gin /work/.mirror/gin-gonic+gin/repo /work/bench/callgraph/repos/gin

The first argument names a pinned repository (``PINNED``), the second is its git directory
(a bare mirror from the ``fetch`` tool, or any clone holding the commit), the third the
folder to write (never inside this repository). It writes ``manifest.json`` (language,
repository, commit, tool), ``src/`` (``git archive`` of the commit) and the ground truth:

* Go: ``callgraph.tsv`` from ``callgraph -algo=vta -test`` of golang.org/x/tools (Debian
  ``golang-golang-x-tools``) over the module's packages and tests, built in GOPATH mode with
  ``GOPROXY=off`` and dependencies only from Debian's ``golang-*-dev`` packages
  (/usr/share/gocode). VTA (variable type analysis) is the type-checked algorithm that
  needs no ``main``: interface calls go to the concrete methods whose values flow there.
* JavaScript: ``callgraph.json`` (Jelly's format) recorded while the project's test suite
  runs under ``benchmarks/js_callrecorder.cjs``; dependencies from npm (``npm install``).
* Python: ``callgraph.json`` (PyCG's format) recorded with ``sys.setprofile`` while the
  project's tests run (``benchmarks/py_callrecorder.py``), in a virtualenv with the test
  dependencies from PyPI.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Pinned:
    language: str
    repository: str
    commit: str
    # Go: the import path the GOPATH layout needs. JS: the test command. Python: the
    # package folder inside the checkout, the pytest arguments and the test requirements.
    import_path: str = ""
    test_command: tuple[str, ...] = ()
    package_root: str = ""
    requirements: tuple[str, ...] = ()


PINNED: dict[str, Pinned] = {
    # gin v1.8.1: the version Debian's golang-github-gin-gonic-gin-dev ships, so the
    # dependencies packaged beside it are the ones it was released with.
    "gin": Pinned(
        "go",
        "gin-gonic/gin",
        "ed049dd850fb09f93c6993c829744997269a35b5",
        "github.com/gin-gonic/gin",
    ),
    # gorilla/mux needs nothing outside the standard library.
    "mux": Pinned(
        "go", "gorilla/mux", "db9d1d0073d27a0a2d9a8c1bc52aa0af4374d265", "github.com/gorilla/mux"
    ),
    "express": Pinned(
        "js",
        "expressjs/express",
        "a3714473feb3d2908add734d340e7755fd85e0a3",
        test_command=(
            "node_modules/.bin/mocha",
            "--require",
            "test/support/env",
            "--reporter",
            "dot",
            "--check-leaks",
            "test/",
            "test/acceptance/",
        ),
    ),
    "koa": Pinned(
        "js",
        "koajs/koa",
        "e0ba8ef39d27fe5dae5492f9fe753d155124f994",
        test_command=("node", "--test"),
    ),
    "flask": Pinned(
        "python",
        "pallets/flask",
        "2ac89889f4cc330eabd50f295dcef02828522c69",
        package_root="src",
        test_command=("-q", "-p", "no:cacheprovider", "tests"),
        requirements=(
            "blinker>=1.9.0",
            "click>=8.1.3",
            "itsdangerous>=2.2.0",
            "jinja2>=3.1.2",
            "markupsafe>=2.1.1",
            "werkzeug>=3.1.0",
            "asgiref",
            "greenlet",
            # tests/test_cli.py imports ``notset`` from ``_pytest.monkeypatch`` (gone in 9).
            "pytest==8.3.5",
            "python-dotenv",
        ),
    ),
    "requests": Pinned(
        "python",
        "psf/requests",
        "1f6589ec3a1ee910f9a65cc3ceac60b26677bc0e",
        package_root="src",
        test_command=("-q", "-p", "no:cacheprovider", "tests"),
        requirements=(
            "charset_normalizer>=2,<4",
            "idna>=2.5,<4",
            "urllib3>=1.26,<3",
            "certifi>=2023.5.7",
            "PySocks>=1.5.6,!=1.5.7",
            "pytest==8.3.5",
            "pytest-httpbin==2.1.0",
            "httpbin~=0.10.0",
            "pytest-mock",
            "trustme",
        ),
    ),
}


def _run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[bytes]:
    print("+", " ".join(cmd), file=sys.stderr)
    return subprocess.run(cmd, check=True, **kw)  # type: ignore[call-overload]


def extract(mirror: Path, commit: str, dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        tar = Path(tmp) / "src.tar"
        with tar.open("wb") as fh:
            _run(["git", "--git-dir", str(mirror), "archive", commit], stdout=fh)
        with tarfile.open(tar) as tf:
            tf.extractall(dest, filter="data")


def prepare_go(pin: Pinned, mirror: Path, out: Path) -> None:
    gopath = out / "gopath"
    src = gopath / "src" / pin.import_path
    extract(mirror, pin.commit, src)
    env = dict(
        os.environ,
        GO111MODULE="off",
        GOPATH=f"{gopath}:/usr/share/gocode",
        GOPROXY="off",
        GOFLAGS="",
        GOCACHE=str(out / "gocache"),
    )
    fmt = "{{.Caller}}\t{{.Callee}}\t{{.Callee.Synthetic}}\t{{.Filename}}:{{.Line}}"
    with (out / "callgraph.tsv").open("wb") as fh:
        _run(
            ["callgraph", "-algo=vta", "-test", f"-format={fmt}", f"{pin.import_path}/..."],
            env=env,
            cwd=src,
            stdout=fh,
        )
    (out / "src").unlink(missing_ok=True)
    (out / "src").symlink_to(src.relative_to(out))


def _merge_js_records(records: Path, src: Path) -> dict[str, object]:
    """Jelly's format from the recorder's per-process files: ``files``, ``functions``
    (``fileindex:line:col:endLine:endCol``, the whole file for its own code) and
    ``fun2fun``; a call site counts for the innermost function around it. Beside them
    ``ran``: the lines (``fileindex:line``) holding a call expression that was seen calling
    a project function, which lets the harness tell a false edge from a call that never
    ran (``if (!module.parent) app.listen()`` under the tests)."""
    files: dict[str, dict[str, list[str]]] = {}
    raw_edges: list[list[object]] = []
    for path in sorted(records.glob("calls-*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for rel, info in data["files"].items():
            files.setdefault(rel, info)
        raw_edges.extend(data["edges"])
    names = sorted(files)
    index = {n: i for i, n in enumerate(names)}
    functions: list[str] = []
    fid: dict[str, int] = {}

    def function(span: str) -> int:
        if span not in fid:
            fid[span] = len(functions)
            functions.append(span)
        return fid[span]

    whole: dict[str, str] = {}
    for rel in names:
        text = (src / rel).read_bytes()
        lines = text.split(b"\n")
        whole[rel] = f"{index[rel]}:1:1:{len(lines)}:{len(lines[-1]) + 1}"

    def parse(s: str) -> tuple[int, int, int, int]:
        a, b, c, d = (int(x) for x in s.split(":"))
        return a, b, c, d

    call_sites = {rel: set(info["calls"]) for rel, info in files.items()}
    pairs: set[tuple[int, int]] = set()
    ran: set[tuple[int, int]] = set()
    for callee_file, callee_id, from_file, line, col in raw_edges:
        assert isinstance(callee_file, str) and isinstance(from_file, str)
        assert isinstance(callee_id, int) and isinstance(line, int) and isinstance(col, int)
        if f"{line}:{col}" not in call_sites[from_file]:
            continue  # not a call expression: a getter, an iterator, a tagged template
        ran.add((index[from_file], line))
        callee = f"{index[callee_file]}:{files[callee_file]['functions'][callee_id]}"
        best: tuple[int, int, int, int] | None = None
        for span in files[from_file]["functions"]:
            sl, sc, el, ec = parse(span)
            if (sl, sc) <= (line, col) < (el, ec) and (best is None or (sl, sc) > best[:2]):
                best = (sl, sc, el, ec)
        caller = (
            f"{index[from_file]}:{best[0]}:{best[1]}:{best[2]}:{best[3]}"
            if best is not None
            else whole[from_file]
        )
        pairs.add((function(caller), function(callee)))
    return {
        "files": names,
        "functions": functions,
        "fun2fun": sorted(pairs),
        "ran": [f"{fi}:{line}" for fi, line in sorted(ran)],
    }


def prepare_js(pin: Pinned, mirror: Path, out: Path) -> None:
    src = out / "src"
    extract(mirror, pin.commit, src)
    tools = out / "tools"
    tools.mkdir(exist_ok=True)
    if not (tools / "node_modules" / "acorn").is_dir():
        _run(["npm", "install", "--prefix", str(tools), "--no-audit", "--no-fund", "acorn@8"])
    _run(["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=src)
    records = out / "records"
    shutil.rmtree(records, ignore_errors=True)
    env = dict(
        os.environ,
        NODE_OPTIONS=f"--require {HERE / 'js_callrecorder.cjs'}",
        ZNT_CG_ROOT=str(src),
        ZNT_CG_OUT=str(records),
        ZNT_CG_ACORN=str(tools / "node_modules" / "acorn"),
        NODE_ENV="test",
    )
    # A failing test still records the calls it made; the run's exit status is reported.
    code = subprocess.run(list(pin.test_command), cwd=src, env=env).returncode
    print(f"test run exit status {code}", file=sys.stderr)
    graph = _merge_js_records(records, src)
    (out / "callgraph.json").write_text(json.dumps(graph), encoding="utf-8")


def prepare_python(pin: Pinned, mirror: Path, out: Path) -> None:
    src = out / "src"
    extract(mirror, pin.commit, src)
    venv = out / "venv"
    if not (venv / "bin" / "python").exists():
        _run([sys.executable, "-m", "venv", str(venv)])
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *pin.requirements])
    root = src / pin.package_root
    env = dict(os.environ, PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1")
    code = subprocess.run(
        [
            str(venv / "bin" / "python"),
            str(HERE / "py_callrecorder.py"),
            str(root),
            str(out / "callgraph.json"),
            "--",
            *pin.test_command,
        ],
        cwd=src,
        env=env,
    ).returncode
    if code != 0 or not (out / "callgraph.json").is_file():
        # pytest's own status is printed by the recorder: failed tests (1) still record.
        raise SystemExit(f"recording failed ({code})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("name", choices=sorted(PINNED))
    parser.add_argument("mirror", type=Path, help="the repository's git directory")
    parser.add_argument("out", type=Path, help="folder to write (outside this repository)")
    args = parser.parse_args(argv)
    pin = PINNED[args.name]
    out = args.out.resolve()
    if out == HERE.parent or HERE.parent in out.parents:
        parser.error("the output folder must be outside this repository")
    out.mkdir(parents=True, exist_ok=True)
    {"go": prepare_go, "js": prepare_js, "python": prepare_python}[pin.language](
        pin, args.mirror, out
    )
    manifest = {
        "name": args.name,
        "language": pin.language,
        "repository": pin.repository,
        "commit": pin.commit,
        "package_root": pin.package_root,
        "import_path": pin.import_path,
        "tool": {
            "go": "callgraph -algo=vta -test (golang.org/x/tools, Debian golang-golang-x-tools)",
            "js": "calls recorded during the test suite (benchmarks/js_callrecorder.cjs)",
            "python": "calls recorded with sys.setprofile during the test suite",
        }[pin.language],
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
