"""A whole run with one tool call (two model turns), side by side in one process.

Run with:
    pip install -e '.[bench]' && python benchmarks/bench_runner.py

In-process scripted models: tooluse `FunctionModel`, openai-agents
`agents.testing.ScriptedModel` (tracing disabled) and pydantic-ai
`FunctionModel`. Then the same run over HTTP against one local scripted server
(tests/openai_server.py), tooluse and openai-agents each through the real
`openai` client with the same settings. Prints medians and ratios
(tooluse/other; below 1.0: tooluse is faster).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import agents
from agents.testing import ScriptedModel
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)
from pydantic_ai import Agent as PydanticAgent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo
from pydantic_ai.models.function import FunctionModel as PydanticFunctionModel

import tooluse
from tooluse.testing import FunctionModel, ModelReply, ToolCall

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.openai_server import Call, ScriptedServer, Turn

ROUNDS = 9
TARGET = 0.2
QUESTION = "What is 2 + 3?"


def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


# --- tooluse ---------------------------------------------------------------

tooluse_add = tooluse.function_tool(add)


def tooluse_reply(items: list[dict[str, Any]], tools: Any) -> ModelReply | str:
    outputs = [i["output"] for i in items if i.get("type") == "function_call_output"]
    if not outputs:
        return ModelReply(tool_calls=[ToolCall("add", {"a": 2, "b": 3}, "call_1")])
    return f"The sum is {outputs[0]}."


TOOLUSE_AGENT = tooluse.Agent("calc", tools=[tooluse_add], model=FunctionModel(tooluse_reply))


async def run_tooluse() -> Any:
    return (await tooluse.Runner.run(TOOLUSE_AGENT, QUESTION)).final_output


# --- openai-agents ---------------------------------------------------------

agents.set_tracing_disabled(True)
agents_add = agents.function_tool(add)


def scripted_steps() -> list[Any]:
    call = ResponseFunctionToolCall(
        type="function_call", call_id="call_1", name="add", arguments='{"a": 2, "b": 3}'
    )
    text = ResponseOutputText(type="output_text", text="The sum is 5.", annotations=[])
    message = ResponseOutputMessage(
        id="msg_1", type="message", role="assistant", status="completed", content=[text]
    )
    return [[call], [message]]


async def run_agents() -> Any:
    agent = agents.Agent("calc", tools=[agents_add], model=ScriptedModel(scripted_steps()))
    return (await agents.Runner.run(agent, QUESTION)).final_output


# --- pydantic-ai -------------------------------------------------------------


def pydantic_reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    del info
    returned = [
        part
        for message in messages
        for part in getattr(message, "parts", [])
        if isinstance(part, ToolReturnPart)
    ]
    if not returned:
        return ModelResponse(parts=[ToolCallPart("add", {"a": 2, "b": 3}, "call_1")])
    return ModelResponse(parts=[TextPart(f"The sum is {returned[0].content}.")])


PYDANTIC_AGENT = PydanticAgent(PydanticFunctionModel(pydantic_reply), tools=[add])


async def run_pydantic_ai() -> Any:
    return (await PYDANTIC_AGENT.run(QUESTION)).output


# --- over HTTP ---------------------------------------------------------------


def http_runners(server: ScriptedServer) -> dict[str, Callable[[], Awaitable[Any]]]:
    def script() -> None:
        server.script(Turn(calls=[Call("add", '{"a": 2, "b": 3}', "call_1")]), Turn(text="5"))

    tooluse_model = tooluse.OpenAIResponsesModel("test-model", server.client())
    agents_model = agents.OpenAIResponsesModel("test-model", server.client())
    ours = tooluse.Agent("calc", tools=[tooluse_add], model=tooluse_model)
    theirs = agents.Agent("calc", tools=[agents_add], model=agents_model)

    async def tooluse_http() -> Any:
        script()
        return (await tooluse.Runner.run(ours, QUESTION)).final_output

    async def agents_http() -> Any:
        script()
        return (await agents.Runner.run(theirs, QUESTION)).final_output

    return {"tooluse": tooluse_http, "openai-agents": agents_http}


async def per_run(runner: Callable[[], Awaitable[Any]], n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        await runner()
    return (time.perf_counter() - start) / n


async def compare(runners: dict[str, Callable[[], Awaitable[Any]]], n: int) -> dict[str, float]:
    for runner in runners.values():
        await runner()  # warm up: imports, caches, connections
    samples: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(ROUNDS):
        for name, runner in runners.items():
            samples[name].append(await per_run(runner, n))
    return {name: statistics.median(values) for name, values in samples.items()}


def report(title: str, medians: dict[str, float]) -> None:
    ours = medians["tooluse"]
    print(title)
    for name, seconds in medians.items():
        ratio = "" if name == "tooluse" else f"  tooluse/{name} = {ours / seconds:.3f}"
        print(f"  {name:<14} {seconds * 1e6:>10.1f}us{ratio}")


async def main() -> None:
    quick = "--quick" in sys.argv
    in_process = await compare(
        {"tooluse": run_tooluse, "openai-agents": run_agents, "pydantic-ai": run_pydantic_ai},
        20 if quick else 200,
    )
    report("in-process scripted model, one tool call, two turns:", in_process)
    verdict = in_process["tooluse"] / in_process["openai-agents"]
    print(f"  target tooluse/openai-agents <= {TARGET}: {'ok' if verdict <= TARGET else 'MISSED'}")
    server = ScriptedServer()
    server.start()
    try:
        report(
            "over HTTP (local scripted server, Responses API):",
            await compare(http_runners(server), 5 if quick else 30),
        )
    finally:
        server.stop()


if __name__ == "__main__":
    asyncio.run(main())
