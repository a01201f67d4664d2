"""Workflows for tests/test_temporal.py, in a module of their own.

Temporal's sandbox imports a workflow's module afresh for each run: this one
imports only the workflow API and tooluse (passed through by the plugin).
"""

from __future__ import annotations

import asyncio
from typing import Any

from temporalio import workflow

from tooluse import (
    Agent,
    FileSearchTool,
    Result,
    RunConfig,
    RunContextWrapper,
    RunHooks,
    Runner,
    ToolOutputImage,
    WebSearchTool,
    function_tool,
)

TOOL_CALLS: list[tuple[int, int]] = []
"""Each call of `add`, as the worker ran it (outside the sandbox)."""


@function_tool
def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first.
        b: The second.
    """
    TOOL_CALLS.append((a, b))
    return a + b


calculator = Agent(name="calculator", instructions="Add with the tool.", tools=[add])


@workflow.defn
class AgentWorkflow:
    """Runs the calculator agent on a question, as any code would."""

    @workflow.run
    async def run(self, question: str) -> str:
        result = await Runner.run(calculator, question)
        return str(result.final_output)


@workflow.defn
class OneTurnWorkflow:
    """Runs the calculator agent with one turn allowed, and lets the run's error fail it."""

    @workflow.run
    async def run(self, question: str) -> str:
        result = await Runner.run(calculator, question, max_turns=1)
        return str(result.final_output)


# Scenarios for the hardened slice: each agent below is run by `ScenarioWorkflow`, by name.


@function_tool
def multiply(a: int, b: int) -> int:
    """Multiply two numbers.

    Args:
        a: The first.
        b: The second.
    """
    TOOL_CALLS.append((a, -b))
    return a * b


@function_tool
def chart() -> ToolOutputImage:
    """Draw the chart."""
    return ToolOutputImage(image_url="https://example.com/chart.png")


@function_tool
def broken() -> str:
    """Always fails."""
    raise ValueError("the gauge is broken")


@function_tool
def remember(city: str) -> Result:
    """Remember the city.

    Args:
        city: The city.
    """
    return Result(value="noted", context_variables={"city": city})


@function_tool
def defect() -> Result:
    """Hand the conversation to the calculator."""
    return Result(value="over to you", agent=calculator)


@function_tool(timeout=0.2)
async def slow() -> str:
    """Takes its time."""
    await asyncio.sleep(5)
    return "done"  # pragma: no cover - cancelled at its timeout


@function_tool(timeout=0.2, timeout_behavior="raise_exception")
async def slow_strict() -> str:
    """Takes its time, and the run stops at its limit."""
    await asyncio.sleep(5)
    return "done"  # pragma: no cover - cancelled at its timeout


@function_tool
async def nap() -> str:
    """Sleeps past the activity's own timeout (no timeout of its own)."""
    await asyncio.sleep(3)
    return "rested"  # pragma: no cover - Temporal ends the attempt first


@function_tool(failure_error_function=None)
def explode() -> str:
    """Raises, with nothing to tell the model."""
    raise RuntimeError("boom")


@function_tool
async def long_nap() -> str:
    """Sleeps for a long while (to be cancelled)."""
    await asyncio.sleep(5)
    return "rested"  # pragma: no cover - cancelled first


def _agent(name: str, *tools: Any, **more: Any) -> Agent[Any]:
    return Agent(name=name, instructions=f"You are {name}.", tools=list(tools), **more)


AGENTS: dict[str, Agent[Any]] = {
    "calculator": calculator,
    "pair": _agent("pair", add, multiply),
    "triage": _agent("triage", handoffs=[calculator]),
    "boss": _agent("boss", calculator.as_tool(tool_name="ask_calculator")),
    "painter": _agent("painter", chart),
    "fragile": _agent("fragile", broken),
    "setter": _agent("setter", remember),
    "defector": _agent("defector", defect),
    "sleepy": _agent("sleepy", slow),
    "strict": _agent("strict", slow_strict),
    "stuck": _agent("stuck", nap),
    "raw": _agent("raw", explode),
    "napper": _agent("napper", long_nap),
    "mixed": _agent("mixed", long_nap, explode),
    "searcher": _agent(
        "searcher",
        WebSearchTool(),
        FileSearchTool(vector_store_ids=["vs_1"], include_search_results=True),
    ),
}
"""The scenarios' agents, by name."""


class ToolErrors(RunHooks[Any]):
    """Records, in the workflow, the error each failed tool call left in its context."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def on_tool_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], tool: Any, result: str
    ) -> None:
        error = getattr(context, "error", None)
        if error is not None:
            self.seen.append(f"{type(error).__name__}:{getattr(error, 'error_type', None)}")


@workflow.defn(failure_exception_types=[Exception])  # a mistake fails the test, not hangs
class ScenarioWorkflow:
    """Runs one of `AGENTS`; reports the answer, or the error that stopped the run."""

    @workflow.run
    async def run(
        self, name: str, question: str, run_timeout: float | None = None
    ) -> dict[str, Any]:
        hooks = ToolErrors()
        context: dict[str, Any] = {}
        config = RunConfig(run_timeout=run_timeout)
        try:
            result = await Runner.run(
                AGENTS[name], question, context=context, hooks=hooks, run_config=config
            )
        except Exception as error:
            causes: list[str] = []
            cause = error.__cause__
            while cause is not None:
                causes.append(type(cause).__name__)
                cause = cause.__cause__
            return {
                "error": f"{type(error).__name__}: {error}",
                "status": getattr(error, "status_code", None),
                "causes": causes,
            }
        entries = result.usage.request_usage_entries
        return {
            "output": str(result.final_output),
            "agent": result.last_agent.name,
            "tool_errors": hooks.seen,
            "context": context,
            "durations": [entry.duration_seconds for entry in entries],
        }
