"""Monitoring in ``znt mcp`` through the real stdio client: after ``scan`` the server's
``status`` reaches ``Monitoring``, a file edited on disk becomes searchable without another
``scan``, ``status`` reports the last change seen and the last re-index, and the watcher ends
with the server, whether the client closes it or it is killed. Timeouts only bound the
polling; nothing asserts on time."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

from tests.mcp_client import connect, ok
from tests.test_mcp import FILES

FAST = {"ZNT_WATCH_INTERVAL": "0.2", "ZNT_WATCH_QUIET": "0.2"}


def write_project(root: Path) -> Path:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie of a process we did not start is still "there" for kill(0): read its state
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_until(what: str, probe: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not probe():
        assert time.monotonic() < deadline, f"timed out after {timeout}s waiting for {what}"
        time.sleep(0.05)


async def poll_status(
    s: Any, until: str, seen: list[dict[str, Any]], timeout: float = 240, ours: bool = True
) -> dict[str, Any]:
    """Poll until ``until``; with ``ours``, also until this server's watcher has written its
    state file (it says Monitoring from the moment the child runs)."""
    deadline = time.monotonic() + timeout
    while True:
        st = (await ok(s, "status", {})).data
        seen.append(st)
        # status fields never contradict each other
        assert st["status"] == st["daemon_status"], st
        mon = st["monitoring"]
        if st["status"] == "Monitoring":
            assert st["has_index"] and (mon["active"] or mon["watcher_pid"]), st
        if st["status"] == until and (not ours or until != "Monitoring" or mon["by_this_server"]):
            return st
        assert time.monotonic() < deadline, seen[-3:]
        await anyio.sleep(0.1)


def test_after_scan_monitoring_keeps_the_index_fresh_and_ends_with_the_server(
    tmp_path: Path,
) -> None:
    project = write_project(tmp_path / "proj")
    pids: dict[str, int] = {}

    async def main() -> None:
        async with connect(project, env=FAST) as s:
            first = await ok(s, "scan", {})
            assert first.data["started"] is True
            seen: list[dict[str, Any]] = []
            st = await poll_status(s, "Monitoring", seen)
            assert seen[0]["status"] == "Scanning"  # at once, before the index folder exists
            assert "Idle" not in [x["status"] for x in seen]  # no gap between scan and watch
            mon = st["monitoring"]
            assert mon["project_root"] == str(project.resolve())
            pids["watcher"] = mon["pid"]
            watch_file = json.loads((project / ".znt" / "watch.json").read_text())
            assert watch_file["pid"] == mon["pid"]
            pids["server"] = watch_file["parent_pid"]
            # the watcher starts with a catch-up scan (nothing to do after our scan)
            while st["monitoring"]["last_reindex"] is None:
                st = await poll_status(s, "Monitoring", seen)
            assert st["monitoring"]["last_reindex"]["mode"] == "noop"
            assert st["monitoring"]["last_change_at"] is None

            # an edit on disk is searchable without another scan
            (project / "pkg" / "c.py").write_text(
                FILES["pkg/c.py"] + "\n\ndef freshly_saved_helper():\n    return 4\n"
            )
            deadline = time.monotonic() + 60
            while True:
                found = (
                    await ok(s, "search", {"query": "freshly_saved_helper", "mode": "lexical"})
                ).data["results"]
                if found:
                    break
                assert time.monotonic() < deadline, "the edit never reached the index"
                await anyio.sleep(0.2)
            assert found[0]["qualified_name"] == "freshly_saved_helper"
            # the last change seen is followed by a re-index (a save in two steps may be
            # seen twice: wait for the re-index of the second)
            deadline = time.monotonic() + 60
            while True:
                st = await poll_status(s, "Monitoring", seen)
                mon = st["monitoring"]
                assert mon["last_change_at"], mon
                if (mon["last_reindex_at"] or 0) >= mon["last_change_at"]:
                    break
                assert time.monotonic() < deadline, mon
                await anyio.sleep(0.1)
            assert mon["by_this_server"] and mon["watcher_pid"] == pids["watcher"]
            assert mon["last_reindex"]["mode"] == "incremental"
            assert mon["last_reindex"]["files_parsed"] >= 1
            assert isinstance(mon["last_reindex"]["write_ms"], int)
            # a scan call while monitored finds nothing to do
            again = await ok(s, "scan", {})
            assert again.data["started"] is False

    anyio.run(main)
    # the client closed the server: the watcher it started is gone, and so is the server
    wait_until("the watcher to end", lambda: not alive(pids["watcher"]), 30)
    wait_until("the server to end", lambda: not alive(pids["server"]), 30)
    assert not (project / ".znt" / "watch.json").exists()


def test_a_killed_server_leaves_no_watcher_behind(tmp_path: Path) -> None:
    project = write_project(tmp_path / "proj")
    pids: dict[str, int] = {}

    async def main() -> None:
        async with connect(project, env=FAST) as s:
            await ok(s, "scan", {})
            st = await poll_status(s, "Monitoring", [])
            pids["watcher"] = st["monitoring"]["pid"]
            pids["server"] = json.loads((project / ".znt" / "watch.json").read_text())["parent_pid"]
            os.kill(pids["server"], signal.SIGKILL)  # no cleanup code runs in the server
            wait_until("the watcher to notice", lambda: not alive(pids["watcher"]), 30)

    # the client's transport may complain about the dead server on exit
    with contextlib.suppress(Exception):
        anyio.run(main)
    assert "watcher" in pids and not alive(pids["watcher"])
    # the watcher removed its state file on the way out: status no longer says Monitoring
    assert not (project / ".znt" / "watch.json").exists()


def test_a_project_already_watched_elsewhere_is_left_to_that_watcher(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.mcp_client import server_env

    project = write_project(tmp_path / "proj")
    other = subprocess.Popen(
        [sys.executable, "-m", "znt", "scan", "--watch", "-q", "--no-embed"],
        cwd=project,
        env=server_env(FAST),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until(
            "the terminal's watcher", lambda: (project / ".znt" / "watch.json").exists(), 120
        )

        async def main() -> None:
            async with connect(project, env=FAST) as s:
                await ok(s, "scan", {})
                st = await poll_status(s, "Monitoring", [], ours=False)
                deadline = time.monotonic() + 60
                while not st["monitoring"]["watched_elsewhere"]:
                    assert time.monotonic() < deadline, st["monitoring"]
                    await anyio.sleep(0.2)
                    st = (await ok(s, "status", {})).data
                mon = st["monitoring"]
                assert st["status"] == st["daemon_status"] == "Monitoring"
                assert mon["watcher_pid"] == other.pid and not mon["by_this_server"]
                assert not mon["active"] and mon["restarts"] == 0

        anyio.run(main)
        assert other.poll() is None  # the server did not stop someone else's watcher
    finally:
        other.send_signal(signal.SIGINT)
        other.wait(timeout=60)
