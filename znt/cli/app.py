"""The one Typer app of ``znt``, and the group class that imports a command's module only
when that command runs.

Every command is a type-annotated function registered on ``app`` by its module
(``@app.command()``, or a sub-``Typer`` added with ``app.add_typer``). Importing every
module would cost a one-shot search ~20 ms, so ``LazyGroup`` knows the commands by name
(``COMMAND_MODULES``, checked against the modules by a test) and imports one module on first
use; ``--help`` and completion, which list everything, import them all.

Two things Typer does not do the way a one-shot tool needs (docs/decisions/0019-typer-cli.md):
- global options (``-C``, ``--color``, ``-q``, ``-v``) are accepted after the command too:
  the group gives every command a copy of the root's options, which write into the same
  ``Settings``;
- Typer 0.29 converts every parameter through a pydantic ``TypeAdapter``; importing
  pydantic and building the adapters costs a one-shot command ~100 ms. The parameter types
  znt uses (str, int and float with bounds, bool, ``Literal`` choices, lists of those) are
  converted by ``PlainConversion`` instead, with the same errors (exit 2).
"""

import copy
import importlib
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Annotated, Any, Literal, get_args, get_origin

import typer
from typer import main as typer_main
from typer._coercion import RuntimeParam
from typer.core import TyperGroup

from znt import __version__
from znt.cli import richhelp
from znt.cli.output import Settings, settings_for_update

richhelp.install()

EXIT_CODES_HELP = "\n".join(
    (
        "Exit codes:",
        "0  success",
        "1  ran correctly, found nothing (search/similar/path) or check found violations",
        "2  usage error (bad flag or value)",
        "3  index missing, stale under --stale-policy error, or from an incompatible schema",
        '4  symbol or file not found, or ambiguous (candidates printed; JSON "candidates")',
        "5  runtime failure (I/O, provider unreachable, internal error)",
    )
)

# Which module of znt.cli defines each command. A test checks this table against the
# commands the modules register.
COMMAND_MODULES = {
    "scan": "scan",
    "status": "inspect",
    "outline": "inspect",
    "stats": "inspect",
    "logs": "inspect",
    "search": "search",
    "setup": "setup",
    "graph": "graph",
    "map": "repomap",
    "similar": "similar",
    "check": "check",
    "sql": "sql",
    "mcp": "mcp",
    "impact": "impact",
    "hook": "hook",
    "export": "export",
}

# Commands that only read: after one of them the console script leaves without the
# interpreter's teardown (``znt.cli.run``).
READ_COMMANDS = frozenset(
    {
        "status",
        "outline",
        "stats",
        "logs",
        "search",
        "graph",
        "map",
        "similar",
        "check",
        "sql",
        "impact",
    }
)

# What a one-shot run of a command imports on a thread of its own from its first moment
# (znt/warmup.py): the libraries its answer is sure to need that DuckDB's work can hide.
BACKGROUND_IMPORTS = {
    "graph": ("networkx",),
    "impact": ("networkx",),
    "check": ("networkx",),
}

# The root options a command accepts after its name too (``znt stats -C DIR -q``).
GLOBAL_AFTER = ("project", "color", "quiet", "verbose")
GLOBAL_PANEL = "Global options"


@dataclass(frozen=True)
class PlainConversion(RuntimeParam):
    """Converts a command-line value of a plain annotation without pydantic; the messages
    follow click's (``'0' is not in the range 1<=x<=1000.``)."""

    kind: type = str
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None

    def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
        if isinstance(value, list | tuple):
            return type(value)(self._one(v, param, ctx) for v in value)
        return self._one(value, param, ctx)

    def _one(self, value: Any, param: Any, ctx: Any) -> Any:
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        if self.choices:
            if value in self.choices:
                return value
            listed = ", ".join(repr(c) for c in self.choices)
            raise typer.BadParameter(f"{value!r} is not one of {listed}.", ctx=ctx, param=param)
        if self.kind is bool:
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("1", "true", "yes", "on", "y", "t"):
                return True
            if text in ("0", "false", "no", "off", "n", "f", ""):
                return False
            raise typer.BadParameter(f"{value!r} is not a valid boolean.", ctx=ctx, param=param)
        if self.kind in (int, float):
            try:
                number = self.kind(value)
            except (TypeError, ValueError):
                name = "integer" if self.kind is int else "float"
                raise typer.BadParameter(
                    f"{value!r} is not a valid {name}.", ctx=ctx, param=param
                ) from None
            if (self.low is not None and number < self.low) or (
                self.high is not None and number > self.high
            ):
                raise typer.BadParameter(
                    f"{value!r} is not in the range {_range(self.low, self.high)}.",
                    ctx=ctx,
                    param=param,
                )
            return number
        return str(value)


def _range(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"{low}<=x<={high}"
    return f"x>={low}" if low is not None else f"x<={high}"


def _plain_conversion(param: Any) -> None:
    """Give ``param`` a ``PlainConversion`` when its annotation is one znt uses; any other
    keeps Typer's own conversion."""
    desc = getattr(param, "type_descriptor", None)
    if desc is None or getattr(param, "_runtime_param", "unset") is not None:
        return
    annotation = desc.annotation
    if get_origin(annotation) in (list, tuple):
        (annotation,) = get_args(annotation)[:1]
    info = desc.parameter_info
    if getattr(info, "parser", None) is not None:
        return
    fields: dict[str, Any] = {"annotation": desc.annotation, "parameter_info": info}
    if get_origin(annotation) is Literal:
        values = get_args(annotation)
        if not all(isinstance(v, str) for v in values):
            return
        fields["choices"] = values
    elif annotation in (str, bool):
        fields["kind"] = annotation
    elif annotation in (int, float):
        fields.update(kind=annotation, low=info.min, high=info.max)
    else:
        return
    param._runtime_param = PlainConversion(**fields)


HELP_NAMES = ["-h", "--help"]


def _plain_params(command: Any) -> None:
    """Plain conversions for a command's parameters, its help option included (click makes
    that one on first use; made here, it is the one click then keeps)."""
    for param in command.params:
        _plain_conversion(param)
    help_option = command.get_help_option(SimpleNamespace(help_option_names=HELP_NAMES))
    if help_option is not None:
        _plain_conversion(help_option)


def _prepare(command: Any, root: Any) -> Any:
    """A freshly built command of ``app``, made ready: plain conversions, and the root's
    global options appended (for groups, to their subcommands too)."""
    _plain_params(command)
    have = {opt for p in command.params for opt in getattr(p, "opts", ())}
    for param in root.params:
        if param.name not in GLOBAL_AFTER or have & set(param.opts):
            continue
        extra = copy.copy(param)
        extra.default = None if param.name == "color" else param.default
        extra.expose_value = False
        extra.callback = _store_global(param.name)
        extra.rich_help_panel = GLOBAL_PANEL
        command.params.append(extra)
    for sub in getattr(command, "commands", {}).values():
        _prepare(sub, root)
    return command


def _store_global(field: str) -> Any:
    def callback(ctx: typer.Context, _param: Any, value: Any) -> Any:
        if value not in (None, False):
            setattr(settings_for_update(ctx), field, value)
        return value

    return callback


class LazyGroup(TyperGroup):
    """The root group: lists every command by name and imports a command's module (which
    registers it on ``app``) the first time it is asked for."""

    # While the root's help is drawn: the summaries built for its list of commands.
    _listing: dict[str, Any] | None = None

    def list_commands(self, ctx: Any) -> list[str]:
        return sorted({*COMMAND_MODULES, *self.commands})

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            importlib.import_module(f"znt.cli.{COMMAND_MODULES[cmd_name]}")
            if self._listing is not None:
                summary = self._summary(cmd_name)
                if summary is not None:
                    return summary
            self._adopt(None if self._listing is None else cmd_name)
        return self.commands.get(cmd_name)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """The root's help lists each command by a summary: the command as Typer builds it
        but without its parameters, which the list does not show and which cost ``znt
        --help`` a fifth of its time to build (every signature read, every annotation
        evaluated)."""
        self._listing = {}
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = None

    def _summary(self, cmd_name: str) -> Any:
        """``cmd_name``'s click command as Typer builds it from a stand-in callback with the
        same name and docstring and no parameters (None for a group of commands)."""
        assert self._listing is not None
        if cmd_name in self._listing:
            return self._listing[cmd_name]
        for info in app.registered_commands:
            callback = info.callback
            if callback is None:
                continue
            if (info.name or typer_main.get_command_name(callback.__name__)) != cmd_name:
                continue

            def stand_in() -> None:
                """Never called: only listed."""

            stand_in.__name__, stand_in.__doc__ = callback.__name__, callback.__doc__
            listed = copy.copy(info)
            listed.callback = stand_in
            self._listing[cmd_name] = typer_main.get_command_from_info(
                listed,
                pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode,
            )
            return self._listing[cmd_name]
        return None

    def _adopt(self, only: str | None = None) -> None:
        """Build the click commands of whatever ``app`` registered since the last call (or
        only the one named ``only``)."""
        short, markup = app.pretty_exceptions_short, app.rich_markup_mode
        for info in app.registered_commands:
            name = info.name or typer_main.get_command_name(info.callback.__name__)  # type: ignore[union-attr]
            if name not in self.commands and only in (None, name):
                self.commands[name] = _prepare(
                    typer_main.get_command_from_info(
                        info, pretty_exceptions_short=short, rich_markup_mode=markup
                    ),
                    self,
                )
        for group_info in app.registered_groups:
            if group_info.name not in self.commands and only in (None, group_info.name):
                group = typer_main.get_group_from_info(
                    group_info,
                    pretty_exceptions_short=short,
                    rich_markup_mode=markup,
                    suggest_commands=True,
                )
                self.commands[group.name or ""] = _prepare(group, self)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        """An unknown command exits 2 with the closest names by edit distance (``znt
        serach`` -> ``search``), over every command, loaded or not."""
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            near = closest(name, self.list_commands(ctx))
            hint = f" Did you mean {' or '.join(repr(n) for n in near)}?" if near else ""
            ctx.fail(f"No such command {name!r}.{hint}")
        return super()._click_resolve_command(ctx, args)


def edit_distance(a: str, b: str) -> int:
    """Optimal string alignment distance: insertions, deletions, substitutions and swaps of
    two neighbours (``serach`` is one swap from ``search``)."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def closest(word: str, names: list[str], n: int = 3) -> list[str]:
    """The names within a third of ``word``'s length (at least 1, at most 3 edits), nearest
    first, then alphabetical."""
    limit = max(1, min(3, len(word) // 3))
    scored = sorted((edit_distance(word.lower(), x.lower()), x) for x in names)
    return [x for d, x in scored if d <= limit][:n]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"znt, version {__version__}")
        raise typer.Exit()


app = typer.Typer(
    cls=LazyGroup,
    name="znt",
    epilog=EXIT_CODES_HELP,
    context_settings={"help_option_names": HELP_NAMES, "max_content_width": 100},
    rich_markup_mode="rich",
    pretty_exceptions_enable=False,
    no_args_is_help=True,
)

ProjectOption = Annotated[
    str | None,
    typer.Option(
        "-C",
        "--project",
        metavar="PATH",
        help="Project folder (default: nearest indexed ancestor of the current folder).",
    ),
]
FormatOption = Annotated[
    Literal["text", "json", "jsonl"] | None,
    typer.Option("--format", help="Output format for every command."),
]
ColorOption = Annotated[
    Literal["auto", "always", "never"],
    typer.Option("--color", help="Colour on a terminal (auto; NO_COLOR honoured), always, never."),
]
QuietOption = Annotated[
    bool, typer.Option("-q", "--quiet", help="No progress or notices on stderr.")
]
VerboseOption = Annotated[
    bool,
    typer.Option("-v", "--verbose", help="More detail on stderr, tracebacks for internal errors."),
]


@app.callback()
def root(
    ctx: typer.Context,
    project: ProjectOption = None,
    fmt: FormatOption = None,
    color: ColorOption = "auto",
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """Understand a codebase from one DuckDB file: symbols, a code graph and search."""
    ctx.obj = Settings(project=project, format=fmt, color=color, quiet=quiet, verbose=verbose)


def command() -> Any:
    """The root click command of ``app`` (built once per process)."""
    global _COMMAND
    if _COMMAND is None:
        group = typer_main.get_command(app)
        _plain_params(group)
        # Commands whose modules were imported before this first call (a test, an embedding
        # program) were built by Typer itself: they get what ``_adopt`` gives the others.
        for sub in getattr(group, "commands", {}).values():
            _prepare(sub, group)
        _COMMAND = group
    return _COMMAND


_COMMAND: Any = None
