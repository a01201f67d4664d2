"""The Chat Completions messages and parts tooluse builds, as `TypedDict`s.

`items_to_messages` builds these from Responses items, so that building one
with a wrong key, or a value of the wrong type, is a type error. A message the
input already gave in Chat form goes as it is (less the keys that say where it
came from), so a conversation's messages are of the open type `Message`. A value
carried over from the input without being read (an image's `detail`, a file's
data) is typed `object`: the API checks it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeAlias, TypedDict

from typing_extensions import NotRequired

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
