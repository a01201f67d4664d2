"""The conversation as Gemini `contents`, and a reply's parts back into items.

The run's items become `generateContent`'s `system_instruction` and `contents`:

- system and developer messages join the system instruction, after the instructions;
- user messages become `user` contents: text, images and files (a `data:` URL as
  `inline_data`, a URL as `file_data`);
- assistant messages and function calls become `model` contents of text and
  `function_call` parts (the arguments' JSON as `args`);
- function call outputs become `function_response` parts of the `user` content after
  them, named after their call (Gemini answers a call by its name); an image or file
  in a tool's output is described in words (`[image: image/png, 1234 bytes]`);
- a `reasoning` item that came from Gemini (its `provider_data` says `gemini`) holds
  a thought signature, which goes back on the part that followed it, as sent.

Consecutive items of one role make one content. Gemini's calls may come without an
id: the model names them `gemini_call_<random>` and sends no id back for those. What has
no Gemini form (another provider's reasoning, hosted tool calls) is left out with a
debug log; what cannot be read at all is refused with a `UserError` naming `input[i]`.

Each request converts only the items new since the run's last request (`_converted.py`).
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeAlias, TypedDict

from ..core._factories import new_dict, new_list
from ..core._items import Item, assistant_message, function_call
from ..tools._outputs import part_text
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
)

__all__ = [
    "GEMINI",
    "GENERATED_ID",
    "Content",
    "GeminiConversation",
    "Part",
    "signature_item",
    "to_contents",
]

logger = logging.getLogger("tooluse.models")

GEMINI = "gemini"
"""The `provider` of the `provider_data` on items only Gemini reads back (thought signatures)."""
GENERATED_ID = "gemini_call_"
"""The start of the call ids tooluse made for calls Gemini sent without one."""
_API = "Gemini"

Part: TypeAlias = dict[str, object]
"""One part of a content, as the SDK takes it (`{"text": ...}`, `{"function_call": ...}`)."""


class Content(TypedDict):
    """One turn of the conversation."""

    role: Literal["user", "model"]
    parts: list[Part]


@dataclass
class GeminiConversation:
    """What a conversation became: the system instruction's parts, and the contents."""

    system: list[str] = field(default_factory=new_list)
    contents: list[Content] = field(default_factory=new_list)
    names: dict[str, str] = field(default_factory=new_dict)
    """Each call's tool name, by call id: a function response names its function."""
    signature: bytes | None = None
    """A thought signature waiting for the next model part."""
    named: list[tuple[str, str | None]] = field(default_factory=new_list, compare=False, repr=False)
    """Each call id `names` was given, with the name it had before (None: none), in order."""
    starts: list[tuple[int, int, Content | None, bytes | None, int]] = field(
        default_factory=new_list,
        compare=False,
        repr=False,
    )
    """What each conversation item found: the system texts, the contents, the last content
    (which the item may replace by a longer copy of it), the signature waiting and the
    names given, for `rewind`."""

    def name(self, call_id: str, name: str) -> None:
        """Note the tool a call calls, so that `rewind` can take it back.

        Args:
            call_id: The call's id.
            name: The tool's name.
        """
        self.named.append((call_id, self.names.get(call_id)))
        self.names[call_id] = name

    def rewind(self, index: int) -> None:
        """Undo what the conversation's items from `index` on added (`Rewindable`).

        Args:
            index: The first item to undo.
        """
        system, contents, last, self.signature, named = self.starts[index]
        del self.system[system:], self.contents[contents:], self.starts[index:]
        if last is not None:
            self.contents[-1] = last
        while len(self.named) > named:  # newest first: a call id named twice gets its first
            call_id, before = self.named.pop()
            if before is None:
                del self.names[call_id]
            else:
                self.names[call_id] = before


def to_contents(items: Sequence[Item], memo: dict[object, object] | None) -> GeminiConversation:
    """The system texts and contents for a conversation.

    Args:
        items: The conversation, in either OpenAI API's form.
        memo: The run's memo: only the items new since its last request are converted.

    Returns:
        The conversation; the caller must not change it (the next request extends it).

    Raises:
        UserError: For an item that cannot be read.
    """
    given = items if isinstance(items, list) else list(items)
    return converted(memo, to_contents, GeminiConversation).extend(given, _add)


def _add(state: GeminiConversation, items: list[Item], first: int) -> None:
    system, contents, starts = state.system, state.contents, state.starts
    for index in range(first, len(items)):
        last = contents[-1] if contents else None
        starts.append((len(system), len(contents), last, state.signature, len(state.named)))
        item = as_item(index, items[index], _API)
        kind = item.get("type") or "message"
        error = InputError(f"input[{index}]", describe(item), _API)
        if kind == "message":
            _message(state, item, error)
        elif kind == "function_call":
            call_id = required_text(item.get("call_id"), "call_id", error)
            name = required_text(item.get("name"), "name", error)
            arguments = required_text(item.get("arguments"), "arguments", error)
            state.name(call_id, name)
            _append(state, "model", [_call_part(call_id, name, arguments)])
        elif kind == "function_call_output":
            call_id = required_text(item.get("call_id"), "call_id", error)
            _append(state, "user", [_response_part(state, call_id, item, error)])
        elif kind == "reasoning" and _is_geminis(item):
            state.signature = _signature(item)
        else:
            logger.debug("input[%d] (%s) has no Gemini form: left out", index, describe(item))


def _append(state: GeminiConversation, role: Literal["user", "model"], parts: list[Part]) -> None:
    if not parts:
        return
    if role == "model" and state.signature is not None:
        parts[0] = {**parts[0], "thought_signature": state.signature}
    state.signature = None
    contents = state.contents
    if contents and contents[-1]["role"] == role:
        contents[-1] = {"role": role, "parts": [*contents[-1]["parts"], *parts]}
    else:
        contents.append({"role": role, "parts": parts})


def _message(state: GeminiConversation, item: Item, error: InputError) -> None:
    role = message_role(item, error)
    if role in ("system", "developer"):
        content = content_parts(item, error)
        if isinstance(content, str):
            state.system.append(content)
        else:
            state.system.append("".join(str(p.get("text", "")) for p in content))
    elif role == "assistant":
        parts = _parts(item, error)
        for call in item.get("tool_calls") or ():
            function = fields_of(fields_of(call).get("function"))
            call_id = required_text(fields_of(call).get("id"), "id", error)
            name = required_text(function.get("name"), "name", error)
            state.name(call_id, name)
            parts.append(_call_part(call_id, name, str(function.get("arguments") or "{}")))
        _append(state, "model", parts)
    elif role == "tool":
        call_id = required_text(item.get("tool_call_id"), "tool_call_id", error)
        _append(state, "user", [_response_part(state, call_id, item, error)])
    elif role == "user":
        _append(state, "user", _parts(item, error))
    else:
        logger.debug("%s (%s) has no Gemini form: left out", error.where, error.what)


def _parts(item: Item, error: InputError) -> list[Part]:
    if item.get("content") is None and item.get("role") == "assistant":
        return []
    content = content_parts(item, error)
    if isinstance(content, str):
        return [{"text": content}] if content else []
    parts: list[Part] = []
    for index, part in enumerate(content):
        converted = _part(part, error.part(index, part))
        if converted is not None:
            parts.append(converted)
    return parts


def _part(part: JsonObject, error: InputError) -> Part | None:
    kind = part["type"]
    if kind in TEXT_PART_TYPES or kind == "refusal":
        text = part.get("text", part.get("refusal"))
        return {"text": text} if isinstance(text, str) and text else None
    if kind in ("input_image", "image_url"):
        url: object = part.get("image_url")
        if is_object(url):
            url = url.get("url")
        return _media(url, "image/png", error)
    if kind == "input_file":
        return _media(part.get("file_data") or part.get("file_url"), "application/pdf", error)
    logger.debug("%s (%s) has no Gemini form: left out", error.where, error.what)
    return None


def _media(url: object, default_type: str, error: InputError) -> Part:
    if not isinstance(url, str):
        raise error(
            "Gemini takes images and files as a data: URL or a URL, not by an OpenAI file id",
            "Give 'image_url' or 'file_data' as data:...;base64,..., or a URL",
        )
    if url.startswith(("http://", "https://", "gs://")):
        return {"file_data": {"file_uri": url, "mime_type": default_type}}
    mime_type, data = default_type, url
    if url.startswith("data:"):
        header, _, data = url.partition(",")
        mime_type = header[5:].split(";", 1)[0] or default_type
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise error("its data is not base64", "Give the data base64-encoded") from None
    return {"inline_data": {"mime_type": mime_type, "data": raw}}


def _arguments(text: str) -> dict[str, object]:
    try:
        value: object = json.loads(text) if text else {}
    except ValueError:
        return {}
    return dict(value) if is_object(value) else {}


def _call_part(call_id: str, name: str, arguments: str) -> Part:
    call: dict[str, object] = {"name": name, "args": _arguments(arguments)}
    if not call_id.startswith(GENERATED_ID):
        call["id"] = call_id
    return {"function_call": call}


def _response_part(state: GeminiConversation, call_id: str, item: Item, error: InputError) -> Part:
    output: object = item.get("output", item.get("content"))
    if is_list(output):
        output = "\n".join(part_text(fields_of(part)) for part in output)
    if not isinstance(output, str):
        raise error("it has no 'output' text", "Give 'output' as a string, or a list of parts")
    name = state.names.get(call_id)
    if name is None:
        raise error(
            f"it answers a call {call_id!r} that is not in the conversation",
            "Keep each function call in the input with its output (Gemini names the "
            "function a response answers)",
        )
    key = "error" if item.get("is_error") is True else "output"
    response: dict[str, object] = {"name": name, "response": {key: output}}
    if not call_id.startswith(GENERATED_ID):
        response["id"] = call_id
    return {"function_response": response}


def _is_geminis(item: Item) -> bool:
    data: object = item.get("provider_data")
    return is_object(data) and data.get("provider") == GEMINI


def _signature(item: Item) -> bytes | None:
    text = fields_of(item.get("provider_data")).get("thought_signature")
    return base64.b64decode(text) if isinstance(text, str) else None


def signature_item(signature: bytes, thought: str = "") -> Item:
    """A thought signature as a `reasoning` item, kept to be sent back on the next part.

    Args:
        signature: The part's `thought_signature`.
        thought: The thought summary the model showed, if any.

    Returns:
        A Responses-shaped `reasoning` item whose `provider_data` holds the signature.
    """
    content = [{"type": "reasoning_text", "text": thought}] if thought else []
    data = {"provider": GEMINI, "thought_signature": base64.b64encode(signature).decode()}
    return {"type": "reasoning", "summary": [], "content": content, "provider_data": data}


@dataclass
class ReplyPart:
    """One part of a reply, read from the SDK's object."""

    text: str | None = None
    thought: bool = False
    name: str | None = None
    """A function call's name."""
    arguments: str = "{}"
    call_id: str | None = None
    signature: bytes | None = None


def reply_items(parts: Sequence[ReplyPart]) -> list[Item]:
    """The items for a reply's parts, in their order.

    Args:
        parts: The reply's parts.

    Returns:
        Assistant messages, function calls, and a reasoning item before each part that
        carried a thought signature.
    """
    items: list[Item] = []
    thoughts: list[str] = []
    for part in parts:
        if part.thought:
            thoughts.append(part.text or "")
            if part.signature is None:
                continue
        if part.signature is not None:
            items.append(signature_item(part.signature, "".join(thoughts)))
            thoughts = []
        if part.name is not None:
            call_id = part.call_id
            if not call_id:  # unique in the run: a response is matched to its call by id
                call_id = f"{GENERATED_ID}{uuid.uuid4().hex[:16]}"
            items.append(function_call(call_id, part.name, part.arguments))
        elif part.text and not part.thought:
            items.append(assistant_message(part.text))
    return items
