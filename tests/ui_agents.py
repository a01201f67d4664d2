"""The agents of the UI tests: the five flows, on scripted models that record what they saw."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooluse import Agent, function_tool
from tooluse.core._items import Item
from tooluse.models._base import Tool
from tooluse.testing import FunctionModel, ModelReply, ToolCall

RAN: list[str] = []
"""Each tool call that ran, as `name(argument)`: what the approval tests count."""


@function_tool
def get_weather(city: str) -> str:
    """The weather in a city.

    Args:
        city: The city.
    """
    RAN.append(f"get_weather({city})")
    return f"Sunny in {city}"


@function_tool(needs_approval=True)
def delete_file(path: str) -> str:
    """Delete a file.

    Args:
        path: The file.
    """
    RAN.append(f"delete_file({path})")
    return f"deleted {path}"


@function_tool
def explode(reason: str) -> str:
    """A tool whose model breaks the run.

    Args:
        reason: Why.
    """
    return reason


def _outputs(items: list[Item]) -> list[str]:
    return [str(item["output"]) for item in items if item.get("type") == "function_call_output"]


def _last_user(items: list[Item]) -> str:
    users = [item for item in items if item.get("role") == "user"]
    content: Any = users[-1]["content"] if users else ""
    return content if isinstance(content, str) else str(content)


SEEN: list[list[Item]] = []
"""The input of each model call: what the history tests read."""


def reply(items: list[Item], tools: Sequence[Tool]) -> ModelReply | str:
    """Answer by the last user message: `weather`, `both`, `delete`, `boom`, or echo it."""
    SEEN.append(list(items))
    outputs = _outputs(items)
    if outputs and items[-1].get("type") == "function_call_output":
        return "Done: " + "; ".join(outputs[-2:])
    said = _last_user(items)
    if said == "weather":
        return ModelReply(tool_calls=[ToolCall("get_weather", {"city": "Paris"})])
    if said == "both":
        return ModelReply(
            tool_calls=[
                ToolCall("get_weather", {"city": "Paris"}, call_id="call_a"),
                ToolCall("get_weather", {"city": "Oslo"}, call_id="call_b"),
            ]
        )
    if said.startswith("delete"):
        return ModelReply(tool_calls=[ToolCall("delete_file", {"path": "notes.txt"})])
    if said == "boom":
        raise RuntimeError("the model service is down; try again later")
    return f"You said: {said}. Hello from tooluse!"


model = FunctionModel(reply)
agent = Agent(
    name="Assistant",
    instructions="Help.",
    model=model,
    tools=[get_weather, delete_file],
)
