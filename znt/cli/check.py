"""``znt check``: the project's architecture rules (``check:`` in znt.yaml, or the default
rule set when there is none) over the code graph, for CI. Exit 0 clean, 1 violations, 2 a
bad rule or flag, 3 missing index (or stale under ``--stale-policy error``), 5 failure. The
answer comes from ``znt.api.check``; the MCP server wraps the same function."""

from collections.abc import Mapping
from typing import Annotated, Any, Literal

import typer

from znt.cli.app import app
from znt.cli.output import chosen_format, note, on_terminal, settings, write_text
from znt.errors import EXIT_NOTHING_FOUND


@app.command("check")
def check_cmd(
    ctx: typer.Context,
    rules_file: Annotated[
        str | None,
        typer.Option(
            "--rules",
            metavar="FILE",
            help="Read the 'check:' section from FILE instead of the project's znt.yaml.",
        ),
    ] = None,
    baseline: Annotated[
        str | None,
        typer.Option(
            metavar="REF",
            help="Report only violations that are new since git REF (indexed once in a "
            "temporary worktree, then kept as a snapshot in .znt/baselines/).",
        ),
    ] = None,
    stale_policy: Annotated[
        Literal["warn", "ignore", "error"],
        typer.Option(
            help="When the index is older than the working tree: warn on stderr, ignore, or exit 3."
        ),
    ] = "warn",
    fmt: Annotated[
        Literal["text", "json", "jsonl", "sarif", "junit"] | None,
        typer.Option("--format", help="Output format."),
    ] = None,
) -> None:
    """Check the code graph against the rules in znt.yaml (docs/check.md).

    Rule types: layers, forbidden, no_cycles, max_fan_out, max_fan_in, forbidden_external,
    no_test_imports, max_unresolved_ratio. Without a znt.yaml (and without --rules) the
    default rule set runs: no import cycles between modules. Each violation names the rule,
    the edge(s) and the source line. --format sarif writes SARIF 2.1.0 for code scanning,
    junit one test case per rule.
    """
    from znt import api

    doc = api.check(
        rules_file=rules_file,
        baseline=baseline,
        stale_policy=stale_policy,
        project_path=settings(ctx).project,
    )
    chosen = chosen_format(ctx, fmt)
    for warning in doc["warnings"]:
        note(ctx, f"warning: {warning}")
    if chosen == "text" and on_terminal():
        from znt.cli import display

        display.table("check", doc, color=settings(ctx).use_color())
    else:
        out = _render(doc, chosen)
        if out:
            write_text(ctx, out, "check" if chosen == "text" else None)
    if not doc["passed"]:
        raise typer.Exit(EXIT_NOTHING_FOUND)


def _render(doc: Mapping[str, Any], chosen: str) -> str:
    if chosen == "json":
        from znt.formats import json as json_fmt

        return json_fmt.render(doc)
    if chosen == "jsonl":
        from znt.formats import json as json_fmt

        return json_fmt.render_lines(doc, "violations")
    if chosen == "sarif":
        from znt.formats import sarif

        return sarif.render(doc)
    if chosen == "junit":
        from znt.formats import junit

        return junit.render(doc)
    from znt.formats import check_text

    return check_text.render(doc)
