"""The conversation as the Responses `input`: its own items as they are, Chat messages converted.

Responses items (easy and output messages, function calls and their outputs,
reasoning, hosted tool calls, item references) go as they are, the API
checking the ones tooluse does not read. Chat Completions messages become
Responses items: content parts are renamed (`text` -> `input_text`, or
`output_text` in an assistant message; `image_url` -> `input_image`; `file`
-> `input_file`), an assistant message's `refusal` becomes a refusal part and
each of its `tool_calls` a `function_call` (or `custom_tool_call`) item, and a
`tool` message a `function_call_output` (or `custom_tool_call_output`). What
has no Responses form is refused: a message's `name`, an assistant's `audio`
or deprecated `function_call`, a `function` message, an `input_audio` part.

What is built has the shapes of `core/_items.py` (`FunctionCallItem`, `InputText`,
`OutputText`, ...), and those below for what that module has none of: a custom
tool call and its output, a refusal part, and an image part whose `detail` the
input gave.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Literal, TypedDict

from ..core._items import (
    FunctionCallItem,
    FunctionCallOutputItem,
    InputPart,
    InputText,
    Item,
    OutputText,
    function_call_output,
)
from ._converted import converted
from ._input import (
    TEXT_PART_TYPES,
    InputError,
    JsonObject,
    as_item,
    content_parts,
    fields_of,
    from_another_provider,
    is_list,
    is_object,
    message_role,
    part_list,
    required_text,
    tool_calls,
    with_extras,
)

logger = logging.getLogger("tooluse.models")

__all__ = [
    "CustomToolCallItem",
    "CustomToolCallOutputItem",
    "ImageFromChat",
    "RefusalPart",
    "responses_input",
]


class CustomToolCallItem(TypedDict):
    """A call of a custom tool (free-form input, no JSON arguments)."""

    type: Literal["custom_tool_call"]
    call_id: str
    """The call's id, which its output repeats."""
    name: str
    input: str


class CustomToolCallOutputItem(TypedDict):
    """A custom tool's output for the model."""

    type: Literal["custom_tool_call_output"]
    call_id: str
    output: str | list[InputPart]


class RefusalPart(TypedDict):
    """The model's refusal, as a part of its message."""

    type: Literal["refusal"]
    refusal: str


class ImageFromChat(TypedDict):
    """A Chat `image_url` part as an `input_image` part."""

    type: Literal["input_image"]
    image_url: str
    detail: object
    """As the input gave it (the API checks it); "auto" if it gave none."""


_API = "Responses"
_USE_CHAT = "or run this agent with OpenAIChatCompletionsModel, which takes it as it is"
# Chat-only keys of a message, each with what to do instead.
_NO_RESPONSES_FORM = {
    "name": "Responses messages have no participant names: leave 'name' out, or put it in the text",
    "audio": "Responses cannot refer to an earlier audio reply: leave 'audio' out",
    "function_call": "This deprecated form has no call id: write it as 'tool_calls' "
    "answered by 'tool' messages",
}
# Every Chat-only key of a message: `message.model_dump()` of a Chat reply holds them all,
# most as None, and `annotations` (citations) says where text came from, not what it says.
_CHAT_KEYS = frozenset({*_NO_RESPONSES_FORM, "refusal", "tool_calls", "annotations"})


def responses_input(items: Sequence[Item], memo: dict[object, object] | None = None) -> list[Item]:
    """The Responses `input` for a conversation given in either API's form.

    Args:
        items: The conversation.
        memo: The run's memo (`ModelRequest.memo`): what its earlier requests converted
            is kept there, so that only new items are converted. None converts them all.

    Returns:
        The items to send, a new list; those already in Responses form are the same objects.

    Raises:
        UserError: For an item, or a part of one, that has no Responses form.
    """
    given = items if isinstance(items, list) else list(items)
    kept = converted(memo, responses_input, _Input).extend(given, _add_items)
    return list(kept.items)  # the kept list grows with the next request: the caller gets a copy


class _Input:
    """The input so far, and the custom tool calls in it.

    A tool message answering one of those is a custom tool call's output.
    """

    __slots__ = ("custom_calls", "items", "starts")

    def __init__(self) -> None:
        self.items: list[Item] = []
        self.custom_calls: set[str] = set()
        self.starts: list[int] = []
        """Where each conversation item's input begins in `items`."""

    def rewind(self, index: int) -> None:
        """Undo what the conversation's items from `index` on added (`Rewindable`).

        Args:
            index: The first item to undo.
        """
        del self.items[self.starts[index] :]
        del self.starts[index:]
        if self.custom_calls:  # rare: read again from the calls kept
            self.custom_calls = {
                str(item.get("call_id"))
                for item in self.items
                if item.get("type") == "custom_tool_call"
            }


def _add_items(converted: _Input, items: list[Item], first: int) -> None:
    """Add the input for `items[first:]`, the ones before having made `converted`."""
    custom_calls, starts, added = converted.custom_calls, converted.starts, converted.items
    for index in range(first, len(items)):
        starts.append(len(added))
        item = as_item(index, items[index], _API)
        kind = item.get("type") or "message"
        if _sent_as_it_is(item, kind):  # most of a run's items: checked in a few lookups
            added.append(item)
            continue
        error = InputError.of_item(index, item, _API)
        if kind == "message":
            added.extend(_message(item, error, custom_calls))
            continue
        if from_another_provider(item):  # Claude's thinking, Gemini's thought signatures
            logger.debug("input[%d] (%s) came from another provider: left out", index, kind)
            continue
        if kind == "custom_tool_call":
            custom_calls.add(item.get("call_id", ""))
        elif kind == "function_call":
            for key in ("call_id", "name", "arguments"):
                required_text(item.get(key), key, error)
        elif kind == "function_call_output":
            required_text(item.get("call_id"), "call_id", error)
            _check_output(item.get("output"), error)
            if "is_error" in item:  # tooluse's mark of a failed call: the API has no such field
                item = {key: value for key, value in item.items() if key != "is_error"}
        added.append(item)  # every other item (reasoning, hosted tools, ...) as it is


def _sent_as_it_is(item: Item, kind: object) -> bool:
    """Whether an item is a function call, or its output as text, that needs no other look."""
    if "provider_data" in item:
        return False
    if kind == "function_call_output":
        return (
            type(item.get("call_id")) is str
            and type(item.get("output")) is str
            and "is_error" not in item
        )
    return (
        kind == "function_call"
        and type(item.get("call_id")) is str
        and type(item.get("name")) is str
        and type(item.get("arguments")) is str
    )


def _check_output(output: object, error: InputError) -> None:
    if isinstance(output, str):
        return
    if not is_list(output):
        found = "no 'output'" if output is None else f"an 'output' of type {type(output).__name__}"
        raise error(
            f"it has {found}",
            "Give 'output' as a string, or as a list of input_text, input_image and "
            "input_file parts",
        )
    for index, part in enumerate(output):
        kind = part.get("type") if is_object(part) else None
        if kind not in ("input_text", "input_image", "input_file"):
            raise InputError(f"{error.where}.output[{index}]", f"a {kind!r} part", _API)(
                "a function call's output holds input_text, input_image and input_file parts",
                'Write text as {"type": "input_text", "text": "..."}',
            )


def _message(item: Item, error: InputError, custom_calls: set[str]) -> list[Item]:
    role = message_role(item, error)
    if role == "function":
        raise error(
            "the deprecated 'function' role has no call id to answer",
            "Answer a tool call with a 'tool' message "
            '{"role": "tool", "tool_call_id": ..., "content": ...}, ' + _USE_CHAT,
        )
    if role == "tool":
        return [_tool_output(item, error, custom_calls)]
    for key, fix in _NO_RESPONSES_FORM.items():
        if item.get(key) is not None:
            raise error(f"its {key!r} has no Responses form", f"{fix}, {_USE_CHAT}")
    message = item if _CHAT_KEYS.isdisjoint(item) else _without_chat_keys(item)
    if role == "assistant":
        return _assistant(item, message, error, custom_calls)
    content = content_parts(message, error)
    if isinstance(content, str):
        return [message]
    parts = [_input_part(part, error.part(i, part)) for i, part in enumerate(content)]
    return [message] if _same(parts, content) else [{**message, "content": parts}]


def _without_chat_keys(item: Item) -> Item:
    return {key: value for key, value in item.items() if key not in _CHAT_KEYS}


def _assistant(item: Item, message: Item, error: InputError, custom_calls: set[str]) -> list[Item]:
    """An assistant message (`message`: without its Chat keys) and its tool calls."""
    calls: list[Item] = [
        _call(call, index, error, custom_calls)
        for index, call in enumerate(tool_calls(item, error))
    ]
    refusal: object = item.get("refusal")
    content: object = item.get("content")
    if not calls and refusal is None and isinstance(content, str):
        return [message]  # an easy assistant message: the Responses API takes it as it is
    parts: list[JsonObject] = []
    if isinstance(content, str) and content:
        parts.append(_output_text(content))
    elif content is not None and not isinstance(content, str):
        listed = part_list(content, error)
        parts = [_output_part(part, error.part(i, part)) for i, part in enumerate(listed)]
        if not calls and refusal is None and _same(parts, listed):
            return [message]  # an output message, as the Responses API itself sends them
    if refusal is not None:
        parts.append(_refusal(required_text(refusal, "refusal", error)))
    if not parts and calls:
        return calls  # a Chat assistant message that only calls tools
    return [{**message, "type": "message", "content": parts}, *calls]


def _call(
    call: JsonObject, index: int, error: InputError, custom_calls: set[str]
) -> FunctionCallItem | CustomToolCallItem:
    kind = call.get("type", "function")
    where = InputError(f"{error.where}.tool_calls[{index}]", f"a {kind!r} tool call", _API)
    call_id = required_text(call.get("id"), "id", where)
    if kind == "custom":
        custom = fields_of(call.get("custom"))
        custom_calls.add(call_id)
        name = required_text(custom.get("name"), "custom.name", where)
        text = required_text(custom.get("input"), "custom.input", where)
        return {"type": "custom_tool_call", "call_id": call_id, "name": name, "input": text}
    if kind != "function":
        raise where("a tool call's type is 'function' or 'custom'", "Fix its 'type'")
    function = fields_of(call.get("function"))
    name = required_text(function.get("name"), "function.name", where)
    arguments = required_text(function.get("arguments"), "function.arguments", where)
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments}


def _tool_output(
    item: Item, error: InputError, custom_calls: set[str]
) -> FunctionCallOutputItem | CustomToolCallOutputItem:
    call_id = required_text(item.get("tool_call_id"), "tool_call_id", error)
    content = content_parts(item, error)
    output: str | list[InputPart]
    if isinstance(content, str):
        output = content
    else:
        output = [_tool_output_part(part, error.part(i, part)) for i, part in enumerate(content)]
    if call_id in custom_calls:
        return {"type": "custom_tool_call_output", "call_id": call_id, "output": output}
    return function_call_output(call_id, output)


def _tool_output_part(part: JsonObject, error: InputError) -> InputText:
    if part["type"] in TEXT_PART_TYPES:
        return _input_text(part, error)
    raise error(
        "a Chat Completions tool message holds text parts only",
        "Give the output as text",
    )


def _input_part(part: JsonObject, error: InputError) -> InputText | ImageFromChat | JsonObject:
    """A user, system or developer message's part, in Responses form."""
    kind = part["type"]
    if kind in ("input_text", "input_image", "input_file"):
        return part
    if kind == "text":
        return _input_text(part, error)
    if kind == "image_url":
        return _image(part, error)
    if kind == "file":
        return _file(part)
    if kind == "input_audio":
        raise error(
            "Responses messages take no audio parts",
            f"Transcribe the audio to text, {_USE_CHAT}",
        )
    raise error(
        "the part type is unknown here",
        "Use input_text, input_image or input_file (Chat Completions: text, image_url, "
        "file, input_audio); output_text and refusal parts belong to assistant messages",
    )


def _input_text(part: JsonObject, error: InputError) -> InputText:
    converted: InputText = {"type": "input_text", "text": _text(part, error)}
    return with_extras(converted, part)


def _image(part: JsonObject, error: InputError) -> ImageFromChat:
    image = fields_of(part.get("image_url"))
    url = required_text(image.get("url"), "image_url.url", error)
    converted: ImageFromChat = {
        "type": "input_image",
        "image_url": url,
        "detail": image.get("detail", "auto"),
    }
    return with_extras(converted, part)


def _file(part: JsonObject) -> JsonObject:
    # Open, not a TypedDict: the Chat file's keys go as they are (input_file spells them alike).
    file = fields_of(part.get("file"))
    converted = {"type": "input_file", **{k: v for k, v in file.items() if v is not None}}
    return with_extras(converted, part)


def _output_part(part: JsonObject, error: InputError) -> OutputText | JsonObject:
    """An assistant message's part, in Responses form."""
    kind = part["type"]
    if kind in ("output_text", "refusal"):
        return part
    if kind in ("text", "input_text"):
        return with_extras(_output_text(_text(part, error)), part)
    raise error(
        "an assistant message holds text and refusal parts only",
        'Write text as {"type": "output_text", "text": "..."}',
    )


def _output_text(text: str) -> OutputText:
    return {"type": "output_text", "text": text, "annotations": []}


def _refusal(text: str) -> RefusalPart:
    return {"type": "refusal", "refusal": text}


def _text(part: JsonObject, error: InputError) -> str:
    return required_text(part.get("text"), "text", error)


def _same(new: Sequence[object], old: Sequence[object]) -> bool:
    return all(a is b for a, b in zip(new, old, strict=True))
