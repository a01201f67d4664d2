"""The first step of a turn: call the model, and record its response as the turn in progress.

The request is made from the state; the call is whole or streamed (a stream is
closed however the run stops reading it); every way the call can fail becomes
a typed `RunStopped` error that keeps the conversation; the response's items
join the conversation with each function call answerable exactly once.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

from ._durable import run_backend
from ._hooks import RunEvents
from ._items import Item, message_text, with_valid_text
from ._run_scope import AgentSetup, RunScope, TurnTools
from ._state import TurnInProgress
from ._stream_events import RawResponsesStreamEvent
from ._tool_calls import normalise_calls
from .exceptions import (
    MaxTurnsExceeded,
    MissingAPIKey,
    ModelAPIError,
    ResponseIncomplete,
    RunTimeoutError,
    UserError,
)
from .models import (
    Model,
    ModelRequest,
    ModelResponse,
    ModelTransportError,
    ResponseDone,
    StreamDelta,
    ToolCallArgumentsDelta,
    resolve_model,
)

__all__ = ["call_model", "final_output", "model_name"]


async def call_model(scope: RunScope, tools: TurnTools) -> None:
    """Ask the model, and record its response as the turn in progress.

    Args:
        scope: The run.
        tools: The tools to offer.

    Raises:
        MaxTurnsExceeded: If the run has made `max_turns` model calls already.
        UsageLimitExceeded: If the call would go over a limit, or its response did.
        ModelAPIError: If the API failed (after the retry policy's retries), or sent
            something unreadable.
        ResponseIncomplete: If the response stopped short.
    """
    state, agent = scope.state, scope.setup.agent
    if state.turns >= scope.max_turns:
        raise MaxTurnsExceeded(scope.max_turns, *scope.error_items())
    if scope.deadline is not None and asyncio.get_running_loop().time() >= scope.deadline:
        raise RunTimeoutError(scope.config.run_timeout or 0)  # a tool kept running past it
    limits = scope.config.usage_limits
    if limits is not None:
        limits.check_before_request(state.usage)
    named = scope.config.model or agent.model
    backend = run_backend.get()
    model = resolve_model(named) if backend is None else backend.model(named)
    request = await _request(scope, tools)
    state.turns += 1
    response, duration = await _fetch(scope, model, request)
    scope.raw_responses.append(response)
    _count(scope, model, response, duration)
    if scope.events.watched(agent):
        await scope.events.llm_end(scope.context, agent, response)
    if response.status == "incomplete":
        raise ResponseIncomplete(response.reason or "unknown", *scope.error_items())
    if response.status == "failed":
        failure = f"the model's API reported that the response failed ({response.reason})"
        raise ModelAPIError(None, *scope.error_items(), description=failure)
    _record(scope, response)
    if limits is not None:  # after recording: resuming from the error's state keeps the answer
        limits.check_tokens(state.usage)


async def _request(scope: RunScope, tools: TurnTools) -> ModelRequest:
    state, agent = scope.state, scope.setup.agent
    settings = agent.model_settings.resolve(scope.config.model_settings)
    if state.tool_choice_released and settings.tool_choice is not None:
        settings = replace(settings, tool_choice=None)
    return ModelRequest(
        instructions=await agent.get_system_prompt(scope.context),
        input=state.history(),
        tools=tools.tools,
        settings=settings,
        output_schema=scope.setup.output.json_schema if scope.setup.output else None,
        max_retries=0,  # the run retries (RetryPolicy), so that hooks and spans see each attempt
        memo=scope.model_memo,
    )


def _count(scope: RunScope, model: Model, response: ModelResponse, duration: float) -> None:
    """Add the response's usage to the run's, with an entry for the call."""
    usage = scope.state.usage
    usage.add(response.usage)
    entry = response.usage.request_entry(
        model=model_name(model), agent_name=scope.setup.agent.name, duration_seconds=duration
    )
    usage.request_usage_entries.append(entry)
    scope.events.usage(entry, usage)


def model_name(model: Model) -> str:
    """The name a model is called by: its `model` attribute, or its class name.

    Args:
        model: The model.

    Returns:
        The name.
    """
    name = getattr(model, "model", None)
    return name if isinstance(name, str) else type(model).__name__


async def _fetch(
    scope: RunScope, model: Model, request: ModelRequest
) -> tuple[ModelResponse, float]:
    """The response, trying again as the retry policy says; and how long its attempt took."""
    agent, events = scope.setup.agent, scope.events
    backend = run_backend.get()
    attempt = 1
    while True:
        stream = _Stream() if scope.streamed else None
        started = time.perf_counter() if backend is None else 0.0  # a backend measures its own
        try:
            response = await _attempt(scope, model, request, stream)
        except Exception as error:
            # Never again once events went out: the consumer has seen part of an answer.
            retried = stream is not None and stream.produced
            retried = retried or _retried_elsewhere()
            policy = scope.config.effective_retry_policy()  # only when a call failed
            delay = None if retried else policy.retry_delay(error, attempt - 1)
            if events.tracer is not None:
                events.tracer.llm_error(error, delay)
            if delay is None:
                failure = _failure(error, scope, attempt)
                if failure is error:
                    raise
                raise failure from error
            deadline = scope.deadline
            if deadline is not None and asyncio.get_running_loop().time() + delay >= deadline:
                raise RunTimeoutError(scope.config.run_timeout or 0) from error
            if events.watched(agent):
                await events.llm_retry(scope.context, agent, error, attempt, delay)
            await asyncio.sleep(delay)
            attempt += 1
            continue
        if backend is not None:
            return response, backend.duration(response)
        return response, time.perf_counter() - started


async def _attempt(
    scope: RunScope, model: Model, request: ModelRequest, stream: _Stream | None
) -> ModelResponse:
    """One attempt at the call, with its hooks and span."""
    agent, events = scope.setup.agent, scope.events
    tracer = events.tracer
    if events.watched(agent):
        await events.llm_start(scope.context, agent, request.instructions, request.input)
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


def _failure(error: Exception, scope: RunScope, attempts: int) -> Exception:
    """The error a failed model call stops the run with, after `attempts` attempts."""
    if isinstance(error, MissingAPIKey):
        error.items, error.new_items = scope.error_items()  # the model does not know them
        return error
    return _api_error(error, scope, attempts) or error


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
                    behind = buffer is not None and buffer.put(RawResponsesStreamEvent(event.data))
                elif isinstance(event, ResponseDone):
                    return event.response
                else:
                    self.produced = True
                    if isinstance(event, ToolCallArgumentsDelta):
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


def _api_error(error: Exception, scope: RunScope, attempts: int) -> ModelAPIError | None:
    if isinstance(error, UnicodeEncodeError):  # text the model sent that no request can carry
        description = "the conversation holds text that cannot be sent (invalid Unicode)"
        return ModelAPIError(None, *scope.error_items(), description=description)
    if isinstance(error, ModelTransportError):
        status = error.status_code
        what = error.description
        if status is not None and not _retried_elsewhere():  # else the error says how often
            what = f"{what} (HTTP {status}), {_tries(attempts)}"
        return ModelAPIError(status, *scope.error_items(), description=what)
    openai = sys.modules.get("openai")  # not imported until a model uses it: no API error then
    if openai is None or not isinstance(error, openai.APIError):
        return None
    status: int | None = getattr(error, "status_code", None)
    tries = _tries(attempts)
    if isinstance(error, openai.APITimeoutError):
        description = f"the model's API did not answer in time, {tries}"
    elif isinstance(error, openai.APIConnectionError):
        description = f"the model's API could not be reached, {tries}"
    elif isinstance(error, openai.APIStatusError):
        description = _status_failure(status, scope, attempts)
    elif isinstance(error, openai.APIResponseValidationError):
        description = "the model's API answered with data that does not fit the API's own schema"
    else:
        description = f"the model's API reported an error ({type(error).__name__})"
    return ModelAPIError(status, *scope.error_items(), description=description)


def _status_failure(status: int | None, scope: RunScope, attempts: int) -> str:
    """Why a call the API answered with an error status stopped the run."""
    policy = scope.config.effective_retry_policy()
    if status not in policy.retry_statuses:
        return (
            f"the model's API refused the request (HTTP {status}), which is not retried: the "
            "same request would fail again (check the API key, the model name and the request)"
        )
    if attempts <= policy.max_retries:  # retries were left: the server said not to use them
        return (
            f"the model's API failed (HTTP {status}), {_tries(attempts)}: the server asked "
            "for a longer wait than RetryPolicy.max_retry_after, or not to retry"
        )
    return f"the model's API failed (HTTP {status}), {_tries(attempts)}"


def _retried_elsewhere() -> bool:
    """Whether the run backend retries model calls itself (the run then tries once)."""
    backend = run_backend.get()
    return backend is not None and backend.retries_model_calls


def _tries(attempts: int) -> str:
    return "after 1 attempt" if attempts == 1 else f"after {attempts} attempts"


def _record(scope: RunScope, response: ModelResponse) -> None:
    state = scope.state
    output = normalise_calls([with_valid_text(item) for item in response.output], state.turns)
    state.new_items.extend(output)
    if scope.streamed:
        _announce(scope, output)
    state.turn = TurnInProgress(output, response.response_id)


def _announce(scope: RunScope, output: list[Item]) -> None:
    """The stream's item events for a response's messages and calls."""
    handoffs = {tool.name for tool in scope.setup.handoff_tools}
    for item in output:
        if message_text(item) is not None:
            scope.events.item("message_output_created", item)
        elif item.get("type") == "function_call":
            handoff = item.get("name") in handoffs
            scope.events.item("handoff_requested" if handoff else "tool_called", item)


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
