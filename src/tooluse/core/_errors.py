"""The root of the exception tree, and the error every layer raises at a misuse.

`tooluse.exceptions` draws the whole tree and re-exports these two; they live here,
at the bottom, because the core itself (settings, values, the run's state) raises
`UserError`, and the run errors above carry a `RunState`.
"""

from __future__ import annotations

__all__ = ["TooluseError", "UserError", "UserValueError"]


class TooluseError(Exception):
    """Base class of every error raised by tooluse itself."""


class UserError(TooluseError, TypeError):
    """The developer used tooluse in a way it cannot work with.

    Raised at definition time (decorating a function, building a tool) with a
    message naming the function or tool, each problem, and how to fix it.
    """


class UserValueError(UserError, ValueError):
    """A setting of the right type with a value tooluse cannot use (a timeout of 0 s).

    Both a `UserError` and a `ValueError`, so that code catching either, as
    openai-agents' callers catch `ValueError`, sees it.
    """
