"""``znt mcp``: the znt tools for an agent, over MCP stdio (docs/mcp.md).

Only ``server`` imports the MCP SDK; the other modules (tool definitions, argument checks,
path containment, layouts, usage metrics, client install) are plain Python, so ``znt stats``
can read the usage metrics without paying for the SDK.
"""
