"""The first step of a turn: call the model, and record its response as the turn in progress.

The request is made from the state; the call is whole or streamed (a stream is
closed however the run stops reading it); every way the call can fail becomes
a typed `RunStopped` error that keeps the conversation; the response's items
join the conversation with each function call answerable exactly once.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

from ..agents._agent import Agent
from ..core._context import Usage
from ..core._items import Item, message_text, with_valid_text
from ..core._retry_settings import ModelRetrySettings
from ..core._settings import ModelSettings
from ..core._state import RunState, ServerThread, TurnInProgress
from ..exceptions import (
    MaxTurnsExceeded,
    MissingAPIKey,
    ModelAPIError,
    ResponseIncomplete,
    RunTimeoutError,
    UserError,
)
from ..models import (
    Model,
    ModelRequest,
    ModelResponse,
    ModelTransportError,
    ResponseDone,
    StreamDelta,
    TextDelta,
    ToolCallArgumentsDelta,
    get_default_model,
    get_default_model_settings,
    resolve_model,
)
from ..models._base import ERROR_STATUS, name_of
from ._backend import RunBackend, run_backend
from ._config import RunConfig
from ._events import RunEvents
from ._fit import fit_context, fits_as_it_is, measured
from ._limits import reserve_request
from ._model_wrapper import wrapped
from ._record import RunRecord
from ._retries import DEFAULT_RETRY_POLICY
from ._retry_rules import SettingsRetries, settings_retries
from ._scope import AgentSetup, RunSetup, TurnTools
from ._stream_events import ItemEventName, RawResponsesStreamEvent
from ._tool_calls import normalise_calls

__all__ = ["agent_settings", "call_model", "final_output"]


async def call_model(run: RunSetup, record: RunRecord, setup: AgentSetup, tools: TurnTools) -> None:
    """Ask the model, and record its response as the turn in progress.

    Args:
        run: What the run's steps read.
        record: What they write: the state, and the raw responses.
        setup: The agent answering.
        tools: The tools to offer.

    Raises:
        MaxTurnsExceeded: If the run has made `max_turns` model calls already.
        UsageLimitExceeded: If the call would go over a limit, or its response did.
        ModelAPIError: If the API failed (after the retry policy's retries), or sent
            something unreadable.
        ResponseIncomplete: If the response stopped short.
    """
    state, agent = record.state, setup.agent
    if state.turns >= run.max_turns:
        raise MaxTurnsExceeded(run.max_turns, *record.error_items())
    if run.deadline is not None and asyncio.get_running_loop().time() >= run.deadline:
        raise RunTimeoutError(run.config.run_timeout or 0)  # a tool kept running past it
    limits = run.config.usage_limits
    named = run.config.model or agent.model
    backend = run_backend.get()
    model = _model_for(run, record, backend, named)
    request = await _request(run, record, setup, tools)
    request, retry = _retry_apart(request)
    if retry is not None and backend is not None and backend.retries_model_calls:
        model = backend.model_with_retry(model, retry, agent.name)  # or refused: no call yet
    policy = run.config.context
    if policy is not None and not fits_as_it_is(policy, record, request):
        request = await fit_context(run, record, setup, model, request)  # the context step
    if limits is not None:  # refused before any hook; counted by the first attempt
        limits.check_before_request(state.usage)
    state.turns += 1
    response, duration = await _fetch(run, record, agent, model, request, retry)
    record.raw_responses.append(response)
    if state.context is not None:
        measured(record, response.usage.input_tokens)
    _count(run.events, state.usage, agent, model, response, duration)
    if run.events.watched(agent):
        await run.events.llm_end(run.context, agent, response)
    if response.status == "incomplete":
        raise ResponseIncomplete(response.reason or "unknown", *record.error_items())
    if response.status == "failed":
        failure = f"the model's API reported that the response failed ({response.reason})"
        raise ModelAPIError(None, *record.error_items(), description=failure)
    _record(run, record, setup, response)
    if limits is not None:  # after recording: resuming from the error's state keeps the answer
        limits.check_tokens(state.usage)


def _retry_apart(request: ModelRequest) -> tuple[ModelRequest, ModelRetrySettings | None]:
    """The request without its `ModelSettings.retry`, which the run reads and never sends."""
    retry = request.settings.retry
    if retry is None:
        return request, None
    return replace(request, settings=replace(request.settings, retry=None)), retry


def _resolved(run: RunSetup, record: RunRecord, named: str | None) -> Model:
    """The model the run's provider gives for a name, resolved once a run."""
    models = record.models
    if models is None:
        models = record.models = {}
    model = models.get(named)
    if model is None:
        model = models[named] = resolve_model(named, run.config.model_provider)
    return model


async def _request(
    run: RunSetup, record: RunRecord, setup: AgentSetup, tools: TurnTools
) -> ModelRequest:
    state, agent = record.state, setup.agent
    settings = agent_settings(agent, run.config.model).resolve(run.config.model_settings)
    if state.tool_choice_released and settings.tool_choice is not None:
        settings = replace(settings, tool_choice=None)
    thread = state.server_thread
    return ModelRequest(
        instructions=await agent.get_system_prompt(run.context),
        input=state.history() if thread is None else _unsent(state, thread, agent),
        tools=tools.tools,
        settings=settings,
        output_schema=setup.output.json_schema if setup.output else None,
        output_strict=setup.output.strict if setup.output else True,
        max_retries=0,  # the run retries (RetryPolicy), so that hooks and spans see each attempt
        prompt=await agent.get_prompt(run.context) if agent.prompt is not None else None,
        previous_response_id=None if thread is None else thread.response_id,
        # A model's memo keeps a conversation that grows; a thread's requests send a part.
        memo=record.model_memo if thread is None else None,
    )


def _unsent(state: RunState, thread: ServerThread, agent: Agent[object]) -> list[Item]:
    """What of the conversation the server does not hold yet, for a run continuing a response.

    Raises:
        UserError: If a handoff's input filter changed the history: the server holds the
            whole conversation, which no request can filter.
    """
    if state.filtered_history is not None:
        raise UserError(
            f"Agent '{agent.name}': a handoff's input_filter cannot filter a conversation "
            f"the server keeps (the run continues response {thread.response_id!r} with "
            "previous_response_id): leave the input_filter out, or run without "
            "previous_response_id"
        )
    return state.conversation()[thread.held :]


_NO_SETTINGS = ModelSettings()


def agent_settings(agent: Agent[object], config_model: str | Model | None) -> ModelSettings:
    """The agent's settings; or, where it has none, those of the model named, as openai-agents.

    An agent with settings of its own is sent them alone: the model's defaults (GPT-5's
    reasoning effort and verbosity) are not merged in, as they are not in openai-agents.
    """
    named = config_model or agent.model
    if isinstance(named, Model) or agent.model_settings != _NO_SETTINGS:
        return agent.model_settings
    return _named_model_settings(named or get_default_model())


@functools.lru_cache(maxsize=64)
def _named_model_settings(name: str) -> ModelSettings:
    # Once a name: reading it costs 5-13 us, and this runs for every model call.
    return get_default_model_settings(name)


def _count(
    events: RunEvents,
    usage: Usage,
    agent: Agent[object],
    model: Model,
    response: ModelResponse,
    duration: float,
) -> None:
    """Add the response's tokens to the run's usage, with an entry for the call."""
    usage.add(response.usage)
    usage.requests -= response.usage.requests  # the loop counted the request as it was sent
    entry = response.usage.request_entry(
        model=name_of(model), agent_name=agent.name, duration_seconds=duration
    )
    usage.request_usage_entries.append(entry)
    events.usage(entry, usage)


async def _fetch(
    run: RunSetup,
    record: RunRecord,
    agent: Agent[object],
    model: Model,
    request: ModelRequest,
    retry: ModelRetrySettings | None,
) -> tuple[ModelResponse, float]:
    """The response, trying again as the retry policy says; and how long its attempt took."""
    events = run.events
    backend = run_backend.get()
    attempt = 1
    retries: SettingsRetries | None = None  # `retry` mapped at the first failure, if any
    while True:
        stream = _Stream() if run.streamed else None
        started = time.perf_counter() if backend is None else 0.0  # a backend measures its own
        try:
            counted = record.state.usage if attempt == 1 else None
            response = await _attempt(run, agent, model, request, stream, counted)
        except Exception as error:
            # Never again once events went out: the consumer has seen part of an answer.
            retried = stream is not None and stream.produced
            retried = retried or _retried_elsewhere()
            if retried:
                delay = None
            elif retry is not None:  # the policy is read only when a call failed
                if retries is None:
                    retries = settings_retries(run.config.effective_retry_policy(), retry)
                delay = await retries.delay(error, attempt, stream is not None)
            else:
                delay = run.config.effective_retry_policy().retry_delay(error, attempt - 1)
            if events.tracer is not None:
                events.tracer.llm_error(error, delay)
            if delay is None:
                failure = _failure(error, run, record, attempt)
                if failure is error:
                    raise
                # The SDK's own error, where a model mapped one: it holds the details.
                cause = error.__cause__ if isinstance(error, ModelTransportError) else None
                raise failure from cause or error
            deadline = run.deadline
            if deadline is not None and asyncio.get_running_loop().time() + delay >= deadline:
                raise RunTimeoutError(run.config.run_timeout or 0) from error
            if events.watched(agent):
                await events.llm_retry(run.context, agent, error, attempt, delay)
            await asyncio.sleep(delay)
            attempt += 1
            continue
        if backend is not None:
            return response, backend.duration(response)
        return response, time.perf_counter() - started


async def _attempt(
    run: RunSetup,
    agent: Agent[object],
    model: Model,
    request: ModelRequest,
    stream: _Stream | None,
    counted: Usage | None,
) -> ModelResponse:
    """One attempt at the call, with its hooks and span; the first counts the request."""
    events = run.events
    tracer = events.tracer
    if events.watched(agent):
        await events.llm_start(run.context, agent, request.instructions, request.input)
    if counted is not None:
        # After `on_llm_start`, which sees the requests made so far (as in openai-agents),
        # and with no await between the limit's check and the count, so that runs sharing
        # a usage cannot all pass the check before one counts.
        reserve_request(run.config.usage_limits, counted)
    if tracer is not None:
        tracer.llm_start(agent, model, request)
    try:
        if stream is not None:
            response = await stream.read(model, request, events)
        else:
            response = await model.get_response(request)
    except Exception:
        raise  # the caller decides on a retry, and ends the span with it
    except BaseException as error:  # cancelled (a timeout, a guardrail): the span ends too
        if tracer is not None:
            tracer.llm_error(error, None)
        raise
    if tracer is not None:
        tracer.llm_end(response)
    return response


def _failure(error: Exception, run: RunSetup, record: RunRecord, attempts: int) -> Exception:
    """The error a failed model call stops the run with, after `attempts` attempts."""
    if isinstance(error, MissingAPIKey):
        error.items, error.new_items = record.error_items()  # the model does not know them
        return error
    return _api_error(error, run, record, attempts) or error


_new = object.__new__


class _Stream:
    """Reads a streamed response, passing its events on, and knows whether any went out."""

    __slots__ = ("produced",)

    def __init__(self) -> None:
        self.produced = False

    async def read(self, model: Model, request: ModelRequest, events: RunEvents) -> ModelResponse:
        buffer = events.stream
        async with _closing(model.stream_response(request)) as stream:
            async for event in stream:
                if type(event) is StreamDelta:  # most events: checked first, put straight in
                    self.produced = True
                    # Built without __init__, whose only work past this is checking a
                    # `type` argument not given: ~600 fewer instructions an event (a third
                    # of making it), 5-10 % of the event's whole cost to a reader.
                    raw = _new(RawResponsesStreamEvent)
                    raw.data = event.data
                    behind = buffer is not None and buffer.put(raw)
                elif isinstance(event, ResponseDone):
                    return event.response
                else:
                    self.produced = True
                    if isinstance(event, TextDelta):
                        behind = events.text_delta(event)
                    elif isinstance(event, ToolCallArgumentsDelta):
                        behind = events.arguments_delta(event)
                    else:
                        behind = events.raw(event.data)
                if behind and buffer is not None:  # read no further until the consumer catches up
                    await buffer.room()
        raise UserError(
            f"{type(model).__name__}.stream_response ended without a ResponseDone event: "
            "yield ResponseDone(response) last, with the whole response"
        )


@asynccontextmanager
async def _closing(stream: AsyncIterator[Any]) -> AsyncGenerator[AsyncIterator[Any]]:
    """Close the model's stream when the run stops reading it, however it stops."""
    try:
        yield stream
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()


def _api_error(
    error: Exception, run: RunSetup, record: RunRecord, attempts: int
) -> ModelAPIError | None:
    """The run's error for a failed model call; None for an error that is not the API's."""
    if isinstance(error, UnicodeEncodeError):  # text the model sent that no request can carry
        description = "the conversation holds text that cannot be sent (invalid Unicode)"
        return ModelAPIError(None, *record.error_items(), description=description)
    if not isinstance(error, ModelTransportError):
        return None
    status, what = error.status_code, error.description
    if _retried_elsewhere():  # the backend's error says how often it tried
        pass
    elif status is not None and status >= 400:  # the API answered the request with an error
        detail = "" if what == ERROR_STATUS else f": {what}"
        what = _status_failure(status, detail, run, attempts)
    elif status is not None:  # it answered, with something that cannot be read
        what = f"{what} (HTTP {status}), {_tries(attempts)}"
    elif error.retryable:  # no answer came
        what = f"{what}, {_tries(attempts)}"
    return ModelAPIError(status, *record.error_items(), description=what)


def _status_failure(status: int, detail: str, run: RunSetup, attempts: int) -> str:
    """Why a call the API answered with an error status stopped the run."""
    policy = run.config.effective_retry_policy()
    if status not in policy.retry_statuses:
        return (
            f"the model's API refused the request (HTTP {status}{detail}), which is not "
            "retried: the same request would fail again (check the API key, the model name "
            "and the request)"
        )
    if attempts <= policy.max_retries:  # retries were left: the server said not to use them
        return (
            f"the model's API failed (HTTP {status}{detail}), {_tries(attempts)}: the server "
            "asked for a longer wait than RetryPolicy.max_retry_after, or not to retry"
        )
    return f"the model's API failed (HTTP {status}{detail}), {_tries(attempts)}"


def _model_for(
    run: RunSetup, record: RunRecord, backend: RunBackend | None, named: str | Model | None
) -> Model:
    """The model to call: the run backend's, else the one named (a test's cassette around it)."""
    if backend is not None:
        _refuse_run_retries(backend, run.config)
        return backend.model(named)
    model = named if isinstance(named, Model) else _resolved(run, record, named)
    return wrapped(model)


def _refuse_run_retries(backend: RunBackend, config: RunConfig) -> None:
    """Refuse the run's own retry settings where the run backend retries model calls.

    The run then makes one attempt per call and the backend (Temporal's activity) retries
    it, so `RunConfig.retry_policy` and `max_retries` would be ignored; the agent's or the
    run's `ModelSettings.retry` becomes the backend's own policy instead.

    Raises:
        UserError: Either is set, naming it and what to set instead.
    """
    if not backend.retries_model_calls:
        return
    given = [
        name
        for name, changed in (
            ("retry_policy", config.retry_policy != DEFAULT_RETRY_POLICY),
            ("max_retries", config.max_retries is not None),
        )
        if changed
    ]
    if given:
        raise UserError(
            f"RunConfig({', '.join(f'{name}=...' for name in given)}) cannot be honoured "
            "inside a Temporal workflow, where Temporal retries the model activity and the "
            "run makes one attempt per call: give the retries as "
            "ModelSettings(retry=ModelRetrySettings(max_retries=..., backoff=...)) in "
            "RunConfig(model_settings=...) or on the agent, which become the activity's "
            "RetryPolicy, or set the worker's TooluseTemporalPlugin(activity_options="
            "ActivityOptions(retry_policy=...))"
        )


def _retried_elsewhere() -> bool:
    """Whether the run backend retries model calls itself (the run then tries once)."""
    backend = run_backend.get()
    return backend is not None and backend.retries_model_calls


def _tries(attempts: int) -> str:
    return "after 1 attempt" if attempts == 1 else f"after {attempts} attempts"


def _record(run: RunSetup, record: RunRecord, setup: AgentSetup, response: ModelResponse) -> None:
    state = record.state
    output = normalise_calls([with_valid_text(item) for item in response.output], state.turns)
    record.turn_start = len(state.new_items)
    state.new_items.extend(output)
    if run.streamed:
        _announce(run.events, setup, output, state.new_items)
    state.turn = TurnInProgress(output, response.response_id)
    thread = state.server_thread
    if thread is not None and response.response_id is not None:  # the server holds it all now
        thread.response_id, thread.held = (
            response.response_id,
            len(state.input) + len(state.new_items),
        )


def _announce(events: RunEvents, setup: AgentSetup, output: list[Item], items: list[Item]) -> None:
    """The stream's item events for a response's messages, calls, reasoning and hosted items.

    In the response's order, as openai-agents emits them once the response is in; `items`
    are the run's, which a call's item object reads its tool's facts from when asked.
    """
    handoffs = {tool.name for tool in setup.handoff_tools}
    for item in output:
        kind = item.get("type")
        if message_text(item) is not None:
            events.item("message_output_created", item, setup.agent)
        elif kind == "function_call":
            handoff = item.get("name") in handoffs
            name = "handoff_requested" if handoff else "tool_called"
            events.item(name, item, setup.agent, items=items)
        elif (name := _OTHER_EVENTS.get(str(kind))) is not None:
            events.item(name, item, setup.agent, items=items)


_OTHER_EVENTS: dict[str, ItemEventName] = {
    "reasoning": "reasoning_item_created",
    "mcp_list_tools": "mcp_list_tools",
    "mcp_approval_request": "mcp_approval_requested",
    "mcp_call": "tool_called",
    "web_search_call": "tool_called",
    "file_search_call": "tool_called",
    "code_interpreter_call": "tool_called",
    "image_generation_call": "tool_called",
    "computer_call": "tool_called",
    "local_shell_call": "tool_called",
    "shell_call": "tool_called",
}
"""The event of each other item a response may hold: reasoning, and the calls of hosted
tools and of the provider's local ones (openai-agents' names). An item of a kind not
listed (one a newer API adds) has no event, as in openai-agents."""


def final_output(setup: AgentSetup, output: list[Item]) -> Any:
    """The run's answer: the last message's text, parsed into `output_type` if the agent has one.

    Args:
        setup: The agent answering.
        output: The response's items.

    Returns:
        The answer.
    """
    texts = [text for item in output if (text := message_text(item)) is not None]
    text = texts[-1] if texts else ""
    return setup.output.parse(text) if setup.output else text
