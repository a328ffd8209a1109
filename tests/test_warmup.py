"""znt/warmup.py: a library imported on a thread of its own while the command waits on DuckDB."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import run_znt


def _run(code: str) -> list[str]:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split()


def test_the_import_runs_on_its_own_thread_and_the_caller_waits_for_it(tmp_path):
    """A slow module requested in the background is imported once, on the warm-up thread; a
    plain import of it meanwhile waits for that import to finish and gets the whole module."""
    (tmp_path / "slowmod.py").write_text(
        "import threading, time\n"
        "time.sleep(0.5)\n"
        "WHERE = threading.current_thread().name\n"
        "COUNT = globals().get('COUNT', 0) + 1\n"
    )
    code = (
        "import sys, time\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "from znt.warmup import import_in_background\n"
        "import_in_background('slowmod')\n"
        "import_in_background('slowmod')\n"  # a second request starts nothing
        "time.sleep(0.1)\n"
        "import slowmod\n"
        "print(slowmod.WHERE, slowmod.COUNT)\n"
    )
    assert _run(code) == ["znt-warmup", "1"]


def test_a_failing_import_is_left_for_the_ordinary_import_to_report(tmp_path):
    (tmp_path / "brokenmod.py").write_text("raise RuntimeError('broken on purpose')\n")
    code = (
        "import sys, time\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "from znt.warmup import import_in_background\n"
        "import_in_background('brokenmod', 'json')\n"
        "time.sleep(0.3)\n"
        "try:\n"
        "    import brokenmod\n"
        "except RuntimeError as exc:\n"
        "    print('raised', 'json' in sys.modules)\n"
    )
    # The thread stops at the first failure: what came after it is not imported either.
    assert _run(code) == ["raised", "False"]


@pytest.mark.parametrize("args", [["graph", "alpha", "--depth", "2"], ["map"]])
def test_graph_and_map_answer_the_same_with_their_libraries_loading_meanwhile(tmp_path, args):
    """The one-shot graph (networkx started by the console script) and the first map
    (networkx, numpy and scipy started by the ranking) give the answers of a process that
    had imported them beforehand."""
    (tmp_path / "a.py").write_text(
        "def alpha():\n    return beta()\n\n\ndef beta():\n    return 1\n"
    )
    (tmp_path / "b.py").write_text("from a import alpha\n\n\ndef gamma():\n    return alpha()\n")
    assert run_znt("scan", "--no-embed", "-q", str(tmp_path)).returncode == 0
    ranking = tmp_path / ".znt" / "map-ranking.json"
    ranking.unlink(missing_ok=True)
    cold = run_znt("-C", str(tmp_path), "--format", "json", *args)
    assert cold.returncode == 0, cold.stderr
    ranking.unlink(missing_ok=True)
    code = (
        "import sys, networkx, numpy, scipy.sparse\n"
        "from znt.cli import main\n"
        f"sys.argv = ['znt', '-C', {str(tmp_path)!r}, '--format', 'json', *{args!r}]\n"
        "main()\n"
    )
    warm = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert warm.returncode == 0, warm.stderr
    assert cold.stdout == warm.stdout
