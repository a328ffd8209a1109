"""``znt graph FROM [--to TO]``: a neighbourhood or the call paths between two symbols, as
text, json, mermaid or dot. The answer comes from ``znt.api.graph``; mermaid and dot are
rendered from that same document (the MCP server reuses the renderers)."""

from __future__ import annotations

import click

from znt.cli.output import common_options, dataset_options, emit_graph_doc, settings
from znt.errors import EXIT_NOTHING_FOUND

FORMATS = ("text", "json", "mermaid", "dot")


@click.command("graph")
@click.argument("from_", metavar="FROM")
@click.option(
    "--to", "to", metavar="TO", help="Trace the shortest call path(s) from FROM to TO instead."
)
@click.option(
    "--depth",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="BFS levels around FROM (paths are returned whole, whatever their length).",
)
@click.option(
    "--direction",
    type=click.Choice(["both", "down", "up"]),
    default="both",
    show_default=True,
    help="down = callees (outgoing edges), up = callers (incoming), both.",
)
@click.option(
    "--edge-types",
    metavar="CSV",
    default="call,implements,inherits",
    show_default=True,
    help="Edge types to follow: call, implements, inherits, contains, imports.",
)
@click.option(
    "--all", "include_external", is_flag=True, help="Include external nodes (ext::, dep::)."
)
@click.option(
    "--max-nodes",
    type=click.IntRange(min=1),
    default=50,
    show_default=True,
    help="Show at most this many nodes (a cut answer says truncated).",
)
@dataset_options
@click.option("--format", "fmt", type=click.Choice(FORMATS), help="Output format.")
@common_options
@click.pass_context
def graph_cmd(
    ctx: click.Context,
    from_: str,
    to: str | None,
    depth: int,
    direction: str,
    edge_types: str,
    include_external: bool,
    max_nodes: int,
    dataset: str | None,
    repositories: tuple[str, ...],
    fmt: str | None,
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
        repositories=list(repositories),
    )
    chosen = emit_graph_doc(ctx, doc, fmt, text="graph_text", what="graph")
    if chosen in ("mermaid", "dot") and not settings(ctx).quiet:
        comp = doc["completeness"]
        if not comp["complete"]:
            click.echo(
                "znt: lower bound: " + "; ".join(comp["reasons"]),
                err=True,
            )
    if not doc["found"]:
        ctx.exit(EXIT_NOTHING_FOUND)


COMMANDS = [graph_cmd]
