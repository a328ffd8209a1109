"""``znt search``: ranked symbols for a query (lexical, vector or hybrid)."""

from typing import Annotated, Literal

import typer

from znt.cli.app import app
from znt.cli.output import DatasetOption, ListFormat, RepositoryOption, emit, note, settings
from znt.errors import EXIT_NOTHING_FOUND


@app.command("search")
def search_cmd(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(metavar="QUERY", help="Words, an identifier or both.")],
    mode: Annotated[
        Literal["hybrid", "lexical", "vector"],
        typer.Option(help="lexical for identifiers, vector for behaviour, hybrid fuses both."),
    ] = "hybrid",
    limit: Annotated[int, typer.Option(min=1, max=1000)] = 10,
    offset: Annotated[int, typer.Option(min=0)] = 0,
    type_: Annotated[
        str | None,
        typer.Option("--type", metavar="TYPE", help="Boost this type or kind (soft, +4)."),
    ] = None,
    role: Annotated[
        str | None, typer.Option(metavar="ROLE", help="Boost this role (soft, +4).")
    ] = None,
    path_glob: Annotated[
        str | None,
        typer.Option("--path", metavar="GLOB", help="Only files matching GLOB (**/ implied)."),
    ] = None,
    compact: Annotated[
        bool,
        typer.Option("--compact", help="One line per result, and no caller/callee relations."),
    ] = False,
    code: Annotated[bool, typer.Option("--code", help="Include each result's source.")] = False,
    max_code_lines: Annotated[int, typer.Option(min=1)] = 30,
    callers: Annotated[int, typer.Option(min=0, max=5, help="Attach callers, N levels.")] = 0,
    callees: Annotated[int, typer.Option(min=0, max=5, help="Attach callees, N levels.")] = 0,
    max_tokens: Annotated[
        int | None, typer.Option(min=1, help="Cut the answer at ~N tokens.")
    ] = None,
    dataset: DatasetOption = None,
    repositories: RepositoryOption = None,
    fmt: ListFormat = None,
) -> None:
    """Symbols ranked for QUERY. Exit 1 when nothing matches.

    In lexical mode a query no identifier matches falls back to vectors (when the index has
    them): the answer then says mode_used "vector" and fallback "vector" in JSON, and a
    notice on stderr."""
    from znt import api

    doc = api.search(
        query,
        mode=mode,
        limit=limit,
        offset=offset,
        type=type_,
        role=role,
        path=path_glob,
        compact=compact,
        code=code,
        max_code_lines=max_code_lines,
        callers=callers,
        callees=callees,
        max_tokens=max_tokens,
        project_path=settings(ctx).project,
        dataset=dataset,
        repositories=list(repositories or []),
    )
    emit(ctx, doc, fmt, "search_compact" if compact else "search", list_key="results")
    for w in doc["warnings"]:
        note(ctx, w)
    if not doc["results"]:
        raise typer.Exit(EXIT_NOTHING_FOUND)
