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

The messages, parts and tool calls built here are `TypedDict`s, so that building
one with a wrong key, or a value of the wrong type, is a type error. A message
the input gave in Chat form goes as it is (less the keys that say where it came
from), so a conversation's messages are of the open type `Message`. A value
carried over from the input without being read (an image's `detail`, a file's
data) is typed `object`: the API checks it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeAlias, TypedDict, cast

from typing_extensions import NotRequired

from ..core._items import Item, assistant_message, function_call
from ..tools._outputs import part_text
from ._converted import converted
from ._input import (
    METADATA_KEYS,
    TEXT_PART_TYPES,
    InputError,
    JsonObject,
    Role,
    as_item,
    content_parts,
    fields_of,
    from_another_provider,
    is_list,
    message_role,
    part_list,
    required_text,
    tool_calls,
    with_extras,
)

logger = logging.getLogger("tooluse.models")

__all__ = [
    "ChatAssistantMessage",
    "ChatCustomTool",
    "ChatCustomToolCall",
    "ChatFile",
    "ChatFilePart",
    "ChatFunction",
    "ChatFunctionToolCall",
    "ChatImagePart",
    "ChatImageURL",
    "ChatRefusalPart",
    "ChatSystemMessage",
    "ChatTextPart",
    "ChatToolCall",
    "ChatToolMessage",
    "Message",
    "items_to_messages",
    "message_to_items",
]

Message: TypeAlias = Mapping[str, Any]
"""One Chat Completions message: one of the shapes below, or one the input gave, as it is
(any JSON object, as `Item` is); read-only."""


class ChatTextPart(TypedDict):
    """A text part of a message."""

    type: Literal["text"]
    text: str


class ChatImageURL(TypedDict):
    """Where an image part's image is: a URL, or a `data:` URL."""

    url: str
    detail: NotRequired[object]
    """As the input gave it."""


class ChatImagePart(TypedDict):
    """An image in a user message."""

    type: Literal["image_url"]
    image_url: ChatImageURL


class ChatFile(TypedDict, total=False):
    """A file part's file: by id, or its data and name (each as the input gave it)."""

    file_id: object
    file_data: object
    filename: object


class ChatFilePart(TypedDict):
    """A file in a user message."""

    type: Literal["file"]
    file: ChatFile


class ChatRefusalPart(TypedDict):
    """The model's refusal, as a part of an assistant message."""

    type: Literal["refusal"]
    refusal: str


class ChatFunction(TypedDict):
    """The function a tool call calls, and its JSON arguments."""

    name: str
    arguments: str


class ChatFunctionToolCall(TypedDict):
    """A function tool call of an assistant message."""

    id: str
    type: Literal["function"]
    function: ChatFunction


class ChatCustomTool(TypedDict):
    """The custom tool a custom tool call calls, and its free-form input."""

    name: str
    input: str


class ChatCustomToolCall(TypedDict):
    """A custom tool call of an assistant message."""

    id: str
    type: Literal["custom"]
    custom: ChatCustomTool


ChatToolCall: TypeAlias = ChatFunctionToolCall | ChatCustomToolCall
"""A tool call of an assistant message."""


class ChatSystemMessage(TypedDict):
    """The system prompt."""

    role: Literal["system"]
    content: str


class ChatAssistantMessage(TypedDict):
    """An assistant message: function calls that follow one another, or a streamed reply."""

    role: Literal["assistant"]
    content: str | None
    tool_calls: list[ChatToolCall]


class ChatToolMessage(TypedDict):
    """A tool's output: a function call output's text, or its parts as text parts."""

    role: Literal["tool"]
    tool_call_id: str
    content: str | list[ChatTextPart]


_API = "Chat Completions"
_USE_RESPONSES = "or run this agent with OpenAIResponsesModel, which takes it as it is"
_CALLS = ("function_call", "custom_tool_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output")
# Keys of a message that say where it came from (`annotations`: a reply's citations).
_DROPPED = METADATA_KEYS | {"annotations"}
_CHAT_USER_PARTS = ("image_url", "input_audio", "file")
# The keys of an input_file part that a Chat file part has too.
_FILE_KEYS: tuple[Literal["file_id", "file_data", "filename"], ...] = (
    "file_id",
    "file_data",
    "filename",
)

_Calls: TypeAlias = list[ChatToolCall] | list[JsonObject]
"""The tool calls of an assistant message, which function calls join."""


def items_to_messages(
    instructions: str | None, items: Sequence[Item], memo: dict[object, object] | None = None
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
    messages = converted(memo, items_to_messages, _Messages).extend(given, _add_messages)
    if instructions:
        system: ChatSystemMessage = {"role": "system", "content": instructions}
        return [system, *messages]
    return list(messages)  # the kept list grows with the next request: the caller gets a copy


class _Messages(list[Message]):
    """The messages so far, and what each conversation item found (`Rewindable`)."""

    __slots__ = ("starts",)

    def __init__(self) -> None:
        super().__init__()
        self.starts: list[tuple[int, Message | None, int]] = []
        """For each item, before it: how many messages there were, the last one, and how
        many tool calls it had then (-1: it had no list of them)."""

    def rewind(self, index: int) -> None:
        """Undo what the conversation's items from `index` on added.

        The last message is put back as it was: a function call replaces it with a copy
        that has the call, or adds the call to the list of a message it opened.

        Args:
            index: The first item to undo.
        """
        count, last, calls = self.starts[index]
        del self[count:], self.starts[index:]
        if last is None:
            return
        if calls < 0:
            self[-1] = last
        else:  # a copy with its calls cut back: a request sent before keeps its own
            joined = cast("list[JsonObject]", last.get("tool_calls"))[:calls]
            self[-1] = cast(Message, {**last, "tool_calls": joined})


def _add_messages(messages: _Messages, items: list[Item], first: int) -> None:
    """Add the messages for `items[first:]`, the ones before having made `messages`."""
    calls: _Calls | None = None  # those the next function call joins, once one opened them
    starts = messages.starts
    for index in range(first, len(items)):
        last = messages[-1] if messages else None
        joined: object = last.get("tool_calls") if last is not None else None
        calls_before = len(cast("list[object]", joined)) if isinstance(joined, list) else -1
        starts.append((len(messages), last, calls_before))
        item = as_item(index, items[index], _API)
        kind = item.get("type") or "message"
        error = InputError.of_item(index, item, _API)
        if kind == "message":
            messages.append(_message(item, error))
            calls = None
        elif kind in _CALLS:
            if calls is None:
                calls = _open_assistant(messages)
            calls.append(_tool_call(item, error))
        elif kind in _OUTPUTS:
            messages.append(_tool_message(item, error))
            calls = None
        elif from_another_provider(item):  # Claude's thinking, Gemini's thought signatures
            logger.debug("input[%d] (%s) came from another provider: left out", index, kind)
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
    for call in message.get("tool_calls") or ():
        function = call["function"]
        items.append(function_call(call["id"], function["name"], function.get("arguments") or ""))
    return items


def _message(item: Item, error: InputError) -> Message:
    role = message_role(item, error)
    message: dict[str, object] = {key: value for key, value in item.items() if _kept(key, value)}
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


def _kept(key: str, value: object) -> bool:
    """Whether a message's key goes to Chat Completions.

    Not one that says where the message came from, nor one set to None
    (`message.model_dump()` of a reply holds several); content always.
    """
    return key not in _DROPPED and (value is not None or key == "content")


_ASSISTANT_SAYS = ("content", "refusal", "audio", "function_call")
"""What an assistant message without tool calls must have one of, for Chat Completions."""


def _assistant(message: dict[str, object], error: InputError) -> Message:
    content = message.get("content")
    if is_list(content):
        listed = part_list(content, error)
        parts: list[JsonObject] = [
            _assistant_part(part, error.part(i, part)) for i, part in enumerate(listed)
        ]
        text = _joined_text(parts) if any(p["type"] == "output_text" for p in listed) else None
        message["content"] = parts if text is None else text  # text in pieces, as one
    if not tool_calls(message, error):
        message.pop("tool_calls", None)  # the API refuses an empty list; none means the same
        if not any(message.get(key) is not None for key in _ASSISTANT_SAYS):
            raise error(
                "has no content, refusal or tool calls",
                "give it a 'content' text, or leave the message out",
            )
    return message


def _joined_text(parts: list[JsonObject]) -> str | None:
    """The text of the parts, if every one is a text part."""
    texts: list[str] = []
    for part in parts:
        text = part.get("text")
        if part["type"] != "text" or not isinstance(text, str):
            return None
        texts.append(text)
    return "".join(texts)


def _open_assistant(messages: list[Message]) -> _Calls:
    """The tool calls of the assistant message function calls join.

    The last message's, if it is an assistant's, in a copy of it: the message an earlier
    request sent stays as it was. Otherwise those of a new message.
    """
    last = messages[-1] if messages else None
    if last is not None and last["role"] == "assistant":
        joined: list[JsonObject] = [*last.get("tool_calls", ())]
        messages[-1] = {**last, "tool_calls": joined}
        return joined
    calls: list[ChatToolCall] = []
    opened: ChatAssistantMessage = {"role": "assistant", "content": None, "tool_calls": calls}
    messages.append(opened)
    return calls


def _tool_call(item: Item, error: InputError) -> ChatToolCall:
    call_id = required_text(item.get("call_id"), "call_id", error)
    name = required_text(item.get("name"), "name", error)
    if item["type"] == "custom_tool_call":
        text = required_text(item.get("input"), "input", error)
        return {"id": call_id, "type": "custom", "custom": {"name": name, "input": text}}
    arguments = required_text(item.get("arguments"), "arguments", error)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _tool_message(item: Item, error: InputError) -> ChatToolMessage:
    call_id = required_text(item.get("call_id"), "call_id", error)
    output: object = item.get("output")
    if isinstance(output, str):
        content: str | list[ChatTextPart] = output
    elif is_list(output):
        content = [_tool_output_part(part, index, error) for index, part in enumerate(output)]
    else:
        found = "no 'output'" if output is None else f"an 'output' of type {type(output).__name__}"
        raise error(
            f"it has {found}", "Give 'output' as a string, or as a list of input_text parts"
        )
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def _tool_output_part(part: object, index: int, error: InputError) -> ChatTextPart:
    fields = fields_of(part)
    kind = fields.get("type")
    where = InputError(f"{error.where}.output[{index}]", f"a {kind!r} part", _API)
    if kind in TEXT_PART_TYPES:
        text = required_text(fields.get("text"), "text", where)
        converted: ChatTextPart = {"type": "text", "text": text}
        return with_extras(converted, fields)
    if kind in ("input_image", "input_file"):  # a tool message holds text only: say what it is
        return {"type": "text", "text": part_text(fields)}
    raise where(
        "a Chat Completions tool message holds text parts only",
        "Give the tool's output as input_text, input_image or input_file parts",
    )


def _part(
    part: JsonObject, role: Role, error: InputError
) -> ChatTextPart | ChatImagePart | ChatFilePart | JsonObject:
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


def _assistant_part(
    part: JsonObject, error: InputError
) -> ChatTextPart | ChatRefusalPart | JsonObject:
    kind = part["type"]
    if kind in TEXT_PART_TYPES:
        return _text_part(part, error)
    if kind == "refusal":
        return {"type": "refusal", "refusal": required_text(part.get("refusal"), "refusal", error)}
    raise error(
        "an assistant message holds text and refusal parts only",
        'Write text as {"type": "text", "text": "..."}',
    )


def _text_part(part: JsonObject, error: InputError) -> ChatTextPart | JsonObject:
    if part["type"] == "text":
        return part  # in Chat form already
    converted: ChatTextPart = {
        "type": "text",
        "text": required_text(part.get("text"), "text", error),
    }
    return with_extras(converted, part)


def _image(part: JsonObject, error: InputError) -> ChatImagePart:
    url = part.get("image_url")
    if url is None:
        raise error(
            "Chat Completions takes images by URL or data URL, not by file id",
            f"Give 'image_url' (e.g. a data:image/png;base64,... URL), {_USE_RESPONSES}",
        )
    image: ChatImageURL = {"url": required_text(url, "image_url", error)}
    detail = part.get("detail")
    if detail is not None:
        image["detail"] = detail
    converted: ChatImagePart = {"type": "image_url", "image_url": image}
    return with_extras(converted, part)


def _file(part: JsonObject, error: InputError) -> ChatFilePart:
    for key in ("file_url", "detail"):
        if part.get(key) not in (None, "auto"):
            raise error(
                f"Chat Completions file parts have no {key!r}",
                "Give the file by 'file_id', or as 'file_data' with a 'filename', "
                + _USE_RESPONSES,
            )
    file: ChatFile = {}
    for key in _FILE_KEYS:
        value = part.get(key)
        if value is not None:
            file[key] = value
    converted: ChatFilePart = {"type": "file", "file": file}
    return with_extras(converted, part)
