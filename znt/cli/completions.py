"""Shell completion scripts, from Typer's completion mechanism.

``python -m znt.cli.completions`` rewrites ``completions/``; a test checks the files are
current. The scripts call back into ``znt`` (``_ZNT_COMPLETE=complete_<shell>``), so they
complete every command and option the installed znt has. ``znt --install-completion``
installs the script for the current shell; ``znt --show-completion`` prints it.
"""

from __future__ import annotations

import sys
from pathlib import Path

SHELLS = {"bash": "znt.bash", "zsh": "_znt", "fish": "znt.fish"}
COMPLETE_VAR = "_ZNT_COMPLETE"


def script(shell: str) -> str:
    from typer._completion_shared import get_completion_script

    return get_completion_script(prog_name="znt", complete_var=COMPLETE_VAR, shell=shell) + "\n"


def write(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for shell, name in SHELLS.items():
        (folder / name).write_text(script(shell), encoding="utf-8")


if __name__ == "__main__":
    write(Path(sys.argv[1] if len(sys.argv) > 1 else "completions"))
