"""``znt scan``: build or refresh the index; ``--watch`` keeps it fresh while files change."""

import os
import sys
from collections.abc import Mapping
from typing import Annotated, Any

import typer

from znt.cli.app import app
from znt.cli.output import TextJsonFormat, chosen_format, emit, note, settings
from znt.errors import ScopeTooBig, UsageError


def _progress(ctx: typer.Context) -> Any:
    """A rich progress display on stderr when stderr is a terminal and not ``-q``; else
    None (and rich is not imported)."""
    if settings(ctx).quiet or not sys.stderr.isatty():
        return None
    from znt.cli.display import ScanProgress

    return ScanProgress(color=settings(ctx).use_color(sys.stderr))


@app.command("scan")
def scan_cmd(
    ctx: typer.Context,
    path: Annotated[
        str | None, typer.Argument(help="Folder to index (default: the current project).")
    ] = None,
    language: Annotated[str, typer.Option(help="Index one language only (auto = all).")] = "auto",
    restart: Annotated[
        bool, typer.Option("--restart", help="Delete the index and rebuild it from scratch.")
    ] = False,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Show what would be indexed and embedded, with time estimates; index nothing.",
        ),
    ] = False,
    no_embed: Annotated[
        bool, typer.Option("--no-embed", help="Skip embeddings: lexical index and graph only.")
    ] = False,
    watch: Annotated[
        bool,
        typer.Option(
            "--watch",
            help="Keep scanning incrementally as files change (polling, debounced) until "
            "Ctrl-C; `znt status` shows Monitoring meanwhile.",
        ),
    ] = False,
    yes: Annotated[
        bool,
        typer.Option(
            "--yes",
            "-y",
            help="Index a big folder that is not a repository without asking.",
        ),
    ] = False,
    fmt: TextJsonFormat = None,
) -> None:
    """Index PATH (default: the current project) incrementally."""

    s = settings(ctx)
    target = path if path is not None else s.project
    if watch:
        if dry_run or restart:
            raise UsageError("--watch cannot be combined with --dry-run or --restart")
        _watch(ctx, target, language, no_embed, fmt)
        return
    try:
        doc = _scan(ctx, target, language, restart, dry_run, no_embed, not yes)
    except ScopeTooBig as exc:
        # A home folder or /tmp: ask on a terminal, else exit 2 with how to go on.
        if not (sys.stdin.isatty() and sys.stderr.isatty()):
            raise
        if not typer.confirm(f"znt: {exc.message}. Index it anyway?", default=False, err=True):
            raise typer.Exit(1) from None
        doc = _scan(ctx, target, language, restart, dry_run, no_embed, False)
    emit(ctx, doc, fmt, "scan")


def _scan(
    ctx: typer.Context,
    target: str | None,
    language: str,
    restart: bool,
    dry_run: bool,
    no_embed: bool,
    guard_scope: bool,
) -> Mapping[str, Any]:
    from znt import api

    progress = _progress(ctx)
    try:
        return api.scan(
            target,
            language=language,
            restart=restart,
            dry_run=dry_run,
            no_embed=no_embed,
            progress=progress,
            notice=lambda m: note(ctx, m),
            guard_scope=guard_scope,
        )
    finally:
        if progress is not None:
            progress.close()


def _seconds(name: str) -> float | None:
    raw = os.environ.get(name)
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise UsageError(f"{name} must be a number of seconds, not {raw!r}") from None
    if value <= 0:
        raise UsageError(f"{name} must be > 0")
    return value


def _watch(
    ctx: typer.Context, target: str | None, language: str, no_embed: bool, fmt: str | None
) -> None:
    """Run the watcher: one line (or one JSON document per line) for each scan that did
    something, errors as notices; exits 0 on Ctrl-C or SIGTERM."""
    from znt import api
    from znt.project import resolve_project

    project = resolve_project(target, exact=target is not None)
    chosen = chosen_format(ctx, fmt)

    def scan() -> Mapping[str, Any]:
        return api.scan(
            str(project.root),
            language=language,
            no_embed=no_embed,
            notice=lambda m: note(ctx, m),
        )

    def on_scan(doc: Mapping[str, Any]) -> None:
        if chosen in ("json", "jsonl"):
            typer.echo(_compact(doc))  # one document per line: a stream
        elif doc.get("mode") != "noop" and not settings(ctx).quiet:
            typer.echo(
                f"{doc['mode']}: {doc['files_parsed']} parsed, {doc['files_deleted']} removed, "
                f"{doc['files_total']} files, {doc['symbols']} symbols in {doc['duration_ms']} ms"
            )

    def on_error(exc: Exception) -> None:
        message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        typer.echo(f"znt: scan failed (still watching): {message}", err=True)

    interval, quiet = _seconds("ZNT_WATCH_INTERVAL"), _seconds("ZNT_WATCH_QUIET")
    note(ctx, f"watching {project.root} (Ctrl-C to stop)")
    scans = api.watch(
        project, scan, interval=interval, quiet=quiet, on_scan=on_scan, on_error=on_error
    )
    note(ctx, f"stopped watching after {scans} scan(s)")


def _compact(doc: Mapping[str, Any]) -> str:
    import json

    return json.dumps(doc, separators=(",", ":"), default=str)
