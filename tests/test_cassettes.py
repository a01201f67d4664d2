"""Cassettes: a run against the local OpenAI server recorded once, replayed with no server.

Replays are compared with the recorded run (items, final output, usage, stream events);
a changed instruction, tool schema or tool output raises `CassetteMismatch` naming the
path; each redaction rule is checked by reading the written file.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from tooluse import Agent, ModelSettings, Runner, function_tool
from tooluse.models import Model, ModelRequest
from tooluse.testing import (
    Cassette,
    CassetteMismatch,
    CassetteProvider,
    FunctionModel,
    ModelReply,
    RecordedEvent,
    RecordingModel,
    ReplayModel,
    ToolCall,
    use_cassette,
)
from tooluse.testing._cassette import to_json

from .openai_server import Call, ScriptedServer, Turn

APIS = ["responses", "chat"]
WEATHER = {"Paris": "Sunny, 21"}


@function_tool
def get_weather(city: str) -> str:
    """Get the weather in a city.

    Args:
        city: The city.
    """
    return WEATHER.get(city, "unknown")


def script(server: ScriptedServer) -> None:
    server.script(
        Turn(calls=[Call("get_weather", '{"city": "Paris"}')]),
        Turn(text="Sunny and 21 in Paris."),
    )


def agent_with(model: Model, instructions: str = "Be brief.", tools: Any = None) -> Agent[Any]:
    return Agent("weather", instructions=instructions, tools=tools or [get_weather], model=model)


async def run(agent: Agent[Any], streamed: bool) -> tuple[Any, list[Any]]:
    if not streamed:
        return await Runner.run(agent, "Weather in Paris?"), []
    result = Runner.run_streamed(agent, "Weather in Paris?")
    return result, [event async for event in result.stream_events()]


def usage_without_durations(result: Any) -> dict[str, Any]:
    usage = asdict(result.usage)
    for entry in usage["request_usage_entries"]:
        entry.pop("duration_seconds")
    return usage


def event_shapes(events: list[Any]) -> list[Any]:
    """The stream as comparable data: a raw event by its JSON, the others as they are."""
    shapes: list[Any] = []
    for event in events:
        if event.type == "raw_response_event":
            shapes.append(("raw", to_json(event.data)))
        elif event.type == "agent_updated_stream_event":
            shapes.append(("agent", event.new_agent.name))
        elif event.type == "run_item_stream_event":  # its agent holds the model: compare names
            item = event.item
            shapes.append(("item", event.name, item.type, to_json(item.raw_item), item.agent.name))
        elif event.type == "usage_event":
            shapes.append(("usage", event.request.input_tokens, event.request.output_tokens))
        else:
            shapes.append(to_json(event))
    return shapes


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("api", APIS)
async def test_a_recorded_run_replays_with_no_server_to_an_equal_result(
    tmp_path: Path, api: str, streamed: bool
) -> None:
    path = tmp_path / "weather.jsonl"
    server = ScriptedServer()
    server.start()
    try:
        script(server)
        recorded, recorded_events = await run(
            agent_with(RecordingModel(server.model(api), path)), streamed
        )
    finally:
        server.stop()  # no network from here on: the replay has nothing to reach
    assert len(server.requests) == 2
    assert recorded.final_output == "Sunny and 21 in Paris."

    replayed, replayed_events = await run(agent_with(ReplayModel(path)), streamed)

    assert replayed.final_output == recorded.final_output
    assert replayed.new_items == recorded.new_items
    assert usage_without_durations(replayed) == usage_without_durations(recorded)
    assert [e["model"] for e in usage_without_durations(replayed)["request_usage_entries"]] == [
        "test-model",
        "test-model",
    ]
    assert event_shapes(replayed_events) == event_shapes(recorded_events)
    assert len(server.requests) == 2
    assert_two_weather_calls(path, streamed)


def assert_two_weather_calls(path: Path, streamed: bool) -> None:
    """The cassette holds two calls, each a request offering get_weather and its answer."""
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    answer = "events" if streamed else "response"
    assert [set(line) for line in lines] == [{"request", answer}] * 2
    assert lines[0]["request"]["tools"][0]["name"] == "get_weather"


async def test_a_replayed_raw_event_reads_as_the_sdk_event_did(tmp_path: Path) -> None:
    server = ScriptedServer()
    server.start()
    try:
        script(server)
        await run(agent_with(RecordingModel(server.model("responses"), tmp_path / "c.jsonl")), True)
    finally:
        server.stop()
    _, events = await run(agent_with(ReplayModel(tmp_path / "c.jsonl")), True)
    raw = [e.data for e in events if e.type == "raw_response_event"]
    assert all(isinstance(data, RecordedEvent) for data in raw)
    assert "response.completed" in [data.type for data in raw]
    deltas = [d.delta for d in raw if d.type == "response.function_call_arguments.delta"]
    assert "".join(deltas) == '{"city": "Paris"}'
    with pytest.raises(AttributeError):
        _ = raw[0].no_such_field


def scripted_model() -> FunctionModel:
    def reply(items: list[Any], tools: Any) -> ModelReply | str:
        outputs = [i["output"] for i in items if i.get("type") == "function_call_output"]
        if not outputs:
            return ModelReply(tool_calls=[ToolCall("get_weather", {"city": "Paris"})])
        return f"It is {outputs[-1]}."

    return FunctionModel(reply)


def record(path: Path, **kwargs: Any) -> Any:
    return Runner.run_sync(agent_with(RecordingModel(scripted_model(), path), **kwargs), "hi")


def test_a_changed_instruction_is_a_mismatch_at_instructions(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    record(path)
    with pytest.raises(CassetteMismatch) as caught:
        Runner.run_sync(agent_with(ReplayModel(path), instructions="Be chatty."), "hi")
    message = str(caught.value)
    assert caught.value.difference is not None
    assert caught.value.difference.path == "instructions"
    assert '  recorded: "Be brief."' in message
    assert '  new:      "Be chatty."' in message
    assert "--tooluse-record=rewrite" in message
    assert str(path) in message


def test_a_changed_tool_schema_is_a_mismatch_at_the_property(tmp_path: Path) -> None:
    @function_tool
    def get_time(city: str) -> str:
        """The time."""
        return "noon"

    @function_tool
    def get_date(city: str) -> str:
        """The date."""
        return "today"

    @function_tool(name_override="get_weather")
    def weather_by_number(city: int) -> str:
        """Get the weather in a city.

        Args:
            city: The city.
        """
        return "Sunny, 21"

    path = tmp_path / "c.jsonl"
    record(path, tools=[get_time, get_date, get_weather])
    with pytest.raises(CassetteMismatch) as caught:
        Runner.run_sync(
            agent_with(ReplayModel(path), tools=[get_time, get_date, weather_by_number]), "hi"
        )
    difference = caught.value.difference
    assert difference is not None
    assert difference.path == "tools[2].parameters.properties.city.type"
    assert (difference.recorded, difference.new) == ("string", "integer")


def test_a_changed_tool_output_is_a_mismatch_in_the_next_request(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    record(path)
    WEATHER["Paris"] = "Rain, 12"
    try:
        with pytest.raises(CassetteMismatch) as caught:
            Runner.run_sync(agent_with(ReplayModel(path)), "hi")
    finally:
        WEATHER["Paris"] = "Sunny, 21"
    difference = caught.value.difference
    assert difference is not None
    assert difference.path == "input[2].output"
    assert (difference.recorded, difference.new) == ("Sunny, 21", "Rain, 12")
    assert "line 2" in str(caught.value)


def test_a_request_past_the_recording_is_a_mismatch(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    record(path)
    model = ReplayModel(path)
    Runner.run_sync(agent_with(model), "hi")
    with pytest.raises(CassetteMismatch, match="all 2 recorded calls were replayed already"):
        Runner.run_sync(agent_with(model), "hi")


def test_a_missing_or_unreadable_cassette_says_how_to_record(tmp_path: Path) -> None:
    with pytest.raises(CassetteMismatch, match=r"does not exist: record it again"):
        Runner.run_sync(agent_with(ReplayModel(tmp_path / "none.jsonl")), "hi")
    for text in ('{"request": {}}\n', "{not json\n"):
        (tmp_path / "bad.jsonl").write_text(text)
        with pytest.raises(CassetteMismatch, match=r"bad.jsonl, line 1: not a recorded model call"):
            Runner.run_sync(agent_with(ReplayModel(tmp_path / "bad.jsonl")), "hi")


def test_a_replay_model_given_a_name_matches_only_that_model(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    record(path)
    assert ReplayModel(path).model == "function:reply"  # the name recorded
    with pytest.raises(CassetteMismatch) as caught:
        Runner.run_sync(agent_with(ReplayModel(path, model="gpt-other")), "hi")
    assert caught.value.difference is not None
    assert caught.value.difference.path == "model"
    result = Runner.run_sync(agent_with(ReplayModel(path, model="function:reply")), "hi")
    assert result.final_output == "It is Sunny, 21."


def test_a_cassette_rewritten_by_another_writer_replays_the_same(tmp_path: Path) -> None:
    # A line as Cassette writes it is matched by its text; any other spelling of the
    # same JSON (keys sorted, other spacing) is compared as JSON instead.
    path = tmp_path / "c.jsonl"
    recorded = record(path)
    lines = path.read_text().splitlines()
    path.write_text(
        "".join(json.dumps(json.loads(line), sort_keys=True, indent=None) + "\n" for line in lines)
    )
    assert not path.read_text().startswith('{"request": {"model": ')
    result = Runner.run_sync(agent_with(ReplayModel(path)), "hi")
    assert result.final_output == recorded.final_output == "It is Sunny, 21."
    with pytest.raises(CassetteMismatch) as caught:
        Runner.run_sync(agent_with(ReplayModel(path), instructions="Be chatty."), "hi")
    assert caught.value.difference is not None
    assert caught.value.difference.path == "instructions"


def test_a_broken_line_is_named_when_the_replay_reaches_it(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    record(path)
    first, _ = path.read_text().splitlines()
    path.write_text(first + "\n" + '{"request": {"model": "function:reply"}}\n')
    with pytest.raises(CassetteMismatch, match=r"c.jsonl, line 2: not a recorded model call"):
        Runner.run_sync(agent_with(ReplayModel(path)), "hi")


def test_settings_changed_between_runs_on_one_cassette_are_a_mismatch(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    settings = ModelSettings(temperature=0.5)
    weather = Agent(
        "weather",
        instructions="Be brief.",
        tools=[get_weather],
        model=RecordingModel(scripted_model(), path),
        model_settings=settings,
    )
    Runner.run_sync(weather, "hi")
    Runner.run_sync(weather, "hi")  # two runs recorded, one after the other
    weather.model = ReplayModel(path)
    assert Runner.run_sync(weather, "hi").final_output == "It is Sunny, 21."
    settings.temperature = 0.9  # the same object, changed: replayed requests must see it
    with pytest.raises(CassetteMismatch) as caught:
        Runner.run_sync(weather, "hi")
    assert caught.value.difference is not None
    assert caught.value.difference.path == "settings.temperature"


def test_recording_starts_the_file_afresh_unless_appending(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    record(path)
    record(path)
    assert len(path.read_text().splitlines()) == 2
    Runner.run_sync(agent_with(RecordingModel(scripted_model(), Cassette(path, append=True))), "hi")
    assert len(path.read_text().splitlines()) == 4
    deeper = tmp_path / "new" / "folder" / "c.jsonl"  # made at the first call recorded
    Runner.run_sync(
        agent_with(RecordingModel(scripted_model(), Cassette(deeper, append=True))), "hi"
    )
    assert len(deeper.read_text().splitlines()) == 2


def secrets_model(items: list[Any], tools: Any) -> str:
    return "The key is sk-proj-abcdefghijklmnopqrstuvwx and the account acct-99-1234."


def test_api_keys_authorization_headers_and_given_values_are_never_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EXAMPLE_API_KEY", "plain-secret-from-the-environment")
    path = tmp_path / "c.jsonl"
    settings = ModelSettings(
        extra_headers={"Authorization": "Bearer abc.def.ghi-123456", "X-Trace": "t-1"},
        extra_body={"api_key": "key-in-the-body", "note": "plain-secret-from-the-environment"},
        metadata={"customer": "Alice Example"},
    )
    cassette = Cassette(path, redact=["Alice Example", re.compile(r"acct-\d+-\d+")])
    agent = Agent(
        "a",
        instructions="Token: Bearer zyxwvutsrq987654",
        model=RecordingModel(FunctionModel(secrets_model), cassette),
        model_settings=settings,
    )
    result = Runner.run_sync(agent, "my key is AIzaSyA1234567890abcdefghijklmnopqrstu")
    assert "sk-proj-abcdefghijklmnopqrstuvwx" in result.final_output  # the run saw it

    written = path.read_text()
    for secret in (
        "sk-proj-abcdefghijklmnopqrstuvwx",  # an OpenAI key in the answer
        "AIzaSyA1234567890abcdefghijklmnopqrstu",  # a Google key in the input
        "abc.def.ghi-123456",  # an Authorization header
        "zyxwvutsrq987654",  # a bearer token in the text
        "key-in-the-body",  # an api_key field
        "plain-secret-from-the-environment",  # the value of an *_API_KEY variable
        "Alice Example",  # a value given
        "acct-99-1234",  # a pattern given
    ):
        assert secret not in written, secret
    assert written.count("<redacted>") >= 8
    assert '"X-Trace": "t-1"' in written  # what is not secret stays

    replayed = Agent(
        "a",
        instructions="Token: Bearer zyxwvutsrq987654",
        model=ReplayModel(Cassette(path, redact=["Alice Example", re.compile(r"acct-\d+-\d+")])),
        model_settings=settings,
    )
    again = Runner.run_sync(replayed, "my key is AIzaSyA1234567890abcdefghijklmnopqrstu")
    assert again.final_output == "The key is <redacted> and the account <redacted>."


def test_use_cassette_wraps_named_models_objects_handoffs_and_agent_tools(
    tmp_path: Path,
) -> None:
    served: list[str] = []

    def answer(name: str) -> FunctionModel:
        def reply(items: list[Any], tools: Any) -> ModelReply | str:
            served.append(name)
            names = [t.name for t in tools]
            done = any(i.get("type") == "function_call_output" for i in items)
            if "ask_expert" in names and not done:
                return ModelReply(tool_calls=[ToolCall("ask_expert", {"input": "why?"})])
            if "transfer_to_closer" in names and not any(
                i.get("name") == "transfer_to_closer" for i in items
            ):
                return ModelReply(tool_calls=[ToolCall("transfer_to_closer", {})])
            return f"{name} says hi"

        return FunctionModel(reply)

    class Named:
        def __init__(self) -> None:
            self.made: list[str | None] = []

        def get_model(self, model_name: str | None) -> Model:
            self.made.append(model_name)
            return answer(model_name or "default")

    from tooluse import RunConfig
    from tooluse.models import ModelProvider

    class Provider(Named, ModelProvider):
        pass

    def agents() -> Agent[Any]:
        expert = Agent("expert", model="expert-model")
        closer = Agent("closer", model=answer("closer"))
        return Agent(
            "lead",
            model="lead-model",
            tools=[expert.as_tool("ask_expert", "Ask the expert.")],
            handoffs=[closer],
        )

    path = tmp_path / "c.jsonl"
    with use_cassette(path, record=True):
        first = Runner.run_sync(agents(), "hi", run_config=RunConfig(model_provider=Provider()))
    assert first.final_output == "closer says hi"
    recorded_models = [
        json.loads(line)["request"]["model"] for line in path.read_text().splitlines()
    ]
    # Each model's own name (a FunctionModel's is its function's), whoever resolved it.
    assert recorded_models == ["function:reply"] * 4
    assert served == ["lead-model", "expert-model", "lead-model", "closer"]
    served.clear()

    with use_cassette(path, record=False):
        again = Runner.run_sync(agents(), "hi", run_config=RunConfig(model_provider=Provider()))
    assert served == []  # no model answered: the cassette did
    assert again.final_output == first.final_output
    assert again.new_items == first.new_items


async def test_a_cassette_provider_records_and_replays_names(tmp_path: Path) -> None:
    from tooluse import RunConfig
    from tooluse.models import ModelProvider

    class Provider(ModelProvider):
        def get_model(self, model_name: str | None) -> Model:
            return scripted_model()

    path = tmp_path / "c.jsonl"
    agent = Agent("a", instructions="Be brief.", tools=[get_weather], model="small")
    config = RunConfig(model_provider=CassetteProvider(path, Provider()))
    first = await Runner.run(agent, "hi", run_config=config)
    replayed = await Runner.run(
        agent, "hi", run_config=RunConfig(model_provider=CassetteProvider(path))
    )
    assert replayed.new_items == first.new_items
    assert [e.model for e in replayed.usage.request_usage_entries] == ["small", "small"]


async def test_a_whole_recording_replays_streamed_and_a_streamed_one_whole(tmp_path: Path) -> None:
    whole, streamed = tmp_path / "whole.jsonl", tmp_path / "streamed.jsonl"
    recorded, _ = await run(agent_with(RecordingModel(scripted_model(), whole)), False)
    await run(agent_with(RecordingModel(scripted_model(), streamed)), True)

    replayed, events = await run(agent_with(ReplayModel(whole)), True)
    assert replayed.new_items == recorded.new_items
    deltas = [
        e for e in events if e.type in ("text_delta_event", "tool_call_arguments_delta_event")
    ]
    assert [(e.type, e.delta) for e in deltas] == [
        ("tool_call_arguments_delta_event", '{"city": "Paris"}'),
        ("text_delta_event", "It is Sunny, 21."),
    ]
    again, _ = await run(agent_with(ReplayModel(streamed)), False)
    assert again.new_items == recorded.new_items


def test_the_output_schema_and_hosted_tools_are_part_of_the_request(tmp_path: Path) -> None:
    from pydantic import BaseModel

    from tooluse import WebSearchTool

    class Forecast(BaseModel):
        sky: str

    path = tmp_path / "c.jsonl"
    model = RecordingModel(FunctionModel(lambda items, tools: '{"sky": "clear"}'), path)
    agent = Agent("a", tools=[WebSearchTool()], output_type=Forecast, model=model)
    assert Runner.run_sync(agent, "hi").final_output == Forecast(sky="clear")
    request = json.loads(path.read_text())["request"]
    assert request["tools"] == [{"hosted": {"type": "web_search", "search_context_size": "medium"}}]
    assert request["output_schema"]["properties"] == {"sky": {"title": "Sky", "type": "string"}}
    assert Runner.run_sync(agent.clone(model=ReplayModel(path)), "hi").final_output == Forecast(
        sky="clear"
    )


async def test_an_edited_stream_that_cannot_be_read_is_a_mismatch(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    request = Cassette(path).fingerprint(ModelRequest(instructions=None, input=[]), None)
    path.write_text(
        json.dumps({"request": request, "events": [{"what": 1}]})
        + "\n\n"
        + json.dumps({"request": request, "events": [{"text": "hi"}]})
        + "\n"
    )
    model = ReplayModel(path)
    streamed = Runner.run_streamed(Agent("a", model=model), [])
    with pytest.raises(CassetteMismatch, match="a recorded stream event is unreadable"):
        async for _ in streamed.stream_events():
            pass
    with pytest.raises(CassetteMismatch, match=r"line 3: a recorded stream without its response"):
        await Runner.run(Agent("a", model=model), [])


def test_a_cassette_replays_a_model_named_for_openai_with_no_api_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tooluse import RunConfig
    from tooluse.models import ModelProvider

    class Provider(ModelProvider):
        def get_model(self, model_name: str | None) -> Model:
            return scripted_model()

    path = tmp_path / "c.jsonl"
    agent = Agent("a", instructions="Be brief.", tools=[get_weather], model="gpt-4.1-mini")
    config = RunConfig(model_provider=CassetteProvider(path, Provider()))
    recorded = Runner.run_sync(agent, "hi", run_config=config)

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with use_cassette(path, record=False):  # the default provider's OpenAI model, replayed
        replayed = Runner.run_sync(agent, "hi")
    assert replayed.new_items == recorded.new_items
    assert [e.model for e in replayed.usage.request_usage_entries] == ["gpt-4.1-mini"] * 2
