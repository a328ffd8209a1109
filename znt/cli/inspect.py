"""``znt status``, ``outline``, ``stats``, ``logs``: read the index, never write it."""

from __future__ import annotations

import click

from znt.cli.output import common_options, emit, settings

FORMAT = click.option("--format", "fmt", type=click.Choice(["text", "json"]), help="Output format.")


@click.command("status")
@click.argument("path", required=False)
@FORMAT
@common_options
@click.pass_context
def status_cmd(ctx: click.Context, path: str | None, fmt: str | None) -> None:
    """Whether PATH is indexed, the index's counts, last scan and staleness."""
    from znt import api

    emit(ctx, api.status(path if path is not None else settings(ctx).project), fmt, "status")


@click.command("outline")
@click.argument("file")
@click.option("--code", is_flag=True, help="Include each symbol's source.")
@click.option("--members", is_flag=True, help="Also nested symbols (methods, fields, ...).")
@FORMAT
@common_options
@click.pass_context
def outline_cmd(ctx: click.Context, file: str, code: bool, members: bool, fmt: str | None) -> None:
    """FILE's top-level symbols by line."""
    from znt import api

    doc = api.outline(file, code=code, members=members, project_path=settings(ctx).project)
    emit(ctx, doc, fmt, "outline")


@click.command("stats")
@FORMAT
@common_options
@click.pass_context
def stats_cmd(ctx: click.Context, fmt: str | None) -> None:
    """Index counts by type, kind, language, edge kind and resolution."""
    from znt import api

    emit(ctx, api.stats(project_path=settings(ctx).project), fmt, "stats")


@click.command("logs")
@click.option("--stream-id", help="Cursor: the stream_id of an earlier answer.")
@click.option("--after-id", type=int, help="Cursor: only entries after this id.")
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "jsonl"]), help="Output format."
)
@common_options
@click.pass_context
def logs_cmd(
    ctx: click.Context, stream_id: str | None, after_id: int | None, fmt: str | None
) -> None:
    """The last 100 scan log entries."""
    from znt import api

    emit(
        ctx,
        api.logs(stream_id=stream_id, after_id=after_id, project_path=settings(ctx).project),
        fmt,
        "logs",
        "entries",
    )


COMMANDS = [status_cmd, outline_cmd, stats_cmd, logs_cmd]
