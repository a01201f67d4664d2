"""A count of changes made to built tools, which the caches of offered tools check.

An agent's tool list and the request's tool params are computed once per set of
tools and kept (`_run_scope.py`, `_tool_params.py`). Those caches compare the
list itself, which catches tools added, removed or replaced; what they cannot
see is a field of a tool already in the list being set again (`tool.name = ...`,
`tool.is_enabled = ...`): `FunctionTool.__setattr__` counts those here, and a
cache made at an older count is not used.
"""

from __future__ import annotations

__all__ = ["OFFERED_FIELDS", "changes", "tool_changed"]

OFFERED_FIELDS = frozenset(
    {
        "name",
        "description",
        "params_json_schema",
        "strict_json_schema",
        "is_enabled",
        "defer_loading",
        "namespace",
        "namespace_description",
    }
)
"""The fields of a `FunctionTool` that decide whether and how it is offered."""

_count = 0


def tool_changed() -> None:
    """Record that a built tool's offered field was set: every cache made before is stale."""
    global _count  # noqa: PLW0603 - one process-wide counter, read on every cache hit
    _count += 1


def changes() -> int:
    """The number of changes so far.

    Returns:
        A count that only grows.
    """
    return _count
