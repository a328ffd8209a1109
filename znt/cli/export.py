"""``znt export --parquet DIR``: the index as a Parquet dataset (docs/export.md)."""

from typing import Annotated

import typer

from znt.cli.app import app
from znt.cli.output import TextJsonFormat, chosen_format, settings


@app.command("export")
def export_cmd(
    ctx: typer.Context,
    folder: Annotated[
        str,
        typer.Option(
            "--parquet",
            metavar="DIR",
            help="The dataset folder (created if needed; other repositories' exports stay).",
        ),
    ],
    repository: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="The repository's name in the dataset (default: the project folder's name).",
        ),
    ] = None,
    commit: Annotated[
        str | None,
        typer.Option(
            metavar="REV", help="The commit to file it under (default: the indexed commit)."
        ),
    ] = None,
    fmt: TextJsonFormat = None,
) -> None:
    """Write the index's tables as Parquet, for other engines and repositories.

    The tables (files, symbols, edges, postings, texts, vectors) go under
    DIR/<table>/repository=NAME/commit=REV/, for `znt search --dataset DIR`,
    `znt graph --dataset DIR`, Spark and other engines (docs/export.md)."""
    from znt import api

    doc = api.export(
        folder, repository=repository, commit=commit, project_path=settings(ctx).project
    )
    if chosen_format(ctx, fmt) == "json":
        from znt.formats import json as json_fmt

        typer.echo(json_fmt.render(doc))
        return
    from znt.formats.export_text import render

    typer.echo(render(doc))
