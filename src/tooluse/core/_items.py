"""The run's one item format: the Responses API's item shapes, as plain dicts.

A run keeps its whole conversation as a list of these items: the user's input
messages, the model's messages and tool calls, and the tools' outputs. The
input may also hold Chat Completions messages, as people write history by
hand; each model converts what is in the other API's form, or refuses what has
none with a `UserError` before the request (`models/_responses_input.py`,
`models/_chat_conversion.py`).
"""

from __future__ import annotations

import re
from typing import Any, cast

__all__ = [
    "Item",
    "TResponseInputItem",
    "assistant_message",
    "function_call",
    "function_call_output",
    "message_text",
    "user_message",
    "valid_text",
    "with_valid_text",
]

Item = dict[str, Any]
"""One conversation item, shaped as the Responses API's input and output items."""
TResponseInputItem = Item
"""openai-agents' name for an input item: here, the same dict."""

_TEXT_PARTS = ("output_text", "text")
_SURROGATE = re.compile("[\ud800-\udfff]")


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


def function_call_output(call_id: str, output: str | list[Item]) -> Item:
    """A tool's output for the model.

    Args:
        call_id: The id of the call it answers.
        output: The text the model receives, or its input parts (`input_text`,
            `input_image`, `input_file`).

    Returns:
        A Responses `function_call_output` item.
    """
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def message_text(item: Item) -> str | None:
    """The text of an assistant message item, or None for any other item.

    Args:
        item: A conversation item: an assistant message may leave out its `type`, as
            Chat Completions messages and the Responses API's easy messages do.

    Returns:
        The text, or the text parts joined (`output_text`; Chat's `text`), or None.
    """
    if item.get("type", "message") != "message" or item.get("role") != "assistant":
        return None
    content: Any = item.get("content")
    if isinstance(content, str):
        return content
    parts: list[Any] = content or []
    return "".join(part.get("text", "") for part in parts if part.get("type") in _TEXT_PARTS)


def valid_text(text: str) -> str:
    """`text` with any lone surrogate replaced by U+FFFD, so that it can be sent again.

    A model's JSON may escape half of a surrogate pair; Python keeps the half, and
    encoding the next request would fail.

    Args:
        text: Text from a model or a tool.

    Returns:
        The text, unchanged unless it held a lone surrogate.
    """
    if text.isascii():
        return text
    try:
        text.encode()
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def with_valid_text(item: Item) -> Item:
    """A model's output item with lone surrogates replaced in its arguments, name and text.

    Args:
        item: An output item.

    Returns:
        The item, or a repaired copy of it.
    """
    kind = item.get("type")
    if kind == "function_call":
        name, arguments = item.get("name"), item.get("arguments")
        if _unchanged(name) and _unchanged(arguments):
            return item
        return {**item, "name": valid_text(name or ""), "arguments": valid_text(arguments or "")}
    if kind == "message" and isinstance(item.get("content"), list):
        parts = cast(list[dict[str, Any]], item["content"])  # the API's content parts
        repaired_parts = [_valid_part(part) for part in parts]
        if any(new is not old for new, old in zip(repaired_parts, parts, strict=True)):
            return {**item, "content": repaired_parts}
    return item


def _unchanged(value: Any) -> bool:
    return not isinstance(value, str) or valid_text(value) is value


def _valid_part(part: dict[str, Any]) -> dict[str, Any]:
    text = part.get("text")
    if not isinstance(text, str) or valid_text(text) is text:
        return part
    return {**part, "text": valid_text(text)}
