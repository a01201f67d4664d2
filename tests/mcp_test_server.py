"""A small MCP server for the client tests, written with the `mcp` package.

Run with: python tests/mcp_test_server.py [stdio | http PORT | sse PORT]

Tools: `echo`, `add`, `fail` (raises: an `isError` result), `slow` (sleeps),
`odd` (an input schema strict mode cannot express), `report` (structured
content, an image, an embedded PDF and audio), `pid` (the server's process id, to
kill it mid-run) and `nested` (optional keys, nested, that strict mode makes nullable) and `files.read` (a
name the OpenAI API refuses).
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp_types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    TextContent,
)

ODD_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "n": {"allOf": [{"type": "integer"}, {"minimum": 0}]},
    },
    "required": ["text"],
}


def echo(text: str) -> str:
    """Say the text back."""
    return text


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def fail(reason: str) -> str:
    """Always fails."""
    raise ValueError(f"the server refused: {reason}")


async def slow(seconds: float) -> str:
    """Sleep, then answer."""
    await asyncio.sleep(seconds)
    return "done"


def odd(text: str, n: int = 0) -> str:
    """A tool whose schema strict mode cannot express."""
    return f"{text}:{n}"


def report(city: str) -> CallToolResult:
    """Structured content, an image, an embedded file and audio."""
    pdf = BlobResourceContents(
        uri=f"file:///reports/{city}.pdf", blob="JVBERi0xLjQK", mime_type="application/pdf"
    )
    return CallToolResult(
        content=[
            TextContent(type="text", text=f"Report for {city}"),
            ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png"),
            EmbeddedResource(type="resource", resource=pdf),
            AudioContent(type="audio", data="UklGRg==", mime_type="audio/wav"),
        ],
        structured_content={"city": city, "temperature": 21},
    )


def pid() -> int:
    """The server's process id."""
    return os.getpid()


def nested(query: str, options: dict[str, Any] | None = None) -> str:
    """Echo what the options hold."""
    return f"{query} {sorted((options or {}).items())}"


def read_file(path: str) -> str:
    """Served as `files.read`, a name the OpenAI API refuses."""
    return f"contents of {path}"


def build() -> MCPServer:
    odd_tool = Tool.from_function(odd)
    odd_tool.parameters = ODD_SCHEMA
    nested_tool = Tool.from_function(nested)
    nested_tool.parameters = {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "options": {
                "type": "object",
                "properties": {"limit": {"type": "integer"}, "lang": {"type": "string"}},
                "required": ["limit"],
            },
        },
        "required": ["query"],
    }
    tools = [Tool.from_function(f) for f in (echo, add, fail, slow, report, pid)]
    tools.append(Tool.from_function(read_file, name="files.read"))
    return MCPServer("tooluse-test", tools=[*tools, odd_tool, nested_tool], log_level="CRITICAL")


def main(argv: list[str]) -> None:
    server = build()
    if argv[:1] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(argv[1]))
    elif argv[:1] == ["sse"]:
        server.run("sse", host="127.0.0.1", port=int(argv[1]))
    else:
        server.run("stdio")


if __name__ == "__main__":
    main(sys.argv[1:])
