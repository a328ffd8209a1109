"""The ``znt`` command line: parse arguments, call ``znt.api``, render with ``znt.formats``.

A Typer app (znt/cli/app.py; docs/decisions/0019-typer-cli.md): one type-annotated function
per command, in one module per command group, imported only when its command runs.
"""

from __future__ import annotations

import contextlib
import os
import sys

import typer

from znt.cli.app import BACKGROUND_IMPORTS, COMMAND_MODULES, READ_COMMANDS, command
from znt.errors import EXIT_FAILURE, EXIT_USAGE, ZntError

__all__ = ["COMMAND_MODULES", "READ_COMMANDS", "main", "run"]

# Commands that exit without the interpreter's teardown after running the ``atexit``
# handlers (``run``); read commands skip both.
EXIT_HANDLERS_ONLY = frozenset({"scan"})


def main(argv: list[str] | None = None) -> None:
    """Entry point: maps every outcome to the documented exit codes, never a traceback for a
    user mistake."""
    args = sys.argv[1:] if argv is None else argv
    verbose = "-v" in args or "--verbose" in args
    fmt_json = "json" in args
    try:
        # Not standalone: Typer returns the code a command exited with, and leaves every
        # error to the handlers below.
        code = command().main(args=args, prog_name="znt", standalone_mode=False)
        if isinstance(code, int) and code:
            sys.exit(code)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        typer.echo("znt: aborted", err=True)
        sys.exit(130)
    except typer.TyperException as exc:
        show = getattr(exc, "show", None)
        if show is not None:
            show()
        else:
            typer.echo(f"znt: error: {exc.message}", err=True)
        code = getattr(exc, "exit_code", EXIT_USAGE)
        sys.exit(EXIT_USAGE if code == 2 or not isinstance(code, int) else code)
    except ZntError as exc:
        if fmt_json:
            from znt.formats import json as json_fmt

            typer.echo(json_fmt.render({"schema_version": 1, "error": exc.to_dict()}))
        typer.echo(f"znt: error: {exc.message}", err=True)
        for key in ("suggestions", "candidates"):
            values = exc.data.get(key)
            if values:
                label = "did you mean" if key == "suggestions" else "candidates"
                typer.echo(f"  {label}:", err=True)
                for v in values:
                    typer.echo(f"    {v}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        typer.echo("znt: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(0)
    except OSError as exc:
        # The file system refused (permissions, disk full): the user's to fix, not a bug.
        where = f": {exc.filename}" if exc.filename else ""
        typer.echo(f"znt: error: {exc.strerror or exc}{where}", err=True)
        sys.exit(EXIT_FAILURE)
    except Exception as exc:
        if _interrupted(exc):
            typer.echo("znt: interrupted", err=True)
            sys.exit(130)
        if verbose:
            import traceback

            traceback.print_exc()
        typer.echo(
            f"znt: internal error: {type(exc).__name__}: {exc} (run with -v for details)", err=True
        )
        sys.exit(EXIT_FAILURE)
    sys.exit(0)


def _interrupted(exc: BaseException) -> bool:
    """DuckDB notices a Ctrl-C in a statement run on the main thread itself and raises its
    own error instead of KeyboardInterrupt."""
    return type(exc).__name__ == "InterruptException" or str(exc) == "Query interrupted"


def run() -> None:
    """The console script (and ``python -m znt``): ``main``, and after a command that only
    reads, an exit that skips the interpreter's teardown.

    Destroying a DuckDB instance at interpreter exit costs 40-60 ms, about a sixth of a
    one-shot ``znt search`` on sympy (docs/benchmarks/query.md). A read command holds no
    file, lock, child process or temporary folder by the time ``main`` returns, so once
    its output is flushed nothing is left for that teardown to do. Neither has a run that
    names no command (``znt --help``, ``--version``, a mistyped command), whose teardown of
    Typer and rich would be an eighth of ``znt --help``. ``scan`` exits so too once the
    exit handlers registered with ``atexit`` have run (multiprocessing's, ``weakref``
    finalizers): by then it has closed the index, released its lock, joined its parse
    workers and removed its row folder, and the teardown was 25-45 ms of a one-file rescan
    (docs/decisions/0027-scan-skips-interpreter-teardown.md). Everything else (setup, hooks,
    the MCP server) exits the ordinary way. ``main`` itself never does this, so a caller in
    the same process (tests) keeps its interpreter.

    A command that walks a graph starts importing networkx before anything else
    (``BACKGROUND_IMPORTS``, znt/warmup.py): the import runs while Typer parses and DuckDB
    opens the index and expands the walk's levels, which release the interpreter's lock."""
    args = sys.argv[1:]
    name = next((a for a in args if a in COMMAND_MODULES), None)
    if name in BACKGROUND_IMPORTS:
        from znt.warmup import import_in_background

        import_in_background(*BACKGROUND_IMPORTS[name])
    try:
        main()
    except SystemExit as exc:
        if name is not None and name not in READ_COMMANDS and name not in EXIT_HANDLERS_ONLY:
            raise
        if name in EXIT_HANDLERS_ONLY:
            import atexit

            atexit._run_exitfuncs()
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)
