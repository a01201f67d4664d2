"""`AnthropicModel` against a local server that speaks the Messages API, through the real SDK.

Runs go through the official `anthropic` client over HTTP to `AnthropicServer`, which
refuses what the real API refuses (a `tool_result` that answers no `tool_use`, roles
that do not alternate, a thinking block changed), so a conversion bug fails here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from tooluse import (
    Agent,
    ModelSettings,
    RetryPolicy,
    RunConfig,
    RunHooks,
    Runner,
    SQLiteSession,
    TextDeltaStreamEvent,
    ToolCallArgumentsDeltaStreamEvent,
    ToolOutputImage,
    UsageLimits,
    function_tool,
    handoff,
)
from tooluse.exceptions import ModelAPIError, UsageLimitExceeded
from tooluse.models import AnthropicModel, ModelRequest, ResponseDone, TextDelta

from .anthropic_server import AnthropicServer, Turn, Use, signature
from .openai_server import Call, ScriptedServer
from .openai_server import Turn as OpenAITurn

FAST = RetryPolicy(max_retries=2, initial_delay=0.001, max_delay=0.002, jitter=0)


@pytest.fixture
def server() -> Iterator[AnthropicServer]:
    local = AnthropicServer()
    local.start()
    try:
        yield local
    finally:
        local.stop()


@function_tool
def weather(city: str) -> str:
    """The weather in a city.

    Args:
        city: The city's name.
    """
    return f"sunny in {city}"


@function_tool
def broken(city: str) -> str:
    """A tool that fails.

    Args:
        city: The city's name.
    """
    raise RuntimeError("no data")


def body(server: AnthropicServer, index: int) -> dict[str, Any]:
    return server.requests[index]["body"]


async def run_both_ways(agent: Agent[Any], streamed: bool, **options: Any) -> Any:
    if not streamed:
        return await Runner.run(agent, "What is the weather in Paris?", **options)
    result = Runner.run_streamed(agent, "What is the weather in Paris?", **options)
    async for _ in result.stream_events():
        pass
    return result


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_a_tool_call_and_its_result_go_back_as_tool_use_and_tool_result(
    server: AnthropicServer, streamed: bool
) -> None:
    server.script(Turn(uses=[Use("weather", {"city": "Paris"})]), Turn(text="It is sunny."))
    agent = Agent("claude", instructions="Be brief.", tools=[weather], model=server.model())

    result = await run_both_ways(agent, streamed)

    assert result.final_output == "It is sunny."
    first, second = body(server, 0), body(server, 1)
    assert first["system"] == "Be brief."
    assert first["tools"] == [
        {
            "name": "weather",
            "description": "The weather in a city.",
            "input_schema": weather.params_json_schema,
            "strict": True,
        }
    ]
    assert second["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "What is the weather in Paris?"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Paris"}}
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny in Paris"}
            ],
        },
    ]
    assert result.usage.requests == 2
    assert result.usage.input_tokens == 20


async def test_streamed_deltas_join_to_the_text_and_the_arguments(server: AnthropicServer) -> None:
    arguments = {"city": "Rio de Janeiro"}
    server.script(Turn(uses=[Use("weather", arguments)]), Turn(text="Sunny, warm and bright."))
    agent = Agent("claude", tools=[weather], model=server.model())

    result = Runner.run_streamed(agent, "Weather?")
    text: list[str] = []
    pieces: list[tuple[str, str, str]] = []
    async for event in result.stream_events():
        if isinstance(event, TextDeltaStreamEvent):
            text.append(event.delta)
        elif isinstance(event, ToolCallArgumentsDeltaStreamEvent):
            pieces.append((event.call_id, event.tool_name, event.delta))

    assert "".join(text) == "Sunny, warm and bright." == result.final_output
    assert len(pieces) > 1  # the server sends the arguments in pieces
    assert {(call_id, name) for call_id, name, _ in pieces} == {("toolu_1", "weather")}
    assert json.loads("".join(piece for *_, piece in pieces)) == arguments


async def test_parallel_calls_are_answered_in_one_user_message(server: AnthropicServer) -> None:
    server.script(
        Turn(uses=[Use("weather", {"city": "Oslo"}), Use("weather", {"city": "Rome"})]),
        Turn(text="Done."),
    )
    agent = Agent("claude", tools=[weather], model=server.model())

    result = await Runner.run(agent, "Oslo and Rome?")

    assert result.final_output == "Done."
    last = body(server, 1)["messages"][-1]
    assert last == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny in Oslo"},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "sunny in Rome"},
        ],
    }


async def test_thinking_is_sent_back_unchanged_with_its_signature(server: AnthropicServer) -> None:
    server.script(
        Turn(thinking="The user wants Paris.", uses=[Use("weather", {"city": "Paris"})]),
        Turn(text="Sunny."),
    )
    settings = ModelSettings(thinking_budget=2048)
    agent = Agent("claude", tools=[weather], model=server.model(), model_settings=settings)

    result = await Runner.run(agent, "Weather?")

    assert result.final_output == "Sunny."
    first, second = body(server, 0), body(server, 1)
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert first["max_tokens"] > 2048
    assistant = second["messages"][1]["content"]
    assert assistant[0] == {
        "type": "thinking",
        "thinking": "The user wants Paris.",
        "signature": signature("The user wants Paris."),
    }


async def test_streamed_thinking_keeps_its_signature(server: AnthropicServer) -> None:
    server.script(Turn(thinking="Hmm, Paris.", uses=[Use("weather", {"city": "Paris"})]))
    server.script(Turn(text="Sunny."))
    agent = Agent("claude", tools=[weather], model=server.model())

    result = await run_both_ways(agent, streamed=True)

    assert result.final_output == "Sunny."
    assert "refused" not in server.requests[1]  # the server checked the signature


async def test_prompt_caching_marks_system_tools_and_conversation(server: AnthropicServer) -> None:
    server.script(
        Turn(uses=[Use("weather", {"city": "Paris"})], usage={"cache_creation_input_tokens": 900}),
        Turn(text="Sunny.", usage={"cache_read_input_tokens": 900}),
    )
    model = server.model(prompt_caching=True)
    agent = Agent("claude", instructions="Be brief.", tools=[weather], model=model)

    result = await Runner.run(agent, "Weather?")

    second = body(server, 1)
    ephemeral = {"type": "ephemeral"}
    assert second["system"] == [{"type": "text", "text": "Be brief.", "cache_control": ephemeral}]
    assert second["tools"][-1]["cache_control"] == ephemeral
    assert second["messages"][-1]["content"][-1]["cache_control"] == ephemeral
    assert "cache_control" not in second["messages"][1]["content"][-1]  # only the last
    usage = result.usage
    assert usage.input_tokens_details.cached_tokens == 900
    assert usage.input_tokens_details.cache_write_tokens == 900
    assert usage.input_tokens == 20 + 1800  # Anthropic counts cached tokens apart


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_structured_output_is_native(server: AnthropicServer, streamed: bool) -> None:
    class Forecast(BaseModel):
        city: str
        sunny: bool

    server.script(Turn(text='{"city": "Paris", "sunny": true}'))
    agent = Agent("claude", model=server.model(), output_type=Forecast)

    result = await run_both_ways(agent, streamed)

    assert result.final_output == Forecast(city="Paris", sunny=True)
    output_format = body(server, 0)["output_config"]["format"]
    assert output_format["type"] == "json_schema"
    assert output_format["schema"]["properties"]["city"] == {"title": "City", "type": "string"}


@pytest.mark.parametrize(
    ("choice", "parallel", "sent"),
    [
        ("required", None, {"type": "any"}),
        ("weather", False, {"type": "tool", "name": "weather", "disable_parallel_tool_use": True}),
        ("none", None, {"type": "none"}),
        (None, False, {"type": "auto", "disable_parallel_tool_use": True}),
    ],
)
async def test_tool_choice_in_anthropics_spelling(
    server: AnthropicServer, choice: str | None, parallel: bool | None, sent: dict[str, Any]
) -> None:
    server.script(Turn(text="ok"))
    settings = ModelSettings(tool_choice=choice, parallel_tool_calls=parallel)
    agent = Agent("claude", tools=[weather], model=server.model(), model_settings=settings)

    await Runner.run(agent, "hi")

    assert body(server, 0)["tool_choice"] == sent


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize(
    ("status", "kind", "headers"),
    [
        (429, "rate_limit_error", {"retry-after": "0.001"}),
        (529, "overloaded_error", {}),
        (500, "api_error", {}),
    ],
)
async def test_failures_a_retry_can_fix_are_retried(
    server: AnthropicServer, streamed: bool, status: int, kind: str, headers: dict[str, str]
) -> None:
    server.script(Turn(status=status, error_type=kind, headers=headers), Turn(text="ok"))
    agent = Agent("claude", model=server.model())

    result = await run_both_ways(agent, streamed, run_config=RunConfig(retry_policy=FAST))

    assert result.final_output == "ok"
    assert len(server.requests) == 2


async def test_an_error_event_mid_stream_stops_the_run_as_that_failure(
    server: AnthropicServer,
) -> None:
    server.script(Turn(text="partial", error_event="overloaded_error"))
    agent = Agent("claude", model=server.model())

    with pytest.raises(ModelAPIError) as raised:  # never retried: part of it went out
        await run_both_ways(agent, True, run_config=RunConfig(retry_policy=FAST))

    assert raised.value.status_code == 529  # as the same failure before the stream began
    assert raised.value.items == [{"role": "user", "content": "What is the weather in Paris?"}]
    assert len(server.requests) == 1


async def test_a_cut_stream_stops_the_run_saying_so(server: AnthropicServer) -> None:
    server.script(Turn(text="cut", ends_early=True))
    agent = Agent("claude", model=server.model())

    with pytest.raises(ModelAPIError, match="the stream ended before the response was complete"):
        await run_both_ways(agent, True, run_config=RunConfig(retry_policy=FAST))


async def test_the_same_failure_every_time_stops_the_run_with_the_conversation(
    server: AnthropicServer,
) -> None:
    server.script(*[Turn(status=529, error_type="overloaded_error")] * 3)
    agent = Agent("claude", model=server.model())

    with pytest.raises(ModelAPIError) as raised:
        await Runner.run(agent, "hi", run_config=RunConfig(retry_policy=FAST))

    assert raised.value.status_code == 529
    assert "after 3 attempts" in str(raised.value)
    assert raised.value.items[0] == {"role": "user", "content": "hi"}


async def test_a_refused_request_says_what_the_provider_refused(server: AnthropicServer) -> None:
    bad = {"type": "function_call_output", "call_id": "toolu_nowhere", "output": "x"}
    agent = Agent("claude", model=server.model())

    with pytest.raises(ModelAPIError) as raised:
        await Runner.run(agent, [{"role": "user", "content": "hi"}, bad])

    assert raised.value.status_code == 400
    message = str(raised.value)
    assert "invalid_request_error" in message
    assert "unexpected `tool_use_id` found in `tool_result` blocks: toolu_nowhere" in message


async def test_a_tool_error_reaches_claude_as_a_tool_result(server: AnthropicServer) -> None:
    server.script(Turn(uses=[Use("broken", {"city": "Paris"})]), Turn(text="Sorry."))
    agent = Agent("claude", tools=[broken], model=server.model())

    result = await Runner.run(agent, "Weather?")

    assert result.final_output == "Sorry."
    answer = body(server, 1)["messages"][-1]["content"][0]
    assert answer["type"] == "tool_result"
    assert answer["tool_use_id"] == "toolu_1"
    assert "broken" in answer["content"]
    assert answer["is_error"] is True
    fine = body(server, 1)["messages"][1]  # a call that worked carries no is_error
    assert "is_error" not in str(fine)


async def test_images_in_the_input_become_image_blocks(server: AnthropicServer) -> None:
    server.script(Turn(text="A red dot."))
    agent = Agent("claude", model=server.model())
    message = {
        "role": "user",
        "content": [
            {"type": "input_text", "text": "What is this?"},
            {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="},
            {"type": "input_image", "image_url": "https://example.test/dot.png"},
            {"type": "input_file", "file_data": "data:application/pdf;base64,JVBERi0="},
        ],
    }

    await Runner.run(agent, [message])

    assert body(server, 0)["messages"][0]["content"] == [
        {"type": "text", "text": "What is this?"},
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
        },
        {"type": "image", "source": {"type": "url", "url": "https://example.test/dot.png"}},
        {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="},
        },
    ]


async def test_an_openai_agent_hands_off_to_claude_and_the_conversation_goes_on(
    server: AnthropicServer, openai_server: ScriptedServer
) -> None:
    server.script(Turn(text="Claude here: sunny in Paris."))
    claude = Agent("claude", model=server.model())
    openai_server.script(
        OpenAITurn(
            items=[{"type": "reasoning", "id": "rs_1", "summary": []}],
            calls=[Call("weather", '{"city": "Paris"}'), Call("transfer_to_claude")],
        )
    )
    gpt = Agent(
        "gpt", tools=[weather], handoffs=[handoff(claude)], model=openai_server.model("responses")
    )

    result = await Runner.run(gpt, "Weather in Paris?")

    assert result.final_output == "Claude here: sunny in Paris."
    assert result.last_agent is claude
    messages = body(server, 0)["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    uses = [block["name"] for block in messages[1]["content"]]
    assert uses == ["weather", "transfer_to_claude"]  # OpenAI's reasoning item left out


async def test_the_memo_converts_only_new_items(server: AnthropicServer) -> None:
    model = server.model()
    memo: dict[object, object] = {}
    items: list[Any] = [{"role": "user", "content": "hi"}]
    first = model.params(ModelRequest(None, items, memo=memo))["messages"]
    items = [
        *items,
        {"type": "function_call", "call_id": "c1", "name": "weather", "arguments": "{}"},
    ]
    second = model.params(ModelRequest(None, items, memo=memo))["messages"]

    assert first[0] is second[0]  # kept, not converted again
    assert second[1]["content"][0]["id"] == "c1"


async def test_a_model_without_a_client_makes_the_default_one_and_closes_it(
    server: AnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    server.script(Turn(text="from the default client"))
    model = AnthropicModel("claude-test")
    events = [
        event
        async for event in model.stream_response(
            ModelRequest(None, [{"role": "user", "content": "hi"}])
        )
    ]

    assert "".join(e.delta for e in events if isinstance(e, TextDelta)) == "from the default client"
    assert isinstance(events[-1], ResponseDone)
    assert "test-key" in str(server.requests[0]["headers"])  # the key the environment gave
    await model.close()


@function_tool
def snapshot(city: str) -> ToolOutputImage:
    """A picture of a city.

    Args:
        city: The city's name.
    """
    return ToolOutputImage(image_url="data:image/png;base64,iVBORw0KGgo=")


async def test_an_image_a_tool_returns_goes_inside_its_tool_result(server: AnthropicServer) -> None:
    server.script(Turn(uses=[Use("snapshot", {"city": "Paris"})]), Turn(text="A nice view."))
    agent = Agent("claude", tools=[snapshot], model=server.model())

    result = await Runner.run(agent, "Show me Paris")

    assert result.final_output == "A nice view."
    answer = body(server, 1)["messages"][-1]["content"][0]
    assert answer == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": [
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
            }
        ],
    }


async def test_limits_hooks_and_sessions_work_unchanged(
    server: AnthropicServer, tmp_path: Path
) -> None:
    server.script(Turn(uses=[Use("weather", {"city": "Paris"})]), Turn(text="Sunny."))
    server.script(Turn(text="You asked about Paris."))
    seen: list[str] = []

    class Watch(RunHooks):
        async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
            seen.append(f"llm {response.usage.output_tokens}")

        async def on_tool_end(self, context: Any, agent: Any, tool: Any, result: str) -> None:
            seen.append(f"tool {result}")

    session = SQLiteSession("chat", str(tmp_path / "s.db"))
    agent = Agent("claude", tools=[weather], model=server.model())
    config = RunConfig(usage_limits=UsageLimits(request_limit=5))

    first = await Runner.run(agent, "Paris?", session=session, hooks=Watch(), run_config=config)
    second = await Runner.run(agent, "What did I ask?", session=session, run_config=config)

    assert (first.final_output, second.final_output) == ("Sunny.", "You asked about Paris.")
    assert seen == ["llm 5", "tool sunny in Paris", "llm 5"]
    history = body(server, 2)["messages"]  # the session's history, converted for Claude
    assert [m["role"] for m in history] == ["user", "assistant", "user", "assistant", "user"]
    assert history[-1]["content"] == [{"type": "text", "text": "What did I ask?"}]

    with pytest.raises(UsageLimitExceeded):
        await Runner.run(
            agent, "again", run_config=RunConfig(usage_limits=UsageLimits(request_limit=0))
        )
