"""A Ctrl-C during DuckDB's import: held until the import is done, never an abort.

The child process raises SIGINT from inside the enum machinery that DuckDB's nanobind module
calls while it initialises: the exact moment at which a real Ctrl-C aborted ``znt sql`` in
CI ("Critical nanobind error", SIGABRT), made deterministic."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import pytest

_CHILD = textwrap.dedent(
    """
    import enum, signal, sys

    if sys.argv[1] == "shield":
        from znt.interrupts import shield_native_imports
        shield_native_imports()

    original = enum.EnumType.__call__
    fired = []

    def call(cls, *args, **kwargs):
        if not fired:
            fired.append(1)
            signal.raise_signal(signal.SIGINT)
        return original(cls, *args, **kwargs)

    enum.EnumType.__call__ = call
    try:
        import duckdb
    except KeyboardInterrupt:
        enum.EnumType.__call__ = original
        import duckdb  # already imported: the interrupt came after the import was done
        print(duckdb.connect().execute("SELECT 41 + 1").fetchone()[0], "interrupted", len(fired))
        sys.exit(130)
    print("not interrupted", len(fired))
    """
)


def _run(mode: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _CHILD, mode], capture_output=True, text=True, timeout=60
    )


def test_ctrl_c_during_duckdb_import_is_held_until_the_import_is_done() -> None:
    bare = _run("bare")
    if bare.returncode != -signal.SIGABRT:
        pytest.skip(f"this DuckDB does not abort on an interrupted import: {bare.returncode}")
    assert "nanobind" in bare.stderr
    shielded = _run("shield")
    assert shielded.returncode == 130, shielded.stderr
    assert shielded.stdout.split() == ["42", "interrupted", "1"]
    assert "nanobind" not in shielded.stderr


def test_an_interrupt_off_the_import_is_untouched() -> None:
    """The shield holds nothing once DuckDB is imported: a later Ctrl-C is immediate."""
    code = (
        "from znt.interrupts import shield_native_imports; shield_native_imports();"
        "import duckdb, signal\n"
        "try:\n signal.raise_signal(signal.SIGINT); print('missed')\n"
        "except KeyboardInterrupt:\n print('interrupted')"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == "interrupted", r.stderr
