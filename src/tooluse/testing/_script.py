"""`ScriptedModel`: a model that answers each call with the next of a list of steps.

openai-agents' `agents.testing` spelling of a scripted model, so that tests written
for it move over by their imports: each step is the output of one model call (a
list of items made with `function_call` and `assistant_message`, or a string as
a text answer), or an exception the call raises.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeAlias, cast

from ..core._context import Usage
from ..core._items import Item
from ..core._items import assistant_message as _assistant_message
from ..core._items import function_call as _function_call
from ..exceptions import UserError
from ..models import ModelRequest, ModelResponse
from ._scripted import ScriptedBase

__all__ = ["ScriptStep", "ScriptedModel", "assistant_message", "function_call"]

ScriptStep: TypeAlias = "Sequence[Item] | str | BaseException"
"""One model call's output items, its text answer, or what it raises."""


def function_call(
    name: str,
    arguments: str | Mapping[str, Any],
    *,
    call_id: str,
    item_id: str | None = None,
) -> Item:
    """A function tool call for a `ScriptedModel` step.

    Args:
        name: The tool's name.
        arguments: The arguments, as a mapping or as raw JSON text (which may be
            invalid, on purpose).
        call_id: The call's id, which its output repeats.
        item_id: The item's id; the call id by default.

    Returns:
        A Responses `function_call` item.
    """
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return _function_call(call_id, name, text, item_id or call_id)


def assistant_message(text: str, *, item_id: str = "scripted-message") -> Item:
    """An assistant message for a `ScriptedModel` step.

    Args:
        text: What the model says.
        item_id: The item's id.

    Returns:
        A Responses `message` output item.
    """
    return _assistant_message(text, item_id)


def _is_step(step: object) -> bool:
    """Whether `step` is output items, a text answer or an exception (its type unchecked)."""
    if isinstance(step, str | BaseException):
        return True
    if not isinstance(step, list | tuple):
        return False
    items = cast(Sequence[object], step)
    return all(isinstance(item, Mapping) for item in items)


class ScriptedModel(ScriptedBase):
    """A model whose calls are answered by a list of steps, one step per call, in order."""

    model = "scripted"

    def __init__(self, steps: Iterable[ScriptStep] = (), *, piece_size: int = 16) -> None:
        """Answer the n-th call with the n-th step.

        Args:
            steps: Each call's output items (`function_call`, `assistant_message`), its
                text answer, or an exception it raises.
            piece_size: Characters per piece when a streamed run asks for a reply.

        Raises:
            UserError: If a step is none of those.
        """
        super().__init__(piece_size)
        self._steps: list[ScriptStep] = []
        self.extend(steps)
        self.calls: list[ModelRequest] = []
        """The requests made so far, in order."""

    @property
    def remaining_steps(self) -> int:
        """The steps no call has used yet."""
        return len(self._steps)

    def extend(self, steps: Iterable[ScriptStep]) -> None:
        """Add steps after the ones left.

        Args:
            steps: As for the constructor.

        Raises:
            UserError: If a step is neither items, text nor an exception.
        """
        for step in steps:
            if not _is_step(step):
                raise UserError(
                    f"ScriptedModel: step {len(self._steps) + 1} is {type(step).__name__}; "
                    "give a list of items (function_call(...), assistant_message(...)), a "
                    "string (a text answer) or an exception to raise"
                )
            self._steps.append(step)

    def assert_complete(self) -> None:
        """Fail unless every step was used.

        Raises:
            AssertionError: Some steps are left; the message says how many.
        """
        if self._steps:
            raise AssertionError(
                f"ScriptedModel: {len(self._steps)} step(s) left after {len(self.calls)} call(s)"
            )

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        """Answer with the next step.

        Args:
            request: The conversation, tools and settings.

        Returns:
            The step's items as the response.

        Raises:
            UserError: No step is left for this call.
            BaseException: The step, when it is an exception.
        """
        self.calls.append(request)
        if not self._steps:
            raise UserError(
                f"ScriptedModel: call {len(self.calls)} has no step left (it was given "
                f"{len(self.calls) - 1}); add a step for each model call the run makes"
            )
        step = self._steps.pop(0)
        if isinstance(step, BaseException):
            raise step
        output: list[Item] = [_assistant_message(step)] if isinstance(step, str) else list(step)
        return ModelResponse(output, Usage(requests=1), f"resp_{len(self.calls)}", model=self.model)
