"""Hosted tools: declarations the provider runs (or asks us to run), never local functions.

Each tool turns into exactly the Responses API tool param the `openai` package
types (`to_tool_param`). They exist only on the Responses API: offering one to
a Chat Completions model fails before any request.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, cast

from typing_extensions import Required, TypedDict

from ._mcp_approval import MCPToolApprovalFunction
from ._shell import ShellTool

if TYPE_CHECKING:  # types only: importing openai costs 0.3 s, paid at the first model call
    from openai.types.responses import FileSearchToolParam, WebSearchToolParam
    from openai.types.responses.computer_use_preview_tool_param import (
        ComputerUsePreviewToolParam,
    )
    from openai.types.responses.tool_param import CodeInterpreter, ImageGeneration, LocalShell, Mcp

__all__ = [
    "HOSTED_TOOL_TYPES",
    "CodeInterpreterTool",
    "Computer",
    "ComputerTool",
    "FileSearchTool",
    "HostedMCPTool",
    "HostedTool",
    "ImageGenerationTool",
    "LocalShellTool",
    "WebSearchTool",
]


@dataclass
class WebSearchTool:
    """Lets the model search the web."""

    user_location: dict[str, Any] | None = None
    """Where the user is, to localise results (`{"type": "approximate", "city": ...}`)."""
    search_context_size: Literal["low", "medium", "high"] = "medium"
    """How much context to gather."""
    filters: dict[str, Any] | None = None
    """Domain filters (`{"allowed_domains": [...]}`)."""

    @property
    def name(self) -> str:
        """The tool's name in the run's items."""
        return "web_search"

    def to_tool_param(self) -> WebSearchToolParam:
        """The Responses API tool param."""
        param: WebSearchToolParam = {
            "type": "web_search",
            "search_context_size": self.search_context_size,
        }
        if self.user_location is not None:
            param["user_location"] = cast(Any, self.user_location)  # shapes are checked by the API
        if self.filters is not None:
            param["filters"] = cast(Any, self.filters)  # shapes are checked by the API
        return param


@dataclass
class FileSearchTool:
    """Lets the model search OpenAI vector stores."""

    vector_store_ids: list[str]
    """The vector stores to search."""
    max_num_results: int | None = None
    """The most results to return."""
    include_search_results: bool = False
    """Whether the response includes the results (`include=["file_search_call.results"]`)."""
    ranking_options: dict[str, Any] | None = None
    """Ranking settings."""
    filters: dict[str, Any] | None = None
    """Attribute filters."""

    @property
    def name(self) -> str:
        """The tool's name in the run's items."""
        return "file_search"

    def to_tool_param(self) -> FileSearchToolParam:
        """The Responses API tool param."""
        param: FileSearchToolParam = {
            "type": "file_search",
            "vector_store_ids": list(self.vector_store_ids),
        }
        if self.max_num_results is not None:
            param["max_num_results"] = self.max_num_results
        if self.ranking_options is not None:
            param["ranking_options"] = cast(
                Any, self.ranking_options
            )  # shapes are checked by the API
        if self.filters is not None:
            param["filters"] = cast(Any, self.filters)  # shapes are checked by the API
        return param


@dataclass
class CodeInterpreterTool:
    """Lets the model run code in a sandbox the provider hosts."""

    tool_config: CodeInterpreter = field(
        default_factory=lambda: {"type": "code_interpreter", "container": {"type": "auto"}}
    )
    """The full tool param."""

    @property
    def name(self) -> str:
        """The tool's name in the run's items."""
        return "code_interpreter"

    def to_tool_param(self) -> CodeInterpreter:
        """The Responses API tool param."""
        return self.tool_config


@dataclass
class HostedMCPTool:
    """Lets the model call a remote MCP server through the provider."""

    tool_config: Mcp
    """The full tool param (`server_label`, `server_url`, `require_approval`, ...)."""
    on_approval_request: MCPToolApprovalFunction | None = None
    """Answers the provider's approval requests: gets an `MCPToolApprovalRequest` (the
    item's dict, with openai-agents' `data` and `ctx_wrapper`), returns
    `{"approve": bool, "reason": ...}`, sync or async. Without one, requests are left
    unanswered (the run does not pause for them, as openai-agents' does)."""

    @property
    def name(self) -> str:
        """The tool's name in the run's items."""
        return "hosted_mcp"

    def to_tool_param(self) -> Mcp:
        """The Responses API tool param."""
        return self.tool_config


class ImageGenerationInputImageMask(TypedDict, total=False):
    """The mask for an edit: a file id, or an image as a base64 data URL."""

    file_id: str
    image_url: str


# `ImageGenerationTool.tool_config` is typed with the `openai` package's `ImageGeneration`
# for type checkers. That type is not imported at run time (it costs the `openai` import),
# so pydantic reads this one instead, when an `ImageGenerationTool` is a tool's parameter;
# its docstring is what the model reads of it.
class ImageGenerationToolConfig(TypedDict, total=False):
    """Settings of the Responses API's image_generation tool."""

    type: Required[Literal["image_generation"]]
    action: Literal["generate", "edit", "auto"]
    background: Literal["transparent", "opaque", "auto"]
    input_fidelity: Literal["high", "low"] | None
    input_image_mask: ImageGenerationInputImageMask
    model: str
    moderation: Literal["auto", "low"]
    output_compression: int
    output_format: Literal["png", "webp", "jpeg"]
    partial_images: int
    quality: Literal["low", "medium", "high", "xhigh", "max", "auto"]
    size: str


@dataclass
class ImageGenerationTool:
    """Lets the model generate images."""

    if TYPE_CHECKING:
        tool_config: ImageGeneration = field(default_factory=lambda: {"type": "image_generation"})
    else:  # the same param, as a type pydantic can read without importing openai
        tool_config: ImageGenerationToolConfig = field(
            default_factory=lambda: {"type": "image_generation"}
        )
    """The full tool param."""

    @property
    def name(self) -> str:
        """The tool's name in the run's items."""
        return "image_generation"

    def to_tool_param(self) -> ImageGeneration:
        """The Responses API tool param."""
        return self.tool_config


class Computer(Protocol):
    """A screen the model operates through `ComputerTool`; you implement the actions.

    Each action may be sync or async. After every action the runner takes a
    screenshot and sends it back to the model.
    """

    @property
    def environment(self) -> Literal["windows", "mac", "linux", "ubuntu", "browser"]:
        """The kind of machine."""
        ...

    @property
    def dimensions(self) -> tuple[int, int]:
        """The screen's width and height in pixels."""
        ...

    def screenshot(self) -> str | Awaitable[str]:
        """The screen as a base64-encoded PNG."""
        ...

    def click(self, x: int, y: int, button: str) -> Awaitable[None] | None:
        """Click at a point with a mouse button (`left`, `right`, `wheel`, ...)."""
        ...

    def double_click(self, x: int, y: int) -> Awaitable[None] | None:
        """Double-click at a point."""
        ...

    def scroll(self, x: int, y: int, scroll_x: int, scroll_y: int) -> Awaitable[None] | None:
        """Scroll by an amount at a point."""
        ...

    def type(self, text: str) -> Awaitable[None] | None:
        """Type text."""
        ...

    def wait(self) -> Awaitable[None] | None:
        """Wait a moment."""
        ...

    def move(self, x: int, y: int) -> Awaitable[None] | None:
        """Move the pointer."""
        ...

    def keypress(self, keys: list[str]) -> Awaitable[None] | None:
        """Press keys together."""
        ...

    def drag(self, path: list[dict[str, int]]) -> Awaitable[None] | None:
        """Drag along a path of `{"x", "y"}` points."""
        ...


@dataclass
class ComputerTool:
    """Lets the model use a computer; its actions arrive as `computer_call` items."""

    computer: Computer
    """The computer the actions are performed on."""

    @property
    def name(self) -> str:
        """The tool's name in the run's items."""
        return "computer_use_preview"

    def to_tool_param(self) -> ComputerUsePreviewToolParam:
        """The Responses API tool param."""
        width, height = self.computer.dimensions
        return {
            "type": "computer_use_preview",
            "environment": self.computer.environment,
            "display_width": width,
            "display_height": height,
        }


LocalShellExecutor = Callable[[dict[str, Any]], "str | Awaitable[str]"]


@dataclass
class LocalShellTool:
    """Lets the model run shell commands, through `executor`, on this machine."""

    executor: LocalShellExecutor
    """Runs one `local_shell_call` action and returns its output."""

    @property
    def name(self) -> str:
        """The tool's name in the run's items."""
        return "local_shell"

    def to_tool_param(self) -> LocalShell:
        """The Responses API tool param."""
        return {"type": "local_shell"}


HostedTool = (
    WebSearchTool
    | FileSearchTool
    | CodeInterpreterTool
    | HostedMCPTool
    | ImageGenerationTool
    | ComputerTool
    | LocalShellTool
    | ShellTool
)
"""Any tool that is declared to the provider rather than called as a function."""
HOSTED_TOOL_TYPES: tuple[type, ...] = (
    WebSearchTool,
    FileSearchTool,
    CodeInterpreterTool,
    HostedMCPTool,
    ImageGenerationTool,
    ComputerTool,
    LocalShellTool,
    ShellTool,
)
"""The hosted tool classes, for `isinstance`."""
