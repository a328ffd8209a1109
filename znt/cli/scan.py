"""``znt scan``: build or refresh the index."""

from __future__ import annotations

import click

from znt.cli.output import Progress, common_options, emit, note, settings

FORMAT = click.option("--format", "fmt", type=click.Choice(["text", "json"]), help="Output format.")


@click.command("scan")
@click.argument("path", required=False, type=click.Path(file_okay=False))
@click.option(
    "--language", default="auto", show_default=True, help="Index one language only (auto = all)."
)
@click.option("--restart", is_flag=True, help="Delete the index and rebuild it from scratch.")
@click.option("--dry-run", is_flag=True, help="Show what would be indexed; index nothing.")
@click.option("--no-embed", is_flag=True, help="Skip embeddings: lexical index and graph only.")
@FORMAT
@common_options
@click.pass_context
def scan_cmd(
    ctx: click.Context,
    path: str | None,
    language: str,
    restart: bool,
    dry_run: bool,
    no_embed: bool,
    fmt: str | None,
) -> None:
    """Index PATH (default: the current project) incrementally."""
    from znt import api

    s = settings(ctx)
    target = path if path is not None else s.project
    doc = api.scan(
        target,
        language=language,
        restart=restart,
        dry_run=dry_run,
        no_embed=no_embed,
        progress=Progress(not s.quiet),
        notice=lambda m: note(ctx, m),
    )
    emit(ctx, doc, fmt, "scan")


COMMANDS = [scan_cmd]
