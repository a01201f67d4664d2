"""MCP both ways: MCP servers' tools as toolsets of an agent, and tooluse tools served over MCP.

Needs the `mcp` package (`pip install 'tooluse[mcp]'`); `import tooluse` never imports it.

Imports: `core`, `exceptions`, `schema`, `guardrails`, `tools` (MCP tools are toolsets
and function tools); never the run loop.
"""

from importlib.util import find_spec

if find_spec("mcp") is None:  # pragma: no cover - the tests run with the extra installed
    raise ImportError("tooluse.mcp needs the mcp package: pip install 'tooluse[mcp]'", name="mcp")

from ._client import (
    MCPServer,
    MCPServerSse,
    MCPServerSseParams,
    MCPServerStdio,
    MCPServerStdioParams,
    MCPServerStreamableHttp,
    MCPServerStreamableHttpParams,
    MCPToolError,
)
from ._options import (
    RequireApproval,
    RequireApprovalToolList,
    ToolFilter,
    ToolFilterCallable,
    ToolFilterContext,
    ToolFilterStatic,
    create_static_tool_filter,
)
from ._results import server_error_message
from ._server import Transport, serve, tool_server

__all__ = [
    "MCPServer",
    "MCPServerSse",
    "MCPServerSseParams",
    "MCPServerStdio",
    "MCPServerStdioParams",
    "MCPServerStreamableHttp",
    "MCPServerStreamableHttpParams",
    "MCPToolError",
    "RequireApproval",
    "RequireApprovalToolList",
    "ToolFilter",
    "ToolFilterCallable",
    "ToolFilterContext",
    "ToolFilterStatic",
    "Transport",
    "create_static_tool_filter",
    "serve",
    "server_error_message",
    "tool_server",
]
