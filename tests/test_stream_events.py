"""The stream a run yields, over real HTTP: argument deltas on both APIs, usage at the end of
each response, and the order the docs promise."""

from __future__ import annotations

import contextlib
import sys
import types
from collections.abc import AsyncGenerator, Generator
from typing import Any

import pytest

from tooluse import (
    Agent,
    RunItemStreamEvent,
    Runner,
    ToolCallArgumentsDeltaStreamEvent,
    UsageStreamEvent,
    function_tool,
)

from .openai_server import Call, ScriptedServer, Turn, responses_events


@function_tool
def get_weather(city: str, unit: str) -> str:
    """Get the weather.

    Args:
        city: The city.
        unit: C or F.
    """
    return f"21 {unit} in {city}"


@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_argument_deltas_make_each_call_before_it_is_announced(
    openai_server: ScriptedServer, api: str
) -> None:
    openai_server.script(
        Turn(
            calls=[
                Call("get_weather", '{"city": "Paris", "unit": "C"}'),
                Call("get_weather", '{"city": "Oslo", "unit": "F"}'),
            ]
        ),
        Turn(text="Warm in Paris, cool in Oslo."),
    )
    agent = Agent("a", tools=[get_weather], model=openai_server.model(api))
    result = Runner.run_streamed(agent, "Weather?")
    events = [event async for event in result.stream_events()]

    pieces: dict[str, str] = {}
    announced: list[str] = []
    for event in events:
        if isinstance(event, ToolCallArgumentsDeltaStreamEvent):
            assert event.tool_name == "get_weather"
            assert event.call_id not in announced  # every piece comes before the call's item
            pieces[event.call_id] = pieces.get(event.call_id, "") + event.delta
        elif isinstance(event, RunItemStreamEvent) and event.name == "tool_called":
            announced.append(event.item["call_id"])
    calls = [i for i in result.new_items if i.get("type") == "function_call"]
    assert pieces == {c["call_id"]: c["arguments"] for c in calls}
    assert announced == [c["call_id"] for c in calls]


@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_usage_arrives_once_per_response_before_its_items(
    openai_server: ScriptedServer, api: str
) -> None:
    openai_server.script(
        Turn(calls=[Call("get_weather", '{"city": "Rome", "unit": "C"}')]), Turn(text="Warm.")
    )
    agent = Agent("a", tools=[get_weather], model=openai_server.model(api))
    result = Runner.run_streamed(agent, "Weather?")
    kinds: list[str] = []
    usages: list[UsageStreamEvent] = []
    async for event in result.stream_events():
        if isinstance(event, UsageStreamEvent):
            usages.append(event)
        if event.type not in (
            "raw_response_event",
            "text_delta_event",
            "tool_call_arguments_delta_event",
        ):
            kinds.append(getattr(event, "name", event.type))
    assert kinds == [
        "agent_updated_stream_event",
        "usage_event",
        "tool_called",
        "tool_output",
        "usage_event",
        "message_output_created",
    ]
    assert [u.request.total_tokens for u in usages] == [15, 15]
    assert usages[-1].usage is result.usage
    assert result.usage.total_tokens == 30


async def test_a_plain_run_emits_nothing_and_counts_the_same(
    openai_server: ScriptedServer,
) -> None:
    def script() -> None:
        openai_server.script(
            Turn(calls=[Call("get_weather", '{"city": "Rome", "unit": "C"}')]), Turn(text="Warm.")
        )

    agent = Agent("a", tools=[get_weather], model=openai_server.model("responses"))
    script()
    plain = await Runner.run(agent, "Weather?")
    script()
    streamed = Runner.run_streamed(agent, "Weather?")
    async for _ in streamed.stream_events():
        pass

    def billed(result: Any) -> list[tuple[int, int, str | None]]:
        return [
            (e.input_tokens, e.output_tokens, e.model) for e in result.usage.request_usage_entries
        ]

    assert billed(plain) == billed(streamed)


async def test_a_streamed_responses_call_leaves_none_of_the_clients_generators_suspended(
    openai_server: ScriptedServer,
) -> None:
    # Left suspended (ten per call when the stream was left at its terminal event), each
    # waits for the cyclic collector, then closes on a task of the loop that ran it. (On
    # Chat Completions the client itself leaves its readers at `[DONE]`: not ours to close.)
    openai_server.script(Turn(calls=[Call("get_weather", '{"city": "Rome", "unit": "C"}')]))
    openai_server.script(Turn(text="Warm."))
    agent = Agent("a", tools=[get_weather], model=openai_server.model("responses"))
    with started_async_generators() as started:
        result = Runner.run_streamed(agent, "Weather?")
        async for _ in result.stream_events():
            pass
    suspended = [
        f"{gen.ag_code.co_filename}:{gen.ag_code.co_name}"
        for gen in started
        if gen.ag_frame is not None  # finished or closed: no frame
        and any(name in gen.ag_code.co_filename for name in ("openai", "httpx", "httpcore"))
    ]
    assert suspended == []
    assert result.final_output == "Warm."


@contextlib.contextmanager
def started_async_generators() -> Generator[list[types.AsyncGeneratorType[Any, Any]]]:
    """Every async generator started meanwhile (held, so none is collected unfinished)."""
    started: list[types.AsyncGeneratorType[Any, Any]] = []
    firstiter, finalizer = sys.get_asyncgen_hooks()

    def record(generator: AsyncGenerator[Any, Any]) -> None:
        if isinstance(generator, types.AsyncGeneratorType):
            started.append(generator)
        if firstiter is not None:
            firstiter(generator)  # the loop's own hook: it closes them when it shuts down

    sys.set_asyncgen_hooks(firstiter=record, finalizer=finalizer)
    try:
        yield started
    finally:
        sys.set_asyncgen_hooks(firstiter=firstiter, finalizer=finalizer)


async def test_what_follows_a_responses_terminal_event_is_read_but_not_passed_on(
    openai_server: ScriptedServer,
) -> None:
    events = list(responses_events({"model": "test-model"}, Turn(text="Warm.")))
    openai_server.script(Turn(raw_events=[*events, "data: not JSON\n\n"]))
    result = Runner.run_streamed(Agent("a", model=openai_server.model("responses")), "Hi")
    raw = [e.data.type async for e in result.stream_events() if e.type == "raw_response_event"]
    assert raw[-1] == "response.completed"
    assert len(raw) == len(events)
    assert result.final_output == "Warm."
