"""``python -m znt`` and the ``znt`` console script.

The command line's own imports (Typer, rich) take a noticeable moment; a Ctrl-C during them
would otherwise print a traceback from deep inside an import and may abort the interpreter
at teardown. It exits like a Ctrl-C at any later point: ``znt: interrupted``, status 130.
A Ctrl-C during the import of DuckDB would abort the interpreter outright; ``znt.interrupts``
holds it until that import is done."""

from __future__ import annotations

import os
import sys


def entry() -> None:
    from znt.interrupts import shield_native_imports

    shield_native_imports()
    try:
        from znt.cli import run
    except KeyboardInterrupt:
        sys.stderr.write("znt: interrupted\n")
        sys.stderr.flush()
        os._exit(130)
    run()


if __name__ == "__main__":
    entry()
