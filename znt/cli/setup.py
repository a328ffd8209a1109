"""``znt setup`` and ``znt setup status``: choose and check the embedding provider.

There is deliberately no ``--token``/``--api-key`` option: a key on the command line ends up
in shell history and process lists. ``--token-stdin`` reads it (without echo on a terminal)
and stores it in the OS keyring; ``--token-env VAR`` names an environment variable.
"""

from collections.abc import Mapping
from typing import Annotated, Any, Literal

import typer
from typer.core import TyperCommand, TyperGroup

from znt.cli.app import app
from znt.cli.output import TextJsonFormat, chosen_format, note
from znt.errors import EXIT_FAILURE

# The providers (znt.index.embed.MODES; tests/test_cli.py keeps the two equal).
Mode = Literal["bm25", "local", "ollama", "openai", "gemini"]
CheckProvider = Annotated[
    bool, typer.Option("--check-provider", help="Probe the endpoint (embeds one short text).")
]


def _emit(ctx: typer.Context, doc: Mapping[str, Any], fmt: str | None, renderer: str) -> None:
    from znt.formats import json as json_fmt
    from znt.formats import setup_text

    if chosen_format(ctx, fmt) == "json":
        typer.echo(json_fmt.render(doc))
    else:
        typer.echo(getattr(setup_text, renderer)(doc))


def _read_secret() -> str:
    """One line from stdin; on a terminal, prompted without echo."""
    import sys

    if sys.stdin is None:
        return ""
    if sys.stdin.isatty():
        import getpass

        return getpass.getpass("API key (input hidden): ")
    return sys.stdin.readline()


def _exit_if_check_failed(ctx: typer.Context, doc: Mapping[str, Any]) -> None:
    """Exit 5 after the result is shown when the provider probe failed (DESIGN §5: provider
    unreachable)."""
    check = doc.get("provider_check")
    if check is not None and not check["ok"]:
        note(ctx, f"error: provider check failed: {check.get('error')}")
        raise typer.Exit(EXIT_FAILURE)


class SetupGroup(TyperGroup):
    """A group whose "no such command" error never repeats the word typed: a key pasted as
    an argument (``znt setup sk-...``) must not be echoed back."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            ctx.fail(
                "unexpected argument (not shown); `znt setup` takes options, or the "
                "subcommand `status`. A key is never accepted on the command line: use "
                "--token-env VAR or --token-stdin"
            )
        return super()._click_resolve_command(ctx, args)


class NoEchoCommand(TyperCommand):
    """A command whose "unexpected extra argument" error does not repeat the argument."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except typer.TyperException as exc:
            if "unexpected extra argument" in exc.message:
                ctx.fail(
                    "unexpected argument (not shown); a key is never accepted on the command "
                    "line: use --token-env VAR or --token-stdin"
                )
            raise


setup_app = typer.Typer(cls=SetupGroup, rich_markup_mode="rich")
app.add_typer(setup_app, name="setup")


@setup_app.callback(invoke_without_command=True)
def setup_cmd(
    ctx: typer.Context,
    mode: Annotated[Mode | None, typer.Option(help="Embedding provider to configure.")] = None,
    model: Annotated[str | None, typer.Option(help="Embedding model (defaults per mode).")] = None,
    url: Annotated[
        str | None, typer.Option(help="Server URL for ollama/openai/gemini (defaults per mode).")
    ] = None,
    token_env: Annotated[
        str | None,
        typer.Option(
            metavar="VAR",
            help="Name of the environment variable that holds the API key (the name, not the key).",
        ),
    ] = None,
    token_stdin: Annotated[
        bool,
        typer.Option(
            "--token-stdin",
            help="Read the API key from stdin (hidden on a terminal) and store it in the OS keyring.",
        ),
    ] = False,
    check_provider: CheckProvider = False,
    allow_private_url: Annotated[
        bool,
        typer.Option(
            "--allow-private-url",
            help="Allow a --url in a private network range (10/8, 172.16/12, 192.168/16, fc00::/7).",
        ),
    ] = False,
    fmt: TextJsonFormat = None,
) -> None:
    """Show the embedding provider state and choices, or write the managed config (--mode).

    Without --mode nothing is written and nothing is chosen for you. No option takes a key:
    use --token-env VAR or --token-stdin."""
    if ctx.invoked_subcommand is not None:
        if mode or model or url or token_env or token_stdin or check_provider or fmt:
            ctx.fail("options go after the subcommand: znt setup status [--check-provider]")
        return
    from znt import api

    doc = api.setup(
        mode,
        model=model,
        url=url,
        token_env=token_env,
        token_stdin=token_stdin,
        read_secret=_read_secret,
        check_provider=check_provider,
        allow_private_url=allow_private_url,
    )
    _emit(ctx, doc, fmt, "setup")
    _exit_if_check_failed(ctx, doc)


@setup_app.command("status", cls=NoEchoCommand)
def status_cmd(
    ctx: typer.Context, check_provider: CheckProvider = False, fmt: TextJsonFormat = None
) -> None:
    """Check the config, whether the key is present (yes/no) and, optionally, the endpoint."""
    from znt import api

    doc = api.setup_status(check_provider=check_provider)
    _emit(ctx, doc, fmt, "setup_status")
    _exit_if_check_failed(ctx, doc)
