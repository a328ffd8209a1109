"""``znt sql QUERY``: one read-only SELECT over the index tables (docs/data-model.md), as an
aligned table (a rich table on a terminal), JSON or CSV. Anything but a single read
statement exits 2 before it runs, and the index is opened read-only with external access
off (docs/sql.md)."""

import sys
from typing import Annotated, Literal

import typer

from znt.cli.app import app
from znt.cli.output import chosen_format, note, on_terminal, settings


@app.command("sql")
def sql_cmd(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(metavar="QUERY", help="The query, or - for stdin.")],
    limit: Annotated[
        int,
        typer.Option(
            min=1, max=100_000, help="Return at most this many rows (a cut result says truncated)."
        ),
    ] = 1000,
    timeout: Annotated[
        float,
        typer.Option(min=0.001, help="Stop the query after this many seconds (exit 5)."),
    ] = 30.0,
    fmt: Annotated[
        Literal["table", "json", "jsonl", "csv"] | None,
        typer.Option("--format", help="Output format."),
    ] = None,
) -> None:
    """Run one read-only SQL query (SELECT, WITH, FROM, DESCRIBE, SHOW) over the index.

    QUERY '-' reads the query from stdin. Tables: files, symbols, edges, refs, imports,
    import_candidates, meta, and the views nodes and externals (docs/data-model.md). Writing
    statements, several statements and file-reading functions (read_csv, glob, ...) exit 2.

    Example: znt sql "SELECT kind, count(*) AS n FROM edges GROUP BY kind ORDER BY n DESC"
    """
    from znt import api

    if query == "-":
        query = sys.stdin.read()
    doc = api.sql(query, limit=limit, timeout=timeout, project_path=settings(ctx).project)
    chosen = chosen_format(ctx, fmt, default="table")
    if chosen == "text":
        chosen = "table"
    if chosen == "json":
        from znt.formats import json as json_fmt

        typer.echo(json_fmt.render(doc))
        return
    if chosen == "jsonl":
        import json

        names = [c["name"] for c in doc["columns"]]
        for row in doc["rows"]:
            typer.echo(
                json.dumps(dict(zip(names, row, strict=False)), ensure_ascii=False, default=str)
            )
    elif chosen == "table" and on_terminal():
        from znt.cli import display

        display.table("sql", doc, color=settings(ctx).use_color())
    else:
        from znt.formats import table

        typer.echo(table.render_csv(doc) if chosen == "csv" else table.render(doc))
    if doc["truncated"] and chosen != "table":
        note(ctx, f"truncated at --limit {doc['limit']} rows; raise --limit for more")
