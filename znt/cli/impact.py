"""``znt impact``: the symbols a change touches, their callers to ``--depth`` and the tests
among them. The answer comes from ``znt.api.impact`` (the MCP server wraps the same one);
text and mermaid are rendered from that document."""

from typing import Annotated, Literal

import typer

from znt.cli.app import app
from znt.cli.output import emit_graph_doc, settings


@app.command("impact")
def impact_cmd(
    ctx: typer.Context,
    paths: Annotated[
        list[str] | None,
        typer.Argument(metavar="[PATH]...", help="Whole files or folders to treat as changed."),
    ] = None,
    staged: Annotated[
        bool, typer.Option("--staged", help="The staged change (git diff --cached).")
    ] = False,
    diff_ref: Annotated[
        str | None,
        typer.Option(
            "--diff", metavar="REF", help="The working tree against git REF (default HEAD)."
        ),
    ] = None,
    depth: Annotated[
        int, typer.Option(min=0, help="Levels of callers to follow up from the changed symbols.")
    ] = 3,
    fmt: Annotated[
        Literal["text", "json", "mermaid"] | None, typer.Option("--format", help="Output format.")
    ] = None,
) -> None:
    """What a change touches: changed symbols, their transitive callers and their tests.

    Without options: the working tree against HEAD. --staged: what `git commit` would
    commit. --diff REF: the working tree against REF. PATH...: whole files (or folders); a
    path that does not exist exits 4. Changed lines come from `git diff -U0` and are mapped
    onto the indexed symbols, so scan first (the answer lists files the index is stale for).
    Callers are a lower bound: dynamic calls can be missed.
    """
    from znt import api

    doc = api.impact(
        staged=staged,
        diff=diff_ref,
        paths=list(paths or []) or None,
        depth=depth,
        project_path=settings(ctx).project,
    )
    emit_graph_doc(ctx, doc, fmt, text="impact_text", what="impact")
