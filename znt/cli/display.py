"""What rich draws: the scan's progress display, tables on a terminal, and colour.

Imported only when something is drawn (a terminal, or ``--color always``): rich costs a
one-shot command tens of milliseconds, which piped output never pays. Colour is laid over
the plain text the renderers of znt/formats produce, by highlighters that match its
layout, so the words are the same with and without colour; tables take the same documents
the text renderers take.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from rich import box
from rich.columns import Columns
from rich.console import Console
from rich.highlighter import RegexHighlighter
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text
from rich.theme import Theme

from znt.formats import table as table_fmt
from znt.formats import text as text_fmt

THEME = Theme(
    {
        "znt.name": "bold cyan",
        "znt.path": "green",
        "znt.line": "dim green",
        "znt.kind": "magenta",
        "znt.score": "yellow",
        "znt.head": "bold",
        "znt.edge": "blue",
        "znt.start": "bold yellow",
        "znt.ok": "green",
        "znt.warn": "yellow",
        "znt.error": "bold red",
        "znt.rule": "magenta",
        "znt.dim": "dim",
    }
)

_PATH = r"(?P<path>[\w./@+-]+\.\w+):(?P<line>\d+(?:-\d+)?)"


class _Highlighter(RegexHighlighter):
    base_style = "znt."


class SearchHighlighter(_Highlighter):
    highlights = [  # noqa: RUF012 - rich's interface
        r"(?m)^\d+\. (?P<name>\S+)",
        r"\[(?P<kind>[\w/-]+), (?P<rule>[\w-]+)\]",
        r"score (?P<score>[\d.]+)",
        r"(?m)^   " + _PATH + r"$",
        r"(?m)^(?P<dim>No matching components found\.|\.\.\. more results.*)$",
    ]


class GraphHighlighter(_Highlighter):
    highlights = [  # noqa: RUF012
        r"(?m)^(?P<head>(?:Neighbourhood of|Path) .*)$",
        r"(?m)^(?P<head>nodes:|edges:)$",
        r"(?m)^  +(?P<start>start)  ",
        r"--(?P<edge>\w+)-->",
        r"(?m)^   (?P<edge>->) ",
        _PATH,
        r"(?P<ok>completeness: complete[^\n]*)",
        r"completeness: (?P<warn>lower bound)",
        r"(?m)^(?P<warn>warning:) ",
        r"(?m)^(?P<dim>index: .*)$",
    ]


class OutlineHighlighter(_Highlighter):
    highlights = [  # noqa: RUF012
        r"(?m)^(?P<head>\[file_outline\] .*)$",
        r"(?m)^(?P<line>L\d+-\d+) (?P<kind>[\w/]+) (?P<name>[^:\s]+):",
    ]


class CheckHighlighter(_Highlighter):
    highlights = [  # noqa: RUF012
        r"(?m)^" + _PATH + r": (?:(?P<error>error)|(?P<warn>warning)) \[(?P<rule>[^\]]+)\]",
        r"(?m)^(?P<ok>No violations: .*)$",
        r"(?m)^(?P<error>\d+ violations? .*)$",
    ]


class MapHighlighter(_Highlighter):
    highlights = [  # noqa: RUF012
        r"(?m)^(?P<path>\S+):$",
        r"(?m)^(?P<dim>\(.*\))$",
        r"(?m)^\s+(?P<kind>\w+) (?P<name>[^\s(]+)",
    ]


HIGHLIGHTERS: dict[str, type[RegexHighlighter]] = {
    "search": SearchHighlighter,
    "search_compact": SearchHighlighter,
    "graph": GraphHighlighter,
    "impact": GraphHighlighter,
    "outline": OutlineHighlighter,
    "check": CheckHighlighter,
    "map": MapHighlighter,
}


def console(*, stderr: bool = False, color: bool = True) -> Console:
    """A console on stdout (or stderr). With colour on a stream that is not a terminal
    (``--color always`` into a pipe), the 16 standard colours; never a wrap of long lines."""
    stream = sys.stderr if stderr else sys.stdout
    tty = stream.isatty()
    return Console(
        file=stream,
        theme=THEME,
        force_terminal=True if color and not tty else None,
        color_system=("auto" if tty else "standard") if color else None,
        no_color=not color,
        highlight=False,
        markup=False,
        emoji=False,
        soft_wrap=True,
        stderr=stderr,
    )


def highlighted(text: str, style: str) -> None:
    """``text`` with the colours of its kind (``style``: a key of HIGHLIGHTERS)."""
    rich_text = Text(text)
    highlighter = HIGHLIGHTERS.get(style)
    if highlighter is not None:
        highlighter().highlight(rich_text)
    console().print(rich_text)


# -- tables ------------------------------------------------------------------------------


def table(kind: str, doc: Mapping[str, Any], *, color: bool) -> None:
    """The rich table for a document of ``kind`` (stats, status, check, sql)."""
    out = console(color=color)
    for item in {"stats": _stats, "status": _status, "check": _check, "sql": _sql}[kind](doc):
        out.print(item)


def _pairs(title: str, data: dict[str, int]) -> Table:
    t = Table(
        title=title,
        title_justify="left",
        box=box.ROUNDED,
        show_header=False,
        min_width=len(title),
    )
    t.add_column(style="cyan")
    t.add_column(justify="right")
    for key, value in data.items():
        t.add_row(str(key), f"{value:,}")
    if not data:
        t.add_row("none", "")
    return t


def _stats(doc: Mapping[str, Any]) -> list[Any]:
    head, sections, tail = text_fmt.stats_parts(doc)
    items: list[Any] = [Text(line, style="bold") for line in head if line]
    items.append(Columns([_pairs(title, data) for title, data in sections], padding=(0, 2)))
    items += [Text(line) for line in tail if line]
    return items


def _status(doc: Mapping[str, Any]) -> list[Any]:
    t = Table(box=box.ROUNDED, show_header=False)
    t.add_column(style="bold cyan")
    t.add_column()
    for label, value in text_fmt.status_rows(doc):
        style = "yellow" if label == "Stale" and value.startswith("yes") else None
        t.add_row(label, Text(value, style=style or ""))
    return [t]


def _check(doc: Mapping[str, Any]) -> list[Any]:
    from znt.formats import check_text

    items: list[Any] = []
    rules = Table(box=box.ROUNDED, title="Rules", title_justify="left")
    rules.add_column("rule", style="magenta")
    rules.add_column("type")
    rules.add_column("violations", justify="right")
    for rule in doc["rules"]:
        count = int(rule.get("violations") or 0)
        rules.add_row(
            str(rule["id"]),
            str(rule.get("type", "")),
            Text(str(count), style="red" if count else "green"),
        )
    items.append(rules)
    if doc["violations"]:
        t = Table(box=box.ROUNDED)
        t.add_column("where", style="green")
        t.add_column("level")
        t.add_column("rule", style="magenta")
        t.add_column("message")
        for v in doc["violations"]:
            level = Text(v["severity"], style="bold red" if v["severity"] == "error" else "yellow")
            t.add_row(check_text.where(v["file"], v["line"]), level, v["rule"], v["message"])
        items.append(t)
    summary = check_text.summary_lines(doc)
    passed = not doc["violations"]
    items += [Text(line, style="green" if passed else "") for line in summary]
    return items


def _sql(doc: Mapping[str, Any]) -> list[Any]:
    t = Table(box=box.ROUNDED)
    numeric = table_fmt.numeric_columns(doc)
    for col, num in zip(doc["columns"], numeric, strict=True):
        t.add_column(col["name"], justify="right" if num else "left", overflow="fold")
    for row in doc["rows"]:
        t.add_row(*(table_fmt.cell(v) for v in row))
    return [t, Text(table_fmt.footer(doc), style="dim")]


# -- scan progress -----------------------------------------------------------------------

# The scan's phases (znt/index/scan.py, znt/index/embed/stage.py) in words a user knows,
# and what their counts count.
PHASES = {
    "walk": ("Finding files", ""),
    "ast": ("Parsing", "files"),
    "persisting": ("Writing the index", ""),
    "building_graph": ("Resolving references", ""),
    "indexing": ("Building search indexes", ""),
    "embedding": ("Embedding", "texts"),
}


class RateColumn(ProgressColumn):
    """Items per second, in the phase's unit (``120 files/s``, ``35 texts/s``)."""

    def render(self, task: Task) -> Text:
        unit = task.fields.get("unit") or ""
        if not unit or not task.speed:
            return Text("")
        return Text(f"{task.speed:,.0f} {unit}/s", style="cyan")


class ScanProgress:
    """The scan's ``progress(phase, done, total)`` callback drawn by rich on stderr: one
    line per phase with a bar, counts, rate and time left for the phases that count."""

    def __init__(self, *, color: bool = True) -> None:
        self._progress = Progress(
            TextColumn("{task.description:<24}"),
            BarColumn(bar_width=30),
            MofNCompleteColumn(),
            RateColumn(),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(),
            console=console(stderr=True, color=color),
            transient=False,
            refresh_per_second=8,
        )
        self._tasks: dict[str, Any] = {}
        self._current: str | None = None
        self._started = False

    def __call__(self, phase: str, done: int, total: int) -> None:
        if phase == "completed":
            self._finish_current()
            return
        if phase == "ast" and total == 0:
            phase = "walk"
        if not self._started:
            self._progress.start()
            self._started = True
        if phase != self._current:
            self._finish_current()
            label, unit = PHASES.get(phase, (phase.replace("_", " ").capitalize(), ""))
            self._tasks[phase] = self._progress.add_task(
                label, total=total or None, unit=unit, start=True
            )
            self._current = phase
        task = self._tasks[phase]
        self._progress.update(task, completed=done, total=total or None)

    def _finish_current(self) -> None:
        if self._current is None:
            return
        task = self._tasks[self._current]
        info = self._progress.tasks[task]
        total = info.total or max(info.completed, 1)
        self._progress.update(task, completed=total, total=total)
        self._progress.stop_task(task)
        self._current = None

    def close(self) -> None:
        """Stop drawing (the terminal's cursor comes back), whatever happened."""
        self._finish_current()
        if self._started:
            self._progress.stop()
            self._started = False
