"""A triage agent hands the user to one of three specialists (one `transfer` tool).

Run with:
    python examples/triage.py
Or chat with the triage agent:
    tooluse chat examples/triage.py

Uses OpenAI when OPENAI_API_KEY is set; otherwise a scripted FunctionModel plays the
triage agent (picking billing) and the specialist.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from typing import Any

from tooluse import Agent, Runner, TResponseInputItem
from tooluse.models import Model
from tooluse.testing import FunctionModel, ModelReply, ToolCall


def scripted(items: list[TResponseInputItem], tools: Sequence[Any]) -> ModelReply | str:
    if any(tool.name == "transfer" for tool in tools):  # the triage agent
        return ModelReply(tool_calls=[ToolCall("transfer", {"agent": "billing"})])
    return "I have refunded your last invoice."


def pick_model() -> str | Model:
    """OpenAI's model when OPENAI_API_KEY is set, else the scripted FunctionModel."""
    return "gpt-4.1-mini" if os.environ.get("OPENAI_API_KEY") else FunctionModel(scripted)


# At module level, so that `tooluse chat examples/triage.py` finds them: it starts with
# `triage`, the one agent no other agent hands off to.
model = pick_model()
specialists = [
    Agent(
        "billing",
        instructions="You handle invoices and refunds.",
        handoff_description="Invoices, refunds.",
        model=model,
    ),
    Agent(
        "tech",
        instructions="You fix technical problems.",
        handoff_description="Bugs, outages.",
        model=model,
    ),
    Agent(
        "sales",
        instructions="You help people buy.",
        handoff_description="Plans, prices.",
        model=model,
    ),
]
triage = Agent(
    "triage",
    instructions="Send the user to the right specialist with the transfer tool.",
    handoffs=specialists,
    handoff_mode="one_tool",
    model=model,
)


async def main() -> None:
    if isinstance(model, str):
        print("Using OpenAI (OPENAI_API_KEY is set).")
    else:
        print("No OPENAI_API_KEY: using a scripted FunctionModel.")
    result = await Runner.run(triage, "I was charged twice, please refund me.")
    print(f"answered by: {result.last_agent.name}")
    print(f"answer: {result.final_output}")


if __name__ == "__main__":
    asyncio.run(main())
