"""The MCP server `bench_mcp.py` calls: one trivial tool, `echo`, written with the `mcp` package.

Run with: python benchmarks/_mcp_server.py [stdio | http PORT]
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer


def echo(text: str) -> str:
    """Say the text back."""
    return text


def main(argv: list[str]) -> None:
    server = MCPServer("bench", log_level="CRITICAL")
    server.add_tool(echo, structured_output=False)  # one text block, as most servers answer
    if argv[:1] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(argv[1]))
    else:
        server.run("stdio")


if __name__ == "__main__":
    main(sys.argv[1:])
