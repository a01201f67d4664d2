"""The Responses items and parts tooluse builds that `core/_items.py` has no shape for.

`responses_input` builds these from Chat Completions messages, beside the shapes
of `core/_items.py` (`FunctionCallItem`, `InputText`, `OutputText`, ...): a custom
tool call and its output, a refusal part, and an image part whose `detail` the
input gave.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from ..core._items import InputPart

__all__ = ["CustomToolCallItem", "CustomToolCallOutputItem", "ImageFromChat", "RefusalPart"]


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
