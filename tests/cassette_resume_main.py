"""One half of a paused run, in its own process, on a cassette: for test_cassette_resume.py.

    python -m tests.cassette_resume_main start|resume record|replay CASSETTE STATE

`start` runs until the tool call waits for approval and writes the state to STATE;
`resume` reads it, approves the call and prints the answer. `record` calls a scripted
model through a `RecordingModel` (`resume` appends to the cassette); `replay` answers
from the cassette alone.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from tooluse import Agent, Runner, RunState, function_tool
from tooluse.models import Model
from tooluse.testing import (
    Cassette,
    FunctionModel,
    ModelReply,
    RecordingModel,
    ReplayModel,
    ToolCall,
)


@function_tool(needs_approval=True)
def refund(order: str) -> str:
    """Refund an order.

    Args:
        order: The order's id.
    """
    return f"refunded {order}"


def scripted(items: list[Any], tools: Any) -> ModelReply | str:
    outputs = [i["output"] for i in items if i.get("type") == "function_call_output"]
    if not outputs:
        return ModelReply(tool_calls=[ToolCall("refund", {"order": "A-17"})])
    return f"Done: {outputs[-1]}"


async def main(phase: str, mode: str, cassette: Path, state: Path) -> None:
    model: Model
    if mode == "record":
        model = RecordingModel(
            FunctionModel(scripted), Cassette(cassette, append=phase == "resume")
        )
    else:
        model = ReplayModel(cassette)
    agent = Agent("support", instructions="Refund what is asked.", tools=[refund], model=model)
    if phase == "start":
        paused = await Runner.run(agent, "Refund order A-17.")
        state.write_text(paused.to_state().to_string())
        print("waiting:", [call.tool_name for call in paused.interruptions])
        return
    resumed_state = RunState.from_json(state.read_text())
    for call in resumed_state.interruptions:
        resumed_state.approve(call)
    result = await Runner.run(agent, resumed_state)
    print("answer:", result.final_output)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])))
