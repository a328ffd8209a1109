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
        "_ZNT_COMPLETE": "bash_complete",
        "COMP_WORDS": "znt sta",
        "COMP_CWORD": "1",
    }
    out = subprocess.run(
        [sys.executable, "-m", "znt"], env=env, capture_output=True, text=True
    ).stdout
    assert {"status", "stats"} <= {line.split(",", 1)[-1] for line in out.splitlines()}
