"""``znt status``, ``outline``, ``stats``, ``logs``: read the index, never write it."""

from typing import Annotated

import typer

from znt.cli.app import app
from znt.cli.output import ListFormat, TextJsonFormat, emit, settings


@app.command("status")
def status_cmd(
    ctx: typer.Context,
    path: Annotated[str | None, typer.Argument(help="Folder to ask about.")] = None,
    fmt: TextJsonFormat = None,
) -> None:
    """Whether PATH is indexed, the index's counts, embeddings, last scan and staleness."""
    from znt import api

    emit(ctx, api.status(path if path is not None else settings(ctx).project), fmt, "status")


@app.command("outline")
def outline_cmd(
    ctx: typer.Context,
    file: Annotated[str, typer.Argument(metavar="FILE", help="An indexed file.")],
    code: Annotated[bool, typer.Option("--code", help="Include each symbol's source.")] = False,
    members: Annotated[
        bool, typer.Option("--members", help="Also nested symbols (methods, fields, ...).")
    ] = False,
    fmt: TextJsonFormat = None,
) -> None:
    """FILE's top-level symbols by line."""
    from znt import api

    doc = api.outline(file, code=code, members=members, project_path=settings(ctx).project)
    emit(ctx, doc, fmt, "outline")


@app.command("stats")
def stats_cmd(ctx: typer.Context, fmt: TextJsonFormat = None) -> None:
    """Index counts by type, kind, language, edge kind and resolution."""
    from znt import api

    emit(ctx, api.stats(project_path=settings(ctx).project), fmt, "stats")


@app.command("logs")
def logs_cmd(
    ctx: typer.Context,
    stream_id: Annotated[
        str | None, typer.Option(help="Cursor: the stream_id of an earlier answer.")
    ] = None,
    after_id: Annotated[
        int | None, typer.Option(help="Cursor: only entries after this id.")
    ] = None,
    fmt: ListFormat = None,
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
