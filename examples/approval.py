"""A tool that needs a human's approval: the run pauses, the state goes through JSON, it resumes.

Run with:
    python examples/approval.py
Or chat with its agent, approving calls yourself:
    tooluse chat examples/approval.py

Uses OpenAI when OPENAI_API_KEY is set; otherwise a scripted FunctionModel.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from typing import Any

from tooluse import Agent, Runner, RunState, TResponseInputItem, function_tool
from tooluse.models import Model
from tooluse.testing import FunctionModel, ModelReply, ToolCall, current_turn


@function_tool(needs_approval=True)
def delete_file(path: str) -> str:
    """Delete a file.

    Args:
        path: The file to delete.
    """
    return f"deleted {path}"


def scripted(items: list[TResponseInputItem], tools: Sequence[Any]) -> ModelReply | str:
    turn = current_turn(items)  # outputs before the last user message answered earlier ones
    outputs = [item["output"] for item in turn if item.get("type") == "function_call_output"]
    if not outputs:
        return ModelReply(
            tool_calls=[
                ToolCall("delete_file", {"path": "/tmp/cache.db"}),
                ToolCall("delete_file", {"path": "/etc/passwd"}),
            ]
        )
    return "Done: " + "; ".join(outputs)


def pick_model() -> str | Model:
    """OpenAI's model when OPENAI_API_KEY is set, else the scripted FunctionModel."""
    return "gpt-4.1-mini" if os.environ.get("OPENAI_API_KEY") else FunctionModel(scripted)


# At module level, so that `tooluse chat examples/approval.py` finds it: the chat asks you.
agent = Agent(
    "janitor",
    instructions="Clean up files the user names.",
    tools=[delete_file],
    model=pick_model(),
)


async def main() -> None:
    if isinstance(agent.model, str):
        print("Using OpenAI (OPENAI_API_KEY is set).")
    else:
        print("No OPENAI_API_KEY: using a scripted FunctionModel.")
    paused = await Runner.run(agent, "Delete /tmp/cache.db and /etc/passwd.")
    for call in paused.interruptions:
        safe = call.arguments.find("/tmp/") != -1
        print(f"{'approve' if safe else 'reject '}: {call.tool_name}({call.arguments})")
        if safe:
            paused.approve(call)
        else:
            paused.reject(call, rejection_message="The user refused: system files stay.")
    saved = paused.to_state().to_string()  # could go to a database, or another process
    resumed = await Runner.run(agent, RunState.from_json(saved))
    print(f"answer: {resumed.final_output}")


if __name__ == "__main__":
    asyncio.run(main())
