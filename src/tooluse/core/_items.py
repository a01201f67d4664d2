"""The run's one item format: the Responses API's item shapes, as JSON dicts.

A run keeps its whole conversation as a list of items: the user's input messages,
the model's messages and tool calls, the tools' outputs, and whatever else a model
sends (reasoning, hosted tool calls), kept as it came. The input may also hold Chat
Completions messages, as people write history by hand; each model converts what is
in the other API's form, or refuses what has none with a `UserError` before the
request (`models/_responses_input.py`, `models/_chat_conversion.py`).

`Item` is the open type of any of them (a read-only mapping: items are values, and
a step that changes one makes a new one). The shapes tooluse itself makes and reads
are `TypedDict`s below, so that building one with a wrong key, or reading one as
the wrong kind, is a type error; the guards (`is_function_call`, ...) tell them
apart in a conversation.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal, TypeAlias, TypedDict, TypeGuard, cast

from typing_extensions import NotRequired, Required

__all__ = [
    "AssistantMessage",
    "FunctionCallItem",
    "FunctionCallOutputItem",
    "InputFile",
    "InputImage",
    "InputPart",
    "InputText",
    "Item",
    "OutputText",
    "TResponseInputItem",
    "UserMessage",
    "assistant_message",
    "function_call",
    "function_call_output",
    "is_function_call",
    "is_function_call_output",
    "message_text",
    "user_message",
    "valid_text",
    "with_valid_text",
]

Item: TypeAlias = Mapping[str, Any]
"""One conversation item, shaped as the Responses API's input and output items (or a
Chat Completions message a user wrote): any JSON object, read-only."""
TResponseInputItem: TypeAlias = Item
"""openai-agents' name for an input item: here, the same mapping."""


class InputText(TypedDict):
    """Text in a message, or in a tool's output."""

    type: Literal["input_text"]
    text: str


class InputImage(TypedDict, total=False):
    """An image in a message or a tool's output: by URL (a `data:` URL too) or file id."""

    type: Required[Literal["input_image"]]
    image_url: str
    file_id: str
    detail: Literal["low", "high", "auto"]


class InputFile(TypedDict, total=False):
    """A file in a message or a tool's output: its data, URL or id, and its name."""

    type: Required[Literal["input_file"]]
    file_data: str
    file_id: str
    file_url: str
    filename: str


InputPart: TypeAlias = InputText | InputImage | InputFile
"""A part of a message's content or of a tool's output."""


class OutputText(TypedDict):
    """A text part of the model's message."""

    type: Literal["output_text"]
    text: str
    annotations: list[Mapping[str, object]]


class UserMessage(TypedDict):
    """A message from the user (or the system, or the developer), as a run's input holds it."""

    role: Literal["user", "system", "developer"]
    content: str | list[InputPart]


class AssistantMessage(TypedDict):
    """The model's message: a Responses `message` output item."""

    type: Literal["message"]
    role: Literal["assistant"]
    status: Literal["completed", "incomplete", "in_progress"]
    content: list[OutputText]
    id: NotRequired[str]


class FunctionCallItem(TypedDict):
    """A function tool call the model made."""

    type: Literal["function_call"]
    call_id: str
    """The call's id, which its output repeats."""
    name: str
    arguments: str
    """The JSON arguments, as the model wrote them."""
    id: NotRequired[str]
    status: NotRequired[str]
    namespace: NotRequired[str]


class FunctionCallOutputItem(TypedDict):
    """A tool's output for the model: text, or input parts (an image, a file)."""

    type: Literal["function_call_output"]
    call_id: str
    output: str | list[InputPart]
    is_error: NotRequired[bool]
    """True when the call failed and `output` says why: Claude receives it as the tool
    result's `is_error`, Gemini as the response's `error`; OpenAI's APIs have no such
    field and get the item without it."""


def is_function_call(item: Item) -> TypeGuard[FunctionCallItem]:
    """Whether `item` is a function call the model made.

    Args:
        item: Any conversation item.

    Returns:
        True for a `function_call` item.
    """
    return item.get("type") == "function_call"


def is_function_call_output(item: Item) -> TypeGuard[FunctionCallOutputItem]:
    """Whether `item` is a tool's output for the model.

    Args:
        item: Any conversation item.

    Returns:
        True for a `function_call_output` item.
    """
    return item.get("type") == "function_call_output"


_TEXT_PARTS = ("output_text", "text")
_SURROGATE = re.compile("[\ud800-\udfff]")


def user_message(text: str) -> UserMessage:
    """A user message.

    Args:
        text: What the user says.

    Returns:
        `{"content": text, "role": "user"}` (the keys in openai-agents' order, so that
        the items print alike).
    """
    return {"content": text, "role": "user"}


def assistant_message(text: str, item_id: str | None = None) -> AssistantMessage:
    """An assistant output message.

    Args:
        text: What the model said.
        item_id: The item's id, if the model gave one.

    Returns:
        A Responses `message` output item.
    """
    item: AssistantMessage = {
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    if item_id:
        item["id"] = item_id
    return item


def function_call(
    call_id: str, name: str, arguments: str, item_id: str | None = None
) -> FunctionCallItem:
    """A function tool call the model made.

    Args:
        call_id: The call's id, which its output must repeat.
        name: The tool's name.
        arguments: The raw JSON arguments.
        item_id: The item's id, if the model gave one.

    Returns:
        A Responses `function_call` item.
    """
    item: FunctionCallItem = {
        "type": "function_call",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
    }
    if item_id:
        item["id"] = item_id
    return item


def function_call_output(
    call_id: str, output: str | list[InputPart], *, is_error: bool = False
) -> FunctionCallOutputItem:
    """A tool's output for the model.

    Args:
        call_id: The id of the call it answers.
        output: The text the model receives, or its input parts (`input_text`,
            `input_image`, `input_file`).
        is_error: Whether the call failed (the output says why); recorded only when True.

    Returns:
        A Responses `function_call_output` item.
    """
    # The keys in openai-agents' order, so that the items print alike.
    item: FunctionCallOutputItem = {
        "call_id": call_id,
        "output": output,
        "type": "function_call_output",
    }
    if is_error:
        item["is_error"] = True
    return item


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
