"""``znt map [PATH...] [--max-tokens N] [--focus FILE|SYMBOL ...]``: the repository map,
ranked by PageRank over the resolved graph (znt/graph/repomap.py)."""

from typing import Annotated

import typer

from znt.cli.app import app
from znt.cli.output import TextJsonFormat, chosen_format, settings, write_text


@app.command("map")
def map_cmd(
    ctx: typer.Context,
    paths: Annotated[
        list[str] | None,
        typer.Argument(metavar="[PATH]...", help="Only files under these files or folders."),
    ] = None,
    max_tokens: Annotated[
        int,
        typer.Option(min=1, help="Token budget of the map (ceil(chars/4) of the text)."),
    ] = 1024,
    focus: Annotated[
        list[str] | None,
        typer.Option(
            metavar="FILE|SYMBOL",
            help="Rank around this file or symbol (personalised PageRank); repeatable.",
        ),
    ] = None,
    fmt: TextJsonFormat = None,
) -> None:
    """A ranked, token-budgeted map of the repository: files and their key symbols.

    Files are ranked by PageRank over the resolved call/import/inheritance graph (edges
    weighted by confidence), personalised to --focus; each file lists the symbols other
    files use most, with signatures, until --max-tokens is spent. aider's repository map,
    on an exact graph."""
    from znt import api

    doc = api.repo_map(
        list(paths or []),
        max_tokens=max_tokens,
        focus=list(focus or []),
        project_path=settings(ctx).project,
    )
    if chosen_format(ctx, fmt) == "json":
        from znt.formats import json as json_fmt

        typer.echo(json_fmt.render(doc))
        return
    from znt.formats import map_text

    write_text(ctx, map_text.render(doc), "map")
