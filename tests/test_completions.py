"""The checked-in completion scripts are what the command tree generates, and they work."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import REPO
from znt.cli.completions import SHELLS, script


def test_completion_files_are_current():
    for shell, name in SHELLS.items():
        checked_in = (REPO / "completions" / name).read_text(encoding="utf-8")
        assert checked_in == script(shell), f"run: python -m znt.cli.completions ({name} is stale)"


def test_bash_completion_answers_with_commands():
    env = {
        **os.environ,
        "_ZNT_COMPLETE": "complete_bash",
        "COMP_WORDS": "znt sta",
        "COMP_CWORD": "1",
    }
    out = subprocess.run(
        [sys.executable, "-m", "znt"], env=env, capture_output=True, text=True
    ).stdout
    assert {"status", "stats"} <= set(out.splitlines())
    # Options of a command too (Typer's mechanism completes the whole tree).
    env.update(COMP_WORDS="znt search --mo", COMP_CWORD="2")
    out = subprocess.run(
        [sys.executable, "-m", "znt"], env=env, capture_output=True, text=True
    ).stdout
    assert "--mode" in out.splitlines()
