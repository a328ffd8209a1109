"""One-shot runs load bytecode, as from an installed znt.

``pip install`` byte-compiles a package; a checkout run where ``PYTHONDONTWRITEBYTECODE`` is set
(this machine sets it) or whose ``__pycache__`` is stale compiles every module it imports from
source, on every run: about 70 ms of a one-shot ``znt search``, none of which a user pays. The
environment returned here writes and reads bytecode in a private ``PYTHONPYCACHEPREFIX``, with
znt compiled into it first; the libraries (and the ``import duckdb`` baseline) fill it in an
untimed first round.
"""

from __future__ import annotations

import subprocess
from pathlib import Path


def installed_like(env: dict[str, str], cache: Path, python: str) -> dict[str, str]:
    """``env`` with bytecode kept under ``cache`` and znt's package compiled into it."""
    import znt

    out = dict(env)
    out.pop("PYTHONDONTWRITEBYTECODE", None)
    out["PYTHONPYCACHEPREFIX"] = str(cache)
    subprocess.run(
        [python, "-m", "compileall", "-q", str(Path(znt.__file__).parent)],
        env=out,
        check=True,
        capture_output=True,
    )
    return out


__all__ = ["installed_like"]
