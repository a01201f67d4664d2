"""The context of a paused run, kept with its `RunState` for the run that resumes it.

A `RunState` is data (it goes to JSON); the run's context is the caller's object.
A run resumed from the state object a paused result handed out, in the same process,
without `context=`, gets the paused run's context back, as in openai-agents. A state
read back from JSON has none, unless `RunState.from_json(agent, data,
context_override=...)` gave one: else pass `context=` again.
"""

from __future__ import annotations

import weakref

# States are typed `object` here: `RunState.from_json` keeps contexts too, and this
# module stays below it.

__all__ = ["keep_context", "kept_context"]

_KEPT: dict[int, tuple[weakref.ref[object], object]] = {}


def keep_context(state: object, context: object) -> None:
    """Keep `context` with `state`, for as long as the state lives.

    Args:
        state: A paused run's state.
        context: The run's context object.
    """
    key = id(state)
    if key not in _KEPT:
        weakref.finalize(state, _KEPT.pop, key, None)
    _KEPT[key] = (weakref.ref(state), context)


def kept_context(state: object) -> object:
    """The context kept with `state`, or None.

    Args:
        state: The state a run resumes from.

    Returns:
        The context object.
    """
    kept = _KEPT.get(id(state))
    return kept[1] if kept is not None and kept[0]() is state else None
