"""``znt export --parquet DIR``: the index as a Parquet dataset (docs/export.md)."""

from __future__ import annotations

import click

from znt.cli.output import common_options, settings


@click.command("export")
@click.option(
    "--parquet",
    "folder",
    required=True,
    metavar="DIR",
    help="The dataset folder (created if needed; other repositories' exports stay).",
)
@click.option(
    "--repository",
    metavar="NAME",
    help="The repository's name in the dataset (default: the project folder's name).",
)
@click.option(
    "--commit", metavar="REV", help="The commit to file it under (default: the indexed commit)."
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), help="Output format.")
@common_options
@click.pass_context
def export_cmd(
    ctx: click.Context, folder: str, repository: str | None, commit: str | None, fmt: str | None
) -> None:
    """Write the index's tables (files, symbols, edges, postings, texts, vectors) as Parquet
    under DIR/<table>/repository=NAME/commit=REV/, for `znt search --dataset DIR`,
    `znt graph --dataset DIR`, Spark and other engines (docs/export.md)."""
    from znt import api

    doc = api.export(
        folder, repository=repository, commit=commit, project_path=settings(ctx).project
    )
    if (fmt or settings(ctx).format or "text") == "json":
        from znt.formats import json as json_fmt

        click.echo(json_fmt.render(doc))
        return
    from znt.formats.export_text import render

    click.echo(render(doc))


COMMANDS = [export_cmd]
