"""A manager agent uses two other agents as tools, and keeps control.

Run with:
    python examples/manager.py
Or chat with the manager:
    tooluse chat examples/manager.py

Uses OpenAI when OPENAI_API_KEY is set; otherwise a scripted FunctionModel plays every agent.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from typing import Any

from tooluse import Agent, Runner, TResponseInputItem
from tooluse.models import Model
from tooluse.testing import FunctionModel, ModelReply, ToolCall, current_turn


def scripted(items: list[TResponseInputItem], tools: Sequence[Any]) -> ModelReply | str:
    names = {tool.name for tool in tools}
    turn = current_turn(items)  # outputs before the last user message answered earlier ones
    outputs = [item["output"] for item in turn if item.get("type") == "function_call_output"]
    if not names:  # a specialist, asked through a tool
        request = items[-1]["content"]
        return f"[{request}] -> " + ("bonjour" if "French" in request else "hola")
    if not outputs:
        return ModelReply(
            tool_calls=[
                ToolCall("french", {"input": "Translate 'hello' to French"}),
                ToolCall("spanish", {"input": "Translate 'hello' to Spanish"}),
            ]
        )
    return "French: bonjour; Spanish: hola."


def pick_model() -> str | Model:
    """OpenAI's model when OPENAI_API_KEY is set, else the scripted FunctionModel."""
    return "gpt-4.1-mini" if os.environ.get("OPENAI_API_KEY") else FunctionModel(scripted)


# At module level, so that `tooluse chat examples/manager.py` finds them: it starts with
# `manager`, the one agent no other agent uses as a tool.
model = pick_model()
french = Agent("french", instructions="Translate the request into French.", model=model)
spanish = Agent("spanish", instructions="Translate the request into Spanish.", model=model)
manager = Agent(
    "manager",
    instructions="Use the translator tools, then answer with both translations.",
    tools=[
        french.as_tool(tool_description="Translates to French."),
        spanish.as_tool(tool_description="Translates to Spanish."),
    ],
    model=model,
)


async def main() -> None:
    if isinstance(model, str):
        print("Using OpenAI (OPENAI_API_KEY is set).")
    else:
        print("No OPENAI_API_KEY: using a scripted FunctionModel.")
    result = await Runner.run(manager, "How do you say hello in French and Spanish?")
    print(f"answered by: {result.last_agent.name} after {result.usage.requests} model calls")
    print(f"answer: {result.final_output}")


if __name__ == "__main__":
    asyncio.run(main())
