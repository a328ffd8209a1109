"""``znt impact``: the symbols a change touches, their callers to ``--depth`` and the tests
among them. The answer comes from ``znt.api.impact`` (the MCP server wraps the same one);
text and mermaid are rendered from that document."""

from __future__ import annotations

import click

from znt.cli.output import common_options, emit_graph_doc, settings

FORMATS = ("text", "json", "mermaid")


@click.command("impact")
@click.argument("paths", nargs=-1, metavar="[PATH]...")
@click.option("--staged", is_flag=True, help="The staged change (git diff --cached).")
@click.option(
    "--diff", "diff_ref", metavar="REF", help="The working tree against git REF (default HEAD)."
)
@click.option(
    "--depth",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="Levels of callers to follow up from the changed symbols.",
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), help="Output format.")
@common_options
@click.pass_context
def impact_cmd(
    ctx: click.Context,
    paths: tuple[str, ...],
    staged: bool,
    diff_ref: str | None,
    depth: int,
    fmt: str | None,
) -> None:
    """What a change touches: changed symbols, their transitive callers and the tests among
    them.

    Without options: the working tree against HEAD. --staged: what `git commit` would
    commit. --diff REF: the working tree against REF. PATH...: whole files (or folders).
    Changed lines come from `git diff -U0` and are mapped onto the indexed symbols, so scan
    first (the answer lists files the index is stale for). Callers are a lower bound:
    dynamic calls can be missed.
    """
    from znt import api

    doc = api.impact(
        staged=staged,
        diff=diff_ref,
        paths=list(paths) or None,
        depth=depth,
        project_path=settings(ctx).project,
    )
    emit_graph_doc(ctx, doc, fmt, text="impact_text", what="impact")


COMMANDS = [impact_cmd]
