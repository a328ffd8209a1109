"""``znt mcp``: serve the znt tools to an agent over MCP stdio; ``znt mcp install`` writes
the client's config. The MCP SDK is imported only when the server starts."""

from __future__ import annotations

import click

from znt.cli.output import common_options, settings

PROFILES = ("default", "readonly", "minimal", "full")


@click.group("mcp", invoke_without_command=True)
@click.option(
    "--profile",
    type=click.Choice(PROFILES),
    default="default",
    show_default=True,
    help="Tool set: default (the ten tools), readonly, minimal, full (+check, impact).",
)
@click.pass_context
def mcp_cmd(ctx: click.Context, profile: str) -> None:
    """Serve the znt tools over MCP stdio (stdout carries only the protocol).

    The project is ZNT_PROJECT_ROOT, else the current folder. See docs/mcp.md."""
    if ctx.invoked_subcommand is not None:
        return
    import os

    project = settings(ctx).project
    if project:
        os.environ["ZNT_PROJECT_ROOT"] = project
    from znt.mcp.server import serve

    serve(profile)


@mcp_cmd.command("install")
@click.option(
    "--client",
    type=click.Choice(["claude-code", "vscode", "cursor"]),
    required=True,
    help="Which client's config to write.",
)
@click.option("--print", "print_only", is_flag=True, help="Print the config, write nothing.")
@click.option("--profile", type=click.Choice(PROFILES), default="default", show_default=True)
@click.option("--name", default="znt", show_default=True, help="The server's name in the config.")
@common_options
@click.pass_context
def install_cmd(ctx: click.Context, client: str, print_only: bool, profile: str, name: str) -> None:
    """Add znt to the client's MCP config in the project (merged with what is there)."""
    import json
    from pathlib import Path

    from znt.mcp import install

    root = Path(settings(ctx).project or ".").expanduser().resolve()
    result = install.plan(client, root, profile, name)
    if print_only:
        click.echo(json.dumps(result["config"], ensure_ascii=False, indent=2))
        return
    install.write(result)
    click.echo(f"{result['action']} {name!r} in {result['path']}")


COMMANDS = [mcp_cmd]
