"""Where the CLI writes: results to stdout, progress and diagnostics to stderr.

Plain text is the output everywhere it is not a terminal (pipes, files, CI logs), and it is
the same whether or not a terminal would have coloured it. rich draws only on a terminal or
with ``--color always``, and is imported only then (znt/cli/display.py)."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import typer

from znt.formats import json as json_fmt
from znt.formats import text as text_fmt

# Renderers of znt/formats/text.py that have a rich table on a terminal.
TABLES = frozenset({"stats", "status"})

TextJsonFormat = Annotated[
    Literal["text", "json"] | None, typer.Option("--format", help="Output format.")
]
ListFormat = Annotated[
    Literal["text", "json", "jsonl"] | None, typer.Option("--format", help="Output format.")
]

DatasetOption = Annotated[
    str | None,
    typer.Option(
        "--dataset",
        metavar="DIR",
        help="Answer across the repositories exported to DIR (znt export --parquet DIR).",
    ),
]
RepositoryOption = Annotated[
    list[str] | None,
    typer.Option(
        "--repository",
        metavar="NAME",
        help="With --dataset: only this repository (repeat for several; default all).",
    ),
]


@dataclass
class Settings:
    project: str | None = None
    format: str | None = None
    color: str = "auto"
    quiet: bool = False
    verbose: bool = False

    def use_color(self, stream: Any = None) -> bool:
        """``--color always`` wins; otherwise colour only on a terminal and without
        ``NO_COLOR`` (no-color.org: a set, non-empty value turns it off)."""
        if self.color == "always":
            return True
        if self.color == "never" or os.environ.get("NO_COLOR"):
            return False
        return bool((stream or sys.stdout).isatty())


def settings(ctx: typer.Context) -> Settings:
    obj = ctx.find_root().obj
    return obj if isinstance(obj, Settings) else Settings()


def settings_for_update(ctx: typer.Context) -> Settings:
    root = ctx.find_root()
    if not isinstance(root.obj, Settings):
        root.obj = Settings()
    return root.obj


def chosen_format(ctx: typer.Context, fmt: str | None, default: str = "text") -> str:
    return fmt or settings(ctx).format or default


def write_text(ctx: typer.Context, text: str, style: str | None = None) -> None:
    """Text to stdout: with colour through rich when colour is on (``style`` names the
    highlighter of znt/cli/display.py), plain otherwise. Any key this process read is
    scrubbed from it (znt/redact.py)."""
    from znt.redact import scrub

    text = scrub(text)
    if style is not None and settings(ctx).use_color():
        from znt.cli import display

        display.highlighted(text, style)
    else:
        typer.echo(text)


def on_terminal() -> bool:
    return sys.stdout.isatty()


def emit(
    ctx: typer.Context,
    doc: Mapping[str, Any],
    fmt: str | None,
    renderer: str,
    list_key: str | None = None,
) -> None:
    """Render ``doc`` in the chosen format and write it to stdout, scrubbed of any key this
    process read (znt/redact.py); text output escapes control characters in the values it
    shows (znt/formats/safe_text.py): a file name can hold ESC or a newline."""
    from znt.formats.safe_text import escape_doc
    from znt.redact import scrub

    chosen = chosen_format(ctx, fmt)
    if chosen not in ("json", "jsonl"):
        doc = escape_doc(doc)
    if chosen == "json":
        typer.echo(scrub(json_fmt.render(doc)))
    elif chosen == "jsonl":
        if list_key is None:
            from znt.errors import UsageError

            raise UsageError("--format jsonl is only for list results")
        out = json_fmt.render_lines(doc, list_key)
        if out:
            typer.echo(scrub(out))
    elif renderer in TABLES and on_terminal():
        from znt.cli import display

        display.table(renderer, doc, color=settings(ctx).use_color())
    else:
        write_text(ctx, getattr(text_fmt, renderer)(doc), renderer)


def note(ctx: typer.Context | None, message: str) -> None:
    """A diagnostic line on stderr, unless --quiet."""
    if ctx is not None and settings(ctx).quiet:
        return
    from znt.formats.safe_text import escape_controls
    from znt.redact import redact

    typer.echo(f"znt: {escape_controls(redact(message))}", err=True)


def warn_all(ctx: typer.Context, warnings: list[str], prefix: str = "warning: ") -> None:
    for w in warnings:
        note(ctx, f"{prefix}{w}")


def emit_graph_doc(
    ctx: typer.Context, doc: Mapping[str, Any], fmt: str | None, *, text: str, what: str
) -> str:
    """Print a document shaped like ``znt graph``'s (``nodes``/``edges``) as json, mermaid,
    dot or text (the ``znt.formats`` module named by ``text``); returns the format used.
    The diagram formats carry no room for notes, so warnings go to stderr with them."""
    import importlib

    chosen = chosen_format(ctx, fmt)
    modules = {"json": "json", "mermaid": "mermaid", "dot": "dot", "text": text}
    if chosen not in modules:
        from znt.errors import UsageError

        raise UsageError(f"--format {chosen} is not available for {what}")
    if chosen != "json":
        from znt.formats.safe_text import escape_doc

        doc = escape_doc(doc)
    rendered = importlib.import_module(f"znt.formats.{modules[chosen]}").render(doc)
    write_text(ctx, rendered, what if chosen == "text" else None)
    if chosen in ("mermaid", "dot"):
        warn_all(ctx, doc.get("warnings", []))
    return chosen
