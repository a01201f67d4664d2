"""The compaction call: the oldest turns, as a transcript, summarised by the compaction model.

The call is a model call of the run like any other for everything that counts
and watches: its request is reserved against `UsageLimits` before it is sent, its
tokens join the run's `Usage` with an entry of its own (`compaction=True`), the
hooks' `on_llm_start`/`on_llm_end` see it, and its span is a `chat` span with
`tooluse.compaction` set. It is not a turn: `max_turns` does not count it.
"""

from __future__ import annotations

import json
import time

from ..agents._agent import Agent
from ..core._agent_base import AgentBase
from ..core._context import RequestUsage, Usage
from ..core._context_record import SUMMARY_HEADER
from ..core._items import Item, message_text, user_message
from ..core._settings import ModelSettings
from ..exceptions import ModelAPIError
from ..models import Model, ModelRequest, ModelResponse, ModelTransportError, resolve_model
from ..models._base import name_of
from ._backend import run_backend
from ._context import ContextPolicy
from ._events import RunEvents
from ._limits import reserve_request
from ._model_wrapper import wrapped
from ._record import RunRecord
from ._scope import RunSetup

__all__ = ["CompactionWatcher", "by_provider", "summarise", "transcript"]

_OUTPUT_SHOWN = 4_000
"""Characters of a tool output the compaction model is shown (trimmed ones are shorter)."""


async def summarise(
    run: RunSetup, record: RunRecord, agent: Agent[object], policy: ContextPolicy, items: list[Item]
) -> str:
    """Have the compaction model summarise `items` (a previous summary among them).

    Args:
        run: What the run's steps read (limits, hooks, tracer, provider).
        record: What they write: the usage, the models resolved by name.
        agent: The agent answering, whose hooks see the call.
        policy: The run's context policy (model and instructions).
        items: The turns to summarise, as the model was last sent them.

    Returns:
        The summary's text.

    Raises:
        UsageLimitExceeded: If the call would go over a limit, or did.
        ModelAPIError: If the call failed, or the model wrote no summary.
    """
    state, events = record.state, run.events
    model = _model(run, record, policy)
    request = ModelRequest(
        instructions=policy.compaction_instructions,
        input=[user_message(transcript(items))],
        settings=ModelSettings(),
    )
    limits = run.config.usage_limits
    reserve_request(limits, state.usage)
    if events.watched(agent):
        await events.llm_start(run.context, agent, request.instructions, request.input)
    response = await _call(run, record, agent, model, request)
    if events.watched(agent):
        await events.llm_end(run.context, agent, response)
    if limits is not None:
        limits.check_tokens(state.usage)
    text = "\n".join(t for item in response.output if (t := message_text(item)) is not None)
    if response.status != "completed" or not text.strip():
        why = response.reason or "its answer held no text"
        raise ModelAPIError(
            None,
            *record.error_items(),
            description=f"the compaction model {name_of(model)!r} wrote no summary ({why}); "
            "check ContextPolicy.compaction_model and compaction_instructions",
        )
    return text.strip()


async def by_provider(
    run: RunSetup, record: RunRecord, agent: Agent[object], policy: ContextPolicy, items: list[Item]
) -> list[Item] | None:
    """Have the compaction model's provider compact `items` itself (`Model.compact`).

    Args:
        run: What the run's steps read.
        record: What they write.
        agent: The agent answering, whose hooks see the call.
        policy: The run's context policy.
        items: The turns to compact, as the model was last sent them.

    Returns:
        The items that stand for them; None if the provider has no compaction, or did
        not compact these turns (Anthropic's compacts only past 50,000 input tokens: its
        answer is counted, and the run writes the summary instead).

    Raises:
        UsageLimitExceeded: If the call would go over a limit, or did.
        ModelAPIError: If the call failed.
    """
    state, events = record.state, run.events
    model = _model(run, record, policy)
    if type(model).compact is Model.compact:
        return None  # the seam's default: this provider has none
    request = ModelRequest(instructions=policy.compaction_instructions, input=items)
    limits = run.config.usage_limits
    reserve_request(limits, state.usage)
    if events.watched(agent):
        await events.llm_start(run.context, agent, request.instructions, request.input)
    response = await _call(run, record, agent, model, request, provider=True)
    if events.watched(agent):
        await events.llm_end(run.context, agent, response)
    if limits is not None:
        limits.check_tokens(state.usage)
    return response.output or None


async def _call(
    run: RunSetup,
    record: RunRecord,
    agent: Agent[object],
    model: Model,
    request: ModelRequest,
    *,
    provider: bool = False,
) -> ModelResponse:
    """The call (the model's `compact` if `provider`), with its span, counted in the usage."""
    watcher, usage = CompactionWatcher(run.events, agent), record.state.usage
    watcher.started(model, request)
    started = time.perf_counter()
    try:
        if provider:
            compacted = await model.compact(request)
            assert compacted is not None  # by_provider asks only a model that compacts
            response = compacted
        else:
            response = await model.get_response(request)
    except BaseException as error:
        watcher.failed(error)
        if isinstance(error, ModelTransportError):
            raise ModelAPIError(
                error.status_code,
                *record.error_items(),
                description=f"the compaction model {name_of(model)!r} failed ({error})",
            ) from error
        raise
    usage.add(response.usage)
    usage.requests -= response.usage.requests  # reserved as it was sent
    entry = response.usage.request_entry(
        model=name_of(model), agent_name=agent.name, duration_seconds=time.perf_counter() - started
    )
    entry.compaction = True
    usage.request_usage_entries.append(entry)
    watcher.ended(response, entry, usage)
    return response


class CompactionWatcher:
    """A compaction's model call as the run records it (the context policy's, or a session's).

    Its span is a `chat` span with `tooluse.compaction` set, in the agent's span; its
    usage is a stream event. A session's compaction gets one through the run's context
    (`watched_by`), since it calls the model itself.
    """

    __slots__ = ("_agent", "_events")

    def __init__(self, events: RunEvents, agent: AgentBase) -> None:
        """Record compaction calls made for `agent`'s turn of a run with `events`."""
        self._events = events
        self._agent = agent

    def started(self, model: Model, request: ModelRequest) -> None:
        """The call to `model` starts: its span opens."""
        tracer = self._events.tracer
        if tracer is not None:
            tracer.llm_start(self._agent, model, request, compaction=True)

    def failed(self, error: BaseException) -> None:
        """The call raised `error`: its span ends with it."""
        tracer = self._events.tracer
        if tracer is not None:
            tracer.llm_error(error, None)

    def ended(self, response: ModelResponse, entry: RequestUsage, usage: Usage) -> None:
        """The call answered, using `entry`: its span ends, the stream hears of its usage."""
        tracer = self._events.tracer
        if tracer is not None:
            tracer.llm_end(response)
        self._events.usage(entry, usage)


def _model(run: RunSetup, record: RunRecord, policy: ContextPolicy) -> Model:
    """The compaction model: as given, through a durable backend, or resolved once a run."""
    named = policy.compaction_model
    backend = run_backend.get()
    if backend is not None:
        return backend.model(named)
    if isinstance(named, Model):
        return wrapped(named)  # a test's cassette, if one is set, as for the agent's model
    models = record.models
    if models is None:
        models = record.models = {}
    model = models.get(named)
    if model is None:
        model = models[named] = resolve_model(named, run.config.model_provider)
    return wrapped(model)


def transcript(items: list[Item]) -> str:
    """The items as a plain transcript, for a model that calls no tools to read.

    Args:
        items: Conversation items.

    Returns:
        One line (or paragraph) per item.
    """
    names: dict[object, str] = {}
    lines = [line for item in items if (line := _line(item, names))]
    return "\n\n".join(
        ["The conversation so far:", *lines, "Summarise it as your instructions say."]
    )


def _line(item: Item, names: dict[object, str]) -> str:
    kind, role = item.get("type"), item.get("role")
    if kind == "function_call":
        names[item.get("call_id")] = str(item.get("name"))
        return f"Assistant called {item.get('name')}({item.get('arguments')})"
    if kind == "function_call_output":
        name = names.get(item.get("call_id"), "a tool")
        return f"Output of {name}: {_text(item.get('output'))[:_OUTPUT_SHOWN]}"
    if role in ("user", "assistant", "system", "developer"):
        text = _text(item.get("content"))
        if role == "user" and text.startswith(SUMMARY_HEADER):
            return f"Summary of what came before:{text[len(SUMMARY_HEADER) :]}"
        return f"{str(role).capitalize()}: {text}"
    if kind == "reasoning":
        return ""
    return f"({kind}) {json.dumps(item)[:_OUTPUT_SHOWN]}"


def _text(content: object) -> str:
    """The text of a message's content or a tool's output (text parts joined)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text", "") for p in content if isinstance(p, dict)]  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        return "".join(p for p in parts if isinstance(p, str))  # pyright: ignore[reportUnknownVariableType]
    return ""
