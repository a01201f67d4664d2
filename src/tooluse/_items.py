"""The run's one item format: the Responses API's item shapes, as plain dicts.

A run keeps its whole conversation as a list of these items: the user's input
messages, the model's messages and tool calls, and the tools' outputs. The
Responses model sends them as they are; the Chat Completions model converts
them to and from messages (`models/_chat_conversion.py`).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "Item",
    "assistant_message",
    "function_call",
    "function_call_output",
    "message_text",
    "user_message",
]

Item = dict[str, Any]
"""One conversation item, shaped as the Responses API's input and output items."""


def user_message(text: str) -> Item:
    """A user message.

    Args:
        text: What the user says.

    Returns:
        `{"role": "user", "content": text}`.
    """
    return {"role": "user", "content": text}


def assistant_message(text: str, item_id: str | None = None) -> Item:
    """An assistant output message.

    Args:
        text: What the model said.
        item_id: The item's id, if the model gave one.

    Returns:
        A Responses `message` output item.
    """
    item: Item = {
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    if item_id:
        item["id"] = item_id
    return item


def function_call(call_id: str, name: str, arguments: str, item_id: str | None = None) -> Item:
    """A function tool call the model made.

    Args:
        call_id: The call's id, which its output must repeat.
        name: The tool's name.
        arguments: The raw JSON arguments.
        item_id: The item's id, if the model gave one.

    Returns:
        A Responses `function_call` item.
    """
    item: Item = {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments}
    if item_id:
        item["id"] = item_id
    return item


def function_call_output(call_id: str, output: str) -> Item:
    """A tool's output for the model.

    Args:
        call_id: The id of the call it answers.
        output: The text the model receives.

    Returns:
        A Responses `function_call_output` item.
    """
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def message_text(item: Item) -> str | None:
    """The text of an assistant message item, or None for any other item.

    Args:
        item: A conversation item.

    Returns:
        The output text parts joined, or None.
    """
    if item.get("type") != "message" or item.get("role") != "assistant":
        return None
    content: Any = item.get("content")
    if isinstance(content, str):
        return content
    parts: list[Any] = content or []
    return "".join(part.get("text", "") for part in parts if part.get("type") == "output_text")
