"""An MCP server over stdio that misbehaves in one way, written as raw JSON-RPC lines.

Run with: python tests/mcp_bad_server.py MODE

- `silent`: never answers `initialize`;
- `list_error`: answers `initialize`, then fails `tools/list` with an error whose message
  holds a secret (`secret-in-the-error`);
- `list_hang`: answers `initialize`, never answers `tools/list`;
- `invalid_list`: answers `tools/list` with a list that is not MCP (a tool without a name).
"""

from __future__ import annotations

import json
import sys
from typing import Any

SECRET = "secret-in-the-error"


def answer(message_id: object, result: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message_id, "result": result}) + "\n")
    sys.stdout.flush()


def fail(message_id: object, message: str, code: int = -32603) -> None:
    error = {"code": code, "message": message}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message_id, "error": error}) + "\n")
    sys.stdout.flush()


def main(mode: str) -> None:
    for line in sys.stdin:
        request = json.loads(line)
        method, message_id = request.get("method"), request.get("id")
        if message_id is None:
            continue  # a notification
        if method not in {"initialize", "tools/list", "ping"}:
            # Newer clients ask `server/discover` first, and fall back to `initialize` at
            # once when it is unknown (but only after 10 s when it is not answered).
            fail(message_id, "method not found", code=-32601)
        elif mode == "silent":
            continue  # never answers initialize, nor anything after it
        elif method == "initialize":
            answer(message_id, {
                "protocolVersion": request["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "bad", "version": "1"},
            })  # fmt: skip
        elif method == "tools/list" and mode == "list_error":
            fail(message_id, f"database login failed: {SECRET}")
        elif method == "tools/list" and mode == "invalid_list":
            answer(message_id, {"tools": [{"description": "no name", "inputSchema": 3}]})
        elif method == "ping":
            answer(message_id, {})
        # list_hang: tools/list is never answered


if __name__ == "__main__":
    main(sys.argv[1])
