"""``znt hook install|uninstall|status``: git hooks that keep the index fresh (znt/hooks.py,
docs/hooks.md). These commands change files under the repository's hooks folder only."""

from collections.abc import Mapping
from typing import Annotated, Any

import typer

from znt.cli.app import app
from znt.cli.output import TextJsonFormat, chosen_format, emit, note, settings


def _project(ctx: typer.Context) -> Any:
    from znt.project import resolve_project

    return resolve_project(settings(ctx).project)


def _emit(ctx: typer.Context, doc: Mapping[str, Any], fmt: str | None) -> None:
    from znt.formats import json as json_fmt

    full = {"schema_version": 1, **doc}
    if chosen_format(ctx, fmt) == "json":
        typer.echo(json_fmt.render(full))
        return
    typer.echo(f"hooks folder: {doc['hooks_dir']}")
    for h in doc["hooks"]:
        if "installed" in h:
            state = "installed" if h["installed"] else "not installed"
            extra = (" (chains the user's hook)" if h["chained"] else "") + (
                " with --check" if h.get("check") else ""
            )
            typer.echo(f"  {h['hook']:<14} {state}{extra}")
        else:
            reason = f": {h['reason']}" if h.get("reason") else ""
            typer.echo(f"  {h['hook']:<14} {h['action']}{reason}")
    if not doc["hooks"]:
        typer.echo("  (nothing to do)")


hook_app = typer.Typer(
    rich_markup_mode="rich",
    help="Git hooks that keep the index fresh (and optionally run `znt check` before a "
    "commit).\n\nInstalled hooks chain any hook you already have (it keeps running first), "
    "start an incremental `znt scan --no-embed` in the background after checkout, merge and "
    "commit, and never block git because of a znt failure. See docs/hooks.md.",
    no_args_is_help=True,
)
app.add_typer(hook_app, name="hook")


def _flag(name: str, text: str) -> Any:
    return typer.Option(name, help=text)


@hook_app.command("install")
def install_cmd(
    ctx: typer.Context,
    pre_commit: Annotated[bool, _flag("--pre-commit", "Install the pre-commit hook.")] = False,
    post_checkout: Annotated[
        bool, _flag("--post-checkout", "Install the post-checkout hook.")
    ] = False,
    post_merge: Annotated[bool, _flag("--post-merge", "Install the post-merge hook.")] = False,
    post_commit: Annotated[bool, _flag("--post-commit", "Install the post-commit hook.")] = False,
    check: Annotated[
        bool,
        _flag(
            "--check",
            "Make pre-commit scan and run `znt check`; violations (exit 1) block the commit.",
        ),
    ] = False,
    fmt: TextJsonFormat = None,
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


@hook_app.command("uninstall")
def uninstall_cmd(ctx: typer.Context, fmt: TextJsonFormat = None) -> None:
    """Remove znt's hooks and restore the hooks they chained; nothing else is touched."""
    from znt import hooks

    _emit(ctx, {"kind": "hook_uninstall", **hooks.uninstall(_project(ctx))}, fmt)


@hook_app.command("status")
def status_cmd(ctx: typer.Context, fmt: TextJsonFormat = None) -> None:
    """Which znt hooks are installed in this repository."""
    from znt import hooks

    _emit(ctx, {"kind": "hook_status", **hooks.installed(_project(ctx))}, fmt)


@hook_app.command("scan")
def scan_cmd(ctx: typer.Context, fmt: TextJsonFormat = None) -> None:
    """The scan the hooks run: incremental, without embeddings, and skipped when another
    hook's scan is already waiting for the lock (it will see this change too)."""
    from znt import hooks

    doc = hooks.coalesced_scan(_project(ctx))
    if doc is None:
        note(ctx, "a hook scan is already pending; it will include this change")
        return
    emit(ctx, doc, fmt, "scan")
