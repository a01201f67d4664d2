"""A tool that needs a human's approval: the run pauses, the state goes through JSON, it resumes.

Run with:
    python examples/approval.py

Uses OpenAI when OPENAI_API_KEY is set; otherwise a scripted FunctionModel.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from typing import Any

from tooluse import Agent, Runner, RunState, TResponseInputItem, function_tool
from tooluse.models import Model
from tooluse.testing import FunctionModel, ModelReply, ToolCall


@function_tool(needs_approval=True)
def delete_file(path: str) -> str:
    """Delete a file.

    Args:
        path: The file to delete.
    """
    return f"deleted {path}"


def scripted(items: list[TResponseInputItem], tools: Sequence[Any]) -> ModelReply | str:
    outputs = [item["output"] for item in items if item.get("type") == "function_call_output"]
    if not outputs:
        return ModelReply(
            tool_calls=[
                ToolCall("delete_file", {"path": "/tmp/cache.db"}),
                ToolCall("delete_file", {"path": "/etc/passwd"}),
            ]
        )
    return "Done: " + "; ".join(outputs)


def pick_model() -> str | Model:
    if os.environ.get("OPENAI_API_KEY"):
        print("Using OpenAI (OPENAI_API_KEY is set).")
        return "gpt-4.1-mini"
    print("No OPENAI_API_KEY: using a scripted FunctionModel.")
    return FunctionModel(scripted)


async def main() -> None:
    agent = Agent(
        "janitor",
        instructions="Clean up files the user names.",
        tools=[delete_file],
        model=pick_model(),
    )
    paused = await Runner.run(agent, "Delete /tmp/cache.db and /etc/passwd.")
    for call in paused.interruptions:
        safe = call.arguments.find("/tmp/") != -1
        print(f"{'approve' if safe else 'reject '}: {call.tool_name}({call.arguments})")
        if safe:
            paused.approve(call)
        else:
            paused.reject(call, rejection_message="The user refused: system files stay.")
    saved = paused.to_state().to_json()  # could go to a database, or another process
    resumed = await Runner.run(agent, RunState.from_json(saved))
    print(f"answer: {resumed.final_output}")


if __name__ == "__main__":
    asyncio.run(main())
