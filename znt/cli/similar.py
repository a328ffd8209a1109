"""``znt similar``: analogues and near-duplicates of a symbol, a snippet or a description."""

import sys
from typing import Annotated

import typer

from znt.cli.app import app
from znt.cli.output import ListFormat, chosen_format, note, settings
from znt.errors import EXIT_NOTHING_FOUND, UsageError


def _read_snippet(source: str, language: str | None) -> tuple[str, str | None]:
    """The snippet's text and language: from FILE (language by its suffix unless given) or
    from stdin with ``-`` (the language given, else None: the project's main language)."""
    if source == "-":
        return sys.stdin.read(), language
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


@app.command("similar")
def similar_cmd(
    ctx: typer.Context,
    target: Annotated[
        str | None, typer.Argument(help="A qualified name, short name or node id.")
    ] = None,
    query: Annotated[
        str | None,
        typer.Option(metavar="TEXT", help="Compare with a description instead of a symbol."),
    ] = None,
    snippet: Annotated[
        str | None,
        typer.Option(
            metavar="FILE|-",
            help="Compare with code that is not in the index (a file, or - for stdin).",
        ),
    ] = None,
    language: Annotated[
        str | None,
        typer.Option(
            metavar="LANG",
            help="Language of --snippet (default: from the file suffix; for stdin, the "
            "project's main language).",
        ),
    ] = None,
    limit: Annotated[int, typer.Option(min=1, max=1000)] = 10,
    offset: Annotated[int, typer.Option(min=0)] = 0,
    edge_types: Annotated[
        str,
        typer.Option(
            metavar="CSV",
            help="Edge types whose neighbour sets are compared (call, implements, inherits, ...).",
        ),
    ] = "call,implements,inherits",
    type_: Annotated[
        str | None, typer.Option("--type", metavar="TYPE", help="Prefer this type or kind (soft).")
    ] = None,
    role: Annotated[
        str | None, typer.Option(metavar="ROLE", help="Prefer this role (soft).")
    ] = None,
    path_glob: Annotated[
        str | None,
        typer.Option("--path", metavar="GLOB", help="Only files matching GLOB (**/ implied)."),
    ] = None,
    code: Annotated[bool, typer.Option("--code", help="Include each result's source.")] = False,
    max_code_lines: Annotated[int, typer.Option(min=1)] = 30,
    fmt: ListFormat = None,
) -> None:
    """Analogues and near-duplicates of TARGET, of --query TEXT or of --snippet FILE|-.

    TARGET is a qualified name, short name or id. Score: 0.6 x vector cosine + 0.3 x Jaccard of call-graph neighbours + 0.1 x
    role/kind agreement, 0..1, each with the reason. Without embeddings the answer says so
    and ranks by the other parts. An ambiguous TARGET exits 4 with the candidates; nothing
    found exits 1.
    """
    from znt import api

    if language and snippet is None:
        raise UsageError("--language applies to --snippet only")
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
    chosen = chosen_format(ctx, fmt)
    from znt.formats import json as json_fmt

    if chosen == "json":
        typer.echo(json_fmt.render(doc))
    elif chosen == "jsonl":
        out = json_fmt.render_lines(doc, "results")
        if out:
            typer.echo(out)
    else:
        from znt.formats import similar_text

        typer.echo(similar_text.render(doc))
    for w in doc["warnings"]:
        note(ctx, f"warning: {w}")
    if not doc["results"]:
        raise typer.Exit(EXIT_NOTHING_FOUND)
