"""The OpenAI models, driven directly over real HTTP: how each call ends, in both modes.

Every way an answer can end is scripted on the local server and read by the
real `openai` client, whole (`get_response`) and streamed (`stream_response`).
The two modes must give the same `ModelResponse`; what cannot be read must
raise `ModelTransportError` saying what happened; and every stream must be
closed however the consumer stops reading.
"""

from __future__ import annotations

import functools
import gc
import json
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import aclosing, nullcontext
from typing import Any, Literal

import openai
import pytest

from tooluse import ModelSettings, WebSearchTool, function_tool
from tooluse.models import (
    ModelRequest,
    ModelResponse,
    ModelTransportError,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    ResponseDone,
    StreamEvent,
)
from tooluse.models._defaults import send_as_is
from tooluse.models._tool_params import chat_completions_tool_param, responses_tool_param

from .openai_server import (
    Call,
    ScriptedServer,
    Turn,
    open_sockets,
    responses_body,
    responses_events,
    sse,
)

Api = Literal["responses", "chat"]
Mode = Literal["whole", "streamed"]
Model = OpenAIResponsesModel | OpenAIChatCompletionsModel

APIS: list[Api] = ["responses", "chat"]
MODES: list[Mode] = ["whole", "streamed"]
REQUEST = ModelRequest(instructions="Be brief.", input=[{"role": "user", "content": "Hi"}])
FAILED = ("server_error", "The server had an error")


@pytest.fixture
async def client(openai_server: ScriptedServer) -> AsyncIterator[openai.AsyncOpenAI]:
    """A client of the scripted server, closed after the test."""
    async with openai_server.client() as client:
        yield client


def model_for(api: Api, client: openai.AsyncOpenAI) -> Model:
    if api == "responses":
        return OpenAIResponsesModel("test-model", client)
    return OpenAIChatCompletionsModel("test-model", client)


async def call(model: Model, mode: Mode, request: ModelRequest = REQUEST) -> ModelResponse:
    """The model's response, from `get_response` or from the stream's `ResponseDone`."""
    if mode == "whole":
        return await model.get_response(request)
    async with aclosing(model.stream_response(request)) as events:
        async for event in events:
            if isinstance(event, ResponseDone):
                return event.response
    raise AssertionError("the stream ended without ResponseDone")


def text_of(response: ModelResponse) -> str:
    return "".join(
        part["text"]
        for item in response.output
        if item.get("type", "message") == "message"
        for part in item["content"]
    )


# ---------------------------------------------------------------- how a response ends

ENDINGS: list[Any] = [
    pytest.param("responses", Turn(text="Hello"), "completed", None, id="responses-completed"),
    pytest.param(
        "responses",
        Turn(calls=[Call("lookup", '{"q": 1}')]),
        "completed",
        None,
        id="responses-tool-call",
    ),
    pytest.param(
        "responses",
        Turn(text="Hel", incomplete="max_output_tokens"),
        "incomplete",
        "max_output_tokens",
        id="responses-max-output-tokens",
    ),
    pytest.param(
        "responses",
        Turn(text="Hel", incomplete="content_filter"),
        "incomplete",
        "content_filter",
        id="responses-content-filter",
    ),
    pytest.param(
        "responses",
        Turn(text="Hel", failed=FAILED),
        "failed",
        "server_error: The server had an error",
        id="responses-failed",
    ),
    pytest.param("chat", Turn(text="Hello"), "completed", None, id="chat-stop"),
    pytest.param(
        "chat", Turn(calls=[Call("lookup", '{"q": 1}')]), "completed", None, id="chat-tool-calls"
    ),
    pytest.param(
        "chat",
        Turn(text="Hel", incomplete="max_output_tokens"),
        "incomplete",
        "length",
        id="chat-length",
    ),
    pytest.param(
        "chat",
        Turn(text="Hel", finish_reason="content_filter"),
        "incomplete",
        "content_filter",
        id="chat-content-filter",
    ),
]


@pytest.mark.parametrize(("api", "turn", "status", "reason"), ENDINGS)
async def test_whole_and_streamed_end_alike(
    openai_server: ScriptedServer,
    client: openai.AsyncOpenAI,
    api: Api,
    turn: Turn,
    status: str,
    reason: str | None,
) -> None:
    openai_server.script(turn, turn)
    model = model_for(api, client)
    whole = await call(model, "whole")
    streamed = await call(model, "streamed")
    assert (whole.status, whole.reason) == (status, reason)
    assert streamed == whole
    # What the model produced before it stopped is kept.
    assert text_of(whole) == (turn.text or "")
    assert len(whole.output) == bool(turn.text) + len(turn.calls)
    assert whole.usage.total_tokens == 15


def terminal_without_output(turn: Turn) -> list[str]:
    """The Responses stream for `turn`, its terminal event's response leaving out the output."""
    *events, terminal = responses_events({"model": "test-model"}, turn)
    end = json.loads(terminal.split("data: ", 1)[1])
    end["response"]["output"] = []
    return [*events, sse(end)]


async def test_streamed_items_are_kept_when_the_terminal_event_leaves_them_out(
    openai_server: ScriptedServer, client: openai.AsyncOpenAI
) -> None:
    turn = Turn(text="Hel", calls=[Call("lookup")], incomplete="max_output_tokens")
    openai_server.script(turn, Turn(raw_events=terminal_without_output(turn)))
    model = model_for("responses", client)
    complete = await call(model, "streamed")
    assert len(complete.output) == 2
    assert await call(model, "streamed") == complete


@pytest.mark.parametrize(
    ("changes", "status", "reason"),
    [
        pytest.param({"status": None}, "completed", None, id="no-status"),
        pytest.param({"status": "cancelled"}, "failed", "cancelled", id="cancelled"),
        pytest.param({"status": "failed"}, "failed", None, id="failed-without-error"),
        pytest.param({"status": "incomplete"}, "incomplete", None, id="incomplete-without-details"),
    ],
)
async def test_responses_statuses_beyond_the_three(
    openai_server: ScriptedServer,
    client: openai.AsyncOpenAI,
    changes: dict[str, Any],
    status: str,
    reason: str | None,
) -> None:
    # Compatible servers leave fields out; background mode adds statuses a run cannot use.
    answer = {**responses_body({"model": "test-model"}, Turn(text="Hi")), **changes}
    openai_server.script(Turn(raw_body=json.dumps(answer)))
    response = await call(model_for("responses", client), "whole")
    assert (response.status, response.reason, text_of(response)) == (status, reason, "Hi")


# ---------------------------------------------------------------- what cannot be read

NOT_JSON_BODY = "the model's API answered with a body that is not valid JSON"
NOT_A_RESPONSE = "the model's API answered with JSON that is not a response"
NOT_JSON_EVENT = "a streamed event from the model's API was not valid JSON"
NOT_AN_OBJECT = "a streamed event from the model's API was not a JSON object"
ERROR_EVENT = (
    "the model's API sent an error event mid-stream (server_error: The server had an error)"
)
STREAM_ENDED = "the stream ended before the response was complete"
# The shape the installed client's types do not describe, but some servers send.
NESTED_ERROR_EVENT = {
    "type": "error",
    "error": {"type": "server_error", "code": "server_error", "message": FAILED[1]},
    "sequence_number": 0,
}

TRANSPORT_ERRORS: list[Any] = [
    *(
        pytest.param(
            api, "whole", Turn(raw_body=body), description, None, cause, id=f"{api}-body-{body}"
        )
        for api in APIS
        for body, description, cause in [
            ("not json", NOT_JSON_BODY, json.JSONDecodeError),
            ("", NOT_JSON_BODY, json.JSONDecodeError),
            ("null", NOT_A_RESPONSE, None),
            ("[]", NOT_A_RESPONSE, None),
            ("{}", NOT_A_RESPONSE, None),
        ]
    ),
    *(
        pytest.param(api, "streamed", turn, description, 200, cause, id=f"{api}-{name}")
        for api in APIS
        for name, turn, description, cause in [
            (
                "event-not-json",
                Turn(raw_events=["data: not json\n\n"]),
                NOT_JSON_EVENT,
                json.JSONDecodeError,
            ),
            ("event-a-list", Turn(raw_events=["data: [1, 2]\n\n"]), NOT_AN_OBJECT, None),
            ("ends-early", Turn(text="Hel", ends_early=True), STREAM_ENDED, None),
            ("empty-stream", Turn(raw_events=[]), STREAM_ENDED, None),
            (
                "error-event",
                Turn(text="Hel", error_event=FAILED),
                ERROR_EVENT,
                # Responses error events arrive as event objects; Chat's make the client raise.
                None if api == "responses" else openai.APIError,
            ),
        ]
    ),
    pytest.param(
        "responses",
        "streamed",
        Turn(raw_events=[sse(NESTED_ERROR_EVENT)]),
        ERROR_EVENT,
        200,
        openai.APIError,
        id="responses-nested-error-event",
    ),
]


@pytest.mark.parametrize(
    ("api", "mode", "turn", "description", "status_code", "cause"), TRANSPORT_ERRORS
)
async def test_unreadable_answers_raise_model_transport_error(
    openai_server: ScriptedServer,
    client: openai.AsyncOpenAI,
    api: Api,
    mode: Mode,
    turn: Turn,
    description: str,
    status_code: int | None,
    cause: type[Exception] | None,
) -> None:
    openai_server.script(turn)
    with pytest.raises(ModelTransportError) as raised:
        await call(model_for(api, client), mode)
    assert raised.value.description == description
    assert raised.value.status_code == status_code
    if cause is None:
        assert raised.value.__cause__ is None
    else:
        assert type(raised.value.__cause__) is cause


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", APIS)
async def test_request_errors_leave_the_model_as_the_seams_error(
    openai_server: ScriptedServer, client: openai.AsyncOpenAI, api: Api, mode: Mode
) -> None:
    openai_server.script(Turn(status=500, headers={"Retry-After": "2"}))
    with pytest.raises(ModelTransportError) as raised:
        await call(model_for(api, client), mode)
    assert raised.value.status_code == 500
    assert raised.value.retry_after == 2.0
    assert raised.value.retryable is None  # left to RetryPolicy.retry_statuses
    assert isinstance(raised.value.__cause__, openai.InternalServerError)


def test_transport_error_text() -> None:
    error = ModelTransportError(STREAM_ENDED, 200)
    assert str(error) == f"{STREAM_ENDED} (HTTP 200)"
    assert str(ModelTransportError(NOT_JSON_BODY)) == NOT_JSON_BODY


# ---------------------------------------------------------------- what a request carries


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


ADD = function_tool(add)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", APIS)
async def test_the_conversation_and_tools_are_sent_beside_the_callers_extra_body(
    openai_server: ScriptedServer, client: openai.AsyncOpenAI, api: Api, mode: Mode
) -> None:
    # They go through `extra_body`, past the client's type walk: the JSON is the same.
    openai_server.script(Turn(text="ok"))
    settings = ModelSettings(extra_body={"service_tier": "flex"})
    request = ModelRequest(instructions=None, input=REQUEST.input, tools=[ADD], settings=settings)
    assert text_of(await call(model_for(api, client), mode, request)) == "ok"
    body = openai_server.requests[0]["body"]
    assert body["service_tier"] == "flex"
    conversation = body["input" if api == "responses" else "messages"]
    assert conversation == [{"role": "user", "content": "Hi"}]
    tool = responses_tool_param(ADD) if api == "responses" else chat_completions_tool_param(ADD)
    assert body["tools"] == [tool]


@pytest.mark.parametrize("api", APIS)
async def test_a_callers_extra_body_still_wins_over_the_conversation(
    openai_server: ScriptedServer, client: openai.AsyncOpenAI, api: Api
) -> None:
    openai_server.script(Turn(text="ok"))
    mine = [{"role": "user", "content": "Mine"}]
    key = "input" if api == "responses" else "messages"
    request = ModelRequest(None, REQUEST.input, settings=ModelSettings(extra_body={key: mine}))
    await call(model_for(api, client), "whole", request)
    assert openai_server.requests[0]["body"][key] == mine


async def test_hosted_tools_are_sent_beside_function_tools(
    openai_server: ScriptedServer, client: openai.AsyncOpenAI
) -> None:
    openai_server.script(Turn(text="ok"))
    request = ModelRequest(None, REQUEST.input, tools=[ADD, WebSearchTool()])
    await call(model_for("responses", client), "whole", request)
    body = openai_server.requests[0]["body"]
    assert body["tools"] == [responses_tool_param(ADD), WebSearchTool().to_tool_param()]
    assert body["input"] == [{"role": "user", "content": "Hi"}]


def test_send_as_is_moves_the_parameters_into_extra_body(client: openai.AsyncOpenAI) -> None:
    create = client.responses.create
    params: dict[str, Any] = {"model": "m", "input": [1], "extra_body": {"input": [2], "x": 3}}
    assert send_as_is(params, create, "input", "tools")
    assert params == {"model": "m", "extra_body": {"input": [2], "x": 3}}  # the caller's wins
    params = {"model": "m", "input": [1]}
    assert send_as_is(params, client.chat.completions.create, "input")
    assert params == {"model": "m", "extra_body": {"input": [1]}}


def test_send_as_is_leaves_an_extra_body_that_is_no_mapping_to_the_client(
    client: openai.AsyncOpenAI,
) -> None:
    params: dict[str, Any] = {"model": "m", "input": [1], "extra_body": "not a mapping"}
    assert not send_as_is(params, client.responses.create, "input")
    assert params == {"model": "m", "input": [1], "extra_body": "not a mapping"}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", APIS)
async def test_a_wrapped_create_still_gets_the_conversation_as_an_argument(
    openai_server: ScriptedServer,
    client: openai.AsyncOpenAI,
    api: Api,
    mode: Mode,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Instrumentation (OpenTelemetry's, Langfuse's) wraps `create` on its class and reads
    # the conversation from the call's arguments.
    resource = client.responses if api == "responses" else client.chat.completions
    original: Any = type(resource).create
    seen: list[dict[str, Any]] = []

    async def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs)
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(type(resource), "create", functools.wraps(original)(wrapper))
    openai_server.script(Turn(text="ok"))
    request = ModelRequest(instructions=None, input=REQUEST.input, tools=[ADD])
    assert text_of(await call(model_for(api, client), mode, request)) == "ok"
    key = "input" if api == "responses" else "messages"
    assert seen[0][key] == [{"role": "user", "content": "Hi"}]
    assert len(seen[0]["tools"]) == 1
    assert openai_server.requests[0]["body"][key] == [{"role": "user", "content": "Hi"}]


# ---------------------------------------------------------------- connections are reused


@pytest.fixture
def keep_alive_server() -> Iterator[ScriptedServer]:
    """A scripted server that keeps connections open between requests (HTTP/1.1)."""
    server = ScriptedServer(keep_alive=True)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", APIS)
async def test_calls_one_after_another_share_one_connection(
    keep_alive_server: ScriptedServer, api: Api, mode: Mode
) -> None:
    # A stream read to its end returns its connection to the client's pool; one closed
    # at the terminal event would be dropped, and each call would open a new one.
    keep_alive_server.script(Turn(text="one"), Turn(text="two"), Turn(text="three"))
    async with keep_alive_server.client() as client:
        model = model_for(api, client)
        texts = [text_of(await call(model, mode)) for _ in range(3)]
    assert texts == ["one", "two", "three"]
    assert len({request["client"] for request in keep_alive_server.requests}) == 1


async def test_a_stream_left_open_after_its_terminal_event_is_not_waited_for(
    openai_server: ScriptedServer, client: openai.AsyncOpenAI
) -> None:
    openai_server.script(Turn(text="Hello", linger=3.0))
    started = time.perf_counter()
    assert text_of(await call(model_for("responses", client), "streamed")) == "Hello"
    assert time.perf_counter() - started < 1.0  # the default wait is short: 0.05 s


async def test_what_follows_a_terminal_event_is_not_read_as_the_response(
    openai_server: ScriptedServer, client: openai.AsyncOpenAI
) -> None:
    events = list(responses_events({}, Turn(text="Hello")))
    after = [sse({"type": "error", "code": "x", "message": "late", "param": None}), "data: {\n\n"]
    openai_server.script(Turn(raw_events=[*events, *after]))
    response = await call(model_for("responses", client), "streamed")
    assert (text_of(response), response.status) == ("Hello", "completed")


# ---------------------------------------------------------------- streams are closed

CALLS = 100
SLACK = 5  # sockets of the server's handler threads still closing, the pool's idle ones


def at_done(event: StreamEvent) -> bool:
    return isinstance(event, ResponseDone)


def at_first_delta(event: StreamEvent) -> bool:
    del event
    return True


async def consume(events: AsyncIterator[StreamEvent], stop: Callable[[StreamEvent], bool]) -> None:
    async for event in events:
        if stop(event):
            return


@pytest.mark.parametrize(
    ("turn", "stop"),
    [
        pytest.param(Turn(text="Hello there"), at_done, id="aclose-at-done"),
        pytest.param(Turn(text="Hello there"), at_first_delta, id="aclose-after-first-delta"),
        pytest.param(Turn(text="Hello there", error_event=FAILED), at_done, id="error-event"),
        pytest.param(Turn(text="Hello there", ends_early=True), at_done, id="ends-early"),
    ],
)
@pytest.mark.parametrize("api", APIS)
async def test_streams_are_closed_however_reading_stops(
    openai_server: ScriptedServer,
    client: openai.AsyncOpenAI,
    api: Api,
    turn: Turn,
    stop: Callable[[StreamEvent], bool],
) -> None:
    model = model_for(api, client)
    failing = turn.error_event is not None or turn.ends_early
    before = open_sockets()
    # An openai stream and its iterator form a reference cycle: left unclosed, its socket
    # lives until a cyclic collection happens to run. With the collector off, only the
    # model's own closing frees it, and a leak shows as one socket per call.
    gc.disable()
    try:
        for _ in range(CALLS):
            openai_server.script(turn)
            events = model.stream_response(REQUEST)
            with pytest.raises(ModelTransportError) if failing else nullcontext():
                await consume(events, stop)
            await events.aclose()
        assert open_sockets() - before <= SLACK
    finally:
        gc.enable()
