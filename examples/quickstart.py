"""An agent with two tools. Uses OpenAI when OPENAI_API_KEY is set, else a scripted TestModel.

Run with:
    python examples/quickstart.py
Or chat with its agent:
    tooluse chat examples/quickstart.py
"""

from __future__ import annotations

import asyncio
import os
from typing import Literal, TypedDict

from tooluse import Agent, Runner, function_tool
from tooluse.models import Model
from tooluse.testing import TestModel


class Location(TypedDict):
    lat: float
    long: float


@function_tool
async def fetch_weather(location: Location) -> str:
    """Fetch the weather for a given location.

    Args:
        location: The location to fetch the weather for.
    """
    return f"Sunny and 21 °C at {location['lat']:.1f}, {location['long']:.1f}"


@function_tool
def convert_temperature(celsius: float, unit: Literal["F", "K"] = "F") -> str:
    """Convert a temperature from Celsius.

    Args:
        celsius: The temperature in degrees Celsius.
        unit: "F" for Fahrenheit or "K" for Kelvin.
    """
    value = celsius * 9 / 5 + 32 if unit == "F" else celsius + 273.15
    return f"{value:.1f} {unit}"


def pick_model() -> str | Model:
    """OpenAI's model when OPENAI_API_KEY is set, else the scripted TestModel."""
    return "gpt-4.1-mini" if os.environ.get("OPENAI_API_KEY") else TestModel()


# At module level, so that `tooluse chat examples/quickstart.py` finds it too.
agent = Agent(
    name="weather",
    instructions="Answer weather questions with the tools. Be brief.",
    tools=[fetch_weather, convert_temperature],
    model=pick_model(),
)


async def main() -> None:
    if isinstance(agent.model, str):
        print("Using OpenAI (OPENAI_API_KEY is set).")
    else:
        print("No OPENAI_API_KEY: using tooluse.testing.TestModel, which calls each tool once.")
    result = await Runner.run(agent, "What's the weather at 48.85, 2.35, in Fahrenheit?")
    for item in result.new_items:
        if item.get("type") == "function_call":
            print(f"called {item['name']}({item['arguments']})")
    print(f"answer: {result.final_output}")


if __name__ == "__main__":
    asyncio.run(main())
