"""`GeminiModel` against a local server that speaks `generateContent`, through the real SDK.

Runs go through the official `google-genai` client over HTTP to `GeminiServer`, which
refuses what the real API refuses (a function response that answers no call, a schema
outside Gemini's OpenAPI subset, a thinking model's call sent back without its
signature), so a conversion or dialect bug fails here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from enum import Enum
from typing import Any, Literal

import pytest
from pydantic import BaseModel

from tooluse import (
    Agent,
    ModelSettings,
    RetryPolicy,
    RunConfig,
    Runner,
    TextDeltaStreamEvent,
    ToolCallArgumentsDeltaStreamEvent,
    function_tool,
)
from tooluse.exceptions import ModelAPIError, UserError

from .gemini_server import SIGNATURE, FunctionCall, GeminiServer, Turn

FAST = RetryPolicy(max_retries=2, initial_delay=0.001, max_delay=0.002, jitter=0)


@pytest.fixture
def server() -> Iterator[GeminiServer]:
    local = GeminiServer()
    local.start()
    try:
        yield local
    finally:
        local.stop()


class Unit(Enum):
    C = 1
    F = 2


class Place(BaseModel):
    city: str
    country: str | None


@function_tool
def weather(place: Place, unit: Unit, when: Literal["now", "tomorrow"] = "now") -> str:
    """The weather at a place.

    Args:
        place: Where.
        unit: Celsius (1) or Fahrenheit (2).
        when: Which day.
    """
    return f"sunny in {place.city} ({unit.name}, {when})"


@function_tool
def signed_lookup(city: str) -> str:
    """A tool a thinking model calls (the server wants its signature back).

    Args:
        city: The city.
    """
    return f"looked up {city}"


def body(server: GeminiServer, index: int) -> dict[str, Any]:
    return server.requests[index]["body"]


async def run_both_ways(agent: Agent[Any], streamed: bool, **options: Any) -> Any:
    if not streamed:
        return await Runner.run(agent, "Weather in Paris?", **options)
    result = Runner.run_streamed(agent, "Weather in Paris?", **options)
    async for _ in result.stream_events():
        pass
    return result


ARGS = {"place": {"city": "Paris", "country": None}, "unit": 1, "when": "now"}


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_a_call_and_its_response_go_back_in_geminis_shape(
    server: GeminiServer, streamed: bool
) -> None:
    server.script(Turn(calls=[FunctionCall("weather", ARGS)]), Turn(text="It is sunny."))
    agent = Agent("gemini", instructions="Be brief.", tools=[weather], model=server.model())

    result = await run_both_ways(agent, streamed)

    assert result.final_output == "It is sunny."
    assert all("refused" not in request for request in server.requests)
    first, second = body(server, 0), body(server, 1)
    assert first["systemInstruction"]["parts"] == [{"text": "Be brief."}]
    assert second["contents"][1:] == [
        {"role": "model", "parts": [{"functionCall": {"name": "weather", "args": ARGS}}]},
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "name": "weather",
                        "response": {"output": "sunny in Paris (C, now)"},
                    }
                }
            ],
        },
    ]
    assert result.usage.input_tokens == 20


async def test_the_schema_is_rewritten_into_geminis_subset(server: GeminiServer) -> None:
    server.script(Turn(text="ok"))
    agent = Agent("gemini", tools=[weather], model=server.model())

    await Runner.run(agent, "hi")

    parameters = body(server, 0)["tools"][0]["functionDeclarations"][0]["parameters"]
    assert "$defs" not in json.dumps(parameters)
    assert parameters["properties"]["place"]["type"] == "OBJECT"  # the $ref inlined
    assert parameters["properties"]["place"]["properties"]["country"] == {
        "type": "STRING",
        "nullable": True,
    }
    unit = parameters["properties"]["unit"]
    assert "enum" not in unit
    assert "One of: 1, 2." in unit["description"]
    assert parameters["properties"]["when"]["enum"] == ["now", "tomorrow"]


async def test_streamed_deltas_join_to_the_text_and_the_arguments(server: GeminiServer) -> None:
    server.script(
        Turn(calls=[FunctionCall("weather", ARGS, id="c1")]), Turn(text="Sunny and warm.")
    )
    agent = Agent("gemini", tools=[weather], model=server.model())

    result = Runner.run_streamed(agent, "Weather?")
    text: list[str] = []
    pieces: list[tuple[str, str, str]] = []
    async for event in result.stream_events():
        if isinstance(event, TextDeltaStreamEvent):
            text.append(event.delta)
        elif isinstance(event, ToolCallArgumentsDeltaStreamEvent):
            pieces.append((event.call_id, event.tool_name, event.delta))

    assert "".join(text) == "Sunny and warm." == result.final_output
    assert [(c, n) for c, n, _ in pieces] == [("c1", "weather")]
    assert json.loads(pieces[0][2]) == ARGS
    # Gemini's own id goes back with the response.
    assert body(server, 1)["contents"][2]["parts"][0]["functionResponse"]["id"] == "c1"


async def test_parallel_calls_are_answered_in_one_user_content(server: GeminiServer) -> None:
    oslo = {**ARGS, "place": {"city": "Oslo", "country": None}}
    server.script(
        Turn(calls=[FunctionCall("weather", ARGS), FunctionCall("weather", oslo)]),
        Turn(text="Done."),
    )
    agent = Agent("gemini", tools=[weather], model=server.model())

    result = await Runner.run(agent, "Paris and Oslo?")

    assert result.final_output == "Done."
    answers = body(server, 1)["contents"][-1]["parts"]
    assert [a["functionResponse"]["response"]["output"] for a in answers] == [
        "sunny in Paris (C, now)",
        "sunny in Oslo (C, now)",
    ]


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_thought_signatures_go_back_on_their_part(
    server: GeminiServer, streamed: bool
) -> None:
    server.script(
        Turn(thought="Paris, then.", calls=[FunctionCall("signed_lookup", {"city": "Paris"})]),
        Turn(text="Found it."),
    )
    settings = ModelSettings(thinking_budget=512)
    agent = Agent("gemini", tools=[signed_lookup], model=server.model(), model_settings=settings)

    result = await run_both_ways(agent, streamed)

    assert result.final_output == "Found it."
    thinking = body(server, 0)["generationConfig"]["thinkingConfig"]
    # The SDK sends this one in snake case, which the API takes as well.
    assert thinking == {"thinking_budget": 512, "include_thoughts": True}
    call = body(server, 1)["contents"][1]["parts"][0]
    assert call["thoughtSignature"] == SIGNATURE
    assert "refused" not in server.requests[1]


class Forecast(BaseModel):
    city: str
    sunny: bool


async def test_structured_output_is_native_without_tools(server: GeminiServer) -> None:
    server.script(Turn(text='{"city": "Paris", "sunny": true}'))
    agent = Agent("gemini", model=server.model(), output_type=Forecast)

    result = await Runner.run(agent, "hi")

    assert result.final_output == Forecast(city="Paris", sunny=True)
    generation = body(server, 0)["generationConfig"]
    assert generation["responseMimeType"] == "application/json"
    assert generation["responseSchema"]["properties"]["sunny"] == {"type": "BOOLEAN"}


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_structured_output_with_tools_is_a_final_output_call(
    server: GeminiServer, streamed: bool
) -> None:
    server.script(
        Turn(calls=[FunctionCall("weather", ARGS)]),
        Turn(calls=[FunctionCall("final_output", {"city": "Paris", "sunny": True})]),
    )
    agent = Agent("gemini", tools=[weather], model=server.model(), output_type=Forecast)

    result = await run_both_ways(agent, streamed)

    assert result.final_output == Forecast(city="Paris", sunny=True)
    first = body(server, 0)
    names = [d["name"] for d in first["tools"][0]["functionDeclarations"]]
    assert names == ["weather", "final_output"]
    assert "responseSchema" not in first.get("generationConfig", {})


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        ("required", {"mode": "ANY"}),
        ("none", {"mode": "NONE"}),
        ("weather", {"mode": "ANY", "allowedFunctionNames": ["weather"]}),
    ],
)
async def test_tool_choice_as_the_function_calling_mode(
    server: GeminiServer, choice: str, sent: dict[str, Any]
) -> None:
    server.script(Turn(text="ok"))
    settings = ModelSettings(tool_choice=choice)
    agent = Agent("gemini", tools=[weather], model=server.model(), model_settings=settings)

    await Runner.run(agent, "hi")

    assert body(server, 0)["toolConfig"]["functionCallingConfig"] == sent


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("status", [429, 503])
async def test_failures_a_retry_can_fix_are_retried(
    server: GeminiServer, streamed: bool, status: int
) -> None:
    server.script(Turn(status=status, headers={"retry-after": "0.001"}), Turn(text="ok"))
    agent = Agent("gemini", model=server.model())

    result = await run_both_ways(agent, streamed, run_config=RunConfig(retry_policy=FAST))

    assert result.final_output == "ok"
    assert len(server.requests) == 2


async def test_a_refused_request_says_what_gemini_refused(server: GeminiServer) -> None:
    agent = Agent("gemini", model=server.model())
    calls = [
        {"type": "function_call", "call_id": f"c{n}", "name": "weather", "arguments": "{}"}
        for n in (1, 2)
    ]
    one_answer = {"type": "function_call_output", "call_id": "c1", "output": "x"}

    with pytest.raises(ModelAPIError) as raised:
        await Runner.run(agent, [{"role": "user", "content": "hi"}, *calls, one_answer])

    assert raised.value.status_code == 400
    assert "INVALID_ARGUMENT" in str(raised.value)
    assert "number of function response parts" in str(raised.value)


async def test_an_answer_to_no_call_is_refused_before_the_request(server: GeminiServer) -> None:
    agent = Agent("gemini", model=server.model())
    orphan = {"type": "function_call_output", "call_id": "c9", "output": "x"}

    with pytest.raises(UserError, match=r"input\[1\] .* answers a call 'c9' that is not in"):
        await Runner.run(agent, [{"role": "user", "content": "hi"}, orphan])

    assert server.requests == []


async def test_a_cut_stream_stops_the_run_saying_so(server: GeminiServer) -> None:
    server.script(Turn(text="cut short", ends_early=True))
    agent = Agent("gemini", model=server.model())

    with pytest.raises(ModelAPIError, match="the stream ended before the response was complete"):
        await run_both_ways(agent, True, run_config=RunConfig(retry_policy=FAST))


async def test_a_stop_for_tokens_is_incomplete(server: GeminiServer) -> None:
    server.script(Turn(text="cut", finish_reason="MAX_TOKENS"))
    model = server.model()
    from tooluse.models import ModelRequest

    response = await model.get_response(ModelRequest(None, [{"role": "user", "content": "hi"}]))

    assert (response.status, response.reason) == ("incomplete", "max_tokens")
    assert response.model == "gemini-test-001"
