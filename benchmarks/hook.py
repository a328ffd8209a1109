"""How long a commit waits for znt's pre-commit hook, against ``python -c "import duckdb"``.

On a copy of an indexed git work tree (default: /work/bench/qtree/sympy, copied with
``cp -a`` so the original is never touched), with ``znt hook install --pre-commit``: each
run appends a line to one file and runs the installed ``.git/hooks/pre-commit`` the way git
does (from the work tree's top, no arguments), timing its wall time; the baseline is
``python -c "import duckdb"`` timed right before it in the same run. The hook starts the
incremental scan in the background and returns; the benchmark then waits for that scan
and reports its duration separately (what the index needs to catch up, not what the commit
waits for). With ``--check-runs N`` it also times the ``--check`` variant, which scans in
the foreground and runs ``znt check`` (a commit waits for all of it).

    python benchmarks/hook.py [--source DIR] [--workdir DIR] [--runs 7] [--check-runs 1]

Prints a Markdown table (p50 over the runs, the ratio, the load average) for docs/hooks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET = "sympy/core/basic.py"


def run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{cmd} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return dt


def znt(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "znt", *args], cwd=cwd, capture_output=True, text=True
    )


def last_scan(root: Path) -> dict[str, object]:
    try:
        return dict(json.loads((root / ".znt" / "manifest.json").read_text())["last_scan"])
    except (OSError, ValueError, KeyError):
        return {}


def wait_background_scan(root: Path, started: float, timeout: float = 1800) -> dict[str, object]:
    """The scan the hook started, once its results are published."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = last_scan(root)
        if float(info.get("at") or 0) >= started - 1:  # type: ignore[arg-type]
            return info
        time.sleep(0.2)
    raise SystemExit("the background scan did not finish")


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", default="/work/bench/qtree/sympy")
    ap.add_argument("--workdir", default=None, help="Where the copy lives (kept for reuse).")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--check-runs", type=int, default=1)
    ap.add_argument(
        "--file",
        default=TARGET,
        help="The file changed before each run (default: a hub most of sympy imports; the "
        "background scan re-resolves the edges of every file that imports it).",
    )
    args = ap.parse_args()

    work = Path(args.workdir or Path(tempfile.gettempdir()) / "znt-hook-bench")
    copy = work / Path(args.source).name
    if not copy.exists():
        work.mkdir(parents=True, exist_ok=True)
        subprocess.run(["cp", "-a", args.source, str(copy)], check=True)
    load_before = load()
    t0 = time.perf_counter()
    r = znt("scan", "--no-embed", "-q", "--format", "json", cwd=copy)
    if r.returncode != 0:
        raise SystemExit(r.stderr)
    warm = json.loads(r.stdout)
    print(
        f"warm-up scan: {warm['mode']} in {time.perf_counter() - t0:.1f}s, "
        f"{warm['files_total']} files",
        file=sys.stderr,
    )
    r = znt("hook", "install", "--pre-commit", cwd=copy)
    if r.returncode != 0:
        raise SystemExit(r.stderr)
    hook = Path(
        subprocess.run(
            ["git", "rev-parse", "--git-path", "hooks/pre-commit"],
            cwd=copy,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    hook = hook if hook.is_absolute() else copy / hook
    target = copy / args.file
    original = target.read_bytes()
    env = {k: v for k, v in os.environ.items() if k not in ("ZNT_HOOK_SYNC", "ZNT_HOOKS")}
    base: list[float] = []
    hook_t: list[float] = []
    bg: list[float] = []
    check_t: list[float] = []
    try:
        for i in range(args.runs):
            base.append(run([sys.executable, "-c", "import duckdb"], copy))
            target.write_bytes(original + f"# hook benchmark {i}\n".encode())
            started = time.time()
            hook_t.append(run([str(hook)], copy, env))
            info = wait_background_scan(copy, started)
            bg.append(float(info.get("duration_ms") or 0) / 1000)  # type: ignore[arg-type]
            print(
                f"run {i}: import duckdb {base[-1]:.3f}s, hook {hook_t[-1]:.3f}s, "
                f"background scan {bg[-1]:.1f}s ({info.get('mode')})",
                file=sys.stderr,
            )
        if args.check_runs:
            znt("hook", "install", "--pre-commit", "--check", cwd=copy)
            for i in range(args.check_runs):
                target.write_bytes(original + f"# hook check benchmark {i}\n".encode())
                check_t.append(run([str(hook)], copy, env))
                print(f"check run {i}: {check_t[-1]:.1f}s", file=sys.stderr)
    finally:
        target.write_bytes(original)
        znt("hook", "uninstall", cwd=copy)
        znt("scan", "--no-embed", "-q", cwd=copy)
    load_after = load()
    p50 = statistics.median
    ratio = p50(hook_t) / p50(base)
    print(f"changed file: {args.file}\n")
    print(f"| measure (p50 of {args.runs}) | seconds |")
    print("|---|---|")
    print(f'| `python -c "import duckdb"` | {p50(base):.3f} |')
    print(f"| pre-commit hook (scan started in the background) | {p50(hook_t):.3f} |")
    print(f"| **ratio hook / import duckdb** | **{ratio:.2f}x** (target <= 5x) |")
    print(f"| background incremental scan, one file changed | {p50(bg):.1f} |")
    if check_t:
        print(
            f"| pre-commit hook with `--check` (foreground scan + check, "
            f"p50 of {len(check_t)}) | {p50(check_t):.1f} |"
        )
    print(
        f"\nload average (1/5/15 min) before: {load_before}; after: {load_after}; "
        f"{os.cpu_count()} CPUs; {copy}"
    )


if __name__ == "__main__":
    main()
