"""``znt impact``: the symbols a change touches, their callers to ``--depth`` and the tests
among them. The answer comes from ``znt.api.impact`` (the MCP server wraps the same one);
text and mermaid are rendered from that document."""

from __future__ import annotations

import click

from znt.cli.output import common_options, settings

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
    chosen = fmt or settings(ctx).format or "text"
    if chosen == "json":
        from znt.formats import json as json_fmt

        out = json_fmt.render(doc)
    elif chosen == "mermaid":
        from znt.formats import mermaid

        out = mermaid.render(doc)
    elif chosen == "text":
        from znt.formats import impact_text

        out = impact_text.render(doc)
    else:
        raise click.UsageError(f"--format {chosen} is not available for impact", ctx)
    click.echo(out)
    if chosen == "mermaid" and not settings(ctx).quiet:
        for warning in doc["warnings"]:
            click.echo(f"znt: warning: {warning}", err=True)


COMMANDS = [impact_cmd]
