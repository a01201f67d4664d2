"""An assistant to try in the browser: a tool that runs, and one that waits for approval.

Run with:
    tooluse web examples/web_assistant.py

Open the address it prints. Without OPENAI_API_KEY the agent runs on
tooluse.testing.TestModel, which calls each tool once and sums up what they returned.
"""

from __future__ import annotations

from tooluse import Agent, function_tool


@function_tool
def get_weather(city: str) -> str:
    """Get the weather in a city.

    Args:
        city: The city, e.g. "Paris".
    """
    return f"Sunny and 21°C in {city}"


@function_tool(needs_approval=True)
def book_table(restaurant: str, people: int) -> str:
    """Book a table at a restaurant (waits for your approval).

    Args:
        restaurant: The restaurant's name.
        people: How many people.
    """
    return f"Booked a table for {people} at {restaurant}"


agent = Agent(
    name="Assistant",
    instructions="Help plan an evening out: check the weather, book tables when asked.",
    model="gpt-4.1-mini",
    tools=[get_weather, book_table],
)
