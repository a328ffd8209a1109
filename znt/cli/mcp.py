"""``znt mcp``: serve the znt tools to an agent over MCP stdio; ``znt mcp install`` writes
the client's config. The MCP SDK is imported only when the server starts."""

from typing import Annotated, Literal

import typer

from znt.cli.app import app
from znt.cli.output import settings

Profile = Annotated[
    Literal["default", "readonly", "minimal", "full"],
    typer.Option(
        help="Tool set: default (the ten tools), readonly, minimal, full (+check, impact, map)."
    ),
]

mcp_app = typer.Typer(rich_markup_mode="rich")
app.add_typer(mcp_app, name="mcp")


@mcp_app.callback(invoke_without_command=True)
def mcp_cmd(ctx: typer.Context, profile: Profile = "default") -> None:
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


@mcp_app.command("install")
def install_cmd(
    ctx: typer.Context,
    client: Annotated[
        Literal["claude-code", "vscode", "cursor"],
        typer.Option(help="Which client's config to write."),
    ],
    print_only: Annotated[
        bool, typer.Option("--print", help="Print the config, write nothing.")
    ] = False,
    profile: Profile = "default",
    name: Annotated[str, typer.Option(help="The server's name in the config.")] = "znt",
) -> None:
    """Add znt to the client's MCP config in the project (merged with what is there)."""
    import json
    from pathlib import Path

    from znt.mcp import install

    root = Path(settings(ctx).project or ".").expanduser().resolve()
    result = install.plan(client, root, profile, name)
    if print_only:
        typer.echo(json.dumps(result["config"], ensure_ascii=False, indent=2))
        return
    install.write(result)
    typer.echo(f"{result['action']} {name!r} in {result['path']}")
