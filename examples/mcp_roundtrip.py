"""MCP both ways: tooluse tools served over MCP, used by an agent through an MCP client.

Run with:
    python examples/mcp_roundtrip.py

`tooluse serve examples/weather.py` runs as a subprocess (MCP over stdio); an agent
lists its tools through `MCPServerStdio`, next to a function tool of its own, and
calls one of each. Uses OpenAI when OPENAI_API_KEY is set; otherwise a scripted
FunctionModel. Needs `pip install 'tooluse[mcp]'`.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tooluse import Agent, Runner, TResponseInputItem, function_tool
from tooluse.mcp import MCPServerStdio
from tooluse.models import Model
from tooluse.testing import FunctionModel, ModelReply, ToolCall, current_turn, tool_outputs

WEATHER = Path("examples", "weather.py")  # run from the repository's root, as above


@function_tool
def celsius_to_fahrenheit(celsius: float) -> float:
    """Convert a temperature.

    Args:
        celsius: Degrees Celsius.
    """
    return celsius * 9 / 5 + 32


def scripted(items: list[TResponseInputItem], tools: Sequence[Any]) -> ModelReply | str:
    turn = current_turn(items)  # outputs before the last user message answered earlier ones
    outputs = tool_outputs(turn)
    if not outputs:
        names = sorted(tool.name for tool in tools)
        print("tools offered:", ", ".join(names))
        return ModelReply(
            tool_calls=[
                ToolCall("weather_fetch_weather", {"location": {"lat": 48.85, "long": 2.35}}),
                ToolCall("celsius_to_fahrenheit", {"celsius": 21}),
            ]
        )
    return "; ".join(outputs)


def pick_model() -> str | Model:
    """OpenAI's model when OPENAI_API_KEY is set, else the scripted FunctionModel."""
    return "gpt-4.1" if os.environ.get("OPENAI_API_KEY") else FunctionModel(scripted)


# At module level, so that `tooluse chat examples/mcp_roundtrip.py` finds it; the server
# process starts when a run first lists the agent's tools.
server = MCPServerStdio(
    params={"command": sys.executable, "args": ["-m", "tooluse", "serve", str(WEATHER)]},
    name="weather",
    tool_name_prefix="weather",
)
agent = Agent(
    "assistant",
    instructions="Answer with the weather in Paris, in Celsius and Fahrenheit.",
    tools=[celsius_to_fahrenheit],
    mcp_servers=[server],
    model=pick_model(),
)


async def main() -> None:
    if not isinstance(agent.model, str):
        print("No OPENAI_API_KEY: using a scripted FunctionModel.")
    result = await Runner.run(agent, "What's the weather in Paris?")
    print("answer:", result.final_output)


if __name__ == "__main__":
    asyncio.run(main())
