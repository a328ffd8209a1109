"""``znt graph FROM [--to TO]``: a neighbourhood or the call paths between two symbols, as
text, json, mermaid or dot. The answer comes from ``znt.api.graph``; mermaid and dot are
rendered from that same document (the MCP server reuses the renderers)."""

from typing import Annotated, Literal

import typer

from znt.cli.app import app
from znt.cli.output import DatasetOption, RepositoryOption, emit_graph_doc, note, settings
from znt.errors import EXIT_NOTHING_FOUND


@app.command("graph")
def graph_cmd(
    ctx: typer.Context,
    from_: Annotated[str, typer.Argument(metavar="FROM", help="A symbol, node id or file.")],
    to: Annotated[
        str | None,
        typer.Option(metavar="TO", help="Trace the shortest call path(s) from FROM to TO instead."),
    ] = None,
    depth: Annotated[
        int,
        typer.Option(
            min=1, help="BFS levels around FROM (paths are returned whole, whatever their length)."
        ),
    ] = 1,
    direction: Annotated[
        Literal["both", "down", "up"],
        typer.Option(help="down = callees (outgoing edges), up = callers (incoming), both."),
    ] = "both",
    edge_types: Annotated[
        str,
        typer.Option(
            metavar="CSV",
            help="Edge types to follow: call, implements, inherits, contains, imports.",
        ),
    ] = "call,implements,inherits",
    include_external: Annotated[
        bool, typer.Option("--all", help="Include external nodes (ext::, dep::).")
    ] = False,
    max_nodes: Annotated[
        int, typer.Option(min=1, help="Show at most this many nodes (a cut answer says truncated).")
    ] = 50,
    dataset: DatasetOption = None,
    repositories: RepositoryOption = None,
    fmt: Annotated[
        Literal["text", "json", "mermaid", "dot"] | None,
        typer.Option("--format", help="Output format."),
    ] = None,
) -> None:
    """The neighbourhood of FROM, or with --to the call path(s) FROM -> TO.

    FROM and TO may be a qualified name (Class.method), a module-qualified name
    (pkg.mod.Class.method), a short name, a node id (path::Name) or, for FROM, a file path
    (its symbols start the walk). An ambiguous or unknown name exits 4 with candidates or
    suggestions; --to with no path exits 1. Every answer says whether it is complete or a
    lower bound, and why.
    """
    from znt import api

    doc = api.graph(
        from_,
        to=to,
        depth=depth,
        direction=direction,
        edge_types=edge_types,
        include_external=include_external,
        max_nodes=max_nodes,
        project_path=settings(ctx).project,
        dataset=dataset,
        repositories=list(repositories or []),
    )
    chosen = emit_graph_doc(ctx, doc, fmt, text="graph_text", what="graph")
    comp = doc["completeness"]
    if chosen in ("mermaid", "dot") and not comp["complete"]:
        note(ctx, "lower bound: " + "; ".join(comp["reasons"]))
    if not doc["found"]:
        raise typer.Exit(EXIT_NOTHING_FOUND)
