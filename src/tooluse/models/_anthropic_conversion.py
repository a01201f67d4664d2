"""The conversation as Anthropic Messages, and a reply's content blocks back into items.

The run's items (Responses shapes, or Chat messages a user wrote) become the
Messages API's `system` and `messages`:

- system and developer messages join the system prompt, after the instructions;
- user messages become `user` messages: text, images (a `data:` URL as base64, an
  `https` URL as a URL source) and PDF files (`input_file`) as document blocks;
- assistant messages and function calls become one `assistant` message of text and
  `tool_use` blocks (the arguments' JSON as the block's `input`);
- function call outputs become `tool_result` blocks of the `user` message after it
  (text, images and documents: Anthropic's tool results can hold them);
- a `reasoning` item that came from Claude (its `provider_data` says `anthropic`)
  becomes its `thinking` (or `redacted_thinking`) block again, the signature as it was
  sent, so that a thinking model's tool use goes on where it stopped.

Consecutive items of one role make one message, as the API wants roles to
alternate. What has no Messages form (another provider's reasoning, hosted tool
calls of the Responses API, item references) is left out with a debug log, never
an error: a conversation handed over from an OpenAI agent goes on. What cannot be
read at all (an item that is not a dict, a message without a role, an image given
by an OpenAI file id) is refused with a `UserError` naming `input[i]`.

Each request converts only the items new since the run's last request (`_converted.py`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeAlias, TypedDict

from ..core._factories import new_list
from ..core._items import Item, assistant_message, function_call
from ._anthropic_compaction import compaction_block
from ._converted import converted
from ._input import (
    TEXT_PART_TYPES,
    InputError,
    JsonObject,
    as_item,
    content_parts,
    describe,
    fields_of,
    is_list,
    is_object,
    message_role,
    required_text,
    tool_calls,
)

__all__ = [
    "ANTHROPIC",
    "AnthropicMessage",
    "Block",
    "Conversation",
    "ReplyBlock",
    "reply_items",
    "thinking_item",
    "to_messages",
]

logger = logging.getLogger("tooluse.models")

ANTHROPIC = "anthropic"
"""The `provider` of the `provider_data` on items only Claude can read back (thinking)."""
_API = "Anthropic Messages"

Block: TypeAlias = dict[str, object]
"""One content block of a message, as the API's JSON: `{"type": "text", "text": ...}`."""


class AnthropicMessage(TypedDict):
    """One message of the Messages API."""

    role: Literal["user", "assistant"]
    content: list[Block]


@dataclass
class Conversation:
    """What a conversation became: the system prompt's parts, and the messages."""

    system: list[str] = field(default_factory=new_list)
    """The texts of the system and developer messages, in order."""
    messages: list[AnthropicMessage] = field(default_factory=new_list)
    starts: list[tuple[int, int, AnthropicMessage | None]] = field(
        default_factory=new_list, compare=False, repr=False
    )
    """What each conversation item found: the system texts, the messages, and the last
    message (which the item may replace by a longer copy of it), for `rewind`."""

    def rewind(self, index: int) -> None:
        """Undo what the conversation's items from `index` on added (`Rewindable`).

        Args:
            index: The first item to undo.
        """
        system, messages, last = self.starts[index]
        del self.system[system:], self.messages[messages:], self.starts[index:]
        if last is not None:
            self.messages[-1] = last


def to_messages(items: Sequence[Item], memo: dict[object, object] | None) -> Conversation:
    """The Messages API's system texts and messages for a conversation.

    Args:
        items: The conversation, in either OpenAI API's form.
        memo: The run's memo: only the items new since its last request are converted.

    Returns:
        The conversation; the caller must not change it (the next request extends it).

    Raises:
        UserError: For an item that cannot be read.
    """
    given = items if isinstance(items, list) else list(items)
    return converted(memo, to_messages, Conversation).extend(given, _add)


def _add(state: Conversation, items: list[Item], first: int) -> None:
    system, messages, starts = state.system, state.messages, state.starts
    for index in range(first, len(items)):
        starts.append((len(system), len(messages), messages[-1] if messages else None))
        item = as_item(index, items[index], _API)
        kind = item.get("type") or "message"
        error = InputError.of_item(index, item, _API)
        if kind == "message":
            _message(state, item, error)
        elif kind == "function_call":
            _append(state, "assistant", [_tool_use(item, error)])
        elif kind == "function_call_output":
            output = item.get("output")
            call_id = required_text(item.get("call_id"), "call_id", error)
            _append(state, "user", [_tool_result(call_id, output, item, error)])
        elif kind == "reasoning" and _is_claudes(item):
            _append(state, "assistant", [_thinking_block(item)])
        elif kind == "compaction" and _is_claudes(item):  # the API's own compaction
            _append(state, "assistant", [compaction_block(item)])
        else:
            logger.debug("input[%d] (%s) has no Anthropic form: left out", index, describe(item))


def _append(state: Conversation, role: Literal["user", "assistant"], blocks: list[Block]) -> None:
    """Add blocks to the last message if it has this role (in a copy of it), else a new one."""
    if not blocks:
        return
    messages = state.messages
    if messages and messages[-1]["role"] == role:
        messages[-1] = {"role": role, "content": [*messages[-1]["content"], *blocks]}
    else:
        messages.append({"role": role, "content": blocks})


def _message(state: Conversation, item: Item, error: InputError) -> None:
    role = message_role(item, error)
    if role in ("system", "developer"):
        state.system.append(_plain_text(item, error))
    elif role == "assistant":
        blocks = _blocks(item, error)
        blocks.extend(_chat_tool_use(call, error) for call in tool_calls(item, error))
        _append(state, "assistant", blocks)
    elif role == "tool":  # a Chat tool message
        call_id = required_text(item.get("tool_call_id"), "tool_call_id", error)
        _append(state, "user", [_tool_result(call_id, item.get("content"), item, error)])
    elif role == "user":
        _append(state, "user", _blocks(item, error))
    else:  # the deprecated Chat `function` role: nothing in the Messages API answers it
        logger.debug("%s (%s) has no Anthropic form: left out", error.where, error.what)


def _plain_text(item: Item, error: InputError) -> str:
    content = content_parts(item, error)
    if isinstance(content, str):
        return content
    return "".join(str(part.get("text", "")) for part in content if part["type"] in TEXT_PART_TYPES)


def _blocks(item: Item, error: InputError) -> list[Block]:
    content = item.get("content")
    if content is None and item.get("role") == "assistant":
        return []  # a Chat assistant message of tool calls only
    parts = content_parts(item, error)
    if isinstance(parts, str):
        return [{"type": "text", "text": parts}] if parts else []
    blocks: list[Block] = []
    for index, part in enumerate(parts):
        block = _part(part, error.part(index, part))
        if block is not None:
            blocks.append(block)
    return blocks


def _part(part: JsonObject, error: InputError) -> Block | None:
    kind = part["type"]
    if kind in TEXT_PART_TYPES or kind == "refusal":
        text = part.get("text", part.get("refusal"))
        return {"type": "text", "text": text} if isinstance(text, str) and text else None
    if kind in ("input_image", "image_url"):
        return _image(part, error)
    if kind in ("input_file", "file"):
        return _document(fields_of(part.get("file")) if kind == "file" else part, error)
    logger.debug("%s (%s) has no Anthropic form: left out", error.where, error.what)
    return None


def _image(part: JsonObject, error: InputError) -> Block:
    url: object = part.get("image_url")
    if is_object(url):  # Chat's {"url": ...}
        url = url.get("url")
    if not isinstance(url, str):
        raise error(
            "Anthropic takes images as a data: URL or an https URL, not by an OpenAI file id",
            "Give 'image_url' as data:image/png;base64,... or a URL",
        )
    return {"type": "image", "source": _source(url, "image/png")}


def _document(part: JsonObject, error: InputError) -> Block:
    data = part.get("file_data")
    url = part.get("file_url")
    if isinstance(data, str):
        return {"type": "document", "source": _source(data, "application/pdf")}
    if isinstance(url, str):
        return {"type": "document", "source": {"type": "url", "url": url}}
    raise error(
        "Anthropic takes a file as its data or a URL, not by an OpenAI file id",
        "Give 'file_data' (a data:application/pdf;base64,... URL) or 'file_url'",
    )


def _source(url: str, default_type: str) -> Block:
    """A base64 source for a `data:` URL (or bare base64 data), a URL source for a URL."""
    if url.startswith(("http://", "https://")):
        return {"type": "url", "url": url}
    media_type, data = default_type, url
    if url.startswith("data:"):
        header, _, data = url.partition(",")
        media_type = header[5:].split(";", 1)[0] or default_type
    return {"type": "base64", "media_type": media_type, "data": data}


def _arguments(text: str) -> object:
    """A call's arguments as the `input` object a `tool_use` block holds.

    Arguments that are not a JSON object (the model sent bad JSON, which the run
    answered with an error) go as an empty object: the API takes nothing else there.
    """
    try:
        value: object = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if is_object(value) else {}


def _tool_use(item: Item, error: InputError) -> Block:
    call_id = required_text(item.get("call_id"), "call_id", error)
    name = required_text(item.get("name"), "name", error)
    arguments = required_text(item.get("arguments"), "arguments", error)
    return {"type": "tool_use", "id": call_id, "name": name, "input": _arguments(arguments)}


def _chat_tool_use(call: JsonObject, error: InputError) -> Block:
    function = fields_of(call.get("function"))
    call_id = required_text(call.get("id"), "id", error)
    name = required_text(function.get("name"), "name", error)
    arguments = required_text(function.get("arguments"), "arguments", error)
    return {"type": "tool_use", "id": call_id, "name": name, "input": _arguments(arguments)}


def _tool_result(call_id: str, output: object, item: Item, error: InputError) -> Block:
    block: Block = {"type": "tool_result", "tool_use_id": call_id}
    if isinstance(output, str):
        block["content"] = output
    elif is_list(output):
        parts = [fields_of(part) for part in output]
        block["content"] = [
            converted
            for index, part in enumerate(parts)
            if part.get("type") is not None
            and (converted := _part(part, error.part(index, part))) is not None
        ]
    else:
        found = "no 'output'" if output is None else f"an 'output' of type {type(output).__name__}"
        raise error(f"it has {found}", "Give 'output' as a string, or as a list of input parts")
    if item.get("is_error") is True:
        block["is_error"] = True
    return block


def _is_claudes(item: Item) -> bool:
    data: object = item.get("provider_data")
    return is_object(data) and data.get("provider") == ANTHROPIC


def _thinking_block(item: Item) -> Block:
    data = fields_of(item.get("provider_data"))
    redacted = data.get("redacted_data")
    if isinstance(redacted, str):
        return {"type": "redacted_thinking", "data": redacted}
    parts: object = item.get("content")
    text = "".join(
        str(fields_of(part).get("text", "")) for part in (parts if is_list(parts) else ())
    )
    return {"type": "thinking", "thinking": text, "signature": data.get("signature", "")}


def thinking_item(thinking: str | None, signature: str | None, redacted: str | None) -> Item:
    """A Claude thinking block as a `reasoning` item, kept to be sent back unchanged.

    Args:
        thinking: The thinking's text (None for a redacted block).
        signature: Its signature.
        redacted: A redacted block's data.

    Returns:
        A Responses-shaped `reasoning` item whose `provider_data` holds what only Claude reads.
    """
    data: dict[str, object] = {"provider": ANTHROPIC}
    if redacted is not None:
        data["redacted_data"] = redacted
    else:
        data["signature"] = signature or ""
    content = [{"type": "reasoning_text", "text": thinking}] if thinking else []
    return {"type": "reasoning", "summary": [], "content": content, "provider_data": data}


@dataclass
class ReplyBlock:
    """One content block of a reply, read from the SDK's object or assembled from a stream."""

    type: str
    text: str = ""
    """A text block's text, or a thinking block's thinking."""
    id: str = ""
    name: str = ""
    arguments: str = ""
    """A tool_use block's input, as JSON text."""
    signature: str | None = None
    data: str | None = None
    """A redacted thinking block's data."""


def reply_items(blocks: Sequence[ReplyBlock]) -> list[Item]:
    """The items for a reply's content blocks, in their order.

    Args:
        blocks: The reply's blocks.

    Returns:
        Assistant messages (one per text block), function calls and reasoning items;
        blocks of other types (server tools) are left out with a debug log.
    """
    items: list[Item] = []
    for block in blocks:
        if block.type == "text":
            if block.text:
                items.append(assistant_message(block.text))
        elif block.type == "tool_use":
            items.append(function_call(block.id, block.name, block.arguments or "{}"))
        elif block.type == "thinking":
            items.append(thinking_item(block.text, block.signature, None))
        elif block.type == "redacted_thinking":
            items.append(thinking_item(None, None, block.data or ""))
        else:
            logger.debug("a %r block of Claude's reply has no item form: left out", block.type)
    return items
