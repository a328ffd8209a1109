"""Scan one tree with two revisions of znt and compare the indexes table by table.

A change that is meant to make the scan faster must not change a single row it writes.
This harness checks that on real trees: it exports ``znt/`` at revision A (a commit) and
at B (a commit, or this working tree), scans a fresh copy of TREE with each
(``python -m znt scan --no-embed --yes``), then compares every table the two index files
have in common with ``EXCEPT ALL`` both ways (a multiset difference, so a duplicated row
counts too). Tables that record the scan itself (its time, the fingerprint of the code
that wrote it) are listed by ``--skip``.

    python benchmarks/index_diff.py TREE [TREE ...] --rev-a 33e7b55 [--rev-b HEAD]

Prints one line per table (rows in A, rows in B, rows only in A, rows only in B) and exits
1 when any table differs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# Tables whose rows describe the scan rather than the project (times, fingerprints).
DEFAULT_SKIP = ("meta",)


def export_znt(rev: str | None, dest: Path) -> str:
    """``znt/`` at ``rev`` (None: this working tree) under ``dest``; returns what it is."""
    dest.mkdir(parents=True)
    if rev is None:
        shutil.copytree(REPO / "znt", dest / "znt", ignore=shutil.ignore_patterns("__pycache__"))
        return "working tree"
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", rev, "znt"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return rev


def scan(src: Path, tree: Path) -> None:
    """Scan ``tree`` with the znt exported under ``src``."""
    env = dict(os.environ, PYTHONPATH=str(src), ZNT_SCAN_CONFIRM_FILES="100000000")
    subprocess.run(
        [sys.executable, "-m", "znt", "-q", "scan", "--no-embed", "--yes", str(tree)],
        check=True,
        env=env,
        cwd=src,  # ``-m`` puts the working directory first on sys.path
        stdout=subprocess.DEVNULL,
    )


def index_file(tree: Path) -> Path:
    found = sorted(tree.glob(".znt/*.duckdb"))
    if not found:
        raise SystemExit(f"no index under {tree}/.znt")
    return found[0]


def compare(a: Path, b: Path, skip: set[str]) -> list[tuple[str, int, int, int, int]]:
    """(table, rows in a, rows in b, only in a, only in b) for each table both have."""
    import duckdb

    con = duckdb.connect()
    con.execute(f"ATTACH '{a}' AS a (READ_ONLY)")
    con.execute(f"ATTACH '{b}' AS b (READ_ONLY)")

    def tables(db: str) -> set[str]:
        rows = con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_catalog = ? "
            "AND table_type = 'BASE TABLE'",
            [db],
        ).fetchall()
        return {r[0] for r in rows}

    ta, tb = tables("a"), tables("b")
    out = []
    for name in sorted(ta - tb):
        out.append((f"{name} (only in A)", -1, -1, -1, -1))
    for name in sorted(tb - ta):
        out.append((f"{name} (only in B)", -1, -1, -1, -1))
    for name in sorted((ta & tb) - skip):
        cols_a = con.execute(f"SELECT * FROM a.{name} LIMIT 0").description
        cols_b = con.execute(f"SELECT * FROM b.{name} LIMIT 0").description
        if [c[0] for c in cols_a] != [c[0] for c in cols_b]:
            out.append((f"{name} (columns differ)", -1, -1, -1, -1))
            continue
        n_a = con.execute(f"SELECT count(*) FROM a.{name}").fetchone()[0]  # type: ignore[index]
        n_b = con.execute(f"SELECT count(*) FROM b.{name}").fetchone()[0]  # type: ignore[index]
        only_a = con.execute(
            f"SELECT count(*) FROM (SELECT * FROM a.{name} EXCEPT ALL SELECT * FROM b.{name})"
        ).fetchone()[0]  # type: ignore[index]
        only_b = con.execute(
            f"SELECT count(*) FROM (SELECT * FROM b.{name} EXCEPT ALL SELECT * FROM a.{name})"
        ).fetchone()[0]  # type: ignore[index]
        out.append((name, n_a, n_b, only_a, only_b))
    con.close()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trees", nargs="+", type=Path, help="folders to scan (copied first)")
    ap.add_argument("--rev-a", required=True, help="git revision of the reference code")
    ap.add_argument("--rev-b", default=None, help="revision to compare (default: working tree)")
    ap.add_argument("--skip", nargs="*", default=list(DEFAULT_SKIP), help="tables not compared")
    args = ap.parse_args(argv)
    differ = False
    with tempfile.TemporaryDirectory(prefix="znt-index-diff-") as tmp:
        work = Path(tmp)
        what_a = export_znt(args.rev_a, work / "src-a")
        what_b = export_znt(args.rev_b, work / "src-b")
        print(f"A = {what_a}, B = {what_b}")
        for i, tree in enumerate(args.trees):
            copies = []
            for side in ("a", "b"):
                copy = work / f"tree{i}-{side}" / tree.name
                shutil.copytree(tree, copy, symlinks=True, ignore=shutil.ignore_patterns(".znt"))
                scan(work / f"src-{side}", copy)
                copies.append(index_file(copy))
            print(f"\n{tree}")
            print(f"{'table':<28} {'rows A':>10} {'rows B':>10} {'only A':>8} {'only B':>8}")
            for name, n_a, n_b, only_a, only_b in compare(copies[0], copies[1], set(args.skip)):
                bad = only_a != 0 or only_b != 0 or n_a != n_b
                differ |= bad
                print(
                    f"{name:<28} {n_a:>10} {n_b:>10} {only_a:>8} {only_b:>8}"
                    + ("  DIFFERS" if bad else "")
                )
    print("\nidentical" if not differ else "\nINDEXES DIFFER")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
