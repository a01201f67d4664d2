"""Converting the run's items to Chat Completions messages, and a reply back into items.

The run keeps Responses-shaped items; Chat Completions speaks in messages. An
assistant message and the function calls right after it become one assistant
message with `tool_calls`; each function call output becomes a `tool` message.
Items only the Responses API knows (hosted tool calls, reasoning) have no
message form and are refused with a `UserError`.
"""

from __future__ import annotations

from typing import Any, cast

from .._items import Item, assistant_message, function_call, message_text
from ..exceptions import UserError

__all__ = ["items_to_messages", "message_to_items"]

Message = dict[str, Any]


def items_to_messages(instructions: str | None, items: list[Item]) -> list[Message]:
    """The Chat Completions messages for a system prompt and a conversation.

    Args:
        instructions: The system prompt, or None.
        items: The conversation, as Responses-shaped items.

    Returns:
        The messages, the system prompt first.

    Raises:
        UserError: If an item has no Chat Completions form.
    """
    messages: list[Message] = [{"role": "system", "content": instructions}] if instructions else []
    for item in items:
        kind = item.get("type", "message")
        if kind == "function_call":
            _open_assistant(messages).setdefault("tool_calls", []).append(_tool_call(item))
        elif kind == "function_call_output":
            messages.append(
                {"role": "tool", "tool_call_id": item["call_id"], "content": str(item["output"])}
            )
        elif kind == "message" and item.get("role") == "assistant":
            messages.append({"role": "assistant", "content": message_text(item) or ""})
        elif kind == "message":
            messages.append({"role": item["role"], "content": _content(item["content"])})
        else:
            raise UserError(
                f"A '{kind}' item has no Chat Completions form: it comes from a hosted tool "
                "or feature of the Responses API; use OpenAIResponsesModel for this run"
            )
    return messages


def message_to_items(message: Message) -> list[Item]:
    """The items for a Chat Completions assistant message.

    Args:
        message: The reply's message, as a dict.

    Returns:
        An assistant message item (if it has text), then one function call per tool call.
    """
    items: list[Item] = []
    if message.get("content"):
        items.append(assistant_message(str(message["content"])))
    calls: list[dict[str, Any]] = message.get("tool_calls") or []
    for call in calls:
        fn: dict[str, Any] = call["function"]
        items.append(function_call(call["id"], fn["name"], fn.get("arguments") or ""))
    return items


def _open_assistant(messages: list[Message]) -> Message:
    """The assistant message tool calls join: the last one, unless a tool message followed."""
    if messages and messages[-1]["role"] == "assistant":
        return messages[-1]
    messages.append({"role": "assistant", "content": None})
    return messages[-1]


def _tool_call(item: Item) -> dict[str, Any]:
    return {
        "id": item["call_id"],
        "type": "function",
        "function": {"name": item["name"], "arguments": item["arguments"]},
    }


def _content(content: Any) -> Any:
    """Responses content parts (`input_text`, `input_image`) as Chat content parts."""
    if isinstance(content, str):
        return content
    parts: list[Any] = []
    for part in cast(list[dict[str, Any]], content):
        kind = part.get("type")
        if kind in ("input_text", "output_text", "text"):
            parts.append({"type": "text", "text": part["text"]})
        elif kind == "input_image":
            parts.append({"type": "image_url", "image_url": {"url": part["image_url"]}})
        else:
            raise UserError(f"A '{kind}' content part has no Chat Completions form")
    return parts
