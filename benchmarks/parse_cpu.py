"""CPU per file of the parse workers' job (``parse_one``: read, parse, extract, write rows).

One process, no profiler, no pool: the same loop a worker runs, over a fixed sample of a
tree's sorted ``.py`` paths, so two revisions of the code can be compared file for file
(run it with ``PYTHONPATH`` pointing at an exported ``znt/`` for the other revision, from
a folder that is not the repository). CPU time (``time.process_time``) rather than wall
time, which other work on the machine inflates more.

    python benchmarks/parse_cpu.py TREE --start 0 --count 300 --runs 3
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path


def sample(root: Path, start: int, count: int) -> list[str]:
    paths = sorted(str(p.relative_to(root)) for p in root.rglob("*.py") if ".znt" not in p.parts)
    return paths[start : start + count]


def one_run(root: Path, files: list[str]) -> tuple[float, float]:
    """(CPU s, wall s) of ``parse_one`` over ``files`` after the first (a warm-up: it
    compiles the grammar's query)."""
    from znt.index.parse import ParseJob, close_sinks, parse_one

    sink = tempfile.mkdtemp(prefix="znt-parse-cpu-")
    try:
        jobs = [ParseJob(f, str(root / f), "python", None, sink) for f in files]
        parse_one(jobs[0])
        cpu, wall = time.process_time(), time.perf_counter()
        for job in jobs[1:]:
            parse_one(job)
        close_sinks(sink)
        return time.process_time() - cpu, time.perf_counter() - wall
    finally:
        shutil.rmtree(sink, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tree", type=Path)
    ap.add_argument("--start", type=int, default=0, help="first path of the sample")
    ap.add_argument("--count", type=int, default=300, help="paths in the sample")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    import znt

    files = sample(args.tree, args.start, args.count)
    if len(files) < 2:
        raise SystemExit("the sample needs at least two .py files")
    runs = [one_run(args.tree, files) for _ in range(args.runs)]
    n = len(files) - 1
    print(f"znt from {Path(znt.__file__).parent}")
    print(f"sample {args.start}-{args.start + len(files) - 1}: {files[0]} .. {files[-1]}")
    print("cpu s: " + " ".join(f"{c:.2f}" for c, _ in runs))
    print("wall s: " + " ".join(f"{w:.2f}" for _, w in runs))
    print(f"min cpu per file: {min(c for c, _ in runs) / n * 1000:.1f} ms ({n} files)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
