"""What reaches a terminal and what reaches a pipe: rich tables and colour only on a
terminal or with ``--color always``, ``NO_COLOR`` honoured, and piped text that is plain and
stays the same (snapshots in tests/snapshots/, with the scan time and paths masked)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import run_znt
from tests.test_cli import run_in_pty

SNAPSHOTS = Path(__file__).parent / "snapshots"
SGR = re.compile(r"\x1b\[[0-9;]*m")
FILES = {
    "shop/__init__.py": "",
    "shop/service.py": (
        "from shop.store import Store\n\n\n"
        "class OrderService:\n"
        '    """Places orders."""\n\n'
        "    def place(self, order):\n        return self.check(order)\n\n"
        "    def check(self, order):\n        return Store().save(order)\n"
    ),
    "shop/store.py": (
        "class Store:\n    def save(self, item):\n        return item\n\n\n"
        "def ping(n):\n    return pong(n)\n\n\ndef pong(n):\n    return ping(n)\n"
    ),
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("terminal") / "proj"
    for rel, body in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(body)
    done = run_znt("scan", "-q", "--no-embed", cwd=root)
    assert done.returncode == 0, done.stderr
    return root


def _masked(text: str) -> str:
    text = re.sub(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}", "<time>", text)
    return re.sub(r"commit [0-9a-f-]+", "commit <commit>", text)


CASES = {
    "outline": ("outline", "shop/service.py"),
    "search": ("search", "order", "--mode", "lexical"),
    "search_compact": ("search", "save", "--mode", "lexical", "--compact"),
    "graph": ("graph", "OrderService.place", "--depth", "2", "--direction", "down"),
    "graph_cycle": ("graph", "ping", "--direction", "down", "--depth", "2"),
    "check": ("check",),
    "map": ("map", "--max-tokens", "200"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_piped_text_is_plain_and_stable(project: Path, name: str) -> None:
    proc = run_znt(*CASES[name], cwd=project)
    assert proc.returncode in (0, 1), proc.stderr
    assert "\x1b" not in proc.stdout and "\x1b" not in proc.stderr
    snapshot = SNAPSHOTS / f"{name}.txt"
    assert _masked(proc.stdout) == snapshot.read_text(encoding="utf-8"), name
    # The same command twice: the same bytes.
    assert run_znt(*CASES[name], cwd=project).stdout == proc.stdout


@pytest.mark.parametrize("name", ["outline", "search", "graph", "check", "map"])
def test_color_always_styles_the_same_words(project: Path, name: str) -> None:
    plain = run_znt(*CASES[name], cwd=project).stdout
    coloured = run_znt(*CASES[name], "--color", "always", cwd=project).stdout
    assert SGR.search(coloured), name
    assert SGR.sub("", coloured) == plain
    # --color always wins over NO_COLOR (no-color.org: a flag the user typed overrides it).
    both = run_znt(*CASES[name], "--color", "always", cwd=project, env={"NO_COLOR": "1"})
    assert SGR.search(both.stdout)


def test_a_terminal_gets_colour_unless_no_color(project: Path) -> None:
    code, _, screen = run_in_pty(
        ["outline", "shop/service.py", "-C", str(project)], stdout_too=True
    )
    assert code == 0 and SGR.search(screen)
    code, _, screen = run_in_pty(
        ["outline", "shop/service.py", "-C", str(project)], {"NO_COLOR": "1"}, stdout_too=True
    )
    assert code == 0 and not SGR.search(screen) and "OrderService" in screen
    code, _, screen = run_in_pty(
        ["outline", "shop/service.py", "-C", str(project), "--color", "never"], stdout_too=True
    )
    assert code == 0 and not SGR.search(screen)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("stats",), ("Files by language", "python")),
        (("status",), ("Counts", "Stale")),
        (("check",), ("violations", "no-import-cycles")),
        (("sql", "SELECT kind, count(*) AS n FROM edges GROUP BY kind ORDER BY kind"), ("kind",)),
    ],
)
def test_tables_on_a_terminal_plain_text_in_a_pipe(
    project: Path, args: tuple[str, ...], words: tuple[str, ...]
) -> None:
    code, _, screen = run_in_pty([*args, "-C", str(project)], stdout_too=True)
    assert code in (0, 1)
    assert any(ch in screen for ch in "─━┃│"), screen  # rich's table rules
    for word in words:
        assert word in screen
    piped = run_znt(*args, cwd=project).stdout
    assert not any(ch in piped for ch in "─━┃│") and "\x1b" not in piped
