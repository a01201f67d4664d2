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

from ..core._context_record import CONTEXT_MARK, ContextRecord, trim_note
from ..core._items import Item
from ..exceptions import ContextWindowExceeded
from ..models import Model, ModelRequest
from ._compaction import by_provider, summarise
from ._context import ContextPolicy
from ._context_view import ViewCache, context_view, handoff_positions, is_output, recent_start
from ._record import RunRecord
from ._scope import AgentSetup, RunSetup
from ._token_estimate import CHARS_PER_TOKEN, item_tokens, items_tokens, overhead_tokens

__all__ = ["HEADROOM", "fit_context", "fits_as_it_is", "measured"]

HEADROOM = 4
"""Trimming goes on until the request is this fraction (1/4) of the budget under it."""


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
    views = record.context_views
    if views is None:
        views = record.context_views = ViewCache()
    context = state.context
    view = views.get(history, context)
    tokens = await _tokens(policy, model, request, history, view, context)
    if tokens > policy.max_input_tokens:
        if context is None:
            context = state.context = ContextRecord()
        view, tokens = await _make_room(run, record, setup, model, request, view, tokens)
    if context is None:
        context = state.context = ContextRecord()
    context.measured_tokens, context.measured_items = tokens, len(history)
    views.keep(history, context, view)
    request.input = view  # the request is this call's own, made just before
    return request


def fits_as_it_is(policy: ContextPolicy, record: RunRecord, request: ModelRequest) -> bool:
    """The common case, in one call and no coroutine: the request fits with what was sent.

    The history only grew since the last request, and the tokens then measured plus an
    estimate of the items added since are within the budget. Then the request's input
    becomes the view (the last one, extended) and the measure is moved on.

    Args:
        policy: The run's policy.
        record: The run's record.
        request: The request, with the whole history the agent sees.

    Returns:
        Whether it did so; False leaves the request to `fit_context`.
    """
    context, history = record.state.context, request.input
    if context is None or policy.count_with_model:
        return False
    measured, since = context.measured_tokens, context.measured_items
    if measured is None or since > len(history):
        return False
    tokens = measured + items_tokens(history[since:])  # the items added are never trimmed
    if tokens > policy.max_input_tokens:
        return False
    if context.summarised or context.trimmed:
        views = record.context_views
        if views is None:  # a resumed run: its first view is made in full
            return False
        request.input = views.get(history, context)
        views.keep(history, context, request.input)
    context.measured_tokens, context.measured_items = tokens, len(history)
    return True


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
    view: list[Item],
    tokens: int,
) -> tuple[list[Item], int]:
    """Trim, then compact, until the request fits; the view and its tokens."""
    policy, context = run.config.context, record.state.context
    assert policy is not None  # the step runs only with a policy
    assert context is not None  # made by fit_context
    history, budget = request.input, policy.max_input_tokens
    protected = recent_start(history, policy.keep_recent_turns)
    if view is history:
        view = list(history)  # trimmed in place below; the history stays as it is
    tokens = _trim(policy, record, context, history, view, protected, tokens)
    if tokens > budget and policy.compaction_model is not None and protected > context.summarised:
        await _compact(run, record, setup, policy, context, history, protected)
        view = context_view(history, context)
        tokens = _whole(request, view)
    if policy.count_with_model:
        tokens = await _counted(policy, model, request, view)
    if tokens > budget:
        raise ContextWindowExceeded(
            tokens, budget, _largest(view, len(view) - (len(history) - protected),
            policy.keep_recent_turns), *record.error_items(),
        )  # fmt: skip
    return view, tokens


def _trim(
    policy: ContextPolicy,
    record: RunRecord,
    context: ContextRecord,
    history: list[Item],
    view: list[Item],
    protected: int,
    tokens: int,
) -> int:
    """Trim older tool outputs in `view`, oldest first, until within budget; the new tokens.

    Positions already looked at are not looked at again (`ContextRecord.trim_checked`).
    """
    keep = policy.trim_tool_outputs_to
    if keep is None:
        return tokens
    offset = len(view) - len(history)  # where history[p] is in the view: p + offset
    trimmed = context.trimmed
    marked: dict[str, int] | None = {} if record.state.session is not None else None
    position = max(context.summarised, context.trim_checked)
    # Down to a little under the budget: the next requests then fit as they are, and the
    # history sent changes less often (each change empties a provider's prompt cache
    # from where it is on).
    target = policy.max_input_tokens - policy.max_input_tokens // HEADROOM
    while position < protected and tokens > target:
        item = history[position]
        position += 1
        output = item.get("output")
        if type(output) is not str or not is_output(item):
            continue
        size = len(output)
        note = trim_note(size - keep, size)
        if size - keep <= len(note):
            continue  # cutting it would save less than the note costs
        # As `trimmed_output` writes it, with the note made once for the check and the item.
        view[position - 1 + offset] = {**item, "output": output[:keep] + note}
        trimmed[str(position - 1)] = keep
        if marked is not None:
            marked[str(item.get("call_id"))] = keep
        tokens -= (size - keep - len(note)) // CHARS_PER_TOKEN  # escapes would save more
    context.trim_checked = max(context.trim_checked, position)
    if marked:
        _mark(record, context, {"type": CONTEXT_MARK, "trimmed": marked})
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
    """Replace the history before `cut` with a summary, or the provider's compaction."""
    view = context_view(history, context)
    before = view[: len(view) - (len(history) - cut)]
    compacted = None
    if policy.provider_compaction:
        compacted = await by_provider(run, record, setup.agent, policy, before)
    if compacted is None:
        context.summary = await summarise(run, record, setup.agent, policy, before)
        context.compacted = None
    else:
        context.summary, context.compacted = None, compacted
    context.summarised = cut
    context.kept = handoff_positions(history, cut)
    context.trimmed = {k: v for k, v in context.trimmed.items() if int(k) >= cut}
    context.trim_checked = max(context.trim_checked, cut)
    context.compactions += 1
    after = context_view(history, context)  # what the session's next run reads after it
    mark: dict[str, object] = {"type": CONTEXT_MARK}
    if compacted is None:
        mark["summary"], mark["kept"] = context.summary, after[1:]
    else:
        mark["compacted"], mark["kept"] = compacted, after[len(compacted) :]
    _mark(record, context, mark)


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
