"""``znt scan``: build or refresh the index; ``--watch`` keeps it fresh while files change."""

from __future__ import annotations

import os
from typing import Any

import click

from znt.cli.output import Progress, common_options, emit, note, settings

FORMAT = click.option("--format", "fmt", type=click.Choice(["text", "json"]), help="Output format.")


@click.command("scan")
@click.argument("path", required=False, type=click.Path(file_okay=False))
@click.option(
    "--language", default="auto", show_default=True, help="Index one language only (auto = all)."
)
@click.option("--restart", is_flag=True, help="Delete the index and rebuild it from scratch.")
@click.option("--dry-run", is_flag=True, help="Show what would be indexed; index nothing.")
@click.option("--no-embed", is_flag=True, help="Skip embeddings: lexical index and graph only.")
@click.option(
    "--watch",
    is_flag=True,
    help="Keep scanning incrementally as files change (polling, debounced) until Ctrl-C; "
    "`znt status` shows Monitoring meanwhile.",
)
@FORMAT
@common_options
@click.pass_context
def scan_cmd(
    ctx: click.Context,
    path: str | None,
    language: str,
    restart: bool,
    dry_run: bool,
    no_embed: bool,
    watch: bool,
    fmt: str | None,
) -> None:
    """Index PATH (default: the current project) incrementally."""
    from znt import api

    s = settings(ctx)
    target = path if path is not None else s.project
    if watch:
        if dry_run or restart:
            raise click.UsageError("--watch cannot be combined with --dry-run or --restart", ctx)
        _watch(ctx, target, language, no_embed, fmt)
        return
    doc = api.scan(
        target,
        language=language,
        restart=restart,
        dry_run=dry_run,
        no_embed=no_embed,
        progress=Progress(not s.quiet),
        notice=lambda m: note(ctx, m),
    )
    emit(ctx, doc, fmt, "scan")


def _seconds(name: str) -> float | None:
    raw = os.environ.get(name)
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise click.UsageError(f"{name} must be a number of seconds, not {raw!r}") from None
    if value <= 0:
        raise click.UsageError(f"{name} must be > 0")
    return value


def _watch(
    ctx: click.Context, target: str | None, language: str, no_embed: bool, fmt: str | None
) -> None:
    """Run the watcher: one line (or one JSON document per line) for each scan that did
    something, errors as notices; exits 0 on Ctrl-C or SIGTERM."""
    from znt import api
    from znt.project import resolve_project

    project = resolve_project(target, exact=target is not None)
    chosen = fmt or settings(ctx).format or "text"

    def scan() -> dict[str, Any]:
        return api.scan(
            str(project.root),
            language=language,
            no_embed=no_embed,
            notice=lambda m: note(ctx, m),
        )

    def on_scan(doc: dict[str, Any]) -> None:
        if chosen in ("json", "jsonl"):
            click.echo(_compact(doc))  # one document per line: a stream
        elif doc.get("mode") != "noop" and not settings(ctx).quiet:
            click.echo(
                f"{doc['mode']}: {doc['files_parsed']} parsed, {doc['files_deleted']} removed, "
                f"{doc['files_total']} files, {doc['symbols']} symbols in {doc['duration_ms']} ms"
            )

    def on_error(exc: Exception) -> None:
        message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        click.echo(f"znt: scan failed (still watching): {message}", err=True)

    interval, quiet = _seconds("ZNT_WATCH_INTERVAL"), _seconds("ZNT_WATCH_QUIET")
    note(ctx, f"watching {project.root} (Ctrl-C to stop)")
    scans = api.watch(
        project, scan, interval=interval, quiet=quiet, on_scan=on_scan, on_error=on_error
    )
    note(ctx, f"stopped watching after {scans} scan(s)")


def _compact(doc: dict[str, Any]) -> str:
    import json

    return json.dumps(doc, separators=(",", ":"), default=str)


COMMANDS = [scan_cmd]
