"""MCP both ways: MCP servers' tools as toolsets of an agent, and tooluse tools served over MCP.

Needs the `mcp` package (`pip install 'tooluse[mcp]'`); `import tooluse` never imports it.
"""
