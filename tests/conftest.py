"""Shared helpers for the tests."""

from __future__ import annotations

from typing import Any

from tooluse import ToolContext


def tool_context(name: str = "tool", arguments: str = "", context: Any = None) -> ToolContext[Any]:
    """A ToolContext for calling `on_invoke_tool` directly."""
    return ToolContext(
        context=context, tool_name=name, tool_call_id="call_1", tool_arguments=arguments
    )
