"""Rich tool outputs: text, images and files a tool returns for the model to see.

A tool that returns a `ToolOutputText`, `ToolOutputImage` or
`ToolOutputFileContent` (or a list of them, or their dict forms
`{"type": "image", ...}`) is answered with a list of the Responses API's input
parts (`input_text`, `input_image`, `input_file`) in place of one string.
Where only text fits (a Chat Completions tool message, hooks, traces), each
image or file part is a short line saying what it is (`part_text`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Literal, TypeAlias, TypedDict, cast

from typing_extensions import NotRequired

from ..core._items import InputFile, InputImage, InputPart, InputText, Item, valid_text
from ..exceptions import UserError

__all__ = [
    "ToolOutput",
    "ToolOutputFileContent",
    "ToolOutputFileContentDict",
    "ToolOutputImage",
    "ToolOutputImageDict",
    "ToolOutputText",
    "ToolOutputTextDict",
    "part_text",
    "parts_text",
    "rich_parts",
]


@dataclass(frozen=True, kw_only=True)
class ToolOutputText:
    """Text, as one part of a tool's output.

    Example:
        `return [ToolOutputText(text="The chart:"), ToolOutputImage(image_url=url)]`
    """

    text: str
    """The text the model receives."""
    type: Literal["text"] = field(default="text", init=False)
    """Always "text"."""

    def to_part(self) -> InputText:
        """The Responses input part: `{"type": "input_text", "text": ...}`."""
        return {"type": "input_text", "text": valid_text(self.text)}


@dataclass(frozen=True, kw_only=True)
class ToolOutputImage:
    """An image the model is shown: by URL (a `data:` URL for bytes you hold) or file id.

    Example:
        `return ToolOutputImage(image_url=f"data:image/png;base64,{encoded}")`
    """

    image_url: str | None = None
    """An `https:` URL, or a `data:<mime>;base64,<data>` URL."""
    file_id: str | None = None
    """The id of a file uploaded to the provider."""
    detail: Literal["low", "high", "auto"] | None = None
    """How closely the model looks; None for the API's default."""
    type: Literal["image"] = field(default="image", init=False)
    """Always "image"."""

    def __post_init__(self) -> None:
        if not self.image_url and not self.file_id:
            raise UserError("ToolOutputImage needs an image_url or a file_id")

    def to_part(self) -> InputImage:
        """The Responses input part: `{"type": "input_image", ...}`."""
        part: InputImage = {"type": "input_image"}
        if self.image_url is not None:
            part["image_url"] = self.image_url
        if self.file_id is not None:
            part["file_id"] = self.file_id
        if self.detail is not None:
            part["detail"] = self.detail
        return part


@dataclass(frozen=True, kw_only=True)
class ToolOutputFileContent:
    """A file the model reads (a PDF, a text file, ...): its data, its URL or its file id.

    Example:
        `return ToolOutputFileContent(file_data=f"data:application/pdf;base64,{encoded}",
        filename="report.pdf")`
    """

    file_data: str | None = None
    """The file's content, as a `data:<mime>;base64,<data>` URL."""
    file_url: str | None = None
    """A URL the provider fetches the file from."""
    file_id: str | None = None
    """The id of a file uploaded to the provider."""
    filename: str | None = None
    """The file's name, as the model is told it."""
    type: Literal["file"] = field(default="file", init=False)
    """Always "file"."""

    def __post_init__(self) -> None:
        if not self.file_data and not self.file_url and not self.file_id:
            raise UserError("ToolOutputFileContent needs a file_data, a file_url or a file_id")

    def to_part(self) -> InputFile:
        """The Responses input part: `{"type": "input_file", ...}`."""
        part: InputFile = {"type": "input_file"}
        if self.file_data is not None:
            part["file_data"] = self.file_data
        if self.file_url is not None:
            part["file_url"] = self.file_url
        if self.file_id is not None:
            part["file_id"] = self.file_id
        if self.filename is not None:
            part["filename"] = self.filename
        return part


ToolOutput: TypeAlias = ToolOutputText | ToolOutputImage | ToolOutputFileContent
"""One part of a rich tool output."""

_RICH = (ToolOutputText, ToolOutputImage, ToolOutputFileContent)
_BY_KIND: dict[str, type[ToolOutput]] = {kind.type: kind for kind in _RICH}
_FIELDS = {kind: frozenset(f.name for f in fields(kind)) for kind in _RICH}


def rich_parts(value: Any) -> list[InputPart] | None:
    """The Responses input parts a tool's return value stands for, if it is a rich output.

    Args:
        value: What a tool returned.

    Returns:
        One part per output for a `ToolOutput`, a list of them, or their dict forms
        (`{"type": "image", "image_url": ...}`, with no other keys); None for anything else.
    """
    one = _rich(value)
    if one is not None:
        return [one.to_part()]
    if type(value) is list and value and _rich(value[0]) is not None:
        items = cast(list[Any], value)
        rich = [_rich(item) for item in items]
        if all(item is not None for item in rich):
            return [cast(ToolOutput, item).to_part() for item in rich]
    return None


def _rich(value: Any) -> ToolOutput | None:
    if isinstance(value, _RICH):
        return value
    if type(value) is not dict:
        return None
    given = cast(dict[str, Any], value)
    kind = _BY_KIND.get(given.get("type"))  # type: ignore[arg-type]  # any value may come
    if kind is None or not given.keys() <= _FIELDS[kind]:
        return None
    try:
        return kind(**{key: item for key, item in given.items() if key != "type"})
    except (UserError, TypeError):
        return None  # not a complete output (no source): an ordinary dict


def parts_text(parts: Sequence[Item]) -> str:
    """Input parts as text: text as it is, an image or a file as a line saying what it is.

    Args:
        parts: `input_text`, `input_image` and `input_file` parts.

    Returns:
        One line (or text) per part.
    """
    return "\n".join(part_text(part) for part in parts)


def part_text(part: Item) -> str:
    """One input part as text: `[image: image/png, 1234 bytes]`, `[file: report.pdf]`, ...

    Args:
        part: An `input_text` (or `text`), `input_image` or `input_file` part.

    Returns:
        The text, or a short description that holds no data.
    """
    kind = part.get("type")
    if kind in ("input_text", "text", "output_text"):
        return str(part.get("text", ""))
    if kind == "input_image":
        return f"[image: {_source(part.get('image_url'), part.get('file_id'))}]"
    if kind == "input_file":
        name = part.get("filename")
        source = _source(part.get("file_data") or part.get("file_url"), part.get("file_id"))
        return f"[file: {name}]" if name else f"[file: {source}]"
    return f"[{kind or 'unknown'} part]"


def _source(url: Any, file_id: Any) -> str:
    if isinstance(url, str) and url.startswith("data:"):
        header, _, data = url.partition(",")
        mime = header[5:].split(";")[0] or "data"
        size = len(data) * 3 // 4 if header.endswith(";base64") else len(data)
        return f"{mime}, {size} bytes"
    if isinstance(url, str) and url:
        return url if len(url) <= 200 else url[:200] + "..."
    return f"file {file_id}" if file_id else "no source"


class ToolOutputTextDict(TypedDict):
    """`ToolOutputText` as a dict, for a tool to return: `{"type": "text", "text": ...}`."""

    type: Literal["text"]
    text: str


class ToolOutputImageDict(TypedDict):
    """`ToolOutputImage` as a dict: `{"type": "image", "image_url": ...}` (or `file_id`)."""

    type: Literal["image"]
    image_url: NotRequired[str]
    file_id: NotRequired[str]
    detail: NotRequired[Literal["low", "high", "auto"]]


class ToolOutputFileContentDict(TypedDict):
    """`ToolOutputFileContent` as a dict: `{"type": "file", "file_data": ...}` (or a URL, an id)."""

    type: Literal["file"]
    file_data: NotRequired[str]
    file_url: NotRequired[str]
    file_id: NotRequired[str]
    filename: NotRequired[str]
