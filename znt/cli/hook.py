"""``znt hook install|uninstall|status``: git hooks that keep the index fresh (znt/hooks.py,
docs/hooks.md). These commands change files under the repository's hooks folder only."""

from __future__ import annotations

from typing import Any

import click

from znt.cli.output import common_options, settings

FORMAT = click.option("--format", "fmt", type=click.Choice(["text", "json"]), help="Output format.")


def _project(ctx: click.Context) -> Any:
    from znt.project import resolve_project

    return resolve_project(settings(ctx).project)


def _emit(ctx: click.Context, doc: dict[str, Any], fmt: str | None) -> None:
    from znt.formats import json as json_fmt

    chosen = fmt or settings(ctx).format or "text"
    full = {"schema_version": 1, **doc}
    if chosen == "json":
        click.echo(json_fmt.render(full))
        return
    click.echo(f"hooks folder: {doc['hooks_dir']}")
    for h in doc["hooks"]:
        if "installed" in h:
            state = "installed" if h["installed"] else "not installed"
            extra = (" (chains the user's hook)" if h["chained"] else "") + (
                " with --check" if h.get("check") else ""
            )
            click.echo(f"  {h['hook']:<14} {state}{extra}")
        else:
            reason = f": {h['reason']}" if h.get("reason") else ""
            click.echo(f"  {h['hook']:<14} {h['action']}{reason}")
    if not doc["hooks"]:
        click.echo("  (nothing to do)")


@click.group("hook")
def hook_group() -> None:
    """Git hooks that keep the index fresh (and optionally run `znt check` before a commit).

    Installed hooks chain any hook you already have (it keeps running first), start an
    incremental `znt scan --no-embed` in the background after checkout, merge and commit,
    and never block git because of a znt failure. See docs/hooks.md.
    """


@hook_group.command("install")
@click.option("--pre-commit", "pre_commit", is_flag=True, help="Install the pre-commit hook.")
@click.option("--post-checkout", is_flag=True, help="Install the post-checkout hook.")
@click.option("--post-merge", is_flag=True, help="Install the post-merge hook.")
@click.option("--post-commit", is_flag=True, help="Install the post-commit hook.")
@click.option(
    "--check",
    is_flag=True,
    help="Make pre-commit scan and run `znt check`; violations (exit 1) block the commit.",
)
@FORMAT
@common_options
@click.pass_context
def install_cmd(
    ctx: click.Context,
    pre_commit: bool,
    post_checkout: bool,
    post_merge: bool,
    post_commit: bool,
    check: bool,
    fmt: str | None,
) -> None:
    """Install the hooks (default: post-checkout, post-merge, post-commit). Installing again
    updates them in place."""
    from znt import hooks

    names = [
        n
        for n, on in (
            ("pre-commit", pre_commit),
            ("post-checkout", post_checkout),
            ("post-merge", post_merge),
            ("post-commit", post_commit),
        )
        if on
    ]
    _emit(ctx, {"kind": "hook_install", **hooks.install(_project(ctx), names, check=check)}, fmt)


@hook_group.command("uninstall")
@FORMAT
@common_options
@click.pass_context
def uninstall_cmd(ctx: click.Context, fmt: str | None) -> None:
    """Remove znt's hooks and restore the hooks they chained; nothing else is touched."""
    from znt import hooks

    _emit(ctx, {"kind": "hook_uninstall", **hooks.uninstall(_project(ctx))}, fmt)


@hook_group.command("status")
@FORMAT
@common_options
@click.pass_context
def status_cmd(ctx: click.Context, fmt: str | None) -> None:
    """Which znt hooks are installed in this repository."""
    from znt import hooks

    _emit(ctx, {"kind": "hook_status", **hooks.installed(_project(ctx))}, fmt)


@hook_group.command("scan")
@FORMAT
@common_options
@click.pass_context
def scan_cmd(ctx: click.Context, fmt: str | None) -> None:
    """The scan the hooks run: incremental, without embeddings, and skipped when another
    hook's scan is already waiting for the lock (it will see this change too)."""
    from znt import hooks

    doc = hooks.coalesced_scan(_project(ctx))
    if doc is None:
        if not settings(ctx).quiet:
            click.echo("znt: a hook scan is already pending; it will include this change", err=True)
        return
    from znt.cli.output import emit

    emit(ctx, doc, fmt, "scan")


COMMANDS = [hook_group]
