"""``znt search``: ranked symbols for a query (lexical, vector or hybrid)."""

from __future__ import annotations

import click

from znt.cli.output import common_options, dataset_options, emit, settings
from znt.errors import EXIT_NOTHING_FOUND


@click.command("search")
@click.argument("query")
@click.option(
    "--mode",
    type=click.Choice(["hybrid", "lexical", "vector"]),
    default="hybrid",
    show_default=True,
    help="lexical for identifiers, vector for behaviour, hybrid fuses both.",
)
@click.option("--limit", type=click.IntRange(1, 1000), default=10, show_default=True)
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True)
@click.option("--type", "type_", metavar="TYPE", help="Boost this type or kind (soft, +4).")
@click.option("--role", metavar="ROLE", help="Boost this role (soft, +4).")
@click.option("--path", "path_glob", metavar="GLOB", help="Only files matching GLOB (**/ implied).")
@click.option("--compact", is_flag=True, help="No caller/callee relations.")
@click.option("--code", is_flag=True, help="Include each result's source.")
@click.option("--max-code-lines", type=click.IntRange(1), default=30, show_default=True)
@click.option("--callers", type=click.IntRange(0, 5), default=0, help="Attach callers, N levels.")
@click.option("--callees", type=click.IntRange(0, 5), default=0, help="Attach callees, N levels.")
@click.option("--max-tokens", type=click.IntRange(1), help="Cut the answer at ~N tokens.")
@dataset_options
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "jsonl"]), help="Output format."
)
@common_options
@click.pass_context
def search_cmd(
    ctx: click.Context,
    query: str,
    mode: str,
    limit: int,
    offset: int,
    type_: str | None,
    role: str | None,
    path_glob: str | None,
    compact: bool,
    code: bool,
    max_code_lines: int,
    callers: int,
    callees: int,
    max_tokens: int | None,
    dataset: str | None,
    repositories: tuple[str, ...],
    fmt: str | None,
) -> None:
    """Symbols ranked for QUERY. Exit 1 when nothing matches."""
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
        repositories=list(repositories),
    )
    emit(ctx, doc, fmt, "search", list_key="results")
    if not settings(ctx).quiet:
        for w in doc["warnings"]:
            click.echo(f"znt: {w}", err=True)
    if not doc["results"]:
        ctx.exit(EXIT_NOTHING_FOUND)


COMMANDS = [search_cmd]
