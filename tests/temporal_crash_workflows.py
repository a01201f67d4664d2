"""The workflow and tools a worker process runs (tests/temporal_worker_main.py).

Used by tests/test_temporal_crash.py and benchmarks/bench_temporal.py. Like
tests/temporal_workflows.py it imports only the workflow API, tooluse and the
standard library, because Temporal's sandbox imports it afresh for each run.
The tools run on the worker, outside the sandbox; they leave their traces in
the directory `use_state_dir` names, where the test that killed the worker can
read them.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from temporalio import workflow

from tooluse import Agent, Runner, function_tool

TOOL_LOG = "tools.log"
"""One line per tool event: `<event> <tool> <pid>`."""
GATE = "gate"
"""`wait_for_gate` returns once a file of this name exists."""

_state_dir: list[Path] = []  # the worker's, set once by use_state_dir


def use_state_dir(directory: Path) -> None:
    """Where the tools log what they do and look for the gate (the worker sets it)."""
    _state_dir[:] = [directory]


def _log(event: str, tool: str) -> None:
    with (_state_dir[0] / TOOL_LOG).open("a") as log:
        log.write(f"{event} {tool} {os.getpid()}\n")


@function_tool
def note(text: str) -> str:
    """Write a note down: a side effect that must not happen twice.

    Args:
        text: What to note.
    """
    _log("finish", f"note:{text}")
    return "noted"


@function_tool
async def wait_for_gate() -> str:
    """Wait until the gate opens (the test opens it by making the file)."""
    _log("start", "wait_for_gate")
    while not (_state_dir[0] / GATE).exists():
        await asyncio.sleep(0.02)
    _log("finish", "wait_for_gate")
    return "opened"


@function_tool
async def pause(ms: int) -> str:
    """Wait a while, as a tool that calls a slow service does.

    Args:
        ms: How long, in milliseconds.
    """
    await asyncio.sleep(ms / 1000)
    return "done"


TOOLS = [note, wait_for_gate, pause]
"""What the worker registers: every tool the agent has."""

assistant = Agent(name="assistant", instructions="Use the tools.", tools=TOOLS)


@workflow.defn
class ToolsWorkflow:
    """Runs the assistant on a question; the scripted model picks the tools."""

    @workflow.run
    async def run(self, question: str) -> str:
        result = await Runner.run(assistant, question)
        return str(result.final_output)
