"""Benchmark ``znt scan`` on a source tree against baselines measured in the same run.

The machines this runs on are shared and noisy, so every znt time is reported as a ratio to
a baseline measured in the same round, next to it:

* ``python -c "import duckdb"`` (the floor of any znt command),
* ``ctags -R`` over the tree (universal-ctags),
* raw tree-sitter parsing of exactly the files znt indexes, in this one Python process.

Then, each round: a cold ``znt scan --restart``, a no-op rescan, and a rescan after a
one-line edit to one mid-sized file (restored afterwards, even on failure). Each figure is
the median of ``--runs`` rounds; a ratio is the median of the per-round ratios.

    python benchmarks/scan.py /tmp/sympy --runs 3 --out docs/benchmarks/sympy.md

Only the temporary one-line edit touches the tree; znt writes its index to ``TREE/.znt``,
which ``--clean`` deletes at the end. See docs/benchmarks/scan.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    from benchmarks.machine import cpu_summary
except ImportError:  # pragma: no cover - run as a script: its own folder is on sys.path
    from machine import cpu_summary  # type: ignore[no-redef]

# Line comments for the one-file edit, by znt language name.
LINE_COMMENT = {
    "python": "#",
    "ruby": "#",
    "yaml": "#",
    "toml": "#",
    "make": "#",
    "dockerfile": "#",
    "go": "//",
    "javascript": "//",
    "typescript": "//",
    "java": "//",
    "kotlin": "//",
    "csharp": "//",
    "php": "//",
    "rust": "//",
    "c": "//",
    "cpp": "//",
    "proto": "//",
    "sql": "--",
}
EDIT_LINE = "znt benchmark: temporary edit"
MB = 1_000_000  # every MB in the report is 10**6 bytes

# Targets by tree profile (issue 17). An edit's target is looked up by its label (``leaf``,
# ``hub``), else ``edit``; ``read_s`` bounds ``znt stats`` and ``znt status`` in seconds.
TARGET_PROFILES: dict[str, dict[str, float]] = {
    "repo": {
        "cold_vs_ctags": 10.0,
        "noop_vs_import": 1.5,
        "edit": 3.0,
        "leaf": 3.0,
        "hub": 6.0,
        "pss_mb": 500.0,
        "read_s": 1.0,
    },
    "monorepo": {
        "cold_vs_ctags": 12.0,
        "noop_vs_import": 2.0,
        "edit": 3.0,
        "leaf": 3.0,
        "hub": 6.0,
        "pss_mb": 1500.0,
        "read_s": 1.0,
    },
}


# -- measuring a subprocess ---------------------------------------------------------------


@dataclass
class Run:
    seconds: float
    returncode: int
    maxrss_mb: float  # ru_maxrss from wait4: the largest single process of the tree
    tree_rss_mb: float = 0.0  # sampled: the sum of RSS over the live process tree, at peak
    tree_pss_mb: float = 0.0  # sampled: the sum of PSS (shared pages split between sharers)
    processes: int = 0  # the most processes seen alive at once
    stdout: str = ""


def _children_of(pids: set[int]) -> set[int]:
    """Every live descendant of ``pids`` (and themselves), from /proc/*/stat."""
    parent: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may contain spaces and parentheses.
        rest = stat[stat.rfind(b")") + 2 :].split()
        parent[int(name)] = int(rest[1])
    found = set(pids)
    grew = True
    while grew:
        grew = False
        for pid, ppid in parent.items():
            if ppid in found and pid not in found:
                found.add(pid)
                grew = True
    return {p for p in found if p in parent}


def _memory_kb(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of one process in KiB, or zeros when it is gone."""
    rss = pss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as fh:
            for line in fh:
                if line.startswith(b"Rss:"):
                    rss = int(line.split()[1])
                elif line.startswith(b"Pss:"):
                    pss = int(line.split()[1])
    except OSError:
        return 0, 0
    return rss, pss


class TreeSampler(threading.Thread):
    """Samples the memory of a process and its descendants every ``interval`` seconds.

    The process list is refreshed every ``refresh`` samples (a /proc walk costs a few ms);
    scan workers live for the whole parse, so a short-lived child can be missed, and so can
    a peak shorter than the interval. The sums are therefore lower bounds."""

    def __init__(self, pid: int, interval: float = 0.1, refresh: int = 3) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.interval = interval
        self.refresh = refresh
        self.peak_rss_kb = 0
        self.peak_pss_kb = 0
        self.peak_procs = 0
        self._stop_event = threading.Event()

    def run(self) -> None:
        pids = {self.pid}
        n = 0
        while not self._stop_event.wait(self.interval):
            if n % self.refresh == 0:
                pids = _children_of({self.pid})
            n += 1
            rss = pss = alive = 0
            for pid in pids:
                r, p = _memory_kb(pid)
                if r:
                    alive += 1
                rss += r
                pss += p
            self.peak_rss_kb = max(self.peak_rss_kb, rss)
            self.peak_pss_kb = max(self.peak_pss_kb, pss)
            self.peak_procs = max(self.peak_procs, alive)

    def stop(self) -> None:
        self._stop_event.set()
        self.join()


def run_timed(
    cmd: list[str], cwd: Path | None = None, sample: bool = False, env: dict[str, str] | None = None
) -> Run:
    """Run ``cmd`` to completion: wall time, and the max RSS that wait4 reports for it."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=err, env=env)
        sampler = TreeSampler(proc.pid) if sample else None
        if sampler:
            sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if sampler:
            sampler.stop()
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        if proc.returncode != 0:
            stderr = err.read().decode("utf-8", "replace")
            raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}:\n{stderr[-2000:]}")
    run = Run(seconds, proc.returncode, usage.ru_maxrss * 1024 / MB, stdout=stdout)
    if sampler:
        run.tree_rss_mb = sampler.peak_rss_kb * 1024 / MB
        run.tree_pss_mb = sampler.peak_pss_kb * 1024 / MB
        run.processes = sampler.peak_procs
    return run


# -- the tree -----------------------------------------------------------------------------


@dataclass
class Tree:
    root: Path
    files: list[tuple[str, str, int]]  # (relative path, znt language, bytes) znt indexes
    all_files: int
    all_bytes: int
    commit: str
    by_language: dict[str, int] = field(default_factory=dict)

    @property
    def indexed_bytes(self) -> int:
        return sum(size for _p, _l, size in self.files)

    @property
    def indexed_lines(self) -> int:
        """Newlines in the indexed files (the monorepo's size is stated in lines)."""
        total = 0
        for path, _lang, _size in self.files:
            with open(self.root / path, "rb") as fh:
                total += fh.read().count(b"\n")
        return total


def describe_tree(root: Path, commit: str | None) -> Tree:
    """Ask znt which files it indexes (its own walk, so the baseline parses the same set)."""
    from znt.index.walk import walk
    from znt.settings import load_settings

    found = walk(root, load_settings(root))
    files = [(e.path, e.language, e.size) for e in found.files.values()]
    by_language: dict[str, int] = {}
    for _p, lang, _s in files:
        by_language[lang] = by_language.get(lang, 0) + 1
    all_files = all_bytes = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in (".git", ".znt")]
        for name in filenames:
            try:
                st = os.lstat(os.path.join(dirpath, name))
            except OSError:
                continue
            all_files += 1
            all_bytes += st.st_size
    if commit is None:
        git = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True
        )
        commit = git.stdout.strip() if git.returncode == 0 else "unknown (pass --commit)"
    return Tree(root, files, all_files, all_bytes, commit, by_language)


@dataclass(frozen=True)
class Edit:
    label: str  # "leaf", "hub" or "edit": also the key of its target
    path: str
    comment: str


def pick_edit_files(tree: Tree, chosen: list[str] | None) -> list[Edit]:
    """The files to edit, each as ``[LABEL=]PATH`` (label ``edit`` by default), else the
    median-sized file of the most common language that has a known line comment."""
    if not chosen:
        path, comment = pick_edit_file(tree, None)
        return [Edit("edit", path, comment)]
    edits = []
    for spec in chosen:
        label, _, path = spec.rpartition("=")
        path, comment = pick_edit_file(tree, path)
        edits.append(Edit(label or "edit", path, comment))
    if len({e.label for e in edits}) != len(edits):
        raise SystemExit("--edit-file: give each file its own LABEL=")
    return edits


def pick_edit_file(tree: Tree, chosen: str | None) -> tuple[str, str]:
    """The file to edit and its line comment: ``chosen``, else the median-sized file of the
    most common language that has a known line comment."""
    langs = {path: lang for path, lang, _size in tree.files}
    if chosen is not None:
        if langs.get(chosen) not in LINE_COMMENT:
            raise SystemExit(f"--edit-file {chosen}: not an indexed file with a known line comment")
        return chosen, LINE_COMMENT[langs[chosen]]
    counts = {k: v for k, v in tree.by_language.items() if k in LINE_COMMENT}
    if not counts:
        raise SystemExit("no indexed file of a language with a known line comment to edit")
    lang = max(counts, key=lambda k: (counts[k], k))
    candidates = sorted((size, path) for path, lg, size in tree.files if lg == lang)
    return candidates[len(candidates) // 2][1], LINE_COMMENT[lang]


# -- the baselines ------------------------------------------------------------------------


def tree_sitter_parse(tree: Tree) -> float:
    """Read and parse every indexed file with tree-sitter, one thread; seconds."""
    from tree_sitter_language_pack import get_parser

    from znt.index.languages import get_language

    parsers: dict[str, Any] = {}
    start = time.perf_counter()
    for path, lang, _size in tree.files:
        grammar = get_language(lang).grammar_for(path)
        parser = parsers.get(grammar)
        if parser is None:
            parser = parsers[grammar] = get_parser(grammar)  # type: ignore[arg-type]
        with open(tree.root / path, "rb") as fh:
            parser.parse(fh.read())
    return time.perf_counter() - start


def warm_page_cache(tree: Tree) -> None:
    for path, _lang, _size in tree.files:
        with open(tree.root / path, "rb") as fh:
            while fh.read(1 << 20):
                pass


# -- one round ----------------------------------------------------------------------------


@dataclass
class Round:
    import_duckdb: float
    ctags: float
    tree_sitter: float
    cold: Run
    noop: Run
    edits: dict[str, Run]  # by Edit.label
    reads: dict[str, Run]  # ``znt stats``, ``znt status``
    scan_json: dict[str, Any]


def _scan_json(run: Run) -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads(run.stdout)
    except json.JSONDecodeError:
        return {}
    return data


def one_round(args: argparse.Namespace, tree: Tree, edits: list[Edit], tmp: Path) -> Round:
    python = args.python
    imp = run_timed([python, "-c", "import duckdb"]).seconds
    ctags = run_timed(
        [args.ctags, "-R", "--exclude=.znt", "--exclude=.git", "-f", str(tmp / "tags"), "."],
        cwd=tree.root,
    ).seconds
    ts = tree_sitter_parse(tree)
    # A snapshot of another revision runs as ``python -m znt`` from PYTHONPATH: the venv's
    # console script names the entry point of the installed revision, which an older one
    # may not have.
    exe = [sys.executable, "-m", "znt"] if (args.znt_rev or args.znt_copy) else [args.znt]
    znt = [*exe, "--format", "json", "-q"]
    scan = [*znt, "scan", *([] if args.embed else ["--no-embed"])]
    root = str(tree.root)
    # ``-m`` puts the working directory first on sys.path: run from the tree, never from a
    # checkout of znt, whose own (possibly edited) package would shadow the snapshot's (and
    # an edit between two runs would change the fingerprint and rebuild the index).
    cold = run_timed([*scan, "--restart", root], cwd=tree.root, sample=not args.no_sample)
    noop = run_timed([*scan, root], cwd=tree.root)
    cold_json, noop_json = _scan_json(cold), _scan_json(noop)
    if noop_json.get("mode") != "noop":
        print(f"warning: the no-op rescan ran in mode {noop_json.get('mode')!r}", file=sys.stderr)
    reads = {
        name: run_timed([*znt, "-C", root, name], cwd=tree.root) for name in ("stats", "status")
    }
    scan_json: dict[str, Any] = {"cold": cold_json, "noop": noop_json}
    runs: dict[str, Run] = {}
    for edit in edits:
        runs[edit.label] = edited = edit_and_rescan(tree, edit, scan)
        edit_json = scan_json[edit.label] = _scan_json(edited)
        if edit_json.get("files_parsed") != 1:
            print(
                f"warning: the {edit.label} rescan parsed {edit_json.get('files_parsed')!r} files",
                file=sys.stderr,
            )
    return Round(imp, ctags, ts, cold, noop, runs, reads, scan_json)


def edit_and_rescan(tree: Tree, edit: Edit, scan: list[str]) -> Run:
    """Append one comment line to ``edit.path``, time the rescan (``scan`` is the command
    without the tree), and put the file and the index back as they were (the restore and its
    rescan are not timed)."""
    target = tree.root / edit.path
    original = target.read_bytes()
    st = target.stat()
    root = str(tree.root)
    try:
        prefix = b"" if original.endswith(b"\n") or not original else b"\n"
        target.write_bytes(original + prefix + f"{edit.comment} {EDIT_LINE}\n".encode())
        return run_timed([*scan, root], cwd=tree.root)
    finally:
        target.write_bytes(original)
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
        subprocess.run([*scan, root], cwd=tree.root, stdout=subprocess.DEVNULL, check=False)


# -- the report ---------------------------------------------------------------------------


def _med(values: list[float]) -> float:
    return statistics.median(values)


def _span(values: list[float], fmt: str = "{:.2f}") -> str:
    return f"{fmt.format(min(values))}–{fmt.format(max(values))}"


def _verdict(value: float, target: float) -> str:
    return "yes" if value <= target else "**no**"


def _git_describe(folder: Path) -> str:
    out = subprocess.run(
        ["git", "-C", str(folder), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    if out.returncode != 0:
        return "unknown"
    dirty = subprocess.run(
        ["git", "-C", str(folder), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return out.stdout.strip() + (" (with uncommitted changes)" if dirty else "")


def report(
    args: argparse.Namespace,
    tree: Tree,
    edits: list[Edit],
    rounds: list[Round],
    started: dt.datetime,
    load: tuple[float, float, float],
) -> str:
    targets = TARGET_PROFILES[args.targets]
    imp = [r.import_duckdb for r in rounds]
    ctags = [r.ctags for r in rounds]
    ts = [r.tree_sitter for r in rounds]
    cold = [r.cold.seconds for r in rounds]
    noop = [r.noop.seconds for r in rounds]
    cold_ctags = _med([r.cold.seconds / r.ctags for r in rounds])
    cold_ts = _med([r.cold.seconds / r.tree_sitter for r in rounds])
    ts_ctags = _med([r.tree_sitter / r.ctags for r in rounds])
    noop_imp = _med([r.noop.seconds / r.import_duckdb for r in rounds])
    rss_largest = max(r.cold.maxrss_mb for r in rounds)
    rss_rescan = max(
        max([r.noop.maxrss_mb, *(e.maxrss_mb for e in r.edits.values())]) for r in rounds
    )
    files = len(tree.files)
    mbytes = tree.indexed_bytes / MB
    cpus = os.cpu_count() or 0
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cpus
    workers = os.environ.get("ZNT_WORKERS", f"default (min(CPUs, 8) = {min(cpus, 8)})")
    langs = ", ".join(
        f"{k} {v}" for k, v in sorted(tree.by_language.items(), key=lambda kv: -kv[1])
    )
    phases = [r.scan_json.get("cold", {}).get("phases_ms", {}) for r in rounds]
    phase_names = sorted(
        {k for p in phases for k in p}, key=lambda k: -_med([p.get(k, 0) for p in phases])
    )
    phase_text = ", ".join(
        f"{k} {_med([p.get(k, 0) for p in phases]) / 1000:.2f} s" for k in phase_names
    )
    cold_json = rounds[-1].scan_json.get("cold", {})
    edited = "; ".join(f"{e.label} `{e.path}`" for e in edits)
    comments = ", ".join(sorted({f"`{e.comment}`" for e in edits}))

    label = args.label or tree.root.name
    lines = [
        f"### {label}",
        "",
        f"- date: {started.strftime('%Y-%m-%d %H:%M UTC')}; {len(rounds)} rounds, medians",
        f"- tree: `{tree.root}` at commit `{tree.commit}`: {tree.all_files} files, "
        f"{tree.all_bytes / MB:.1f} MB; znt indexes {files} files, {mbytes:.1f} MB, "
        f"{tree.indexed_lines:,} lines ({langs})",
        f"- cold scan result: {cold_json.get('symbols', '?')} symbols, "
        f"{cold_json.get('edges', '?')} edges, {cold_json.get('warnings', '?')} warnings",
        f"- edited files: {edited} (one {comments} comment line appended, then restored)",
        f"- machine: {cpus} CPUs ({affinity} usable; {cpu_summary()}), load average at start "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, at end "
        + " ".join(f"{x:.2f}" for x in os.getloadavg())
        + f"; Python {platform.python_version()}; ZNT_WORKERS {workers}",
        f"- measured: {znt_source()}"
        + (f" (`--znt-rev {args.znt_rev}` = {args.znt_commit[:10]})" if args.znt_rev else "")
        + (f" (`--znt-copy` of the working tree at {args.znt_commit})" if args.znt_copy else ""),
        f"- targets: `--targets {args.targets}`; scans "
        + ("with the configured embedding provider" if args.embed else "`--no-embed`"),
        "",
        "| measurement | median s | range s | ratio | target | met |",
        "|---|---:|---:|---:|---:|:---:|",
        f'| baseline: `python -c "import duckdb"` | {_med(imp):.3f} | {_span(imp, "{:.3f}")} | | | |',
        f"| baseline: `ctags -R` | {_med(ctags):.2f} | {_span(ctags)} | | | |",
        f"| baseline: tree-sitter parse only, 1 process | {_med(ts):.2f} | {_span(ts)} "
        f"| {ts_ctags:.1f}× ctags | | |",
        f"| znt cold scan (`--restart`) | {_med(cold):.2f} | {_span(cold)} "
        f"| {cold_ctags:.1f}× ctags | ≤ {targets['cold_vs_ctags']:.0f}× "
        f"| {_verdict(cold_ctags, targets['cold_vs_ctags'])} |",
        f"| znt cold scan vs tree-sitter only | | | {cold_ts:.2f}× tree-sitter | | |",
        f"| znt no-op rescan | {_med(noop):.3f} | {_span(noop, '{:.3f}')} "
        f"| {noop_imp:.1f}× import | ≤ {targets['noop_vs_import']:g}× "
        f"| {_verdict(noop_imp, targets['noop_vs_import'])} |",
    ]
    for e in edits:
        secs = [r.edits[e.label].seconds for r in rounds]
        ratio = _med([r.edits[e.label].seconds / r.import_duckdb for r in rounds])
        goal = targets.get(e.label, targets["edit"])
        lines.append(
            f"| znt one-file rescan, {e.label} (`{e.path}`) | {_med(secs):.3f} "
            f"| {_span(secs, '{:.3f}')} | {ratio:.1f}× import | ≤ {goal:g}× "
            f"| {_verdict(ratio, goal)} |"
        )
    for name in ("stats", "status"):
        secs = [r.reads[name].seconds for r in rounds]
        ratio = _med([r.reads[name].seconds / r.import_duckdb for r in rounds])
        lines.append(
            f"| znt {name} | {_med(secs):.3f} | {_span(secs, '{:.3f}')} | {ratio:.1f}× import "
            f"| ≤ {targets['read_s']:g} s | {_verdict(_med(secs), targets['read_s'])} |"
        )
    lines += [
        "",
        "| memory and throughput (cold scan) | value | target | met |",
        "|---|---:|---:|:---:|",
        f"| peak RSS, largest single process (wait4 ru_maxrss, max of rounds) | {rss_largest:.0f} MB "
        "| | |",
    ]
    if not args.no_sample:
        tree_rss = max(r.cold.tree_rss_mb for r in rounds)
        tree_pss = max(r.cold.tree_pss_mb for r in rounds)
        procs = max(r.cold.processes for r in rounds)
        lines += [
            f"| peak RSS summed over the process tree (sampled every 0.1 s, max of rounds; "
            f"counts shared pages once per process) | {tree_rss:.0f} MB | | |",
            f"| peak PSS summed over the process tree (sampled; shared pages split) | {tree_pss:.0f} MB "
            f"| ≤ {targets['pss_mb']:.0f} MB | {_verdict(tree_pss, targets['pss_mb'])} |",
            f"| processes alive at once (sampled) | {procs} | | |",
        ]
    lines += [
        f"| peak RSS of the no-op and one-file rescans (largest process) | {rss_rescan:.0f} MB | | |",
        f"| cold scan throughput | {files / _med(cold):.0f} files/s, {mbytes / _med(cold):.2f} MB/s | | |",
        "",
        f"Ratios are medians of per-round ratios (each znt time divided by the baseline measured in "
        f"the same round). Cold-scan phases reported by znt (medians): {phase_text or 'n/a'}.",
        "",
    ]
    return "\n".join(lines)


def use_znt_revision(rev: str, tmp: Path) -> str:
    """Export ``znt/`` at git revision ``rev`` of this repository into ``tmp`` and make every
    later import of znt (here and in the subprocesses) use it: a run is then immune to edits
    made to the working tree meanwhile, which would change the index fingerprint mid-run and
    turn a no-op rescan into a full one. Returns the full commit."""
    repo = Path(__file__).resolve().parent.parent
    commit = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--verify", f"{rev}^{{commit}}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", commit, "znt"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
    _compile(tmp / "znt")
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(tmp) + (os.pathsep + old if old else "")
    sys.path.insert(0, str(tmp))
    return commit


def _compile(folder: Path) -> None:
    """Byte-compile the copy, as an installed package is: with PYTHONDONTWRITEBYTECODE set
    (it is on these machines) every command would otherwise recompile znt from source."""
    import compileall

    compileall.compile_dir(str(folder), quiet=1)


def use_znt_copy(tmp: Path) -> str:
    """Copy this working tree's ``znt/`` into ``tmp`` and use the copy, as
    :func:`use_znt_revision` does for a commit: uncommitted code, frozen for the run."""
    repo = Path(__file__).resolve().parent.parent
    shutil.copytree(repo / "znt", tmp / "znt", ignore=shutil.ignore_patterns("__pycache__"))
    _compile(tmp / "znt")
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(tmp) + (os.pathsep + old if old else "")
    sys.path.insert(0, str(tmp))
    return _git_describe(repo)


def znt_source() -> str:
    """Where the znt being measured comes from: its folder, and its git commit if any."""
    import znt

    folder = Path(znt.__file__).resolve().parent.parent
    where = _git_describe(folder)
    at = f" at {where}" if where != "unknown" else ""
    return f"znt {getattr(znt, '__version__', '?')} from `{folder}`{at}"


def _default_znt() -> str:
    beside = Path(sys.executable).with_name("znt")
    return str(beside) if beside.exists() else (shutil.which("znt") or "znt")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("tree", type=Path, help="the source tree to scan")
    ap.add_argument("--runs", type=int, default=3, help="rounds to take medians of (default 3)")
    ap.add_argument("--out", type=Path, help="also write the markdown table to this file")
    ap.add_argument("--json", type=Path, help="also write every raw measurement to this file")
    ap.add_argument("--label", help="a heading for the table (default: the tree's folder name)")
    ap.add_argument("--commit", help="the tree's commit, when it is not a git checkout")
    ap.add_argument(
        "--edit-file",
        action="append",
        metavar="[LABEL=]PATH",
        help="a file (relative to TREE) for a one-file edit; repeat for several, labelled "
        "leaf=... or hub=... to check each against its own target",
    )
    ap.add_argument(
        "--targets",
        choices=sorted(TARGET_PROFILES),
        default="repo",
        help="which targets to check: one repository (default) or a monorepo",
    )
    ap.add_argument("--clean", action="store_true", help="delete TREE/.znt at the end")
    ap.add_argument("--znt", default=_default_znt(), help="the znt executable")
    ap.add_argument("--python", default=sys.executable, help="the interpreter for import duckdb")
    ap.add_argument("--ctags", default="/usr/bin/ctags", help="universal-ctags")
    ap.add_argument(
        "--znt-rev",
        help="measure znt as committed at this revision of this repository (e.g. HEAD), "
        "exported to a temporary folder, instead of the installed working tree",
    )
    ap.add_argument(
        "--znt-copy",
        action="store_true",
        help="measure a copy of this working tree's znt/ taken at start (uncommitted edits "
        "made during the run do not reach it)",
    )
    ap.add_argument(
        "--no-sample", action="store_true", help="do not sample the process tree's memory"
    )
    ap.add_argument(
        "--embed",
        action="store_true",
        help="scan with the configured embedding provider (default: every scan --no-embed, "
        "as the targets are set)",
    )
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    if args.znt_rev and args.znt_copy:
        ap.error("--znt-rev and --znt-copy exclude each other")
    root: Path = args.tree.resolve()
    if not root.is_dir():
        ap.error(f"{root} is not a folder")

    # A benchmark tree is often a copy outside any git repository: the first scan of a big
    # one would otherwise stop to ask for --yes (znt.project.unversioned_size).
    os.environ.setdefault("ZNT_SCAN_CONFIRM_FILES", str(10**9))
    started = dt.datetime.now(dt.timezone.utc)
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="znt-bench-") as tmpdir:
        if args.znt_rev:
            snapshot = Path(tmpdir) / "znt-src"
            snapshot.mkdir()
            args.znt_commit = use_znt_revision(args.znt_rev, snapshot)
        elif args.znt_copy:
            snapshot = Path(tmpdir) / "znt-src"
            snapshot.mkdir()
            args.znt_commit = use_znt_copy(snapshot)
        return _measure(args, root, started, load, Path(tmpdir))


def _measure(
    args: argparse.Namespace,
    root: Path,
    started: dt.datetime,
    load: tuple[float, float, float],
    tmp: Path,
) -> int:
    tree = describe_tree(root, args.commit)
    if not tree.files:
        raise SystemExit(f"znt indexes no files under {root}")
    edits = pick_edit_files(tree, args.edit_file)
    print(
        f"{root}: znt indexes {len(tree.files)} files ({tree.indexed_bytes / MB:.1f} MB, "
        f"{tree.indexed_lines:,} lines); one-file edits on " + ", ".join(e.path for e in edits),
        file=sys.stderr,
    )
    warm_page_cache(tree)
    rounds: list[Round] = []
    try:
        for i in range(args.runs):
            r = one_round(args, tree, edits, tmp)
            rounds.append(r)
            print(
                f"round {i + 1}/{args.runs}: import {r.import_duckdb:.3f} s, "
                f"ctags {r.ctags:.2f} s, tree-sitter {r.tree_sitter:.2f} s, "
                f"cold {r.cold.seconds:.2f} s, no-op {r.noop.seconds:.3f} s, "
                + ", ".join(f"{k} {v.seconds:.3f} s" for k, v in r.edits.items())
                + ", "
                + ", ".join(f"{k} {v.seconds:.3f} s" for k, v in r.reads.items()),
                file=sys.stderr,
            )
    finally:
        if args.clean:
            shutil.rmtree(root / ".znt", ignore_errors=True)

    text = report(args, tree, edits, rounds, started, load)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    if args.json:
        raw = {
            "tree": str(root),
            "commit": tree.commit,
            "files": len(tree.files),
            "bytes": tree.indexed_bytes,
            "edit_files": {e.label: e.path for e in edits},
            "rounds": [
                {
                    "import_duckdb": r.import_duckdb,
                    "ctags": r.ctags,
                    "tree_sitter": r.tree_sitter,
                    **{
                        name: {k: v for k, v in run.__dict__.items() if k != "stdout"}
                        for name, run in (
                            ("cold", r.cold),
                            ("noop", r.noop),
                            *r.edits.items(),
                            *r.reads.items(),
                        )
                    },
                    "scan_json": r.scan_json,
                }
                for r in rounds
            ],
        }
        args.json.write_text(json.dumps(raw, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
