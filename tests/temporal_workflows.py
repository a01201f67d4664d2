"""Workflows for tests/test_temporal.py, in a module of their own.

Temporal's sandbox imports a workflow's module afresh for each run: this one
imports only the workflow API and tooluse (passed through by the plugin).
"""

from __future__ import annotations

from temporalio import workflow

from tooluse import Agent, Runner, function_tool

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
