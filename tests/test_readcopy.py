"""Private read copies (znt/index/readcopy.py): a long-lived process answers from its own copy
of the index, the same answers as from the shared file, never staler, and never in the way
of a writer."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_znt
from tests.test_graph import FILES as GRAPH_FILES
from znt import api
from znt.graph import traverse as tv
from znt.index import readcopy, store

FILES = {
    **GRAPH_FILES,
    # unbound calls whose last name is a project method's: possible callers of Base.helper
    "pkg/loose.py": (
        "def poke(obj, other):\n    obj.helper()\n    other.helper()\n    return obj.run()\n"
    ),
    "native/n.cpp": "int use() {\n  return ns::helper() + other::run();\n}\n",
}


def _index(root: Path) -> Path:
    return root / ".znt" / "index.duckdb"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    api.scan(str(root))
    return root


@pytest.fixture
def copies() -> Iterator[None]:
    readcopy.enable()
    try:
        yield
    finally:
        readcopy.enable(False)


def _strip(doc: Any) -> Any:
    """An answer without what may differ between two calls (timings, freshness clock)."""
    if isinstance(doc, dict):
        return {
            k: _strip(v)
            for k, v in doc.items()
            if k not in ("took_ms", "elapsed_ms", "index_age", "age_seconds", "freshness")
        }
    if isinstance(doc, list):
        return [_strip(v) for v in doc]
    return doc


def _reads(root: Path) -> dict[str, Any]:
    p = str(root)
    return {
        "down": api.graph("start", depth=3, direction="down", project_path=p),
        "up": api.graph("Base.helper", depth=2, direction="up", project_path=p),
        "both": api.graph("pkg/diamond.py::hub", depth=2, direction="both", project_path=p),
        "path": api.graph("top", to="bottom", project_path=p),
        "file": api.graph("pkg/d.py", depth=1, project_path=p),
        "search": api.search("step", mode="lexical", project_path=p),
        "search terms": api.search("helper step top", mode="lexical", project_path=p),
        "search path": api.search("step", mode="lexical", path="pkg/*", project_path=p),
        "search mention": api.search("pkg/d.py step", mode="lexical", project_path=p),
        "outline": api.outline(str(root / "pkg" / "d.py"), project_path=p),
        "stats": api.stats(project_path=p),
        "ambiguous": _failure(lambda: api.graph("common", project_path=p)),
        "not found": _failure(lambda: api.graph("stepp_b", project_path=p)),
    }


def _failure(call: Any) -> tuple[str, str]:
    from znt.errors import ZntError

    with pytest.raises(ZntError) as caught:
        call()
    return type(caught.value).__name__, str(caught.value)


def test_answers_from_a_copy_equal_answers_from_the_shared_file(
    project: Path, copies: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    readcopy.enable(False)
    shared = _reads(project)
    readcopy.enable()
    assert readcopy.wait(_index(project), timeout=60)
    used: list[str] = []
    real = readcopy.release

    def counted(copy: readcopy.ReadCopy) -> None:
        used.append(copy.alias)
        real(copy)

    monkeypatch.setattr(readcopy, "release", counted)
    copied = _reads(project)
    assert len(used) >= len(copied), "the reads did not go through the copy"
    for key in shared:
        assert _strip(copied[key]) == _strip(shared[key]), key
    # the copy's own graph tables were used, and the possible-caller count is not trivial
    assert shared["up"]["completeness"]["possible_unresolved_callers"] >= 2


def test_possible_callers_held_by_the_copy_equal_the_edge_scan(project: Path, copies: None) -> None:
    index = _index(project)
    names_sets = [["helper"], ["run"], ["helper", "run", "nothing"], ["dumps"], ["missing"]]
    with store.open_index(index) as con:  # copies on, none ready yet: the shared file
        assert "graph_nodes.id" not in tv.indexed_columns(con)
        scanned = [tv.possible_callers(con, n, ["call"]) for n in names_sets]
    assert readcopy.wait(index)
    with store.open_index(index) as con:
        indexed = tv.indexed_columns(con)
        assert {"graph_nodes.id", "symbol_keys.key"} <= indexed
        assert store.read_copy(con).unbound_names  # counted in memory, not scanned
        from_table = [tv.possible_callers(con, n, ["call"]) for n in names_sets]
    assert from_table == scanned
    assert scanned[0] >= 3 and scanned[1] >= 2  # obj.helper, other.helper, ns::helper; run


def test_a_copys_cursors_are_reused_and_survive_a_failed_read(project: Path, copies: None) -> None:
    index = _index(project)
    assert readcopy.wait(index)
    with store.open_index(index) as con:
        first = id(con)
        assert store.read_copy(con) is not None
    with store.open_index(index) as con:  # the idle cursor, without a new USE
        assert id(con) == first
        with store.open_index(index) as inner:  # a nested read gets a cursor of its own
            assert id(inner) != id(con)
    with pytest.raises(RuntimeError), store.open_index(index) as con:
        raise RuntimeError("a read that fails half-way")
    # the cursor that failed was closed, not handed out again; reads go on from the copy
    answer = api.graph("Base.helper", depth=1, direction="up", project_path=str(project))
    assert {n["name"] for n in answer["nodes"]} == {"helper", "run"}
    with store.open_index(index) as con:
        assert store.read_copy(con) is not None


def test_a_changed_index_is_read_fresh_at_once_then_copied_again(
    project: Path, copies: None
) -> None:
    index = _index(project)
    assert readcopy.wait(index)
    (project / "pkg" / "b.py").write_text(
        GRAPH_FILES["pkg/b.py"] + "\n\ndef brand_new_helper():\n    return step_b()\n"
    )
    api.scan(str(project))  # writes the shared file in place while the copy is attached
    assert readcopy.state(index) != "ready"
    found = api.search("brand_new_helper", mode="lexical", project_path=str(project))
    assert found["results"][0]["name"] == "brand_new_helper"
    assert readcopy.wait(index)
    assert readcopy.state(index) == "ready"
    again = api.graph("brand_new_helper", depth=1, project_path=str(project))
    assert {n["name"] for n in again["nodes"]} == {"brand_new_helper", "step_b"}


def test_a_writer_in_another_process_is_not_blocked_by_a_copy(project: Path, copies: None) -> None:
    index = _index(project)
    assert readcopy.wait(index)
    (project / "pkg" / "c.py").write_text(
        GRAPH_FILES["pkg/c.py"] + "\n\ndef added_c():\n    pass\n"
    )
    done = run_znt(
        "scan", "-q", "--no-embed", cwd=project, env={"ZNT_LOCK_TIMEOUT": "0"}, timeout=120
    )
    assert done.returncode == 0, done.stderr
    answer = api.search("added_c", mode="lexical", project_path=str(project))
    assert answer["results"][0]["name"] == "added_c"


def _open_copies() -> list[str]:
    """The copies this process holds open: their names are unlinked once attached."""
    fds = Path("/proc/self/fd")
    out = []
    for fd in fds.iterdir():
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if readcopy.PREFIX in target:
                out.append(target)
    return out


def test_copies_hold_no_name_and_are_freed_when_replaced_or_turned_off(project: Path) -> None:
    mine = f"{readcopy.PREFIX}{os.getpid()}-"
    before = _open_copies()
    readcopy.enable()
    try:
        assert readcopy.wait(_index(project))
        held = [t for t in _open_copies() if t not in before]
        assert len(held) == 1 and mine in held[0] and held[0].endswith("(deleted)"), held
        assert not list(_index(project).parent.glob(f"{mine}*"))
        assert held[0].startswith(str(_index(project).parent) + "/"), "not next to the index"
        (project / "pkg" / "c.py").write_text(GRAPH_FILES["pkg/c.py"] + "\n# changed\n")
        api.scan(str(project))
        assert readcopy.wait(_index(project))
        now = [t for t in _open_copies() if t not in before]
        assert len(now) == 1 and now != held, "a replaced copy is still held"
    finally:
        readcopy.enable(False)
    assert [t for t in _open_copies() if t not in before] == []


def test_a_copy_removes_the_files_of_killed_processes(project: Path, copies: None) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    folder = _index(project).parent
    orphan = folder / f"{readcopy.PREFIX}{dead.pid}-x.duckdb"
    alive = folder / f"{readcopy.PREFIX}{os.getppid()}-x.duckdb"
    orphan.write_bytes(b"")
    alive.write_bytes(b"")
    assert readcopy.wait(_index(project))
    assert not orphan.exists()
    assert alive.exists(), "the copy of a running process was removed"


def test_the_mcp_server_reads_from_a_copy_and_stays_fresh(tmp_path: Path) -> None:
    import anyio

    from tests.mcp_client import connect, ok

    root = tmp_path / "proj"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    assert run_znt("scan", "-q", "--no-embed", cwd=root).returncode == 0

    async def main() -> None:
        async with connect(root) as s:
            first = await ok(s, "graph", {"from": "start", "depth": 2, "format": "json"})
            state = None
            for _ in range(200):  # the copy is made in the background
                state = (await ok(s, "status", {})).data["read_copy"]
                if state == "ready":
                    break
                await anyio.sleep(0.05)
            assert state == "ready", state
            again = await ok(s, "graph", {"from": "start", "depth": 2, "format": "json"})
            assert _strip(again.data) == _strip(first.data)
            (root / "pkg" / "b.py").write_text(
                GRAPH_FILES["pkg/b.py"] + "\n\ndef mcp_fresh_one():\n    return 1\n"
            )
            done = run_znt("scan", "-q", "--no-embed", cwd=root)
            assert done.returncode == 0, done.stderr
            found = await ok(s, "search", {"query": "mcp_fresh_one", "mode": "lexical"})
            assert found.data["results"][0]["name"] == "mcp_fresh_one"
            for _ in range(200):  # a new copy, of the new state
                if (await ok(s, "status", {})).data["read_copy"] == "ready":
                    break
                await anyio.sleep(0.05)
            again = await ok(s, "search", {"query": "mcp_fresh_one", "mode": "lexical"})
            assert again.data["results"] == found.data["results"]

    anyio.run(main)
    assert not list((root / ".znt").glob(f"{readcopy.PREFIX}*")), "the server left a copy"


HOLDER = """
import sys, duckdb
con = duckdb.connect(sys.argv[1])
print("held", flush=True)
for line in sys.stdin:
    con.execute(line)
    print("done", flush=True)
"""


def test_a_copy_answers_while_a_writer_holds_the_index_until_it_commits(
    project: Path, copies: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Readers see the last committed state: while another process holds the index
    read-write with nothing committed, that is the copy's; after its commit it is not."""
    import sys

    from znt.errors import Busy

    index = _index(project)
    assert readcopy.wait(index)
    monkeypatch.setenv("ZNT_LOCK_TIMEOUT", "0.3")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(index)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdin is not None
        assert holder.stdout.readline().strip() == "held"
        found = api.search("step_b", mode="lexical", project_path=str(project))
        assert found["results"][0]["name"] == "step_b"
        holder.stdin.write("UPDATE symbols SET name = 'renamed' WHERE name = 'step_b'\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "done"
        with pytest.raises(Busy):
            api.search("step_b", mode="lexical", project_path=str(project))
    finally:
        holder.kill()
        holder.wait()


def test_a_process_holds_only_its_most_recently_read_copies(
    tmp_path: Path, copies: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(readcopy, "MAX_COPIES", 2)
    before = _open_copies()
    roots = []
    for i in range(3):
        root = tmp_path / f"p{i}"
        root.mkdir()
        (root / "m.py").write_text(f"def only_{i}():\n    return {i}\n")
        api.scan(str(root))
        roots.append(root)
    for root in roots:  # p0, p1, p2 in turn: p0 is the least recently read when p2 arrives
        assert readcopy.wait(_index(root))
    held = [t for t in _open_copies() if t not in before]
    assert len(held) == 2, held
    assert [readcopy.state(_index(r)) for r in roots] == ["none", "ready", "ready"]
    # p0 is read from the shared file, and copied again
    found = api.search("only_0", mode="lexical", project_path=str(roots[0]))
    assert found["results"][0]["name"] == "only_0"
    assert readcopy.wait(_index(roots[0]))
    assert [readcopy.state(_index(r)) for r in roots] == ["ready", "none", "ready"]
