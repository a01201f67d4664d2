"""Streamed events read as JSON dicts and typed by pydantic (`models/_raw_events.py`).

Each stream is scripted on the local server and read by the real `openai` client.
The events a model yields must be the very ones the client builds itself (same
types, same fields), whether the model reads them as dicts (the client's own
`create`) or lets the client type them (a wrapped `create`, as instrumentation
makes); what a compatible server leaves out, or an event type the client does not
know, must still arrive.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from typing import Any, Literal, cast

import openai
import pytest
from openai.types.responses import ResponseTextDeltaEvent
from pydantic import BaseModel

from tooluse.models import (
    ModelRequest,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    ResponseDone,
    StreamDelta,
    TextDelta,
    ToolCallArgumentsDelta,
)
from tooluse.models._raw_events import open_stream

from .openai_server import Call, ScriptedServer, Turn, responses_events, sse

Api = Literal["responses", "chat"]
REQUEST = ModelRequest(instructions="Be brief.", input=[{"role": "user", "content": "Hi"}])
TURNS = [
    pytest.param(Turn(text="Hello there"), id="text"),
    pytest.param(Turn(text="Let me look", calls=[Call("lookup", '{"q": 1}')]), id="tool-call"),
]


@pytest.fixture
async def client(openai_server: ScriptedServer) -> AsyncIterator[openai.AsyncOpenAI]:
    async with openai_server.client() as client:
        yield client


def model_for(
    api: Api, client: openai.AsyncOpenAI
) -> OpenAIResponsesModel | OpenAIChatCompletionsModel:
    if api == "responses":
        return OpenAIResponsesModel("test-model", client)
    return OpenAIChatCompletionsModel("test-model", client)


async def model_events(
    model: OpenAIResponsesModel | OpenAIChatCompletionsModel,
) -> list[object]:
    async with aclosing(model.stream_response(REQUEST)) as events:
        return [event async for event in events]


def raw(events: list[object]) -> list[Any]:
    return [event.data for event in events if isinstance(event, StreamDelta)]


async def client_events(client: openai.AsyncOpenAI, api: Api) -> list[Any]:
    """The events the client itself builds for the same kind of request."""
    if api == "responses":
        stream: Any = await client.responses.create(model="test-model", input="Hi", stream=True)
    else:
        stream = await client.chat.completions.create(
            model="test-model", messages=[{"role": "user", "content": "Hi"}], stream=True
        )
    async with stream:
        return [event async for event in stream]  # pyright: ignore[reportUnknownVariableType]


def same_events(ours: list[Any], theirs: list[Any]) -> None:
    assert [type(event) for event in ours] == [type(event) for event in theirs]
    assert [event.model_dump() for event in ours] == [event.model_dump() for event in theirs]
    assert ours == theirs


@pytest.mark.parametrize("api", ["responses", "chat"])
@pytest.mark.parametrize("turn", TURNS)
async def test_streamed_events_are_the_ones_the_client_builds(
    openai_server: ScriptedServer, client: openai.AsyncOpenAI, api: Api, turn: Turn
) -> None:
    openai_server.script(turn, turn)
    ours = await model_events(model_for(api, client))
    theirs = await client_events(client, api)
    assert len(theirs) >= 4
    same_events(raw(ours), theirs)
    # The pieces the model derives from them are there too, and the response.
    assert "".join(e.delta for e in ours if isinstance(e, TextDelta)) == turn.text
    pieces = [e for e in ours if isinstance(e, ToolCallArgumentsDelta)]
    assert "".join(piece.delta for piece in pieces) == "".join(c.arguments for c in turn.calls)
    done = ours[-1]
    assert isinstance(done, ResponseDone)
    assert done.response.status == "completed"
    assert len(done.response.output) == 1 + len(turn.calls)


async def test_the_clients_own_create_streams_dicts_and_a_wrapped_one_typed_events(
    openai_server: ScriptedServer, client: openai.AsyncOpenAI
) -> None:
    openai_server.script(Turn(text="Hi"), Turn(text="Hi"))
    params = {"model": "test-model", "input": "Hi", "stream": True}
    stream, as_dicts = await open_stream(
        client.responses.create, lambda: client.responses.with_raw_response, params
    )
    async with stream:
        first: list[Any] = [event async for event in stream]
    assert as_dicts
    assert all(type(event) is dict for event in first)
    assert first[0]["type"] == "response.created"

    calls: list[dict[str, Any]] = []
    create = cast(Callable[..., Awaitable[Any]], client.responses.create)

    async def wrapped(**kwargs: Any) -> Any:  # as instrumentation wraps `create`
        calls.append(kwargs)
        return await create(**kwargs)

    stream, as_dicts = await open_stream(
        wrapped, lambda: client.responses.with_raw_response, params
    )
    async with stream:
        second: list[Any] = [event async for event in stream]
    assert not as_dicts
    assert calls == [params]
    assert all(isinstance(event, BaseModel) for event in second)
    assert [event["type"] for event in first] == [event.type for event in second]


async def test_a_wrapped_create_still_streams_the_same_events(
    openai_server: ScriptedServer, client: openai.AsyncOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    turn = Turn(text="Hello", calls=[Call("lookup", '{"q": 1}')])
    openai_server.script(turn, turn)
    direct = raw(await model_events(model_for("responses", client)))
    create = cast(Callable[..., Awaitable[Any]], client.responses.create)
    calls: list[str] = []

    async def wrapped(**kwargs: Any) -> Any:
        calls.append(kwargs["model"])
        return await create(**kwargs)

    monkeypatch.setattr(client.responses, "create", wrapped)
    through_wrapper = raw(await model_events(model_for("responses", client)))
    assert calls == ["test-model"]
    same_events(through_wrapper, direct)


def responses_stream(*middle: dict[str, Any]) -> list[str]:
    """A Responses stream answering "Hi", with `middle` sent after its first event."""
    first, *rest = responses_events({"model": "test-model"}, Turn(text="Hi"))
    return [first, *(sse(event) for event in middle), *rest]


async def test_an_event_a_compatible_server_sends_short_is_built_as_before(
    openai_server: ScriptedServer, client: openai.AsyncOpenAI
) -> None:
    # No item_id, indexes, sequence number nor logprobs: the type's validation fails.
    short = {"type": "response.output_text.delta", "delta": "!"}
    openai_server.script(Turn(raw_events=responses_stream(short)))
    events = await model_events(model_for("responses", client))
    built = raw(events)[1]
    assert type(built) is ResponseTextDeltaEvent
    assert (built.delta, built.item_id, built.sequence_number) == ("!", None, None)
    assert [e.delta for e in events if isinstance(e, TextDelta)] == ["!", "Hi"]
    assert isinstance(events[-1], ResponseDone)


async def test_an_event_type_the_client_does_not_know_arrives_with_its_fields(
    openai_server: ScriptedServer, client: openai.AsyncOpenAI
) -> None:
    new = {"type": "response.something_new", "sequence_number": 1, "detail": {"a": [1, 2]}}
    openai_server.script(Turn(raw_events=responses_stream(new)))
    events = await model_events(model_for("responses", client))
    built = raw(events)[1]
    assert isinstance(built, openai.BaseModel)
    assert built.model_dump() == new
    assert json.loads(built.model_dump_json())["detail"] == {"a": [1, 2]}
    done = events[-1]
    assert isinstance(done, ResponseDone)
    assert done.response.status == "completed"
