"""`AgentOutputSchema` and `AgentOutputSchemaBase`: output types as openai-agents spells them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from tooluse import (
    Agent,
    AgentOutputSchema,
    AgentOutputSchemaBase,
    ModelBehaviorError,
    Runner,
)
from tooluse.models import ModelRequest, ModelResponse
from tooluse.testing import FunctionModel


@dataclass
class Jokes:
    jokes: dict[int, str]


class RecordingModel(FunctionModel):
    """A scripted model that keeps each request."""

    def __init__(self, answer: str) -> None:
        super().__init__(lambda items, tools: answer)
        self.requests: list[ModelRequest] = []

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        return await super().get_response(request)


async def test_a_non_strict_output_type_sends_pydantics_schema_without_strict_mode() -> None:
    model = RecordingModel('{"jokes": {"1": "a", "2": "b"}}')
    output = AgentOutputSchema(Jokes, strict_json_schema=False)
    agent = Agent("a", output_type=output, model=model)
    result = await Runner.run(agent, "jokes")
    assert result.final_output == Jokes({1: "a", 2: "b"})
    (request,) = model.requests
    assert request.output_strict is False
    assert request.output_schema == output.json_schema()
    assert request.output_schema is not None
    assert request.output_schema["properties"]["jokes"]["type"] == "object"
    assert not output.is_strict_json_schema()
    assert output.name() == "Jokes"


async def test_a_strict_agent_output_schema_is_the_types_own_strict_schema() -> None:
    model = RecordingModel('{"response": 3}')
    agent = Agent("a", output_type=AgentOutputSchema(int), model=model)
    assert (await Runner.run(agent, "n")).final_output == 3
    assert model.requests[0].output_strict is True


async def test_an_answer_outside_a_non_strict_schema_is_a_value_free_error() -> None:
    agent = Agent(
        "a",
        output_type=AgentOutputSchema(Jokes, strict_json_schema=False),
        model=FunctionModel(lambda items, tools: '{"jokes": "secret text"}'),
    )
    with pytest.raises(ModelBehaviorError) as caught:
        await Runner.run(agent, "jokes")
    assert "secret text" not in str(caught.value)
    assert "Jokes" in str(caught.value)


class ListOfJokes(AgentOutputSchemaBase):
    def is_plain_text(self) -> bool:
        return False

    def name(self) -> str:
        return "ListOfJokes"

    def json_schema(self) -> dict[str, Any]:
        return {"type": "object", "properties": {"jokes": {"type": "object"}}}

    def is_strict_json_schema(self) -> bool:
        return False

    def validate_json(self, json_str: str) -> Any:
        return list(json.loads(json_str)["jokes"].values())


async def test_a_custom_output_schema_gives_its_schema_and_parses_the_answer() -> None:
    model = RecordingModel('{"jokes": {"a": "x", "b": "y"}}')
    agent = Agent("a", output_type=ListOfJokes(), model=model)
    assert (await Runner.run(agent, "jokes")).final_output == ["x", "y"]
    assert model.requests[0].output_schema == ListOfJokes().json_schema()
    assert model.requests[0].output_strict is False
