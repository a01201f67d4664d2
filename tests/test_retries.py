"""The model-call retry policy: what is retried, how long it waits, and runs that retry.

The policy's rules are tested on the errors the `openai` client raises (built as it
builds them, around real `httpx2` responses), as the OpenAI models' edge hands them to
the policy (`openai_failure`: the policy itself sees only `ModelTransportError`); the
runs go through the real client and the local HTTP server, which counts the requests
it receives.
"""

from __future__ import annotations

import email.utils
import random
import re
import sys
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from typing import Any

import httpx2
import openai
import pytest
from openai import AsyncOpenAI
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from tooluse import (
    Agent,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RetryPolicy,
    RunConfig,
    RunContextWrapper,
    RunHooks,
    Runner,
    TResponseInputItem,
    Usage,
)
from tooluse.exceptions import MissingAPIKey, ModelAPIError, UserError
from tooluse.models import (
    Model,
    ModelRequest,
    ModelResponse,
    ModelTransportError,
    ResponseDone,
    StreamDelta,
    StreamEvent,
)
from tooluse.models._openai_errors import openai_failure

from .openai_server import ScriptedServer, Turn
from .scripted import text

REQUEST = httpx2.Request("POST", "https://api.example.test/v1/responses")
# Fast enough for tests; no jitter, so every delay is known.
FAST = RetryPolicy(max_retries=3, initial_delay=0.001, max_delay=0.004, jitter=0)


def status_error(status: int, headers: dict[str, str] | None = None) -> openai.APIStatusError:
    """The error the client raises for an answer with this status and these headers."""
    response = httpx2.Response(status, headers=headers, request=REQUEST)
    return openai.APIStatusError(f"Error code: {status}", response=response, body=None)


def edge(error: BaseException) -> BaseException:
    """What the policy sees of an error: the OpenAI models' mapping of the client's errors."""
    return openai_failure(error) or error


def delay_for(error: BaseException, retries_done: int = 0, **policy: Any) -> float | None:
    fields: dict[str, Any] = {"jitter": 0, **policy}
    return RetryPolicy(**fields).retry_delay(edge(error), retries_done)


class _Fraction(random.Random):
    """A random source that always draws the same fraction."""

    def __init__(self, fraction: float) -> None:
        super().__init__()
        self.fraction = fraction

    def random(self) -> float:
        return self.fraction


# --- what is retried -------------------------------------------------------------------


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 504, 599])
def test_transient_statuses_are_retried(status: int) -> None:
    assert delay_for(status_error(status)) == 0.5


@pytest.mark.parametrize("status", [400, 401, 403, 404, 405, 413, 422, 499, 200, 302])
def test_statuses_a_retry_cannot_fix_are_not(status: int) -> None:
    assert delay_for(status_error(status)) is None


@pytest.mark.parametrize(
    "error",
    [
        openai.APIConnectionError(request=REQUEST),
        openai.APITimeoutError(request=REQUEST),
        openai.RateLimitError(
            "slow down", response=httpx2.Response(429, request=REQUEST), body=None
        ),
        openai.InternalServerError(
            "oops", response=httpx2.Response(500, request=REQUEST), body=None
        ),
        ModelTransportError("the provider is overloaded", 503),
        ModelTransportError("the gateway timed out", 504),
    ],
    ids=lambda error: type(error).__name__,
)
def test_no_answer_and_transient_failures_are_retried(error: Exception) -> None:
    assert delay_for(error) == 0.5


@pytest.mark.parametrize(
    "error",
    [
        openai.BadRequestError("bad", response=httpx2.Response(400, request=REQUEST), body=None),
        openai.AuthenticationError(
            "no key", response=httpx2.Response(401, request=REQUEST), body=None
        ),
        openai.APIResponseValidationError(httpx2.Response(200, request=REQUEST), body=None),
        openai.APIError("an error event", REQUEST, body=None),
        ModelTransportError("a body that is not JSON"),  # the client does not say the status
        ModelTransportError("an error event mid-stream", 200),
        ModelTransportError("refused", 400),
        MissingAPIKey(),
        UserError("misuse"),
        ValueError("a model's own bug"),
        ConnectionError("not the openai client's"),
        KeyboardInterrupt(),
    ],
    ids=lambda error: type(error).__name__,
)
def test_everything_else_is_not(error: BaseException) -> None:
    assert delay_for(error) is None


def test_the_server_can_veto_a_retry_but_not_add_one() -> None:
    assert delay_for(status_error(500, {"x-should-retry": "false"})) is None
    assert delay_for(status_error(500, {"x-should-retry": "true"})) == 0.5
    assert delay_for(status_error(400, {"x-should-retry": "true"})) is None


def test_retry_statuses_decide_for_status_and_transport_errors_alike() -> None:
    only_503: dict[str, Any] = {"retry_statuses": {503}}
    assert delay_for(status_error(503), **only_503) == 0.5
    assert delay_for(status_error(500), **only_503) is None
    assert delay_for(status_error(429), **only_503) is None
    assert delay_for(ModelTransportError("busy", 503), **only_503) == 0.5
    assert delay_for(ModelTransportError("busy", 500), **only_503) is None
    assert delay_for(openai.APIConnectionError(request=REQUEST), **only_503) == 0.5
    no_409 = RetryPolicy(jitter=0, retry_statuses=RetryPolicy().retry_statuses - {409})
    assert no_409.retry_delay(edge(status_error(409)), 0) is None
    assert no_409.retry_delay(edge(status_error(408)), 0) == 0.5


def test_retries_run_out() -> None:
    error = status_error(500)
    assert [delay_for(error, done, max_retries=2) for done in range(4)] == [0.5, 1.0, None, None]
    assert delay_for(error, 0, max_retries=0) is None
    with_wait = status_error(429, {"Retry-After": "1"})
    assert delay_for(with_wait, 2, max_retries=2) is None  # the server's wait changes nothing


def test_the_policy_does_not_import_openai(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "openai")  # as before any model is used
    policy = RetryPolicy(jitter=0)
    assert policy.retry_delay(ModelTransportError("busy", 503), 0) == 0.5
    assert policy.retry_delay(ConnectionError(), 0) is None
    assert "openai" not in sys.modules


# --- how long it waits -----------------------------------------------------------------


def test_backoff_grows_by_the_multiplier_up_to_the_cap() -> None:
    policy = RetryPolicy(max_retries=10, initial_delay=1, max_delay=5, jitter=0)
    delays = [policy.retry_delay(edge(status_error(503)), done) for done in range(6)]
    assert delays == [1, 2, 4, 5, 5, 5]
    tripled = RetryPolicy(max_retries=10, initial_delay=0.1, multiplier=3, max_delay=100, jitter=0)
    assert [
        tripled.retry_delay(edge(status_error(503)), done) for done in range(3)
    ] == pytest.approx([0.1, 0.3, 0.9])
    flat = RetryPolicy(max_retries=10, initial_delay=0.2, multiplier=1, jitter=0)
    assert {flat.retry_delay(edge(status_error(503)), done) for done in range(10)} == {0.2}


def test_backoff_past_what_floats_hold_is_the_cap() -> None:
    for multiplier in (2, 2.0, 10.5):
        policy = RetryPolicy(max_retries=10**6, multiplier=multiplier, jitter=0)
        assert policy.retry_delay(edge(status_error(503)), 5000) == 8.0


@pytest.mark.parametrize("jitter", [0.25, 0.5, 1.0])
def test_jitter_takes_off_at_most_its_fraction(jitter: float) -> None:
    error = status_error(503)
    longest = RetryPolicy(jitter=jitter, rng=_Fraction(0.0)).retry_delay(edge(error), 1)
    shortest = RetryPolicy(jitter=jitter, rng=_Fraction(0.999999)).retry_delay(edge(error), 1)
    assert longest == 1.0
    assert shortest == pytest.approx(1.0 - jitter, abs=1e-5)
    drawn = [RetryPolicy(jitter=jitter).retry_delay(edge(error), 1) for _ in range(300)]
    assert all(d is not None and 1.0 - jitter <= d <= 1.0 for d in drawn)
    assert len(set(drawn)) > 1


def test_a_seeded_source_repeats_the_delays() -> None:
    def delays(seed: int) -> list[float | None]:
        policy = RetryPolicy(max_retries=5, rng=random.Random(seed))
        return [policy.retry_delay(edge(status_error(503)), done) for done in range(5)]

    assert delays(7) == delays(7)
    assert delays(7) != delays(8)


def test_retry_after_in_seconds_is_waited_as_it_is() -> None:
    assert delay_for(status_error(429, {"Retry-After": "3"})) == 3.0
    assert delay_for(status_error(503, {"Retry-After": "1.5"})) == 1.5  # not standard, but sent
    # Neither jitter nor the backoff's cap shortens the least the server will accept.
    asked = status_error(429, {"Retry-After": "20"})
    assert RetryPolicy(jitter=1, rng=_Fraction(0.9)).retry_delay(edge(asked), 0) == 20.0


def test_retry_after_ms_wins() -> None:
    headers = {"retry-after-ms": "250", "Retry-After": "9"}
    assert delay_for(status_error(429, headers)) == 0.25
    unreadable_ms = {"retry-after-ms": "soon", "Retry-After": "2"}
    assert delay_for(status_error(429, unreadable_ms)) == 2.0


def test_retry_after_as_an_http_date() -> None:
    when = datetime.now(timezone.utc) + timedelta(seconds=30)
    date = email.utils.format_datetime(when, usegmt=True)
    delay = delay_for(status_error(503, {"Retry-After": date}))
    assert delay is not None
    assert 28 < delay <= 30  # the date is whole seconds
    naive = date.replace("GMT", "-0000")  # a date that names no zone is read as UTC
    naive_delay = delay_for(status_error(503, {"Retry-After": naive}))
    assert naive_delay is not None
    assert 28 < naive_delay <= 30


@pytest.mark.parametrize(
    "value",
    ["soon", "", "nan", "0", "-5", "Mon, 01 Jan 2001 00:00:00 GMT", "Mon, 99 Foo 2001 99:00"],
)
def test_a_retry_after_that_names_no_wait_leaves_the_backoff(value: str) -> None:
    assert delay_for(status_error(429, {"Retry-After": value})) == 0.5


@pytest.mark.parametrize("value", ["61", "3600", "inf", "1e400"])
def test_a_server_asking_for_too_long_a_wait_is_not_retried(value: str) -> None:
    assert delay_for(status_error(429, {"Retry-After": value})) is None


def test_max_retry_after_is_the_longest_wait_honoured() -> None:
    asked = status_error(429, {"Retry-After": "60"})
    assert delay_for(asked) == 60.0
    assert delay_for(asked, max_retry_after=59.5) is None
    assert delay_for(status_error(429, {"Retry-After": "86400"}), max_retry_after=float("inf")) == (
        86400.0
    )
    assert (
        delay_for(status_error(429, {"Retry-After": "inf"}), max_retry_after=float("inf")) is None
    )


# --- the policy as a value -------------------------------------------------------------


def test_every_bad_field_is_named_at_once() -> None:
    with pytest.raises(UserError) as raised:
        RetryPolicy(
            max_retries=-1,
            initial_delay=float("nan"),
            max_delay=-1,
            multiplier=0.5,
            jitter=1.5,
            max_retry_after=-1,
            retry_statuses="500",  # pyright: ignore[reportArgumentType]
            rng=3,  # pyright: ignore[reportArgumentType]
        )
    assert str(raised.value) == (
        "RetryPolicy: max_retries=-1 must be a whole number >= 0; initial_delay=nan must be a "
        "number >= 0; max_delay=-1 must be a number >= 0; multiplier=0.5 must be a number >= 1; "
        "jitter=1.5 must be a number from 0 to 1; max_retry_after=-1 must be a number >= 0; "
        "retry_statuses='500' must be a set of HTTP statuses (100 to 599); rng must be a "
        "random.Random or None, not int"
    )


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"max_retries": True}, "max_retries=True must be a whole number >= 0"),
        ({"max_retries": 2.0}, "max_retries=2.0 must be a whole number >= 0"),
        ({"initial_delay": float("inf")}, "initial_delay=inf must be a number >= 0"),
        ({"initial_delay": "1"}, "initial_delay='1' must be a number >= 0"),
        ({"multiplier": float("inf")}, "multiplier=inf must be a number >= 1"),
        ({"jitter": True}, "jitter=True must be a number from 0 to 1"),
        (
            {"initial_delay": 2, "max_delay": 1},
            "max_delay=1 must be at least initial_delay=2",
        ),
        (
            {"retry_statuses": [500, 600]},
            "retry_statuses=[500, 600] must be a set of HTTP statuses (100 to 599)",
        ),
        (
            {"retry_statuses": [True]},
            "retry_statuses=[True] must be a set of HTTP statuses (100 to 599)",
        ),
        (
            {"retry_statuses": 500},
            "retry_statuses=500 must be a set of HTTP statuses (100 to 599)",
        ),
    ],
)
def test_each_bad_field(fields: dict[str, Any], problem: str) -> None:
    with pytest.raises(UserError, match=f"^RetryPolicy: {re.escape(problem)}$"):
        RetryPolicy(**fields)


def test_edges_that_are_allowed() -> None:
    policy = RetryPolicy(
        max_retries=0, initial_delay=0, max_delay=float("inf"), jitter=1, multiplier=1
    )
    assert policy.max_delay == float("inf")
    assert RetryPolicy(max_retry_after=0).retry_delay(
        status_error(429, {"Retry-After": "1"}), 0
    ) is (None)
    assert RetryPolicy(retry_statuses=set()).retry_delay(edge(status_error(503)), 0) is None


def test_statuses_compare_as_a_set_and_print_short() -> None:
    assert RetryPolicy(retry_statuses={503, 500}) == RetryPolicy(
        retry_statuses=frozenset({500, 503})
    )
    assert hash(RetryPolicy()) == hash(
        RetryPolicy(retry_statuses={408, 409, 429, *range(500, 600)})
    )
    assert isinstance(RetryPolicy(retry_statuses={500}).retry_statuses, frozenset)
    assert repr(RetryPolicy()) == (
        "RetryPolicy(max_retries=2, initial_delay=0.5, max_delay=8.0, multiplier=2.0, "
        "jitter=0.25, max_retry_after=60.0, retry_statuses=frozenset({408, 409, 429, "
        "*range(500, 600)}))"
    )
    assert repr(RetryPolicy(retry_statuses={502, 500, 501, 429, 504}).retry_statuses) == (
        "frozenset({429, *range(500, 503), 504})"
    )
    assert repr(RetryPolicy(retry_statuses=set()).retry_statuses) == "frozenset()"
    assert RetryPolicy(rng=random.Random(1)) == RetryPolicy()  # the source is not the policy


def test_replace_checks_too() -> None:
    assert replace(RetryPolicy(), max_retries=5).max_retries == 5
    with pytest.raises(UserError, match="max_retries=-1"):
        replace(RetryPolicy(), max_retries=-1)


# --- the client makes one attempt ------------------------------------------------------


@pytest.mark.parametrize("model_class", [OpenAIResponsesModel, OpenAIChatCompletionsModel])
def test_a_run_asks_the_client_for_no_retries_of_its_own(
    model_class: type[OpenAIResponsesModel | OpenAIChatCompletionsModel],
) -> None:
    client = AsyncOpenAI(api_key="k", base_url="http://127.0.0.1:9/v1", max_retries=5)
    model = model_class("m", client)
    ran = model.client_for(ModelRequest(None, [], max_retries=0))
    assert ran.max_retries == 0
    assert client.max_retries == 5  # a copy: the user's client is unchanged
    assert model.client_for(ModelRequest(None, [])) is client  # outside a run: the client's own
    assert model.client_for(ModelRequest(None, [], max_retries=5)) is client  # no copy needed


# --- runs over HTTP --------------------------------------------------------------------


class RetryLog(RunHooks[Any]):
    """Records each attempt the run makes, and each retry with its delay."""

    def __init__(self) -> None:
        self.starts = 0
        self.retries: list[tuple[str, int, float]] = []

    async def on_llm_start(
        self,
        context: RunContextWrapper[Any],
        agent: Agent[Any],
        system_prompt: str | None,
        input_items: list[TResponseInputItem],
    ) -> None:
        self.starts += 1

    async def on_llm_retry(
        self,
        context: RunContextWrapper[Any],
        agent: Agent[Any],
        error: Exception,
        attempt: int,
        delay: float,
    ) -> None:
        # A neutral error, whatever the provider; the client's own is its cause.
        assert isinstance(error, ModelTransportError)
        self.retries.append((type(error.__cause__).__name__, attempt, delay))


async def run(
    agent: Agent[Any], streamed: bool, config: RunConfig, hooks: RunHooks[Any] | None = None
) -> Any:
    if not streamed:
        return await Runner.run(agent, "hi", run_config=config, hooks=hooks)
    result = Runner.run_streamed(agent, "hi", run_config=config, hooks=hooks)
    async for _ in result.stream_events():
        pass
    return result


both = pytest.mark.parametrize("api", ["responses", "chat"])
plain_and_streamed = pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])


@plain_and_streamed
@both
async def test_a_run_retries_429_500_and_a_dropped_connection(
    openai_server: ScriptedServer, api: str, streamed: bool
) -> None:
    openai_server.script(
        Turn(status=429, headers={"Retry-After": "0.02"}),
        Turn(status=500),
        Turn(drop=True),
        Turn(text="ok"),
    )
    hooks = RetryLog()
    agent = Agent("a", model=openai_server.model(api))
    result = await run(agent, streamed, RunConfig(retry_policy=FAST), hooks)
    assert result.final_output == "ok"
    assert len(openai_server.requests) == 4
    assert hooks.starts == 4
    assert hooks.retries == [
        ("RateLimitError", 1, 0.02),  # the server's wait
        ("InternalServerError", 2, 0.002),  # the backoff
        ("APIConnectionError", 3, 0.004),  # capped
    ]
    assert result.usage.requests == 1  # only the answer is counted


@plain_and_streamed
@both
async def test_each_attempt_is_a_span(
    openai_server: ScriptedServer, api: str, streamed: bool
) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    openai_server.script(Turn(status=503), Turn(drop=True), Turn(text="ok"))
    config = RunConfig(retry_policy=FAST, tracer_provider=provider)
    await run(Agent("a", model=openai_server.model(api)), streamed, config)
    chats = sorted(
        (span for span in exporter.get_finished_spans() if span.name.startswith("chat")),
        key=lambda span: span.start_time or 0,
    )
    assert [span.status.status_code for span in chats] == [
        StatusCode.ERROR,
        StatusCode.ERROR,
        StatusCode.UNSET,
    ]
    assert [(span.attributes or {}).get("tooluse.retry.delay_seconds") for span in chats] == [
        0.001,
        0.002,
        None,
    ]


@plain_and_streamed
@both
async def test_max_retries_0_makes_one_request(
    openai_server: ScriptedServer, api: str, streamed: bool
) -> None:
    openai_server.script(Turn(status=429, headers={"Retry-After": "0"}), Turn(text="ok"))
    agent = Agent("a", model=openai_server.model(api))
    with pytest.raises(ModelAPIError) as raised:
        await run(agent, streamed, RunConfig(max_retries=0, retry_policy=FAST))
    assert raised.value.status_code == 429
    assert isinstance(raised.value.__cause__, openai.RateLimitError)
    assert len(openai_server.requests) == 1


@both
async def test_run_config_max_retries_overrides_the_policy(
    openai_server: ScriptedServer, api: str
) -> None:
    openai_server.script(*(Turn(status=503) for _ in range(5)), Turn(text="ok"))
    agent = Agent("a", model=openai_server.model(api))
    with pytest.raises(ModelAPIError) as raised:
        await run(agent, False, RunConfig(max_retries=1, retry_policy=FAST))
    assert raised.value.status_code == 503
    assert len(openai_server.requests) == 2


@plain_and_streamed
@both
async def test_retries_run_out_and_the_last_error_stops_the_run(
    openai_server: ScriptedServer, api: str, streamed: bool
) -> None:
    openai_server.script(Turn(status=500), Turn(status=502), Turn(drop=True), Turn(status=504))
    agent = Agent("a", model=openai_server.model(api))
    with pytest.raises(ModelAPIError) as raised:
        await run(agent, streamed, RunConfig(retry_policy=FAST))
    assert raised.value.status_code == 504
    assert len(openai_server.requests) == 4  # the first attempt and three retries
    assert raised.value.description == "the model's API failed (HTTP 504), after 4 attempts"


@plain_and_streamed
@both
@pytest.mark.parametrize(
    "turn",
    [Turn(status=400), Turn(status=401), Turn(status=429, headers={"Retry-After": "3600"})],
    ids=["400", "401", "429-an-hour"],
)
async def test_what_a_retry_cannot_fix_is_not_retried(
    openai_server: ScriptedServer, api: str, streamed: bool, turn: Turn
) -> None:
    openai_server.script(turn, Turn(text="ok"))
    agent = Agent("a", model=openai_server.model(api))
    with pytest.raises(ModelAPIError) as raised:
        await run(agent, streamed, RunConfig(retry_policy=FAST))
    assert raised.value.status_code == turn.status
    assert len(openai_server.requests) == 1
    why = (
        "the server asked for a longer wait than RetryPolicy.max_retry_after, or not to retry"
        if turn.status == 429
        else "which is not retried: the same request would fail again"
    )
    assert why in str(raised.value)


@both
async def test_a_stream_that_produced_events_is_not_retried(
    openai_server: ScriptedServer, api: str
) -> None:
    openai_server.script(Turn(text="half an answ", ends_early=True), Turn(text="ok"))
    agent = Agent("a", model=openai_server.model(api))
    with pytest.raises(ModelAPIError):
        await run(agent, True, RunConfig(retry_policy=FAST))
    assert len(openai_server.requests) == 1


@both
async def test_the_clients_own_retries_do_not_apply_to_runs(
    openai_server: ScriptedServer, api: str
) -> None:
    client = AsyncOpenAI(base_url=openai_server.base_url, api_key="test-key", max_retries=4)
    model = (OpenAIResponsesModel if api == "responses" else OpenAIChatCompletionsModel)(
        "test-model", client
    )
    openai_server.script(Turn(status=500), Turn(status=500), Turn(text="ok"))
    with pytest.raises(ModelAPIError):
        await run(Agent("a", model=model), False, RunConfig(max_retries=1, retry_policy=FAST))
    assert len(openai_server.requests) == 2


# --- a model of your own ---------------------------------------------------------------


class Flaky(Model):
    """Fails with `error` `failures` times, streamed after `events_first` events, then answers."""

    def __init__(self, error: Exception, failures: int, events_first: int = 0) -> None:
        self.error, self.failures, self.events_first = error, failures, events_first
        self.calls = 0

    def _answer(self) -> ModelResponse:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error
        return ModelResponse([text("ok")], Usage(requests=1))

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        return self._answer()

    async def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        for index in range(self.events_first):
            yield StreamDelta({"type": "delta", "index": index})
        yield ResponseDone(self._answer())


@plain_and_streamed
async def test_a_model_of_your_own_asks_for_a_retry_with_a_status(streamed: bool) -> None:
    model = Flaky(ModelTransportError("the provider is overloaded", 503), failures=2)
    result = await run(Agent("a", model=model), streamed, RunConfig(retry_policy=FAST))
    assert result.final_output == "ok"
    assert model.calls == 3


async def test_events_already_streamed_are_never_taken_back() -> None:
    model = Flaky(ModelTransportError("overloaded", 503), failures=1, events_first=2)
    with pytest.raises(ModelAPIError) as raised:
        await run(Agent("a", model=model), True, RunConfig(retry_policy=FAST))
    assert raised.value.status_code == 503
    assert model.calls == 1
    # The same failure before any event is retried.
    model = Flaky(ModelTransportError("overloaded", 503), failures=1)
    result = await run(Agent("a", model=model), True, RunConfig(retry_policy=FAST))
    assert (result.final_output, model.calls) == ("ok", 2)


async def test_a_models_own_bug_is_not_retried() -> None:
    model = Flaky(KeyError("oops"), failures=1)
    with pytest.raises(KeyError):
        await run(Agent("a", model=model), False, RunConfig(retry_policy=FAST))
    assert model.calls == 1
