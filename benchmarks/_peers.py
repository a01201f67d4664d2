"""The same agent on each SDK, each with a minimal scripted model of equal cost.

Every side's model does the same O(1) work per turn: it reads the last input item;
if that is not a tool output the run has just begun, otherwise the output's call id
says which turn comes next (a prebuilt dict). Before the last turn it returns a
prebuilt tool-call item (`add` with a=2, b=3, or `tool_0` when many tools are offered);
on the last turn it answers `"<turns> turns, last output <output>"`, the message built
once per distinct text and then reused. So the final outputs match only if every side
ran every turn and every tool, which `_common.same_outputs` checks.

Only `response` objects (a few fields) are created per call, on each side; the items
in them are prebuilt. The openai-agents model is a tiny `Model` subclass, not
`agents.testing.ScriptedModel` (which records every call and copies usage); the
pydantic-ai model is a tiny `Model` subclass too, not its `FunctionModel` (which builds
an `AgentInfo` per call).
"""

from __future__ import annotations

import asyncio
import inspect
import types
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import agents
import pydantic_ai
from agents.items import ModelResponse as AgentsResponse
from agents.usage import Usage as AgentsUsage
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)
from pydantic_ai import messages as pai
from pydantic_ai.models import Model as PydanticModel
from pydantic_ai.usage import UsageLimits

import tooluse
from tooluse.models import Model as TooluseModel
from tooluse.models import ModelRequest, ModelResponse, ResponseDone, StreamEvent

QUESTION = "What is 2 + 3?"
ARGUMENTS = '{"a": 2, "b": 3}'
SDKS = ("tooluse", "openai-agents", "pydantic-ai")

agents.set_tracing_disabled(True)


def make_tool(index: int, *, sync: bool, pause: bool = False) -> Callable[..., Any]:
    """A fresh documented function adding two numbers (`add` for index 0, else `tool_<i>`).

    `pause`: the async tool first yields to the event loop (`asyncio.sleep(0)`), as one
    doing I/O would, so that concurrent runs are all suspended in it at once.
    """
    if sync:

        def add(a: int, b: int) -> int:
            """Add two numbers.

            Args:
                a: The first number.
                b: The second number.
            """
            return a + b

        func: Callable[..., Any] = add
    else:

        async def add_async(a: int, b: int) -> int:
            """Add two numbers.

            Args:
                a: The first number.
                b: The second number.
            """
            if pause:
                await asyncio.sleep(0)
            return a + b

        func = add_async
    func.__name__ = func.__qualname__ = "add" if index == 0 else f"tool_{index}"
    return func


class _Script:
    """Which turn comes next, from the last item's call id: the same on every side."""

    def __init__(self, turns: int) -> None:
        self.turns = turns
        self.call_ids = [f"call_{turn}" for turn in range(1, turns)]
        self.next_turn = {call_id: turn + 2 for turn, call_id in enumerate(self.call_ids)}

    def answer(self, output: Any) -> str:
        return f"{self.turns} turns, last output {output}"


# --- tooluse -----------------------------------------------------------------


class TooluseScripted(TooluseModel):
    def __init__(self, turns: int) -> None:
        self.script = _Script(turns)
        self.calls = [
            {"type": "function_call", "call_id": call_id, "name": "add", "arguments": ARGUMENTS}
            for call_id in self.script.call_ids
        ]
        self.answers: dict[str, Any] = {}

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        last = request.input[-1]
        turn = (
            1
            if last.get("type") != "function_call_output"
            else self.script.next_turn[last["call_id"]]
        )
        if turn < self.script.turns:
            return ModelResponse([self.calls[turn - 1]])
        text = self.script.answer(last.get("output"))
        message = self.answers.get(text)
        if message is None:
            content = [{"type": "output_text", "text": text, "annotations": []}]
            message = self.answers[text] = {
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": content,
            }
        return ModelResponse([message])

    async def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        yield ResponseDone(await self.get_response(request))


def tooluse_runner(
    tools: int = 1, turns: int = 2, *, sync: bool = True, pause: bool = False
) -> Callable[[], Awaitable[Any]]:
    model = TooluseScripted(turns)
    funcs = [make_tool(i, sync=sync, pause=pause) for i in range(tools)]
    agent = tooluse.Agent("calc", tools=[tooluse.function_tool(f) for f in funcs], model=model)

    async def run() -> Any:
        return (await tooluse.Runner.run(agent, QUESTION, max_turns=turns + 1)).final_output

    return run


# --- openai-agents -----------------------------------------------------------


class AgentsScripted(agents.Model):
    def __init__(self, turns: int) -> None:
        self.script = _Script(turns)
        self.calls = [
            ResponseFunctionToolCall(
                type="function_call", call_id=call_id, name="add", arguments=ARGUMENTS
            )
            for call_id in self.script.call_ids
        ]
        self.answers: dict[str, Any] = {}

    async def get_response(
        self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any
    ) -> AgentsResponse:
        last = input[-1] if isinstance(input, list) else {}
        turn = (
            1
            if last.get("type") != "function_call_output"
            else self.script.next_turn[last["call_id"]]
        )
        if turn < self.script.turns:
            return AgentsResponse([self.calls[turn - 1]], AgentsUsage(), None)
        text = self.script.answer(last.get("output"))
        message = self.answers.get(text)
        if message is None:
            content = ResponseOutputText(type="output_text", text=text, annotations=[])
            message = self.answers[text] = ResponseOutputMessage(
                id="msg_1", type="message", role="assistant", status="completed", content=[content]
            )
        return AgentsResponse([message], AgentsUsage(), None)

    async def stream_response(
        self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """The same response as one `response.completed` event (as tooluse's: one event).

        Built with `model_construct`, unvalidated, like the prebuilt items: a few fields.
        """
        response = await self.get_response(system_instructions, input)
        completed = Response.model_construct(
            id="resp_1", object="response", output=response.output, usage=None
        )
        yield ResponseCompletedEvent.model_construct(
            type="response.completed", sequence_number=0, response=completed
        )


def agents_runner(
    tools: int = 1, turns: int = 2, *, sync: bool = True, pause: bool = False
) -> Callable[[], Awaitable[Any]]:
    model = AgentsScripted(turns)
    funcs = [make_tool(i, sync=sync, pause=pause) for i in range(tools)]
    agent = agents.Agent("calc", tools=[agents.function_tool(f) for f in funcs], model=model)

    async def run() -> Any:
        return (await agents.Runner.run(agent, QUESTION, max_turns=turns + 1)).final_output

    return run


# --- pydantic-ai -------------------------------------------------------------


class PydanticScripted(PydanticModel):
    def __init__(self, turns: int) -> None:
        super().__init__()
        self.script = _Script(turns)
        self.calls = [
            pai.ToolCallPart("add", ARGUMENTS, call_id) for call_id in self.script.call_ids
        ]
        self.answers: dict[str, Any] = {}

    @property
    def model_name(self) -> str:
        return "scripted"

    @property
    def system(self) -> str:
        return "scripted"

    async def request(self, messages: list[pai.ModelMessage], *args: Any) -> pai.ModelResponse:
        last = messages[-1].parts[-1]
        turn = (
            1
            if not isinstance(last, pai.ToolReturnPart)
            else self.script.next_turn[last.tool_call_id]
        )
        if turn < self.script.turns:
            return pai.ModelResponse(parts=[self.calls[turn - 1]])
        output = last.content if isinstance(last, pai.ToolReturnPart) else None
        text = self.script.answer(output)
        part = self.answers.get(text)
        if part is None:
            part = self.answers[text] = pai.TextPart(text)
        return pai.ModelResponse(parts=[part])


def pydantic_runner(
    tools: int = 1, turns: int = 2, *, sync: bool = True, pause: bool = False
) -> Callable[[], Awaitable[Any]]:
    model = PydanticScripted(turns)
    funcs = [make_tool(i, sync=sync, pause=pause) for i in range(tools)]
    agent = pydantic_ai.Agent(model, tools=[pydantic_ai.Tool(f, name=f.__name__) for f in funcs])
    limits = UsageLimits(request_limit=None)

    async def run() -> Any:
        return (await agent.run(QUESTION, usage_limits=limits)).output

    return run


BUILDERS = {
    "tooluse": tooluse_runner,
    "openai-agents": agents_runner,
    "pydantic-ai": pydantic_runner,
}


def runners(
    sdks: tuple[str, ...] = SDKS, **options: Any
) -> dict[str, Callable[[], Awaitable[Any]]]:
    """One runner per SDK, each built once: call it to do a whole run; it returns the output."""
    return {sdk: BUILDERS[sdk](**options) for sdk in sdks}


async def gather(runner: Callable[[], Awaitable[Any]], count: int) -> list[Any]:
    """`count` runs at once."""
    return await asyncio.gather(*(runner() for _ in range(count)))


def no_op_hooks(base: type[Any]) -> Any:
    """An instance of a subclass of `base` whose every `on_*` hook is overridden by a no-op."""

    def no_op(name: str) -> Callable[..., Awaitable[None]]:
        async def hook(self: Any, *args: Any, **kwargs: Any) -> None:
            return None

        hook.__name__ = name
        hook.__signature__ = inspect.signature(getattr(base, name))  # type: ignore[attr-defined]
        return hook

    names = [name for name in dir(base) if name.startswith("on_")]
    hooks = {name: no_op(name) for name in names}
    # new_class: openai-agents' AgentHooks and RunHooks are generic aliases.
    return types.new_class(f"NoOp{name_of(base)}", (base,), {}, lambda ns: ns.update(hooks))()


def name_of(base: Any) -> str:
    return getattr(base, "__name__", None) or base.__origin__.__name__
