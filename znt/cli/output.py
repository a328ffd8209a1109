"""Where the CLI writes: results to stdout, progress and diagnostics to stderr."""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from typing import Any

import click

from znt.formats import json as json_fmt
from znt.formats import text as text_fmt


@dataclass
class Settings:
    project: str | None = None
    format: str | None = None
    color: str = "auto"
    quiet: bool = False
    verbose: bool = False

    def use_color(self) -> bool:
        if self.color == "always":
            return True
        if self.color == "never" or os.environ.get("NO_COLOR"):
            return False
        return sys.stdout.isatty()


def settings(ctx: click.Context) -> Settings:
    obj = ctx.find_root().obj
    return obj if isinstance(obj, Settings) else Settings()


def emit(
    ctx: click.Context,
    doc: dict[str, Any],
    fmt: str | None,
    renderer: str,
    list_key: str | None = None,
) -> None:
    """Render ``doc`` in the chosen format and write it to stdout, with any key this process
    read scrubbed from it (znt/redact.py); text output escapes control characters in the
    values it shows (znt/formats/text.py)."""
    from znt.formats.safe_text import escape_doc
    from znt.redact import scrub

    chosen = fmt or settings(ctx).format or "text"
    if chosen == "json":
        click.echo(scrub(json_fmt.render(doc)))
    elif chosen == "jsonl":
        if list_key is None:
            raise click.UsageError("--format jsonl is only for list results", ctx)
        out = json_fmt.render_lines(doc, list_key)
        if out:
            click.echo(scrub(out))
    else:
        text = getattr(text_fmt, renderer)(escape_doc(doc))
        click.echo(scrub(text), color=settings(ctx).use_color())


def dataset_options(f: Any) -> Any:
    """``--dataset DIR`` and ``--repository NAME`` (repeatable): answer from exported
    repositories (``znt export --parquet DIR``) instead of the project's index."""
    f = click.option(
        "--repository",
        "repositories",
        multiple=True,
        metavar="NAME",
        help="With --dataset: only this repository (repeat for several; default all).",
    )(f)
    return click.option(
        "--dataset",
        metavar="DIR",
        help="Answer across the repositories exported to DIR (znt export --parquet DIR).",
    )(f)


def note(ctx: click.Context | None, message: str) -> None:
    """A diagnostic line on stderr, unless --quiet."""
    if ctx is not None and settings(ctx).quiet:
        return
    from znt.formats.safe_text import escape_controls
    from znt.redact import redact

    click.echo(f"znt: {escape_controls(redact(message))}", err=True)


class Progress:
    """A one-line progress display on stderr, only when stderr is a terminal."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self._last = 0.0
        self._shown = False

    def __call__(self, phase: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if phase != "completed" and now - self._last < 0.1 and done != total:
            return
        self._last = now
        if phase == "completed":
            if self._shown:
                sys.stderr.write("\r\033[K")
                sys.stderr.flush()
            return
        count = f" {done}/{total}" if total else ""
        sys.stderr.write(f"\r\033[K[{phase}]{count}")
        sys.stderr.flush()
        self._shown = True


def common_options(func: Any) -> Any:
    """Accept the global options after the subcommand too (``znt scan -q``), as users type
    them; a value given here overrides the one before the subcommand."""

    def _set(field: str) -> Any:
        def callback(ctx: click.Context, _param: click.Parameter, value: Any) -> Any:
            if value not in (None, False):
                setattr(settings_for_update(ctx), field, value)
            return value

        return callback

    options = [
        click.option(
            "-C",
            "--project",
            "_project",
            metavar="PATH",
            expose_value=False,
            callback=_set("project"),
            help="Project folder.",
        ),
        click.option(
            "--color",
            "_color",
            type=click.Choice(["auto", "always", "never"]),
            expose_value=False,
            callback=_set("color"),
            help="Colour output.",
        ),
        click.option(
            "-q",
            "--quiet",
            "_quiet",
            is_flag=True,
            expose_value=False,
            callback=_set("quiet"),
            help="No progress or notices.",
        ),
        click.option(
            "-v",
            "--verbose",
            "_verbose",
            is_flag=True,
            expose_value=False,
            callback=_set("verbose"),
            help="More detail on stderr.",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def settings_for_update(ctx: click.Context) -> Settings:
    root = ctx.find_root()
    if not isinstance(root.obj, Settings):
        root.obj = Settings()
    return root.obj


def emit_graph_doc(
    ctx: click.Context, doc: dict[str, Any], fmt: str | None, *, text: str, what: str
) -> str:
    """Print a document shaped like ``znt graph``'s (``nodes``/``edges``) as json, mermaid,
    dot or text (the ``znt.formats`` module named by ``text``); returns the format used.
    The diagram formats carry no room for notes, so warnings go to stderr with them."""
    import importlib

    chosen = fmt or settings(ctx).format or "text"
    modules = {"json": "json", "mermaid": "mermaid", "dot": "dot", "text": text}
    if chosen not in modules:
        raise click.UsageError(f"--format {chosen} is not available for {what}", ctx)
    if chosen != "json":
        from znt.formats.safe_text import escape_doc

        doc = escape_doc(doc)
    click.echo(importlib.import_module(f"znt.formats.{modules[chosen]}").render(doc))
    if chosen in ("mermaid", "dot") and not settings(ctx).quiet:
        for warning in doc.get("warnings", []):
            click.echo(f"znt: warning: {warning}", err=True)
    return chosen
