"""The conversation as Chat Completions messages, and a reply back into items.

Chat messages in the input go as they are. Responses items are converted: a
message loses what says where it came from (`type`, `id`, `status`, `phase`)
and its parts are renamed (`input_text`/`output_text` -> `text`,
`input_image` -> `image_url`, `input_file` -> `file`); an assistant message's
text parts become its text (with `refusal` parts, a list of parts); the
function calls after an assistant message join it as its `tool_calls`; each
function call output becomes a `tool` message. Items only the Responses API
knows (reasoning, hosted tool calls, item references) have no message form, and
neither do images given by file id or files given by URL: each is refused with a
`UserError` naming it and the fix. A tool message holds text only, so an image
or file in a tool's output becomes a short line saying what it is
(`[image: image/png, 1234 bytes]`, `[file: report.pdf]`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from ..core._items import Item, assistant_message, function_call
from ..tools._outputs import part_text
from ._converted import converted
from ._input import (
    METADATA_KEYS,
    TEXT_PART_TYPES,
    InputError,
    as_item,
    content_parts,
    describe,
    message_role,
    part_list,
    required_text,
    tool_calls,
    with_extras,
)

__all__ = ["items_to_messages", "message_to_items"]

Message = dict[str, Any]

_API = "Chat Completions"
_USE_RESPONSES = "or run this agent with OpenAIResponsesModel, which takes it as it is"
_CALLS = ("function_call", "custom_tool_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output")
# Keys of a message that say where it came from (`annotations`: a reply's citations).
_DROPPED = METADATA_KEYS | {"annotations"}
_CHAT_USER_PARTS = ("image_url", "input_audio", "file")
# The keys of an input_file part that a Chat file part has too.
_FILE_KEYS = ("file_id", "file_data", "filename")


def items_to_messages(
    instructions: str | None, items: Sequence[Item], memo: dict[Any, Any] | None = None
) -> list[Message]:
    """The Chat Completions messages for a system prompt and a conversation.

    Args:
        instructions: The system prompt, or None.
        items: The conversation, in either API's form.
        memo: The run's memo (`ModelRequest.memo`): what its earlier requests converted
            is kept there, so that only new items are converted. None converts them all.

    Returns:
        The messages, the system prompt first; a new list, the items untouched.

    Raises:
        UserError: For an item, or a part of one, that has no Chat Completions form.
    """
    given = items if isinstance(items, list) else list(items)
    messages = converted(memo, items_to_messages, list[Message]).extend(given, _add_messages)
    if instructions:
        return [{"role": "system", "content": instructions}, *messages]
    return list(messages)  # the kept list grows with the next request: the caller gets a copy


def _add_messages(messages: list[Message], items: list[Item], first: int) -> None:
    """Add the messages for `items[first:]`, the ones before having made `messages`."""
    if messages and messages[-1]["role"] == "assistant":
        # Tool calls may join it: a copy, the message an earlier request sent staying as it was.
        last = messages[-1] = dict(messages[-1])
        if "tool_calls" in last:
            last["tool_calls"] = list(last["tool_calls"])
    for index in range(first, len(items)):
        item = as_item(index, items[index], _API)
        kind = item.get("type") or "message"
        error = InputError(f"input[{index}]", describe(item), _API)
        if kind == "message":
            messages.append(_message(item, error))
        elif kind in _CALLS:
            _open_assistant(messages)["tool_calls"].append(_tool_call(item, error))
        elif kind in _OUTPUTS:
            messages.append(_tool_message(item, error))
        else:
            raise error(
                "only the Responses API knows this item (it comes from a hosted tool or "
                "another feature of that API)",
                f"Leave it out of this agent's input (a handoff's input_filter can), "
                f"{_USE_RESPONSES}",
            )


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


def _message(item: Item, error: InputError) -> Message:
    role = message_role(item, error)
    message = {key: value for key, value in item.items() if _kept(key, value)}
    if role == "function":
        return message  # deprecated, and still taken by the API as it is
    if role == "assistant":
        return _assistant(message, error)
    content = content_parts(item, error)
    if role == "tool":
        required_text(item.get("tool_call_id"), "tool_call_id", error)
    if not isinstance(content, str):
        message["content"] = [
            _part(part, role, error.part(i, part)) for i, part in enumerate(content)
        ]
    return message


def _kept(key: str, value: Any) -> bool:
    """Whether a message's key goes to Chat Completions.

    Not one that says where the message came from, nor one set to None
    (`message.model_dump()` of a reply holds several); content always.
    """
    return key not in _DROPPED and (value is not None or key == "content")


_ASSISTANT_SAYS = ("content", "refusal", "audio", "function_call")
"""What an assistant message without tool calls must have one of, for Chat Completions."""


def _assistant(message: Message, error: InputError) -> Message:
    content = message.get("content")
    if isinstance(content, list):
        listed = part_list(content, error)
        parts = [_assistant_part(part, error.part(i, part)) for i, part in enumerate(listed)]
        texts = [part["text"] for part in parts if part["type"] == "text"]
        if any(part["type"] == "output_text" for part in listed) and len(texts) == len(parts):
            message["content"] = "".join(texts)  # a Responses message's text, in pieces
        else:
            message["content"] = parts
    calls = tool_calls(message, error)
    if calls:
        message["tool_calls"] = list(calls)  # a copy: function calls after it may join it
    else:
        message.pop("tool_calls", None)  # the API refuses an empty list; none means the same
        if not any(message.get(key) is not None for key in _ASSISTANT_SAYS):
            raise error(
                "has no content, refusal or tool calls",
                "give it a 'content' text, or leave the message out",
            )
    return message


def _open_assistant(messages: list[Message]) -> Message:
    """The assistant message tool calls join: the last one, unless another message followed."""
    if not messages or messages[-1]["role"] != "assistant":
        messages.append({"role": "assistant", "content": None})
    last = messages[-1]
    last.setdefault("tool_calls", [])
    return last


def _tool_call(item: Item, error: InputError) -> dict[str, Any]:
    call_id = required_text(item.get("call_id"), "call_id", error)
    name = required_text(item.get("name"), "name", error)
    if item["type"] == "custom_tool_call":
        text = required_text(item.get("input"), "input", error)
        return {"id": call_id, "type": "custom", "custom": {"name": name, "input": text}}
    arguments = required_text(item.get("arguments"), "arguments", error)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _tool_message(item: Item, error: InputError) -> Message:
    call_id = required_text(item.get("call_id"), "call_id", error)
    output = item.get("output")
    if isinstance(output, list):
        parts = cast(list[Any], output)
        output = [_tool_output_part(part, index, error) for index, part in enumerate(parts)]
    elif not isinstance(output, str):
        found = "no 'output'" if output is None else f"an 'output' of type {type(output).__name__}"
        raise error(
            f"it has {found}", "Give 'output' as a string, or as a list of input_text parts"
        )
    return {"role": "tool", "tool_call_id": call_id, "content": output}


def _tool_output_part(part: Any, index: int, error: InputError) -> dict[str, Any]:
    kind = cast(dict[str, Any], part).get("type") if isinstance(part, dict) else None
    where = InputError(f"{error.where}.output[{index}]", f"a {kind!r} part", _API)
    if kind in TEXT_PART_TYPES:
        text_part = cast(dict[str, Any], part)
        text = required_text(text_part.get("text"), "text", where)
        return with_extras({"type": "text", "text": text}, text_part)
    if kind in ("input_image", "input_file"):  # a tool message holds text only: say what it is
        return {"type": "text", "text": part_text(cast(dict[str, Any], part))}
    raise where(
        "a Chat Completions tool message holds text parts only",
        "Give the tool's output as input_text, input_image or input_file parts",
    )


def _part(part: dict[str, Any], role: str, error: InputError) -> dict[str, Any]:
    """A user, system, developer or tool message's part, in Chat form."""
    kind = part["type"]
    if kind in ("text", "input_text"):
        return _text_part(part, error)
    if role != "user":
        raise error(
            f"Chat Completions {role} messages hold text parts only",
            f"Put images, files and audio in a user message, {_USE_RESPONSES}",
        )
    if kind in _CHAT_USER_PARTS:
        return part
    if kind == "input_image":
        return _image(part, error)
    if kind == "input_file":
        return _file(part, error)
    raise error(
        "the part type is unknown here",
        "Use text, image_url, input_audio or file (Responses: input_text, input_image, "
        "input_file); output_text and refusal parts belong to assistant messages",
    )


def _assistant_part(part: dict[str, Any], error: InputError) -> dict[str, Any]:
    kind = part["type"]
    if kind in TEXT_PART_TYPES:
        return _text_part(part, error)
    if kind == "refusal":
        return {"type": "refusal", "refusal": required_text(part.get("refusal"), "refusal", error)}
    raise error(
        "an assistant message holds text and refusal parts only",
        'Write text as {"type": "text", "text": "..."}',
    )


def _text_part(part: dict[str, Any], error: InputError) -> dict[str, Any]:
    if part["type"] == "text":
        return part
    text = required_text(part.get("text"), "text", error)
    return with_extras({"type": "text", "text": text}, part)


def _image(part: dict[str, Any], error: InputError) -> dict[str, Any]:
    url = part.get("image_url")
    if url is None:
        raise error(
            "Chat Completions takes images by URL or data URL, not by file id",
            f"Give 'image_url' (e.g. a data:image/png;base64,... URL), {_USE_RESPONSES}",
        )
    image: dict[str, Any] = {"url": required_text(url, "image_url", error)}
    if part.get("detail") is not None:
        image["detail"] = part["detail"]
    return with_extras({"type": "image_url", "image_url": image}, part)


def _file(part: dict[str, Any], error: InputError) -> dict[str, Any]:
    for key in ("file_url", "detail"):
        if part.get(key) not in (None, "auto"):
            raise error(
                f"Chat Completions file parts have no {key!r}",
                "Give the file by 'file_id', or as 'file_data' with a 'filename', "
                + _USE_RESPONSES,
            )
    file = {key: part[key] for key in _FILE_KEYS if part.get(key) is not None}
    return with_extras({"type": "file", "file": file}, part)
