"""The scripted models: `TestModel` and `FunctionModel` (see `tooluse.testing`)."""

from __future__ import annotations

import inspect
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core._context import Usage
from ..core._factories import new_dict, new_list
from ..core._items import Item, assistant_message, function_call, message_text
from ..core._values import is_whole_number
from ..exceptions import ToolArgumentsError, UserError
from ..models import (
    Model,
    ModelRequest,
    ModelResponse,
    ResponseDone,
    StreamDelta,
    StreamEvent,
    TextDelta,
    ToolCallArgumentsDelta,
)
from ..models._base import Tool
from ..schema._strict_rules import JsonSchema, JsonValue
from ..tools._function_tool import FunctionTool
from ..tools._invocation import Invoker
from ..tools._outputs import parts_text
from ._samples import accepted_sample, sample

__all__ = [
    "FunctionModel",
    "ModelReply",
    "ScriptedBase",
    "TestModel",
    "ToolCall",
    "current_turn",
    "value_for_schema",
]


@dataclass
class ToolCall:
    """A tool call a scripted model makes."""

    name: str
    """The tool's name."""
    arguments: dict[str, Any] | str = field(default_factory=new_dict)
    """The arguments, as a dict or as raw JSON text (which may be invalid, on purpose)."""
    call_id: str | None = None
    """The call's id; None numbers calls `call_1`, `call_2`, ..."""


@dataclass
class ModelReply:
    """What a scripted model answers: text, tool calls, or both."""

    text: str | None = None
    """The message, if any."""
    tool_calls: list[ToolCall] = field(default_factory=new_list)
    """The tool calls, if any."""


ReplyFunction = Callable[
    [list[Item], Sequence[Tool]], "ModelReply | str | Awaitable[ModelReply | str]"
]


class ScriptedBase(Model):
    """Turns replies into responses, whole or streamed: the base of tooluse's scripted models."""

    model = "scripted"
    """The name its responses give as `ModelResponse.model`."""

    def __init__(self, piece_size: int = 16) -> None:
        if not is_whole_number(piece_size, 1):
            raise UserError(
                f"{type(self).__name__}(piece_size={piece_size!r}): the characters per streamed "
                "piece must be a whole number of at least 1"
            )
        self.piece_size = piece_size
        """Characters per streamed piece of text or arguments (the last piece may be shorter)."""
        self._ids = itertools.count(1)

    async def _reply(self, request: ModelRequest) -> ModelReply:
        raise NotImplementedError

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        """Answer with the scripted reply.

        Args:
            request: The conversation, tools and settings.

        Returns:
            The reply as a response.
        """
        reply = await self._reply(request)
        output: list[Item] = [assistant_message(reply.text)] if reply.text is not None else []
        for call in reply.tool_calls:
            arguments = (
                call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
            )
            output.append(
                function_call(call.call_id or f"call_{next(self._ids)}", call.name, arguments)
            )
        response_id = f"resp_{next(self._ids)}"
        return ModelResponse(output, Usage(requests=1), response_id, model=self.model)

    async def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Yield the scripted reply as one raw delta, its text and arguments in pieces, then all.

        Args:
            request: The conversation, tools and settings.

        Yields:
            A `StreamDelta` holding the response; a `TextDelta` for each piece of its
            text and a `ToolCallArgumentsDelta` for each piece of each function call's
            arguments (`piece_size` characters each, the last maybe fewer, in order);
            then `ResponseDone`.
        """
        response = await self.get_response(request)
        yield StreamDelta(response)
        for item in response.output:
            if item.get("type") == "function_call":
                for piece in _pieces(item["arguments"], self.piece_size):
                    yield ToolCallArgumentsDelta(item["call_id"], item["name"], piece)
            elif (text := message_text(item)) is not None:
                for piece in _pieces(text, self.piece_size):
                    yield TextDelta(piece)
        yield ResponseDone(response)


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


class FunctionModel(ScriptedBase):
    """A model whose every reply comes from your function."""

    def __init__(self, fn: ReplyFunction, *, piece_size: int = 16) -> None:
        """Answer with `fn(messages, tools)`.

        Args:
            fn: Receives the conversation items and the offered tools; returns a string
                (a text answer) or a `ModelReply`, or an awaitable of either.
            piece_size: Characters per piece when a streamed run asks for the reply:
                its text comes as `TextDelta`s and each call's arguments as
                `ToolCallArgumentsDelta`s of this many characters (short by default, so
                that code joining pieces is exercised).

        Raises:
            UserError: If `piece_size` is not a whole number of at least 1.
        """
        super().__init__(piece_size)
        self.fn = fn
        self.model = f"function:{getattr(fn, '__name__', type(fn).__name__)}"
        """The name its responses give as `ModelResponse.model`: `function:` and fn's name."""

    async def _reply(self, request: ModelRequest) -> ModelReply:
        answer = self.fn(request.input, request.tools)
        answer = await answer if inspect.isawaitable(answer) else answer
        return ModelReply(text=answer) if isinstance(answer, str) else answer


class TestModel(ScriptedBase):
    """Calls each offered function tool once, then summarises what they returned."""

    __test__ = False  # not a pytest test class, despite its name
    model = "test"
    """The name its responses give as `ModelResponse.model`."""

    def __init__(self, *, piece_size: int = 16) -> None:
        """Call each offered function tool once, then summarise their outputs.

        Args:
            piece_size: Characters per piece when a streamed run asks for the reply:
                its text comes as `TextDelta`s and each call's arguments as
                `ToolCallArgumentsDelta`s of this many characters (short by default, so
                that code joining pieces is exercised).

        Raises:
            UserError: If `piece_size` is not a whole number of at least 1.
        """
        super().__init__(piece_size)

    async def _reply(self, request: ModelRequest) -> ModelReply:
        tools = [tool for tool in request.tools if isinstance(tool, FunctionTool)]
        turn = current_turn(request.input)  # earlier turns' outputs answer earlier messages
        outputs = {
            item["call_id"]: _output_text(item["output"])
            for item in turn
            if item.get("type") == "function_call_output"
        }
        if not outputs and tools:
            return ModelReply(
                tool_calls=[ToolCall(tool.name, _arguments_for(tool)) for tool in tools]
            )
        if request.output_schema is not None:
            return ModelReply(text=json.dumps(value_for_schema(request.output_schema)))
        return ModelReply(text=_summary(turn, outputs))


def current_turn(items: list[Item]) -> list[Item]:
    """The items since the last user message: what the turn being answered holds so far.

    A scripted model given a conversation (a session's, or `to_input_list()` of an
    earlier run, plus a new message) should read the tool outputs of this turn only:
    those before the last user message answered earlier questions.

    Args:
        items: The conversation, as a model receives it.

    Returns:
        The last user message and the items after it; all the items if none is a
        user message.
    """
    for index in range(len(items) - 1, -1, -1):
        if items[index].get("role") == "user":
            return items[index:]
    return items


def tool_outputs(items: list[Item]) -> list[str]:
    """The tool outputs among `items`, in order, as text: what a scripted model reads.

    A tool's output is a string, or input parts (an MCP tool's result is a part a
    content block, as in openai-agents; an image or a file is a part); parts read as
    their text, an image or a file as a line saying what it is.

    Example:
        `outputs = tool_outputs(current_turn(items))`

    Args:
        items: The conversation, or a part of it (`current_turn(items)`).

    Returns:
        One text for each `function_call_output` item.
    """
    return [
        _output_text(item["output"]) for item in items if item.get("type") == "function_call_output"
    ]


def _arguments_for(tool: FunctionTool) -> Any:
    """A sample of the tool's schema; for a decorated function, one its validator accepts.

    An object for an object schema; whatever JSON value a hand-written schema admits.
    """
    schema, hints = tool.params_json_schema, tool.strict_json_schema
    invoker = tool.on_invoke_tool
    if not isinstance(invoker, Invoker):
        return sample(schema, hints=hints)

    def refusals(arguments: dict[str, JsonValue]) -> list[str]:
        try:
            invoker.named_arguments(json.dumps(arguments))
        except ToolArgumentsError as error:
            return error.problems
        except Exception:  # a validator's own bug: the call will report it as the tool's failure
            return []
        return []

    return accepted_sample(schema, refusals, hints=hints)


def _output_text(output: str | list[Item]) -> str:
    """A tool's output as text: an image or a file as a line saying what it is."""
    return parts_text(output) if isinstance(output, list) else output


def _summary(items: list[Item], outputs: dict[str, str]) -> str:
    names = {item["call_id"]: item["name"] for item in items if item.get("type") == "function_call"}
    if not outputs:
        return "No tools were called."
    summary = {names.get(call_id, call_id): output for call_id, output in outputs.items()}
    return json.dumps(summary, ensure_ascii=False)


def value_for_schema(schema: JsonSchema, defs: dict[str, JsonSchema] | None = None) -> Any:
    """A value that a JSON schema admits, made deterministically from the schema.

    The simplest fitting value is chosen: the first choice of an enum, zero or the
    bound nearest it (a multiple of `multipleOf`), `"a"` or a string that fits
    `format`, `pattern` and the lengths, the fewest items, every property. A strict
    tool schema's constraints kept in words (`At least 3 characters long.`) are
    honoured too. Past a few levels of nesting, null and empty branches come first,
    so recursive schemas end.

    Args:
        schema: A JSON schema.
        defs: The definitions its `$ref`s name; taken from `schema` when None.

    Returns:
        The value. For an object schema nothing satisfies, an object of every property
        that has a value, so that a validator names only the others; else None.
    """
    root = schema if defs is None else {**schema, "$defs": defs}
    return sample(root)
