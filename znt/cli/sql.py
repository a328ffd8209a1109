"""``znt sql QUERY``: one read-only SELECT over the index tables (docs/data-model.md), as an
aligned table, JSON or CSV. Anything but a single read statement exits 2 before it runs,
and the index is opened read-only with external access off (docs/sql.md)."""

from __future__ import annotations

import sys

import click

from znt.cli.output import common_options, settings

FORMATS = ("table", "json", "jsonl", "csv")


@click.command("sql")
@click.argument("query", metavar="QUERY")
@click.option(
    "--limit",
    type=click.IntRange(min=1, max=100_000),
    default=1000,
    show_default=True,
    help="Return at most this many rows (a cut result says truncated).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.001),
    default=30.0,
    show_default=True,
    help="Stop the query after this many seconds (exit 5).",
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), help="Output format.")
@common_options
@click.pass_context
def sql_cmd(ctx: click.Context, query: str, limit: int, timeout: float, fmt: str | None) -> None:
    """Run one read-only SQL query (SELECT, WITH, FROM, DESCRIBE, SHOW) over the index.

    QUERY '-' reads the query from stdin. Tables: files, symbols, edges, refs, imports,
    import_candidates, meta, and the views nodes and externals (docs/data-model.md). Writing
    statements, several statements and file-reading functions (read_csv, glob, ...) exit 2.

    \b
    Example:
      znt sql "SELECT kind, count(*) AS n FROM edges GROUP BY kind ORDER BY n DESC"
    """
    from znt import api

    if query == "-":
        query = sys.stdin.read()
    doc = api.sql(query, limit=limit, timeout=timeout, project_path=settings(ctx).project)
    chosen = fmt or settings(ctx).format or "table"
    if chosen == "json":
        from znt.formats import json as json_fmt

        click.echo(json_fmt.render(doc))
        return
    if chosen == "jsonl":
        import json

        names = [c["name"] for c in doc["columns"]]
        for row in doc["rows"]:
            click.echo(
                json.dumps(dict(zip(names, row, strict=False)), ensure_ascii=False, default=str)
            )
    else:
        from znt.formats import table

        click.echo(table.render_csv(doc) if chosen == "csv" else table.render(doc))
    if doc["truncated"] and not settings(ctx).quiet and chosen != "table":
        click.echo(
            f"znt: truncated at --limit {doc['limit']} rows; raise --limit for more", err=True
        )


COMMANDS = [sql_cmd]
