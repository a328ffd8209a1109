"""The walk's folder cache (znt/index/walk.py): a walk that reuses the listings of unchanged
folders finds exactly what a fresh walk finds, after any change to the tree; it lists again
only the folders that changed; racy and forged records are not trusted; the scan keeps the
cache in ``.znt/walk.json`` and ``status`` reads it without writing it."""

from __future__ import annotations

import json
import os
import random
import shutil
import time
from pathlib import Path

import pytest

from tests.conftest import run_znt
from znt import api
from znt.index import walk as walk_mod
from znt.index.walk import WalkCache, WalkResult, load_cache, save_cache, walk
from znt.settings import ProjectSettings

SETTINGS = ProjectSettings(max_file_bytes=300)
IGNORE_TEXTS = ("", "*.py\n", "b*/\n", "*.py\n!keep.py\n", "gen_*.py\n", "/a/\n")
# Long enough that a change lands on a new tick of the file system clock (the kernel's
# coarse clock moves every few milliseconds).
TICK = 0.02


def same(a: WalkResult, b: WalkResult, label: str = "") -> None:
    assert list(a.files.items()) == list(b.files.items()), label
    assert a.skipped == b.skipped, label
    assert a.problems == b.problems, label
    assert a.ignored == b.ignored, label


class Spy:
    """Counts the folders a walk lists (``_list`` calls)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.listed: list[str] = []
        real = walk_mod._list

        def listing(abs_dir: str, rel_dir: str, *args: object) -> object:
            self.listed.append(rel_dir)
            return real(abs_dir, rel_dir, *args)  # type: ignore[arg-type]

        monkeypatch.setattr(walk_mod, "_list", listing)

    def take(self) -> list[str]:
        out, self.listed = self.listed, []
        return out


def one_file_tree(tmp_path: Path) -> Path:
    """``tree/a/x.py``: one folder below the root, one file in it."""
    root = tmp_path / "tree"
    (root / "a").mkdir(parents=True)
    (root / "a" / "x.py").write_text("v = 0\n")
    return root


def folders(root: Path) -> list[Path]:
    return [root, *sorted(p for p in root.rglob("*") if p.is_dir() and not p.is_symlink())]


def entries(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink())


def mutate(rng: random.Random, root: Path, step: int) -> str:
    """One random change of the kinds a working tree sees (one that the tree's state makes
    impossible, such as writing over a folder, is skipped)."""
    try:
        return _mutate(rng, root, step)
    except OSError as exc:
        return f"skipped ({exc.strerror})"


def _mutate(rng: random.Random, root: Path, step: int) -> str:
    dirs, files = folders(root), entries(root)
    op = rng.choice(
        ["new", "append", "delete", "mkdir", "rmtree", "rename", "ignore", "link", "swap", "big"]
    )
    where = rng.choice(dirs)
    if op == "new" or not files:
        name = rng.choice(["keep.py", f"gen_{step}.py", f"m{step}.py", f"n{step}.txt"])
        (where / name).write_text(f"x = {step}\n")
    elif op == "append":
        with rng.choice(files).open("a") as fh:  # in place: the folder's mtime stays
            fh.write(f"y = {step}\n")
    elif op == "delete":
        rng.choice(files).unlink()
    elif op == "mkdir":
        sub = where / rng.choice(["a", "b1", "c", f"d{step}"])
        sub.mkdir(exist_ok=True)
        (sub / f"f{step}.py").write_text("z = 1\n")
    elif op == "rmtree" and where != root:
        shutil.rmtree(where)
    elif op == "rename":
        src = rng.choice(files)
        src.rename(rng.choice(dirs) / f"r{step}.py")
    elif op == "ignore":
        with (where / rng.choice([".gitignore", ".zntignore"])).open("w") as fh:
            fh.write(rng.choice(IGNORE_TEXTS))  # rewritten in place
    elif op == "link":
        target = rng.choice([*files, root / "missing.py"])
        link = where / f"l{step}.py"
        if not link.exists() and not link.is_symlink():
            link.symlink_to(target)
    elif op == "swap":
        victim = rng.choice(files)
        victim.unlink()
        victim.mkdir()
        (victim / "inner.py").write_text("w = 2\n")
    elif op == "big":
        rng.choice(files).write_text("#" * rng.choice([10, 400]) + "\n")
    return op


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_cached_walk_equals_a_fresh_walk_after_every_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    monkeypatch.setattr(walk_mod, "RACY_NS", 0)  # trust every record at once (TICK apart)
    rng = random.Random(seed)
    root = tmp_path / "tree"
    for rel in ("a/x.py", "a/sub/y.py", "b1/z.py", "c/deep/er/w.py", "top.py", "n.txt"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("v = 0\n")
    spy = Spy(monkeypatch)
    cache = WalkCache("", 0)
    walk(root, SETTINGS, cache=cache)
    reused_somewhere = False
    for step in range(60):
        time.sleep(TICK)
        op = mutate(rng, root, step)
        time.sleep(TICK)
        spy.take()
        cached = walk(root, SETTINGS, cache=cache)
        listed = spy.take()
        fresh = walk(root, SETTINGS)
        spy.take()
        same(cached, fresh, f"step {step}: {op}")
        reused_somewhere |= len(listed) < len(cache.dirs)
    assert reused_somewhere


def test_only_changed_folders_are_listed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(walk_mod, "RACY_NS", 0)
    root = tmp_path / "tree"
    for rel in ("a/x.py", "b/y.py", "b/deep/z.py", "top.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("v = 0\n")
    spy = Spy(monkeypatch)
    cache = WalkCache("", 0)
    walk(root, SETTINGS, cache=cache)
    assert sorted(spy.take()) == ["", "a", "b", "b/deep"]

    time.sleep(TICK)
    (root / "b" / "deep" / "z.py").write_text("v = 1000\n")  # content only
    again = walk(root, SETTINGS, cache=cache)
    assert spy.take() == [] and not cache.changed
    assert again.files["b/deep/z.py"].size == len("v = 1000\n")

    time.sleep(TICK)
    (root / "a" / "new.py").write_text("n = 1\n")
    again = walk(root, SETTINGS, cache=cache)
    assert spy.take() == ["a"] and cache.changed
    assert "a/new.py" in again.files

    time.sleep(TICK)
    (root / ".gitignore").write_text("y.py\n")  # a new ignore file: everything below
    again = walk(root, SETTINGS, cache=cache)
    assert sorted(spy.take()) == ["", "a", "b", "b/deep"]
    assert "b/y.py" not in again.files

    time.sleep(TICK)
    with (root / ".gitignore").open("w") as fh:  # edited in place: the folder's mtime stays
        fh.write("z.py\n")
    again = walk(root, SETTINGS, cache=cache)
    assert sorted(spy.take()) == ["", "a", "b", "b/deep"]
    assert "b/y.py" in again.files and "b/deep/z.py" not in again.files


def test_folders_changed_just_before_the_walk_are_listed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder modified within ``RACY_NS`` of the walk that listed it may change again
    without a new mtime: its record is not trusted."""
    root = one_file_tree(tmp_path)
    spy = Spy(monkeypatch)
    cache = WalkCache("", 0)
    walk(root, SETTINGS, cache=cache)
    assert all(listing.sig is None for listing in cache.dirs.values())
    walk(root, SETTINGS, cache=cache)
    assert sorted(spy.take()) == ["", "", "a", "a"]

    old = time.time() - 60
    for path in (root / "a" / "x.py", root / "a", root):
        os.utime(path, (old, old))
    walk(root, SETTINGS, cache=cache)  # listed again (new ctime), now trusted
    spy.take()
    walk(root, SETTINGS, cache=cache)
    assert spy.take() == []


def test_a_forged_or_damaged_cache_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(walk_mod, "RACY_NS", 0)
    root = one_file_tree(tmp_path)
    (tmp_path / "secret.py").write_text("token = 1\n")
    cache = WalkCache("", 0)
    walk(root, SETTINGS, cache=cache)
    path = tmp_path / "walk.json"
    save_cache(path, cache)
    assert load_cache(path) is not None

    doc = json.loads(path.read_text())
    doc["dirs"]["a"][5] = ".."  # a "subfolder" that leaves the tree
    path.write_text(json.dumps(doc))
    assert load_cache(path) is None
    doc["dirs"]["a"][5] = ""
    doc["dirs"]["a"][2:4] = ["../secret.py", "python"]  # a file outside it
    path.write_text(json.dumps(doc))
    assert load_cache(path) is None
    path.write_text("{not json")
    assert load_cache(path) is None

    # Records whose folder signature is not the folder's own (a cache shipped with a clone)
    # are listed afresh: the forged file list is never believed.
    doc = json.loads(json.dumps({"version": walk_mod.CACHE_VERSION, "key": cache.key}))
    doc["at_ns"] = 0
    doc["dirs"] = {"": [[1, 2, 3, 4], {}, "ghost.py", "python", "", "a", {}, {}, {}]}
    path.write_text(json.dumps(doc))
    forged = load_cache(path)
    assert forged is not None
    found = walk(root, SETTINGS, cache=forged)
    assert list(found.files) == ["a/x.py"]


def test_scan_keeps_the_cache_and_status_only_reads_it(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "m.py").write_text("def f():\n    return 1\n")
    api.scan(str(root), no_embed=True)
    cache_file = root / ".znt" / "walk.json"
    assert load_cache(cache_file) is not None
    before = cache_file.stat()
    proc = run_znt("status", "--format", "json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert cache_file.stat().st_mtime_ns == before.st_mtime_ns

    (root / "pkg" / "n.py").write_text("def g():\n    return 2\n")
    doc = api.scan(str(root), no_embed=True)
    assert doc["mode"] == "incremental" and doc["files_parsed"] == 1
    cache_file.write_text("garbage")  # a damaged cache costs a full walk, nothing else
    doc = api.scan(str(root), no_embed=True)
    assert doc["mode"] == "noop" and doc["files_unchanged"] == 2
    assert load_cache(cache_file) is not None


def test_another_version_or_language_table_lists_every_folder_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A listing records which names were files of a known language: an upgrade that adds a
    language (or changes an extension or exclude) must not reuse it."""
    import znt
    from znt.index import languages

    monkeypatch.setattr(walk_mod, "RACY_NS", 0)
    root = one_file_tree(tmp_path)
    spy = Spy(monkeypatch)
    cache = WalkCache("", 0)
    walk(root, SETTINGS, cache=cache)
    spy.take()
    walk(root, SETTINGS, cache=cache)
    assert spy.take() == []

    monkeypatch.setattr(znt, "__version__", "99.0.0")
    walk(root, SETTINGS, cache=cache)
    assert sorted(spy.take()) == ["", "a"]
    walk(root, SETTINGS, cache=cache)
    assert spy.take() == []

    fewer = tuple(s for s in languages.all_languages() if s.name != "ruby")
    monkeypatch.setattr(languages, "all_languages", lambda: fewer)
    walk(root, SETTINGS, cache=cache)
    assert sorted(spy.take()) == ["", "a"]
