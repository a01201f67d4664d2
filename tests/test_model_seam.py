"""The provider-neutral Model seam: providers, closing, transport errors, text deltas, Temporal.

- `RunConfig(model_provider=...)` is asked once per run for each name, and the
  models it gave are closed exactly once when the run ends, however it ends; a
  `Model` object given to an agent is never closed by the run.
- Both OpenAI models, whole and streamed, against the local HTTP server, raise
  `ModelTransportError` at their edge with the client's error as the cause, and a
  run's `ModelAPIError` keeps the client's own error as its cause.
- Models stream the neutral `TextDelta`; a streamed run passes them on as
  `TextDeltaStreamEvent`s.
- The Temporal model activity asks the `ModelProvider` it was given, and closes
  each model after its call.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

import openai
import pytest
from temporalio.testing import ActivityEnvironment

from tooluse import (
    Agent,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RunConfig,
    Runner,
    TextDeltaStreamEvent,
    TResponseInputItem,
    UserError,
    function_tool,
)
from tooluse.exceptions import ModelAPIError
from tooluse.models import (
    DEFAULT_MODEL,
    Model,
    ModelProvider,
    ModelRequest,
    ModelResponse,
    ModelTransportError,
    OpenAIProvider,
    ResponseDone,
    StreamEvent,
    TextDelta,
)
from tooluse.temporal import TooluseTemporalPlugin, model_activity
from tooluse.temporal._payloads import ModelCall, ModelReply, request_payload
from tooluse.testing import FunctionModel, TestModel, ToolCall
from tooluse.testing import ModelReply as Reply

from .openai_server import Call, ScriptedServer, Turn

Api = Literal["responses", "chat"]
Mode = Literal["whole", "streamed"]
APIS: list[Api] = ["responses", "chat"]
MODES: list[Mode] = ["whole", "streamed"]
REQUEST = ModelRequest(instructions="Be brief.", input=[{"role": "user", "content": "Hi"}])

Items = list[TResponseInputItem]
ReplyFn = Callable[[Items, Sequence[Any]], Any]
"""What a `FunctionModel` answers with: a reply, a text, or an awaitable of either."""


# --- models that count their closing, and a provider that counts its lookups ----------------


class ClosableModel(FunctionModel):
    """A scripted model that counts the times it is closed."""

    def __init__(self, name: str, fn: ReplyFn) -> None:
        super().__init__(fn)
        self.name = name
        self.closes = 0

    async def close(self) -> None:
        self.closes += 1


class CountingProvider(ModelProvider):
    """Makes a fresh model for each lookup, and remembers the names asked for."""

    def __init__(self, replies: dict[str | None, ReplyFn]) -> None:
        self.replies = replies
        self.asked: list[str | None] = []
        self.made: list[ClosableModel] = []

    def get_model(self, model_name: str | None) -> Model:
        self.asked.append(model_name)
        model = ClosableModel(str(model_name), self.replies[model_name])
        self.made.append(model)
        return model

    def closes(self) -> dict[str, int]:
        return {model.name: model.closes for model in self.made}


def outputs_in(messages: Items) -> int:
    return sum(item.get("type") == "function_call_output" for item in messages)


@function_tool
def ping() -> str:
    """Ping."""
    return "pong"


def triage_then_expert(provider: CountingProvider) -> Agent[Any]:
    """`triage` (model "alpha") calls `ping`, then hands off to `expert` (model "beta")."""

    def alpha(messages: Items, tools: Sequence[Any]) -> Reply:
        if outputs_in(messages) == 0:
            return Reply(tool_calls=[ToolCall("ping")])
        return Reply(tool_calls=[ToolCall("transfer_to_expert")])

    def beta(messages: Items, tools: Sequence[Any]) -> str:
        # The run is still going: neither model it resolved is closed yet.
        assert [model.closes for model in provider.made[-2:]] == [0, 0]
        return "the expert answers"

    provider.replies.update({"alpha": alpha, "beta": beta})
    expert = Agent("expert", model="beta")
    return Agent("triage", tools=[ping], handoffs=[expert], model="alpha")


async def test_the_provider_is_asked_once_per_name_and_each_model_closed_once_at_the_end() -> None:
    provider = CountingProvider({})
    agent = triage_then_expert(provider)
    config = RunConfig(model_provider=provider)
    result = await Runner.run(agent, "go", run_config=config)
    assert result.final_output == "the expert answers"
    assert result.usage.requests == 3  # alpha answered twice, from one lookup
    assert provider.asked == ["alpha", "beta"]
    assert provider.closes() == {"alpha": 1, "beta": 1}
    again = await Runner.run(agent, "go", run_config=config)
    assert again.final_output == "the expert answers"
    assert provider.asked == ["alpha", "beta", "alpha", "beta"]  # once per run, not once ever
    assert [model.closes for model in provider.made] == [1, 1, 1, 1]


async def test_the_runs_model_name_is_resolved_by_the_provider_too() -> None:
    provider = CountingProvider({"gamma": lambda messages, tools: "gamma answers"})
    agent = Agent("a", model="ignored-for-the-run's")
    result = await Runner.run(
        agent, "go", run_config=RunConfig(model="gamma", model_provider=provider)
    )
    assert result.final_output == "gamma answers"
    assert provider.asked == ["gamma"]
    assert provider.closes() == {"gamma": 1}


async def test_models_resolved_by_name_are_closed_once_when_the_run_raises() -> None:
    def refused(messages: Items, tools: Sequence[Any]) -> str:
        raise ModelTransportError("the provider refused the request", 400)

    provider = CountingProvider({"alpha": refused})
    with pytest.raises(ModelAPIError) as raised:
        await Runner.run(
            Agent("a", model="alpha"), "go", run_config=RunConfig(model_provider=provider)
        )
    assert raised.value.status_code == 400
    assert provider.asked == ["alpha"]
    assert provider.closes() == {"alpha": 1}


async def test_models_resolved_by_name_are_closed_once_when_a_streamed_run_is_cancelled() -> None:
    started = asyncio.Event()

    async def waits_forever(messages: Items, tools: Sequence[Any]) -> str:
        started.set()
        await asyncio.Event().wait()
        return "never"

    provider = CountingProvider({"alpha": waits_forever})
    config = RunConfig(model_provider=provider)
    result = Runner.run_streamed(Agent("a", model="alpha"), "go", run_config=config)
    await asyncio.wait_for(started.wait(), 5)
    assert provider.closes() == {"alpha": 0}
    result.cancel()
    async for _ in result.stream_events():
        pass
    assert result.cancelled
    assert result.is_complete
    assert provider.closes() == {"alpha": 1}


def given(name: str) -> ClosableModel:
    return ClosableModel(name, lambda messages, tools: f"{name} answers")


async def test_a_model_object_given_to_an_agent_is_never_closed() -> None:
    provider = CountingProvider({})
    mine = given("mine")
    answered = await Runner.run(
        Agent("a", model=mine), "go", run_config=RunConfig(model_provider=provider)
    )
    assert answered.final_output == "mine answers"

    def refused(messages: Items, tools: Sequence[Any]) -> str:
        raise ModelTransportError("refused", 400)

    failing = ClosableModel("failing", refused)
    with pytest.raises(ModelAPIError):
        await Runner.run(Agent("a", model=failing), "go")

    started = asyncio.Event()

    async def waits_forever(messages: Items, tools: Sequence[Any]) -> str:
        started.set()
        await asyncio.Event().wait()
        return "never"

    waiting = ClosableModel("waiting", waits_forever)
    streamed = Runner.run_streamed(Agent("a", model=waiting), "go")
    await asyncio.wait_for(started.wait(), 5)
    streamed.cancel()
    async for _ in streamed.stream_events():
        pass
    assert streamed.cancelled

    assert provider.asked == []
    assert (mine.closes, failing.closes, waiting.closes) == (0, 0, 0)


async def test_of_a_handoff_between_a_given_model_and_a_named_one_only_the_named_is_closed() -> (
    None
):
    provider = CountingProvider({"beta": lambda messages, tools: "beta answers"})
    mine = ClosableModel(
        "mine", lambda messages, tools: Reply(tool_calls=[ToolCall("transfer_to_expert")])
    )
    agent = Agent("triage", handoffs=[Agent("expert", model="beta")], model=mine)
    result = await Runner.run(agent, "go", run_config=RunConfig(model_provider=provider))
    assert result.final_output == "beta answers"
    assert provider.asked == ["beta"]
    assert (mine.closes, provider.closes()) == (0, {"beta": 1})


def test_a_model_provider_without_get_model_is_refused() -> None:
    with pytest.raises(UserError, match="model_provider") as raised:
        RunConfig(model_provider=object())  # type: ignore[arg-type]
    assert "object" in str(raised.value)


async def test_the_openai_provider_resolves_names_to_either_api(
    openai_server: ScriptedServer,
) -> None:
    async with openai_server.client() as client:
        responses = OpenAIProvider(openai_client=client, use_responses=True).get_model("gpt-x")
        chat = OpenAIProvider(openai_client=client, use_responses=False).get_model(None)
    assert isinstance(responses, OpenAIResponsesModel)
    assert responses.model == "gpt-x"
    assert isinstance(chat, OpenAIChatCompletionsModel)
    assert chat.model == DEFAULT_MODEL


# --- the OpenAI models' edge ----------------------------------------------------------------


@pytest.fixture
async def client(openai_server: ScriptedServer) -> AsyncIterator[openai.AsyncOpenAI]:
    """A client of the scripted server, closed after the test."""
    async with openai_server.client() as client:
        yield client


def model_for(api: Api, client: openai.AsyncOpenAI) -> Model:
    if api == "responses":
        return OpenAIResponsesModel("test-model", client)
    return OpenAIChatCompletionsModel("test-model", client)


async def events_of(model: Model, request: ModelRequest = REQUEST) -> list[StreamEvent]:
    """Every event of the model's stream, read to its end."""
    return [event async for event in model.stream_response(request)]


async def call(model: Model, mode: Mode) -> ModelResponse:
    if mode == "whole":
        return await model.get_response(REQUEST)
    events = await events_of(model)
    done = events[-1]
    assert isinstance(done, ResponseDone)
    return done.response


@dataclass(frozen=True)
class Failure:
    turn: Turn
    status: int | None
    retry_after: float | None
    retryable: bool | None
    cause: type[BaseException]


FAILURES = {
    "429 with Retry-After": Failure(
        Turn(status=429, headers={"Retry-After": "2"}), 429, 2.0, None, openai.RateLimitError
    ),
    "x-should-retry false": Failure(
        Turn(status=503, headers={"x-should-retry": "false"}),
        503,
        None,
        False,
        openai.InternalServerError,
    ),
    "a dropped connection": Failure(Turn(drop=True), None, None, True, openai.APIConnectionError),
}


@pytest.mark.parametrize("failure", FAILURES.values(), ids=FAILURES.keys())
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", APIS)
async def test_the_openai_models_raise_the_neutral_error_with_the_clients_as_its_cause(
    openai_server: ScriptedServer,
    client: openai.AsyncOpenAI,
    api: Api,
    mode: Mode,
    failure: Failure,
) -> None:
    openai_server.script(failure.turn)
    with pytest.raises(ModelTransportError) as raised:
        await call(model_for(api, client), mode)
    error = raised.value
    assert error.status_code == failure.status
    assert error.retry_after == failure.retry_after
    assert error.retryable is failure.retryable
    assert isinstance(error.__cause__, failure.cause)
    assert len(openai_server.requests) == 1  # one attempt: retries are the run's to make


async def run_to_the_end(agent: Agent[Any], streamed: bool, config: RunConfig) -> None:
    if not streamed:
        await Runner.run(agent, "go", run_config=config)
        return
    result = Runner.run_streamed(agent, "go", run_config=config)
    async for _ in result.stream_events():
        pass


@pytest.mark.parametrize("failure", FAILURES.values(), ids=FAILURES.keys())
@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
@pytest.mark.parametrize("api", APIS)
async def test_a_runs_model_api_error_keeps_the_clients_own_error_as_its_cause(
    openai_server: ScriptedServer, api: Api, streamed: bool, failure: Failure
) -> None:
    openai_server.script(failure.turn)
    agent = Agent("a", model=openai_server.model(api))
    config = RunConfig(max_retries=0)
    with pytest.raises(ModelAPIError) as raised:
        await run_to_the_end(agent, streamed, config)
    assert raised.value.status_code == failure.status
    assert isinstance(raised.value.__cause__, failure.cause)
    assert not isinstance(raised.value.__cause__, ModelTransportError)


# --- text deltas ----------------------------------------------------------------------------


def message_text(response: ModelResponse) -> str:
    return "".join(
        part["text"]
        for item in response.output
        if item.get("type") == "message"
        for part in item["content"]
    )


@pytest.mark.parametrize("api", APIS)
async def test_the_openai_models_stream_text_deltas_that_join_to_the_answers_text(
    openai_server: ScriptedServer, client: openai.AsyncOpenAI, api: Api
) -> None:
    openai_server.script(Turn(text="Paris is the capital of France.", calls=[Call("ping")]))
    events = await events_of(model_for(api, client))
    deltas = [event.delta for event in events if isinstance(event, TextDelta)]
    done = events[-1]
    assert isinstance(done, ResponseDone)
    assert deltas
    assert "".join(deltas) == message_text(done.response) == "Paris is the capital of France."


async def test_function_model_streams_its_text_in_text_delta_pieces() -> None:
    answer = "A longer answer, streamed in several pieces of text."
    events = await events_of(FunctionModel(lambda messages, tools: answer))
    deltas = [event.delta for event in events if isinstance(event, TextDelta)]
    assert len(deltas) > 1
    assert "".join(deltas) == answer


async def test_test_model_streams_its_text_in_text_delta_pieces() -> None:
    events = await events_of(TestModel())
    deltas = [event.delta for event in events if isinstance(event, TextDelta)]
    assert len(deltas) > 1
    assert "".join(deltas) == "No tools were called."


async def test_a_streamed_run_yields_the_text_deltas_as_text_delta_stream_events() -> None:
    answer = "Streamed through the run, piece by piece."
    agent = Agent("a", model=FunctionModel(lambda messages, tools: answer))
    result = Runner.run_streamed(agent, "go")
    deltas = [
        event.delta
        async for event in result.stream_events()
        if isinstance(event, TextDeltaStreamEvent)
    ]
    assert len(deltas) > 1
    assert "".join(deltas) == result.final_output == answer


# --- the Temporal model activity ------------------------------------------------------------


def model_call(name: str | None) -> ModelCall:
    return {"model": name, "request": request_payload(REQUEST)}


async def run_activity(activity: Callable[..., Any], name: str | None) -> ModelReply:
    reply: ModelReply = await ActivityEnvironment().run(activity, model_call(name))
    return reply


async def test_the_model_activity_asks_its_provider_and_closes_the_model_after_each_call() -> None:
    provider = CountingProvider(
        {"alpha": lambda messages, tools: "alpha answers", None: lambda m, t: "the default"}
    )
    activity = model_activity(provider)
    first = await run_activity(activity, "alpha")
    second = await run_activity(activity, None)
    assert first["response"]["output"][0]["content"][0]["text"] == "alpha answers"
    assert second["response"]["output"][0]["content"][0]["text"] == "the default"
    assert provider.asked == ["alpha", None]
    assert [model.closes for model in provider.made] == [1, 1]


async def test_the_model_activity_closes_the_model_when_the_call_fails() -> None:
    def refused(messages: Items, tools: Sequence[Any]) -> str:
        raise ModelTransportError("refused", 400)

    provider = CountingProvider({"alpha": refused})
    with pytest.raises(Exception, match="refused") as raised:
        await run_activity(model_activity(provider), "alpha")
    assert type(raised.value).__name__ == "ApplicationError"
    assert provider.closes() == {"alpha": 1}


async def test_the_model_activity_takes_a_plain_function_of_the_name_too() -> None:
    made: list[ClosableModel] = []

    def get_model(name: str | None) -> Model:
        made.append(given(str(name)))
        return made[-1]

    reply = await run_activity(model_activity(get_model), "delta")
    assert reply["response"]["output"][0]["content"][0]["text"] == "delta answers"
    assert [model.closes for model in made] == [1]


async def test_the_plugins_model_activity_asks_the_provider_given_to_the_plugin() -> None:
    provider = CountingProvider({"alpha": lambda messages, tools: "alpha answers"})
    plugin = TooluseTemporalPlugin(model_provider=provider)
    # temporalio types a plugin's activities as Callable[..., Unknown]
    activities = plugin.activities  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    assert isinstance(activities, list)
    [activity] = cast(list[Callable[..., Any]], activities)  # no tools: the model activity alone
    reply = await run_activity(activity, "alpha")
    assert reply["response"]["output"][0]["content"][0]["text"] == "alpha answers"
    assert provider.asked == ["alpha"]
    assert provider.closes() == {"alpha": 1}
