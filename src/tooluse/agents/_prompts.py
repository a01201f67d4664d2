"""`Agent(prompt=...)`: a prompt template stored with OpenAI, sent as the Responses API's `prompt`.

A prompt is given by its id, an optional version and the variables it fills in
(`{"id": "pmpt_...", "version": "1", "variables": {"style": "haiku"}}`), or made turn
by turn by a function of a `GenerateDynamicPromptData` (the run context and the
agent). Only the Responses API has prompts: the other models refuse a request
that carries one.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypedDict, cast

from typing_extensions import NotRequired

from ..core._context import RunContextWrapper
from ..exceptions import UserError

__all__ = [
    "DynamicPromptFunction",
    "GenerateDynamicPromptData",
    "Prompt",
    "check_prompt",
    "resolve_prompt",
]


class Prompt(TypedDict):
    """A prompt template stored with OpenAI, as the Responses API's `prompt` takes it."""

    id: str
    """The prompt's id (`pmpt_...`)."""
    version: NotRequired[str | None]
    """Which version of it; absent or None for the current one."""
    variables: NotRequired[dict[str, Any] | None]
    """Values for its variables: text, or input parts (`{"type": "input_image", ...}`)."""


@dataclass
class GenerateDynamicPromptData:
    """What a function making an agent's prompt receives, each turn."""

    context: RunContextWrapper[Any]
    """The run context."""
    agent: Any
    """The `Agent` the prompt is for (typed `Any` here, below the agent's module)."""


DynamicPromptFunction = Callable[[GenerateDynamicPromptData], "Prompt | Awaitable[Prompt]"]
"""A function making an agent's prompt each turn, sync or async."""

_KEYS = frozenset(Prompt.__annotations__)


def check_prompt(where: str, prompt: object) -> None:
    """Refuse a prompt that is neither a function nor a `Prompt` dict the API accepts.

    Args:
        where: The argument, for the message (e.g. "Agent 'a': prompt").
        prompt: The value given.

    Raises:
        UserError: Naming what is wrong and how to write it.
    """
    if prompt is None or (callable(prompt) and not isinstance(prompt, Mapping)):
        return
    if not isinstance(prompt, Mapping):
        raise UserError(
            f"{where}={prompt!r} must be a dict with an 'id' (and optionally 'version' and "
            "'variables'), or a function of a GenerateDynamicPromptData returning one"
        )
    given = cast(Mapping[str, object], prompt)
    problems = [f"unknown key {key!r}" for key in given if key not in _KEYS]
    if not isinstance(given.get("id"), str) or not given.get("id"):
        problems.append(
            f"'id' must be the prompt's id, a non-empty string, not {given.get('id')!r}"
        )
    version = given.get("version")
    if version is not None and not isinstance(version, str):
        problems.append(f"'version' must be a string or None, not {version!r}")
    variables = given.get("variables")
    if variables is not None and not isinstance(variables, Mapping):
        problems.append(f"'variables' must be a dict of names to values, not {variables!r}")
    if problems:
        raise UserError(f"{where}: {'; '.join(problems)} (it takes 'id', 'version', 'variables')")


async def resolve_prompt(
    prompt: Prompt | DynamicPromptFunction, data: GenerateDynamicPromptData, owner: str
) -> dict[str, Any]:
    """A prompt for this turn, as the Responses API's `prompt` parameter.

    Args:
        prompt: The agent's prompt: a `Prompt`, or a function making one.
        data: What a prompt function receives.
        owner: Who holds the prompt, for the message (e.g. "Agent 'a'").

    Returns:
        `{"id": ..., "version": ..., "variables": ...}` with the keys that are set.

    Raises:
        UserError: If a prompt function returns something that is not a prompt.
    """
    if callable(prompt) and not isinstance(prompt, Mapping):
        function = prompt
        made = function(data)
        prompt = await made if inspect.isawaitable(made) else made
        where = f"{owner}: its prompt function {_name(function)} returned"
        if not isinstance(prompt, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"{where} {prompt!r}: return a dict with an 'id' (a Prompt)")
        check_prompt(where, prompt)
    given = cast(Mapping[str, Any], prompt)
    return {key: given[key] for key in ("id", "version", "variables") if given.get(key) is not None}


def _name(function: object) -> str:
    return str(getattr(function, "__qualname__", repr(function)))
