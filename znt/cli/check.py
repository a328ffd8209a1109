"""``znt check``: the project's architecture rules (``check:`` in znt.yaml) over the code
graph, for CI. Exit 0 clean, 1 violations, 2 a bad rule or flag, 3 missing index (or stale
under ``--stale-policy error``), 5 failure. The answer comes from ``znt.api.check``; the
MCP server wraps the same function."""

from __future__ import annotations

import click

from znt.cli.output import common_options, note, settings
from znt.errors import EXIT_NOTHING_FOUND

FORMATS = ("text", "json", "jsonl", "sarif", "junit")


@click.command("check")
@click.option(
    "--rules",
    "rules_file",
    metavar="FILE",
    help="Read the 'check:' section from FILE instead of the project's znt.yaml.",
)
@click.option(
    "--baseline",
    metavar="REF",
    help="Report only violations that are new since git REF (indexed once in a temporary "
    "worktree, then kept as a snapshot in .znt/baselines/).",
)
@click.option(
    "--stale-policy",
    type=click.Choice(["warn", "ignore", "error"]),
    default="warn",
    show_default=True,
    help="When the index is older than the working tree: warn on stderr, ignore, or exit 3.",
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), help="Output format.")
@common_options
@click.pass_context
def check_cmd(
    ctx: click.Context,
    rules_file: str | None,
    baseline: str | None,
    stale_policy: str,
    fmt: str | None,
) -> None:
    """Check the code graph against the rules in znt.yaml (docs/check.md).

    Rule types: layers, forbidden, no_cycles, max_fan_out, max_fan_in, forbidden_external,
    no_test_imports, max_unresolved_ratio. Each violation names the rule, the edge(s) and
    the source line. --format sarif writes SARIF 2.1.0 for code scanning, junit one test
    case per rule.
    """
    from znt import api

    doc = api.check(
        rules_file=rules_file,
        baseline=baseline,
        stale_policy=stale_policy,
        project_path=settings(ctx).project,
    )
    chosen = fmt or settings(ctx).format or "text"
    if chosen == "json":
        from znt.formats import json as json_fmt

        out = json_fmt.render(doc)
    elif chosen == "jsonl":
        from znt.formats import json as json_fmt

        out = json_fmt.render_lines(doc, "violations")
    elif chosen == "sarif":
        from znt.formats import sarif

        out = sarif.render(doc)
    elif chosen == "junit":
        from znt.formats import junit

        out = junit.render(doc)
    else:
        from znt.formats import check_text

        out = check_text.render(doc)
    for warning in doc["warnings"]:
        note(ctx, f"warning: {warning}")
    if out:
        click.echo(out)
    if not doc["passed"]:
        ctx.exit(EXIT_NOTHING_FOUND)


COMMANDS = [check_cmd]
