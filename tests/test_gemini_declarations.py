"""`GeminiModel` rewrites a list of tools into Gemini's dialect once, not at every request.

The declarations are kept per list of tools, as the OpenAI models keep their tools'
params, and made again when a tool of the list changes.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

import pytest

import tooluse.models._gemini as gemini_module
from tooluse import WebSearchTool, function_tool
from tooluse.core._items import user_message
from tooluse.exceptions import UserError
from tooluse.models import GeminiModel, ModelRequest
from tooluse.schema._dialects import DialectSchema, gemini_schema


@function_tool
def weather(city: str, unit: Literal["C", "F"] = "C") -> str:
    """The weather.

    Args:
        city: The city.
        unit: The unit.
    """
    return f"Sunny in {city}"


@function_tool
def hotels(city: str, nights: int) -> str:
    """Hotels.

    Args:
        city: The city.
        nights: How many nights.
    """
    return "two"


def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    rewrites: list[int] = []

    def counting(schema: Any) -> DialectSchema:
        rewrites.append(1)
        return gemini_schema(schema)

    monkeypatch.setattr(gemini_module, "gemini_schema", counting)
    return rewrites


def request(tools: list[Any]) -> ModelRequest:
    return ModelRequest(instructions=None, input=[user_message("hi")], tools=tools)


def declarations(model: GeminiModel, tools: list[Any]) -> Any:
    return model.params(request(tools))["config"]["tools"][0]["function_declarations"]


def test_the_declarations_of_a_list_of_tools_are_made_once(monkeypatch: pytest.MonkeyPatch) -> None:
    rewrites = counted(monkeypatch)
    model = GeminiModel("gemini-test")
    tools = [weather, hotels]
    first = declarations(model, tools)
    for _ in range(5):
        assert declarations(model, tools) == first  # every request, a turn or a run later
    assert len(rewrites) == 2  # one rewrite per tool, at the first request
    assert [d["name"] for d in first] == ["weather", "hotels"]
    assert "additionalProperties" not in first[0]["parameters"]


def test_a_changed_tool_is_declared_again(monkeypatch: pytest.MonkeyPatch) -> None:
    rewrites = counted(monkeypatch)
    model = GeminiModel("gemini-test")
    mine = replace(weather)  # a tool of its own, to change
    tools = [mine]
    declarations(model, tools)
    mine.description = "The weather, today."
    changed = declarations(model, tools)
    assert changed[0]["description"] == "The weather, today."
    assert len(rewrites) == 2


def test_a_hosted_tool_is_refused_at_every_request() -> None:
    model = GeminiModel("gemini-test")
    for _ in range(2):
        with pytest.raises(UserError, match="GeminiModel cannot offer WebSearchTool"):
            model.params(request([weather, WebSearchTool()]))
