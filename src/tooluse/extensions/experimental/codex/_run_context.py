"""A Codex thread id kept in the run's context, so that the next run continues the thread.

With `codex_tool(use_run_context_thread_id=True)`, the tool reads the thread to resume from
the context given to `Runner.run` and writes the thread's id back there: a dict gets a
key, any other object an attribute. The key is `codex_thread_id` for the tool named
`codex`, `codex_thread_id_<suffix>` for one named `codex_<suffix>` (or any other name), or
the one given. Calls on the same context and key run one at a time (parallel calls in
one turn continue one thread, in turn), and so do calls resuming the same thread id,
however they name it (in one event loop).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncGenerator, Hashable, Mapping, MutableMapping
from contextlib import asynccontextmanager
from typing import Any, cast

from ....exceptions import UserError

__all__ = [
    "check_writable",
    "context_key",
    "one_call_at_a_time",
    "read_thread_id",
    "store_thread_id",
]

_DEFAULT_KEY = "codex_thread_id"

_locks: dict[Hashable, tuple[asyncio.Lock, int]] = {}
"""The lock of each slot a call holds or waits for, and how many calls do.

A slot is a (context's id, key) or a thread id, kept per event loop: an `asyncio.Lock`
serves one loop, and runs in other threads (`Runner.run_sync`) have loops of their own.
Keyed by ids, not weak references: a dict cannot have one. An entry lives only while a
call that holds the context, on its loop, uses it, so neither id can be reused meanwhile.
"""


@asynccontextmanager
async def one_call_at_a_time(slot: Hashable) -> AsyncGenerator[None, None]:
    """Hold `slot`: one Codex call on it at a time.

    Parallel calls in one turn would otherwise each read no id and start a thread of
    their own (the last one kept), or resume the same thread at once, two `codex exec
    resume` processes writing one thread.

    Args:
        slot: `(id(context), key)` for the thread a run's context keeps, or a thread id.

    Yields:
        Nothing, once the calls before this one on that slot, in this event loop, have
        finished.
    """
    slot = (id(asyncio.get_running_loop()), slot)
    lock, users = _locks.get(slot, (None, 0))
    lock = lock or asyncio.Lock()
    _locks[slot] = (lock, users + 1)
    try:
        async with lock:
            yield
    finally:
        lock, users = _locks[slot]
        if users == 1:
            del _locks[slot]
        else:
            _locks[slot] = (lock, users - 1)


def context_key(tool_name: str, given: str | None) -> str:
    """The context key (or attribute) holding the tool's thread id.

    Args:
        tool_name: The tool's name.
        given: The key set with `run_context_thread_id_key`, if any.

    Returns:
        The key.

    Raises:
        UserError: The given key is empty.
    """
    if given is not None:
        if not given.strip():
            raise UserError(
                "codex_tool(run_context_thread_id_key=''): give a non-empty key, or leave it "
                f"out for '{_DEFAULT_KEY}_' and the tool's name"
            )
        return given.strip()
    if tool_name == "codex":
        return _DEFAULT_KEY
    suffix = tool_name.removeprefix("codex_")
    return f"{_DEFAULT_KEY}_{re.sub(r'[^0-9A-Za-z_]', '_', suffix)}"


def read_thread_id(context: object, key: str, tool: str) -> str | None:
    """The thread id the context holds under `key`, or None.

    Args:
        context: The run's context.
        key: The key or attribute.
        tool: The tool's name, for the error.

    Returns:
        The id, or None when there is none (or it is blank).

    Raises:
        UserError: The value there is not a string.
    """
    if isinstance(context, Mapping):
        value = cast(Mapping[str, object], context).get(key)
    else:
        value = getattr(context, key, None)
    if value is not None and not isinstance(value, str):
        raise UserError(
            f"codex tool '{tool}': the run context's {key!r} is a {type(value).__name__}; "
            "it holds the Codex thread id, a str (or None for a new thread)"
        )
    return value.strip() or None if value else None


def check_writable(context: object, key: str, tool: str) -> None:
    """Raise unless the tool can write the thread id into the context, before it runs Codex.

    The context is left as it was: a dict is not written, an object's attribute is
    written back with its own value, or (if it has none) written and deleted again.

    Args:
        context: The run's context.
        key: The key or attribute.
        tool: The tool's name, for the error.

    Raises:
        UserError: There is no context, or it cannot take the key (a frozen object, a
            pydantic model without the field, an immutable mapping).
    """
    where = f"codex tool '{tool}' (use_run_context_thread_id=True)"
    if context is None:
        raise UserError(
            f"{where} keeps the thread id in the run's context, and the run has none: "
            "pass context={} (or an object of yours) to Runner.run"
        )
    if isinstance(context, MutableMapping):
        return
    try:
        _probe(context, key, tool)
    except UserError:
        raise
    except Exception:
        raise UserError(
            f"{where} cannot write {key!r} into the run's context, a "
            f"{type(context).__name__}: use a dict, or give its class a writable field "
            f"`{key}: str | None = None`"
        ) from None


_ABSENT = object()


def _probe(context: object, key: str, tool: str) -> None:
    """Write to `key` as storing the id would, leaving the context as it was."""
    present = getattr(context, key, _ABSENT)
    if present is not _ABSENT:  # writing back what is there fails as writing the id would
        store_thread_id(context, key, cast(str | None, present), tool)
        return
    store_thread_id(context, key, None, tool)
    delattr(context, key)  # no `key=None` left behind in the user's object


def store_thread_id(context: object, key: str, thread_id: str | None, tool: str) -> None:
    """Write `thread_id` into the context under `key`.

    Args:
        context: The run's context.
        key: The key or attribute.
        thread_id: The id to keep.
        tool: The tool's name, for the error.

    Raises:
        UserError: The context is a mapping that cannot be written.
        Exception: What the context's attribute assignment raised.
    """
    if isinstance(context, MutableMapping):
        cast(MutableMapping[str, Any], context)[key] = thread_id
    elif isinstance(context, Mapping):
        raise UserError(
            f"codex tool '{tool}' (use_run_context_thread_id=True): the run's context is a "
            f"read-only {type(cast(object, context)).__name__}; pass a dict"
        )
    else:
        setattr(context, key, thread_id)
