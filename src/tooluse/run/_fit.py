"""The context step: before each model call, fit the request within the policy's budget.

```
estimate ──► within budget: send the view as it is
   │ over
   ▼
trim older tool outputs (oldest first, until within) ──► compact the oldest turns
   ──► still over: ContextWindowExceeded (the state kept)
```

The estimate is the input tokens the provider reported for the previous request,
plus an estimate for the items added since (`_token_estimate`); after the policy
changes the history, it is the estimate of the whole request. What the step
changes is written to the state's `ContextRecord` (and, for a session run, as
marks the session stores with the next turn), never to the items themselves.
"""

from __future__ import annotations

from dataclasses import replace

from ..core._context_record import CONTEXT_MARK, ContextRecord, trim_note, trimmed_output
from ..core._items import Item
from ..exceptions import ContextWindowExceeded
from ..models import Model, ModelRequest
from ._compaction import summarise
from ._context import ContextPolicy
from ._context_view import context_view, handoff_positions, is_output, turn_starts
from ._record import RunRecord
from ._scope import AgentSetup, RunSetup
from ._token_estimate import item_tokens, items_tokens, overhead_tokens

__all__ = ["fit_context", "measured"]


async def fit_context(
    run: RunSetup, record: RunRecord, setup: AgentSetup, model: Model, request: ModelRequest
) -> ModelRequest:
    """The request with the history the policy sends: within budget, or the run stops.

    Args:
        run: What the run's steps read (the policy is `run.config.context`).
        record: What they write: the state's `ContextRecord`, the usage.
        setup: The agent answering.
        model: The model the request goes to (it may count the tokens).
        request: The request, with the whole history the agent sees.

    Returns:
        The request to send.

    Raises:
        ContextWindowExceeded: If it cannot be made to fit.
    """
    policy = run.config.context
    assert policy is not None  # the loop calls this step only with a policy
    state, history = record.state, request.input
    context = state.context
    view = context_view(history, context)
    tokens = await _tokens(policy, model, request, history, view, context)
    if tokens > policy.max_input_tokens:
        if context is None:
            context = state.context = ContextRecord()
        view, tokens = await _make_room(run, record, setup, model, request, tokens)
        context.measured_tokens = tokens
    elif context is not None and context.measured_items != len(history):
        context.measured_tokens = tokens
    if context is not None:
        context.measured_items = len(history)
    elif tokens:  # the first estimate: later requests add to it
        state.context = ContextRecord(measured_tokens=tokens, measured_items=len(history))
    return request if view is history else replace(request, input=view)


def measured(record: RunRecord, input_tokens: int) -> None:
    """The provider's count of the request just answered, where it is above the estimate.

    The larger of the two counts: a provider may leave cached tokens out of its count,
    and a scripted model may report none.

    Args:
        record: The run's record.
        input_tokens: The input tokens the response reported (0: it did not say).
    """
    context = record.state.context
    if context is not None and input_tokens > (context.measured_tokens or 0):
        context.measured_tokens = input_tokens


async def _tokens(
    policy: ContextPolicy,
    model: Model,
    request: ModelRequest,
    history: list[Item],
    view: list[Item],
    context: ContextRecord | None,
) -> int:
    """The request's input tokens: counted by the model if asked, else estimated."""
    if policy.count_with_model or context is None or context.measured_tokens is None:
        return await _counted(policy, model, request, view)
    since = context.measured_items
    if since > len(history):  # the history shrank (an input guardrail took a response back)
        return _whole(request, view)
    added = view[len(view) - (len(history) - since) :] if since < len(history) else []
    return context.measured_tokens + items_tokens(added)


async def _counted(
    policy: ContextPolicy, model: Model, request: ModelRequest, view: list[Item]
) -> int:
    """The whole request's tokens: the model's count if asked for and given, else estimated."""
    if policy.count_with_model:
        counted = await model.count_tokens(replace(request, input=view))
        if counted is not None:
            return counted
    return _whole(request, view)


def _whole(request: ModelRequest, view: list[Item]) -> int:
    return overhead_tokens(request.instructions, request.tools) + items_tokens(view)


async def _make_room(
    run: RunSetup,
    record: RunRecord,
    setup: AgentSetup,
    model: Model,
    request: ModelRequest,
    tokens: int,
) -> tuple[list[Item], int]:
    """Trim, then compact, until the request fits; the view and its estimate."""
    policy, context = run.config.context, record.state.context
    assert policy is not None
    assert context is not None
    history, budget = request.input, policy.max_input_tokens
    starts = turn_starts(history)
    keep = policy.keep_recent_turns
    protected = (starts[-keep] if len(starts) >= keep else 0) if keep else len(history)
    tokens = _trim(policy, record, context, history, protected, tokens)
    if tokens > budget and policy.compaction_model is not None:
        cut = max((s for s in starts if context.summarised < s <= protected), default=None)
        if cut is not None:
            await _compact(run, record, setup, policy, context, history, cut)
    view = context_view(history, context)
    tokens = await _counted(policy, model, request, view)
    if tokens > budget:
        raise ContextWindowExceeded(
            tokens, budget, _largest(view, len(view) - (len(history) - protected), keep),
            *record.error_items(),
        )  # fmt: skip
    return view, tokens


def _trim(
    policy: ContextPolicy,
    record: RunRecord,
    context: ContextRecord,
    history: list[Item],
    protected: int,
    tokens: int,
) -> int:
    """Trim older tool outputs, oldest first, until within budget; the new estimate."""
    keep = policy.trim_tool_outputs_to
    if keep is None:
        return tokens
    trimmed: dict[str, int] = {}
    for position in range(context.summarised, protected):
        item = history[position]
        key = str(position)
        output = item.get("output")
        if not is_output(item) or not isinstance(output, str) or key in context.trimmed:
            continue
        if len(output) - keep <= len(trim_note(len(output), len(output))):
            continue  # cutting it would save less than the note costs
        context.trimmed[key] = trimmed[str(item.get("call_id"))] = keep
        tokens -= item_tokens(item) - item_tokens(trimmed_output(item, keep))
        if tokens <= policy.max_input_tokens:
            break
    if trimmed:
        _mark(record, context, {"type": CONTEXT_MARK, "trimmed": trimmed})
    return tokens


async def _compact(
    run: RunSetup,
    record: RunRecord,
    setup: AgentSetup,
    policy: ContextPolicy,
    context: ContextRecord,
    history: list[Item],
    cut: int,
) -> None:
    """Replace the history before `cut` with the compaction model's summary."""
    view = context_view(history, context)
    summarised = view[: len(view) - (len(history) - cut)]
    summary = await summarise(run, record, setup.agent, policy, summarised)
    context.summary, context.summarised = summary, cut
    context.kept = handoff_positions(history, cut)
    context.trimmed = {k: v for k, v in context.trimmed.items() if int(k) >= cut}
    context.compactions += 1
    after = context_view(history, context)[1:]  # what the session's next run reads after it
    _mark(record, context, {"type": CONTEXT_MARK, "summary": summary, "kept": after})


def _mark(record: RunRecord, context: ContextRecord, mark: dict[str, object]) -> None:
    """Keep a mark for a session run's next write (a run without a session stores none)."""
    if record.state.session is not None:
        context.marks.append({**mark, "at": len(record.state.new_items)})


def _largest(view: list[Item], protected: int, keep: int) -> str:
    """The largest item of the request, named for the error: where it is and what it is."""
    sizes = [item_tokens(item) for item in view]
    index = max(range(len(view)), key=sizes.__getitem__)
    item = view[index]
    kind = item.get("type") or f"{item.get('role', 'unknown')} message"
    what = f"a {kind}"
    if "call_id" in item:
        what += f" (call_id {item['call_id']!r})"
    where = (
        f", within the last keep_recent_turns={keep} turns, which are never trimmed"
        if index >= protected
        else ""
    )
    return f"request input[{index}], {what} of about {sizes[index]} tokens{where}"
