"""The ``znt`` command line: parse arguments, call ``znt.api``, render with ``znt.formats``.

Built on click rather than Typer: Typer's import alone costs ~100 ms, which would eat most
of the start-up budget of a one-shot search (docs/decisions/0001-click-not-typer.md).
"""

from __future__ import annotations

import contextlib
import os
import sys

import click

from znt import __version__
from znt.cli.output import Settings
from znt.errors import EXIT_FAILURE, EXIT_USAGE, ZntError

EXIT_CODES_HELP = """\b
Exit codes:
  0  success
  1  ran correctly, found nothing (search/similar/path) or check found violations
  2  usage error (bad flag or value)
  3  index missing, stale under --stale-policy error, or from an incompatible schema
  4  symbol or file not found, or ambiguous (candidates printed; JSON "candidates")
  5  runtime failure (I/O, provider unreachable, internal error)
"""


# Which module of znt.cli defines each command. Only the module of the command being run is
# imported: importing all of them cost ~20 ms of a one-shot search's start-up. A test checks
# this table against every module's COMMANDS.
COMMAND_MODULES = {
    "scan": "scan",
    "status": "inspect",
    "outline": "inspect",
    "stats": "inspect",
    "logs": "inspect",
    "search": "search",
    "setup": "setup",
    "graph": "graph",
    "similar": "similar",
    "check": "check",
    "sql": "sql",
    "mcp": "mcp",
    "impact": "impact",
    "hook": "hook",
    "export": "export",
}


# Commands that only read: after one of them the console script leaves without the
# interpreter's teardown (see ``run``).
READ_COMMANDS = frozenset(
    {"status", "outline", "stats", "logs", "search", "graph", "similar", "check", "sql", "impact"}
)


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use (see COMMAND_MODULES)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMAND_MODULES, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            import importlib

            module = importlib.import_module(f"znt.cli.{COMMAND_MODULES[cmd_name]}")
            for command in module.COMMANDS:
                self.add_command(command)
        return self.commands.get(cmd_name)


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog=EXIT_CODES_HELP,
)
@click.option(
    "-C",
    "--project",
    "project",
    metavar="PATH",
    help="Project folder (default: nearest indexed ancestor of the current folder).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "jsonl"]),
    help="Output format for every command.",
)
@click.option(
    "--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True
)
@click.option("-q", "--quiet", is_flag=True, help="No progress or notices on stderr.")
@click.option(
    "-v", "--verbose", is_flag=True, help="More detail on stderr, tracebacks for internal errors."
)
@click.version_option(__version__, prog_name="znt")
@click.pass_context
def cli(
    ctx: click.Context, project: str | None, fmt: str | None, color: str, quiet: bool, verbose: bool
) -> None:
    """Understand a codebase from one DuckDB file: symbols, a code graph and search."""
    ctx.obj = Settings(project=project, format=fmt, color=color, quiet=quiet, verbose=verbose)


def main(argv: list[str] | None = None) -> None:
    """Entry point: maps every outcome to the documented exit codes, never a traceback for a
    user mistake."""
    verbose = "-v" in (argv or sys.argv[1:]) or "--verbose" in (argv or sys.argv[1:])
    fmt_json = "json" in (argv or sys.argv[1:])
    try:
        # Without standalone mode, click returns the code a command passed to ctx.exit().
        code = cli.main(args=argv, prog_name="znt", standalone_mode=False)
        if isinstance(code, int) and code:
            sys.exit(code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("znt: aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(EXIT_USAGE if isinstance(exc, click.UsageError) else exc.exit_code)
    except ZntError as exc:
        if fmt_json:
            from znt.formats import json as json_fmt

            click.echo(json_fmt.render({"schema_version": 1, "error": exc.to_dict()}))
        click.echo(f"znt: error: {exc.message}", err=True)
        for key in ("suggestions", "candidates"):
            values = exc.data.get(key)
            if values:
                click.echo(
                    f"  {'did you mean' if key == 'suggestions' else 'candidates'}:", err=True
                )
                for v in values:
                    click.echo(f"    {v}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("znt: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(0)
    except OSError as exc:
        # The file system refused (permissions, disk full): the user's to fix, not a bug.
        where = f": {exc.filename}" if exc.filename else ""
        click.echo(f"znt: error: {exc.strerror or exc}{where}", err=True)
        sys.exit(EXIT_FAILURE)
    except Exception as exc:
        if verbose:
            import traceback

            traceback.print_exc()
        click.echo(
            f"znt: internal error: {type(exc).__name__}: {exc} (run with -v for details)", err=True
        )
        sys.exit(EXIT_FAILURE)
    sys.exit(0)


def run() -> None:
    """The console script (and ``python -m znt``): ``main``, and after a command that only
    reads, an exit that skips the interpreter's teardown.

    Destroying a DuckDB instance at interpreter exit costs 40-60 ms, about a sixth of a
    one-shot ``znt search`` on sympy (docs/benchmarks/query.md). A read command holds no
    file, lock, child process or temporary folder by the time ``main`` returns, so once
    its output is flushed nothing is left for that teardown to do. Everything else (scan,
    setup, hooks, the MCP server) exits the ordinary way. ``main`` itself never does this,
    so a caller in the same process (tests) keeps its interpreter."""
    args = sys.argv[1:]
    command = next((a for a in args if a in COMMAND_MODULES), None)
    try:
        main()
    except SystemExit as exc:
        if command not in READ_COMMANDS:
            raise
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)
