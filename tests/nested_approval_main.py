"""An agent used as a tool whose nested run pauses for approval: for test_nested_approvals.py.

    python -m tests.nested_approval_main start|resume plain|streamed STATE

`start` runs the outer agent until the nested agent's `refund` waits for approval,
prints what waits (tool and agent) and writes the state to STATE; `resume` reads it,
approves, and prints the answer and how often each tool ran in this process.
The models are scripted (`FunctionModel`): each answers from the conversation alone.
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from tooluse import Agent, Runner, RunState, function_tool
from tooluse.testing import FunctionModel, ModelReply, ToolCall, current_turn

RAN: Counter[str] = Counter()
"""How often each tool ran, in this process."""


@function_tool(needs_approval=True)
def refund(order: str) -> str:
    """Refund an order.

    Args:
        order: The order's id.
    """
    RAN["refund"] += 1
    return f"refunded {order}"


@function_tool
def note(text: str) -> str:
    """Write a note.

    Args:
        text: The note.
    """
    RAN["note"] += 1
    return f"noted {text}"


def _outputs(items: list[Any]) -> list[str]:
    return [i["output"] for i in current_turn(items) if i.get("type") == "function_call_output"]


def clerk_script(items: list[Any], tools: Any) -> ModelReply | str:
    """The nested agent: refund A-17, then say what happened."""
    done = _outputs(items)
    if done:
        return f"clerk: {done[0]}"
    return ModelReply(tool_calls=[ToolCall("refund", {"order": "A-17"})])


def desk_script(items: list[Any], tools: Any) -> ModelReply | str:
    """The outer agent: ask the clerk and write a note at once, then sum up."""
    done = _outputs(items)
    if done:
        return "desk: " + " | ".join(done)
    return ModelReply(
        tool_calls=[
            ToolCall("ask_clerk", {"input": "refund A-17"}),
            ToolCall("note", {"text": "x"}),
        ]
    )


clerk = Agent("clerk", tools=[refund], model=FunctionModel(clerk_script))
desk = Agent(
    "desk",
    tools=[clerk.as_tool(tool_name="ask_clerk", tool_description="Ask the clerk."), note],
    model=FunctionModel(desk_script),
)


async def run(given: str | RunState, streamed: bool) -> Any:
    """The desk's run, whole or streamed."""
    if not streamed:
        return await Runner.run(desk, given)
    result = Runner.run_streamed(desk, given)
    async for _ in result.stream_events():
        pass
    return result


async def main(phase: str, mode: str, state_path: Path) -> None:
    streamed = mode == "streamed"
    if phase == "start":
        result = await run("refund A-17, please", streamed)
        print([(i.name, i.agent.name) for i in result.interruptions], dict(RAN))
        state_path.write_text(result.to_state().to_string())
        return
    state = RunState.from_json(state_path.read_text())
    for waiting in state.get_interruptions():
        state.approve(waiting)
    result = await run(state, streamed)
    print(result.final_output, dict(RAN))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], Path(sys.argv[3])))
