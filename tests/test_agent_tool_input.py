"""`Agent.as_tool(parameters=...)`: an agent tool whose arguments are a type's fields."""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass
from typing import Any, cast

import pytest
from pydantic import BaseModel, Field, field_validator

from tooluse import Agent, AgentToolStreamEvent, Runner, TResponseInputItem, UserError
from tooluse.testing import FunctionModel, ModelReply, ToolCall, current_turn


class Translation(BaseModel):
    text: str = Field(description="Text to translate.")
    target: str = Field(description="Target language.")

    @field_validator("target")
    @classmethod
    def known(cls, value: str) -> str:
        if value not in ("fr", "de"):
            raise ValueError("unknown language")
        return value


@dataclass
class Lookup:
    key: str
    limit: int = 3


def _translator(seen: list[Any]) -> Agent[Any]:
    def answer(items: list[TResponseInputItem], tools: Any) -> str:
        seen.append(items[-1]["content"])
        return "Bonjour"

    return Agent("translator", model=FunctionModel(answer))


def _caller(tool: Any, arguments: dict[str, Any]) -> Agent[Any]:
    def call(items: list[TResponseInputItem], tools: Any) -> ModelReply | str:
        outputs = [i for i in current_turn(items) if i.get("type") == "function_call_output"]
        if outputs:
            return f"told: {outputs[-1]['output']}"
        return ModelReply(tool_calls=[ToolCall(tool.name, arguments)])

    return Agent("caller", tools=[tool], model=FunctionModel(call))


@pytest.mark.parametrize("parameters", [None, Translation])
def test_an_agent_tool_wraps_no_function_of_the_developers_and_still_runs(
    parameters: type[Translation] | None,
) -> None:
    # Its function is tooluse's nested run: `__wrapped__` would lead into tooluse's code.
    seen: list[Any] = []
    tool = _translator(seen).as_tool(tool_name="translate", parameters=parameters)
    assert not hasattr(tool, "__wrapped__")
    with pytest.raises(AttributeError, match="an agent used as a tool"):
        _ = tool.__wrapped__
    assert inspect.unwrap(cast(Any, tool)) is tool
    arguments = {"input": "Hola"} if parameters is None else {"text": "Hola", "target": "fr"}
    result = Runner.run_sync(_caller(tool, arguments), "go")
    assert result.final_output == "told: Bonjour"
    assert len(seen) == 1


def test_the_fields_are_the_tools_parameters_with_their_descriptions() -> None:
    tool = _translator([]).as_tool(tool_name="translate", parameters=Translation)
    schema = tool.params_json_schema
    assert schema["required"] == ["text", "target"]
    assert schema["properties"]["text"]["description"] == "Text to translate."
    assert schema["additionalProperties"] is False


def test_the_nested_agent_gets_the_data_as_json_and_a_summary_of_the_fields() -> None:
    seen: list[Any] = []
    tool = _translator(seen).as_tool(tool_name="translate", parameters=Translation)
    result = Runner.run_sync(_caller(tool, {"text": "Hola", "target": "fr"}), "go")
    assert result.final_output == "told: Bonjour"
    (nested,) = seen
    assert nested.startswith("You are being called as a tool.")
    data = nested.split("```")[1]
    assert json.loads(data) == {"text": "Hola", "target": "fr"}
    assert "- text (string, required): Text to translate." in nested


def test_include_input_schema_gives_the_whole_schema_instead_of_the_summary() -> None:
    seen: list[Any] = []
    tool = _translator(seen).as_tool(parameters=Translation, include_input_schema=True)
    Runner.run_sync(_caller(tool, {"text": "Hola", "target": "de"}), "go")
    schema = json.loads(seen[0].split("```")[3])
    assert schema["properties"]["target"]["description"] == "Target language."
    assert "Summary" not in seen[0]


def test_an_input_builder_makes_the_nested_input_from_a_dataclass() -> None:
    seen: list[Any] = []

    async def build(options: Any) -> str:
        params = options["params"]
        return f"look up {params['key']} (at most {params['limit']})"

    tool = _translator(seen).as_tool(parameters=Lookup, input_builder=build)
    assert tool.params_json_schema["properties"]["limit"]["type"] == "integer"
    Runner.run_sync(_caller(tool, {"key": "k1", "limit": 2}), "go")
    assert seen == ["look up k1 (at most 2)"]


def test_the_types_own_validators_run_and_a_failure_is_value_free() -> None:
    seen: list[Any] = []
    tool = _translator(seen).as_tool(parameters=Translation)
    result = Runner.run_sync(_caller(tool, {"text": "secret words", "target": "xx"}), "go")
    assert seen == []  # the nested agent never ran
    assert "secret words" not in result.final_output
    assert "translator" in result.final_output


def test_parameters_must_be_a_dataclass_or_a_model_and_builders_need_them() -> None:
    agent = _translator([])
    with pytest.raises(UserError, match=r"parameters=.*must be a dataclass or a pydantic model"):
        agent.as_tool(parameters=dict)
    with pytest.raises(UserError, match="pass parameters=YourModel too"):
        agent.as_tool(include_input_schema=True)


async def test_on_stream_receives_the_nested_runs_events_with_the_call() -> None:
    seen: list[Any] = []

    async def handle(event: AgentToolStreamEvent) -> None:
        seen.append((event["event"].type, event["agent"].name, event["tool_call"]))

    def broken(event: AgentToolStreamEvent) -> None:
        raise RuntimeError("handler failed")

    translator = _translator([])
    tool = translator.as_tool(tool_name="translate", on_stream=handle)
    result = await Runner.run(_caller(tool, {"input": "Hola"}), "go")
    assert result.final_output == "told: Bonjour"
    types = [kind for kind, _, _ in seen]
    assert "run_item_stream_event" in types
    assert {name for _, name, _ in seen} == {"translator"}
    call = seen[0][2]
    assert (call.name, call["arguments"]) == ("translate", '{"input": "Hola"}')
    assert call.call_id
    quiet = translator.as_tool(tool_name="translate", on_stream=broken)
    assert (await Runner.run(_caller(quiet, {"input": "Hola"}), "go")).final_output == (
        "told: Bonjour"
    )
