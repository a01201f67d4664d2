"""What the model is told of an MCP tool's result, and of a failed call.

Each content block is one output, as openai-agents gives it (`ToolOutputTextDict`
and the other output dicts; a run sends each as an input part, so that a single text
block is a one-part list, which the model reads as its text): a text block as text,
an image with a `data:` URL, an embedded file (a blob resource) as a file with its
`data:` URL; audio and resource links become one short line, an embedded text
resource its text. Chat Completions, whose tool messages hold text only, gets a line
saying what each image or file is. With the server's `use_structured_content`,
`structuredContent` is written as JSON in place of the text blocks (which servers
fill with the same data); without it, structured content is sent only when a
result has no content blocks.

An `isError` result is an `MCPToolError` holding the server's message; what the
model is told of it goes through the server's `failure_error_function`. By
default the message is hidden, as a function tool's exception is: a server may
repeat the arguments, or worse, in it. `server_error_message` passes it on,
for servers you trust.

Served the other way (`tooluse serve`), a tool's rich output goes to the MCP
client as MCP content: a `data:` image as an image block, a `data:` file as an
embedded blob resource, a URL as a resource link, a file id as a line of text.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any, TypeAlias, cast

import mcp_types as types
from mcp import MCPError

from ..core._context import RunContextWrapper, ToolContext
from ..tools._errors import default_tool_error_function
from ..tools._invocation import ToolErrorFunction
from ..tools._outputs import (
    ToolOutput,
    ToolOutputFileContent,
    ToolOutputFileContentDict,
    ToolOutputImage,
    ToolOutputImageDict,
    ToolOutputText,
    ToolOutputTextDict,
)

ToolOutputDict: TypeAlias = ToolOutputTextDict | ToolOutputImageDict | ToolOutputFileContentDict
"""What an MCP tool's direct call returns for a content block."""

__all__ = [
    "MCPToolError",
    "failure_text",
    "result_output",
    "served_content",
    "server_error_message",
]

_MAX_ERROR_CHARS = 2000


class MCPToolError(Exception):
    """An MCP tool answered with `isError`; set as the call's `ToolContext.error`.

    Its `message` is the server's own text, for the developer: the model is told it
    only through a `failure_error_function` that passes it on (`server_error_message`).
    """

    def __init__(self, tool_name: str, message: str) -> None:
        """An error result of `tool_name`, saying `message`.

        Args:
            tool_name: The tool's name as the model calls it.
            message: The server's text (its content blocks, one per line).
        """
        super().__init__(f"MCP tool {tool_name!r} returned an error result: {message}")
        self.tool_name = tool_name
        """The tool's name as the model calls it."""
        self.message = message
        """What the server said, as it said it."""


def result_output(
    result: types.CallToolResult, *, structured: bool = True
) -> str | ToolOutputDict | list[ToolOutputDict]:
    """What the model receives for a successful call.

    As openai-agents gives it: one output dict per content block (a text block as
    `{"type": "text", "text": ...}`), the dict alone for a single block; or, with
    `structured`, the structured content as JSON text. A run sends the model the
    outputs as input parts (a single text block as a one-part list).

    Args:
        result: What the server answered.
        structured: Send `structuredContent` as JSON in place of the text blocks; False
            sends the blocks, and structured content only when there are none.

    Returns:
        The output of a single block; a list of them, one per block; or one string:
        the structured content as JSON (with a line for each block that is not text),
        or empty for a result with nothing in it.
    """
    content = result.content
    if not structured and content:
        result = result.model_copy(update={"structured_content": None})
    if result.structured_content is None:
        if not content:
            return ""
        outputs = [_as_dict(_output(block)) for block in content]
        return outputs[0] if len(outputs) == 1 else outputs
    if not any(_is_rich(block) for block in content):
        return result_text(result)
    as_json = json.dumps(result.structured_content, ensure_ascii=False)
    others = [_output(block) for block in content if block.type != "text"]
    return [_as_dict(output) for output in (ToolOutputText(text=as_json), *others)]


def _as_dict(output: ToolOutput) -> ToolOutputDict:
    """An output in its dict form, as openai-agents' MCP tools return it."""
    given = {key: value for key, value in asdict(output).items() if value is not None}
    return cast(ToolOutputDict, given)


def result_text(result: types.CallToolResult) -> str:
    """The text the model receives for a successful call with no image or file in it.

    Args:
        result: What the server answered.

    Returns:
        The structured content as JSON, or the blocks' text, one block per line.
    """
    others = [_describe(block) for block in result.content if block.type != "text"]
    if result.structured_content is not None:
        structured = json.dumps(result.structured_content, ensure_ascii=False)
        return "\n".join([structured, *others])
    return "\n".join(_describe(block) for block in result.content)


def error_message(result: types.CallToolResult) -> str:
    """The server's message in an `isError` result: its blocks' text, one per line.

    Args:
        result: What the server answered.

    Returns:
        The message, stripped; empty when the server gave none.
    """
    return "\n".join(_describe(block) for block in result.content).strip()


def server_error_message(ctx: RunContextWrapper[Any], error: Exception) -> str:
    """A `failure_error_function` for servers you trust: the server's message, as it wrote it.

    An `MCPToolError` (an `isError` result) and a protocol error give the model the
    server's message, cut at 2,000 characters; anything else gets the default text.

    Example:
        `MCPServerStdio(params, failure_error_function=server_error_message)`

    Args:
        ctx: The call's context; a `ToolContext` names the tool.
        error: What went wrong.

    Returns:
        The text the model receives.
    """
    name = ctx.tool_name if isinstance(ctx, ToolContext) else "the tool"
    if isinstance(error, MCPToolError):
        if not error.message:
            return f"Tool '{name}' reported an error without a message."
        return f"Tool '{name}' reported an error: {_cut(error.message)}"
    if isinstance(error, MCPError):
        return f"Tool '{name}' failed: its MCP server answered: {_cut(str(error))}"
    return default_tool_error_function(ctx, error)


def hidden_error_text(tool_name: str) -> str:
    """The default text for an `isError` result: the tool named, the message hidden.

    Args:
        tool_name: The tool's name as the model calls it.

    Returns:
        Text that repeats nothing the server said.
    """
    return (
        f"Tool '{tool_name}' reported an error; the server's message is hidden, as it may "
        "repeat tool data. Check the arguments against the tool's description before "
        "calling it again."
    )


async def failure_text(
    on_failure: ToolErrorFunction | None, ctx: ToolContext[Any], error: Exception
) -> str:
    """What the model is told of a failed MCP call, by the server's error function.

    Args:
        on_failure: The server's `failure_error_function`; the run's, when the server
            kept the default and the run sets one.
        ctx: The call's context (`ctx.error` is set to `error` here).
        error: An `MCPToolError`, or a protocol error.

    Returns:
        The text for the model.

    Raises:
        Exception: `error` itself, when `on_failure` is None.
    """
    ctx.error = error
    config = ctx.run_config
    if on_failure is default_tool_error_function and config and config.failure_error_function:
        on_failure = config.failure_error_function
    if on_failure is None:
        raise error
    if on_failure is default_tool_error_function and isinstance(error, MCPToolError):
        return hidden_error_text(ctx.tool_name)
    text = on_failure(ctx, error)
    return await text if inspect.isawaitable(text) else text


def _cut(message: str) -> str:
    return message if len(message) <= _MAX_ERROR_CHARS else message[:_MAX_ERROR_CHARS] + " [...]"


def _is_rich(block: types.ContentBlock) -> bool:
    """Whether a block goes to the model as more than text: an image, an embedded file."""
    if block.type == "image":
        return True
    return block.type == "resource" and isinstance(block.resource, types.BlobResourceContents)


def _output(block: types.ContentBlock) -> ToolOutput:
    if block.type == "image":
        return ToolOutputImage(image_url=f"data:{block.mime_type};base64,{block.data}")
    if block.type == "resource" and isinstance(block.resource, types.BlobResourceContents):
        resource = block.resource
        mime = resource.mime_type or "application/octet-stream"
        return ToolOutputFileContent(
            file_data=f"data:{mime};base64,{resource.blob}", filename=_filename(str(resource.uri))
        )
    return ToolOutputText(text=_describe(block))


def _filename(uri: str) -> str:
    """The last segment of a resource's URI, as the file's name."""
    name = uri.rstrip("/").rsplit("/", 1)[-1]
    return name.split("?")[0] or uri


def _describe(block: types.ContentBlock) -> str:
    if block.type == "text":
        return block.text
    if isinstance(block, (types.ImageContent, types.AudioContent)):
        return f"[{block.type}: {block.mime_type}, {_size(block.data)}]"
    if block.type == "resource_link":
        return f"[resource link: {block.uri}{_mime(block.mime_type)}]"
    if block.type == "resource":
        resource = block.resource
        if isinstance(resource, types.TextResourceContents):
            return resource.text
        return f"[resource: {resource.uri}{_mime(resource.mime_type)}]"
    kind: object = getattr(block, "type", None)  # a kind of block newer than this code
    return f"[{kind or 'unknown'} content]"


def _size(data: str) -> str:
    """The size of base64 data, decoded."""
    return f"{len(data) * 3 // 4} bytes"


def _mime(mime_type: str | None) -> str:
    return f", {mime_type}" if mime_type else ""


def served_content(parts: Sequence[Mapping[str, object]]) -> list[types.ContentBlock]:
    """A served tool's rich output (Responses input parts) as MCP content blocks.

    Args:
        parts: The `input_text`, `input_image` and `input_file` parts of the output.

    Returns:
        One content block per part.
    """
    return [_served_block(part) for part in parts]


def _served_block(part: Mapping[str, object]) -> types.ContentBlock:
    kind = part.get("type")
    if kind == "input_image":
        return _served_image(part)
    if kind == "input_file":
        return _served_file(part)
    return types.TextContent(text=str(part.get("text", "")))


def _served_image(part: Mapping[str, object]) -> types.ContentBlock:
    url = part.get("image_url")
    if not isinstance(url, str):
        return types.TextContent(text=f"[image: file {part.get('file_id')}]")
    inline = _data_url(url)
    if inline is None:
        return types.ResourceLink(name="image", uri=url)
    return types.ImageContent(data=inline[1], mime_type=inline[0])


def _served_file(part: Mapping[str, object]) -> types.ContentBlock:
    name = str(part.get("filename") or "file")
    data, url = part.get("file_data"), part.get("file_url")
    inline = _data_url(data) if isinstance(data, str) else None
    if inline is not None:
        mime, encoded = inline
        blob = types.BlobResourceContents(uri=f"file:///{name}", mime_type=mime, blob=encoded)
        return types.EmbeddedResource(resource=blob)
    if isinstance(url, str):
        return types.ResourceLink(name=name, uri=url)
    return types.TextContent(text=f"[file: {name} {part.get('file_id') or ''}]".strip())


def _data_url(url: str) -> tuple[str, str] | None:
    """The MIME type and base64 data of a `data:<mime>;base64,<data>` URL; None otherwise."""
    head, comma, data = url.partition(",")
    if not (comma and head.startswith("data:") and head.endswith(";base64")):
        return None
    return head[len("data:") : -len(";base64")] or "application/octet-stream", data
