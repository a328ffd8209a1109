"""``znt similar``: analogues and near-duplicates of a symbol, a snippet or a description."""

from __future__ import annotations

import sys

import click

from znt.cli.output import common_options, settings
from znt.errors import EXIT_NOTHING_FOUND, UsageError


def _read_snippet(source: str, language: str | None) -> tuple[str, str]:
    """The snippet's text and language: from FILE (language by its suffix unless given) or
    from stdin with ``-`` (python unless given)."""
    if source == "-":
        return sys.stdin.read(), language or "python"
    from pathlib import Path

    path = Path(source).expanduser()
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise UsageError(f"snippet file not found: {source}") from None
    except IsADirectoryError:
        raise UsageError(f"the snippet must be a file, not a folder: {source}") from None
    if language:
        return text, language
    from znt import api

    found = api.code_language_of(path.name)
    if found is None:
        raise UsageError(f"cannot tell the language of {source} from its name; pass --language")
    return text, found


@click.command("similar")
@click.argument("target", required=False)
@click.option("--query", metavar="TEXT", help="Compare with a description instead of a symbol.")
@click.option(
    "--snippet",
    metavar="FILE|-",
    help="Compare with code that is not in the index (a file, or - for stdin).",
)
@click.option(
    "--language",
    metavar="LANG",
    help="Language of --snippet (default: from the file suffix; python for stdin).",
)
@click.option("--limit", type=click.IntRange(1, 1000), default=10, show_default=True)
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True)
@click.option(
    "--edge-types",
    metavar="CSV",
    default="call,implements,inherits",
    show_default=True,
    help="Edge types whose neighbour sets are compared (call, implements, inherits, ...).",
)
@click.option("--type", "type_", metavar="TYPE", help="Prefer this type or kind (soft).")
@click.option("--role", metavar="ROLE", help="Prefer this role (soft).")
@click.option("--path", "path_glob", metavar="GLOB", help="Only files matching GLOB (**/ implied).")
@click.option("--code", is_flag=True, help="Include each result's source.")
@click.option("--max-code-lines", type=click.IntRange(1), default=30, show_default=True)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "jsonl"]), help="Output format."
)
@common_options
@click.pass_context
def similar_cmd(
    ctx: click.Context,
    target: str | None,
    query: str | None,
    snippet: str | None,
    language: str | None,
    limit: int,
    offset: int,
    edge_types: str,
    type_: str | None,
    role: str | None,
    path_glob: str | None,
    code: bool,
    max_code_lines: int,
    fmt: str | None,
) -> None:
    """Code similar to TARGET (a qualified name, short name or id), to --query TEXT or to
    --snippet FILE|-: 0.6 x vector cosine + 0.3 x Jaccard of call-graph neighbours + 0.1 x
    role/kind agreement, 0..1, each with the reason. Without embeddings the answer says so
    and ranks by the other parts. An ambiguous TARGET exits 4 with the candidates; nothing
    found exits 1.
    """
    from znt import api

    if language and snippet is None:
        raise click.UsageError("--language applies to --snippet only", ctx)
    text = None
    if snippet is not None:
        text, language = _read_snippet(snippet, language)
    doc = api.similar(
        target,
        query=query,
        snippet=text,
        snippet_language=language,
        limit=limit,
        offset=offset,
        edge_types=edge_types,
        type=type_,
        role=role,
        path=path_glob,
        code=code,
        max_code_lines=max_code_lines,
        project_path=settings(ctx).project,
    )
    chosen = fmt or settings(ctx).format or "text"
    from znt.formats import json as json_fmt

    if chosen == "json":
        click.echo(json_fmt.render(doc))
    elif chosen == "jsonl":
        out = json_fmt.render_lines(doc, "results")
        if out:
            click.echo(out)
    else:
        from znt.formats import similar_text

        click.echo(similar_text.render(doc))
    if not settings(ctx).quiet:
        for w in doc["warnings"]:
            click.echo(f"znt: warning: {w}", err=True)
    if not doc["results"]:
        ctx.exit(EXIT_NOTHING_FOUND)


COMMANDS = [similar_cmd]
