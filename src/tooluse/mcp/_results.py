"""What the model is told of an MCP tool's result: its content as text.

Text blocks are kept as they are; `structuredContent` is written as JSON (in
place of the text blocks, which servers fill with the same data); an image,
audio, a resource link or an embedded resource becomes one short line saying
what it is (an embedded text resource keeps its text). An `isError` result is
the server's own message for the model, prefixed with the tool's name: MCP
servers write it for the model to act on, as a `ModelRetry` message is.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types

__all__ = ["error_text", "result_text"]

_MAX_ERROR_CHARS = 2000


def result_text(result: types.CallToolResult) -> str:
    """The text the model receives for a successful call.

    Args:
        result: What the server answered.

    Returns:
        The structured content as JSON, or the blocks' text, one block per line.
    """
    others = [_describe(block) for block in result.content if block.type != "text"]
    if result.structured_content is not None:
        structured = json.dumps(result.structured_content, ensure_ascii=False)
        return "\n".join([structured, *others])
    return "\n".join(_describe(block) for block in result.content)


def error_text(tool_name: str, result: types.CallToolResult) -> str:
    """The text the model receives for an `isError` result.

    Args:
        tool_name: The tool's name as the model calls it.
        result: What the server answered.

    Returns:
        The server's message (cut at 2,000 characters), naming the tool.
    """
    message = "\n".join(_describe(block) for block in result.content).strip()
    if len(message) > _MAX_ERROR_CHARS:
        message = message[:_MAX_ERROR_CHARS] + " [...]"
    if not message:
        return f"Tool '{tool_name}' reported an error without a message."
    return f"Tool '{tool_name}' reported an error: {message}"


def _describe(block: Any) -> str:
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        return f"[{kind}: {block.mime_type}, {_size(block.data)}]"
    if kind == "resource_link":
        return f"[resource link: {block.uri}{_mime(block.mime_type)}]"
    if kind == "resource":
        resource = block.resource
        text = getattr(resource, "text", None)
        if isinstance(text, str):
            return text
        return f"[resource: {resource.uri}{_mime(resource.mime_type)}]"
    return f"[{kind or 'unknown'} content]"


def _size(data: str) -> str:
    """The size of base64 data, decoded."""
    return f"{len(data) * 3 // 4} bytes"


def _mime(mime_type: str | None) -> str:
    return f", {mime_type}" if mime_type else ""
