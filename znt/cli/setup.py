"""``znt setup`` and ``znt setup status``: choose and check the embedding provider.

There is deliberately no ``--token``/``--api-key`` option: a key on the command line ends up
in shell history and process lists. ``--token-stdin`` reads it (without echo on a terminal)
and stores it in the OS keyring; ``--token-env VAR`` names an environment variable.
"""

from __future__ import annotations

from typing import Any

import click

from znt import api
from znt.cli.output import common_options, settings
from znt.errors import EXIT_FAILURE

FORMAT = click.option("--format", "fmt", type=click.Choice(["text", "json"]), help="Output format.")


def _emit(ctx: click.Context, doc: dict[str, Any], fmt: str | None, renderer: str) -> None:
    from znt.formats import json as json_fmt
    from znt.formats import setup_text

    chosen = fmt or settings(ctx).format or "text"
    if chosen == "json":
        click.echo(json_fmt.render(doc))
    else:
        click.echo(getattr(setup_text, renderer)(doc), color=settings(ctx).use_color())


def _read_secret() -> str:
    """One line from stdin; on a terminal, prompted without echo."""
    import sys

    if sys.stdin is None:
        return ""
    if sys.stdin.isatty():
        import getpass

        return getpass.getpass("API key (input hidden): ")
    return sys.stdin.readline()


def _exit_if_check_failed(ctx: click.Context, doc: dict[str, Any]) -> None:
    """Exit 5 after the result is shown when the provider probe failed (DESIGN §5: provider
    unreachable). ``sys.exit``, not ``ctx.exit``: click returns the latter's code in
    non-standalone mode instead of exiting."""
    import sys

    check = doc.get("provider_check")
    if check is not None and not check["ok"]:
        if not settings(ctx).quiet:
            click.echo(f"znt: error: provider check failed: {check.get('error')}", err=True)
        sys.exit(EXIT_FAILURE)


class SetupGroup(click.Group):
    """A group whose "no such command" error never repeats the word typed: a key pasted as
    an argument (``znt setup sk-...``) must not be echoed back."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            raise click.UsageError(
                "unexpected argument (not shown); `znt setup` takes options, or the "
                "subcommand `status`. A key is never accepted on the command line: use "
                "--token-env VAR or --token-stdin",
                ctx,
            )
        return super().resolve_command(ctx, args)


@click.group("setup", cls=SetupGroup, invoke_without_command=True)
@click.option(
    "--mode", type=click.Choice(api.provider_modes()), help="Embedding provider to configure."
)
@click.option("--model", help="Embedding model (defaults per mode).")
@click.option("--url", help="Server URL for ollama/openai/gemini (defaults per mode).")
@click.option(
    "--token-env",
    metavar="VAR",
    help="Name of the environment variable that holds the API key (the name, not the key).",
)
@click.option(
    "--token-stdin",
    is_flag=True,
    help="Read the API key from stdin (hidden on a terminal) and store it in the OS keyring.",
)
@click.option("--check-provider", is_flag=True, help="Probe the endpoint (embeds one short text).")
@click.option(
    "--allow-private-url",
    is_flag=True,
    help="Allow a --url in a private network range (10/8, 172.16/12, 192.168/16, fc00::/7).",
)
@FORMAT
@common_options
@click.pass_context
def setup_cmd(
    ctx: click.Context,
    mode: str | None,
    model: str | None,
    url: str | None,
    token_env: str | None,
    token_stdin: bool,
    check_provider: bool,
    allow_private_url: bool,
    fmt: str | None,
) -> None:
    """Show the embedding provider state and choices, or write the managed config (--mode).

    Without --mode nothing is written and nothing is chosen for you. No option takes a key:
    use --token-env VAR or --token-stdin."""
    if ctx.invoked_subcommand is not None:
        if mode or model or url or token_env or token_stdin or check_provider or fmt:
            raise click.UsageError(
                "options go after the subcommand: znt setup status [--check-provider]", ctx
            )
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


class NoEchoCommand(click.Command):
    """A command whose "unexpected extra argument" error does not repeat the argument."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            if "unexpected extra argument" in exc.message:
                raise click.UsageError(
                    "unexpected argument (not shown); a key is never accepted on the command "
                    "line: use --token-env VAR or --token-stdin",
                    ctx,
                ) from None
            raise


@setup_cmd.command("status", cls=NoEchoCommand)
@click.option("--check-provider", is_flag=True, help="Probe the endpoint (embeds one short text).")
@FORMAT
@common_options
@click.pass_context
def status_cmd(ctx: click.Context, check_provider: bool, fmt: str | None) -> None:
    """Check the config, whether the key is present (yes/no) and, optionally, the endpoint."""
    from znt import api

    doc = api.setup_status(check_provider=check_provider)
    _emit(ctx, doc, fmt, "setup_status")
    _exit_if_check_failed(ctx, doc)


COMMANDS = [setup_cmd]
