"""`ContextPolicy`: how a run keeps each request within the model's context window.

Set it as `RunConfig(context=ContextPolicy(max_input_tokens=60_000))`. Before
each model call the run estimates the request's input tokens
(`tooluse.run._token_estimate`); over the budget it trims older tool outputs,
then has the compaction model summarise the oldest turns, and if the request
still does not fit it stops with `ContextWindowExceeded` (`tooluse.run._fit`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core._values import is_whole_number
from ..exceptions import UserError

if TYPE_CHECKING:
    from ..models import Model

__all__ = ["DEFAULT_COMPACTION_INSTRUCTIONS", "ContextPolicy"]

DEFAULT_COMPACTION_INSTRUCTIONS = (
    "You compact the early part of a conversation between a user, an AI assistant and "
    "the tools it called, so that the assistant can go on with the task without it. "
    "Write notes to the assistant that keep: what the user asked for and every "
    "constraint they set; decisions made; facts learned from tool outputs, with exact "
    "values, names, ids and numbers; what is done and what remains to do. Be brief; "
    "write no preamble and no advice."
)
"""What the compaction model is told, unless `ContextPolicy.compaction_instructions` says
otherwise."""


@dataclass(frozen=True)
class ContextPolicy:
    """How a run keeps each request within a budget of input tokens.

    Before each model call the run estimates the request's tokens (the input tokens
    the provider reported for the previous request, plus about one token per four
    characters of what was added since). Over `max_input_tokens`, it trims the
    older tool outputs to `trim_tool_outputs_to` characters (oldest first, each with
    a note of what was cut), then, if that is not enough and a `compaction_model` is
    set, replaces the oldest turns with one summary the compaction model writes.
    The last `keep_recent_turns` turns are never changed, a call is never separated
    from its output, and a request that still does not fit stops the run with
    `ContextWindowExceeded`. What it did is in the `RunState` (and in the session),
    so a resumed run sends the same history.

    Example:
        `RunConfig(context=ContextPolicy(max_input_tokens=60_000, compaction_model="gpt-4.1-mini"))`
    """

    max_input_tokens: int
    """The most input tokens one request may hold (instructions, tools and history)."""
    keep_recent_turns: int = 4
    """The most recent turns (a model response and its tools' outputs, or a user
    message), never trimmed or summarised."""
    trim_tool_outputs_to: int | None = 2_000
    """Older tool outputs are cut to this many characters when over the budget (oldest
    first, until the request is a quarter under it); None trims nothing."""
    compaction_model: str | Model | None = None
    """The model that writes the summary of the oldest turns (a name the run's
    `model_provider` resolves, or a `Model`); None summarises nothing: trimming only."""
    compaction_instructions: str = DEFAULT_COMPACTION_INSTRUCTIONS
    """What the compaction model is told: what the summary must keep."""
    provider_compaction: bool = False
    """Have the compaction model's provider compact the oldest turns itself
    (`Model.compact`: OpenAI's `responses.compact`, or Anthropic's server-side
    compaction, whose `compaction` items only that provider reads) instead of writing a
    summary; a model without compaction, or one that did not compact (Anthropic's
    compacts only past 50,000 input tokens), writes the summary."""
    count_with_model: bool = False
    """Ask the answering model to count each request's tokens (`Model.count_tokens`)
    instead of estimating; a model that cannot count them is estimated for."""

    def __post_init__(self) -> None:
        problems: list[str] = []
        if not is_whole_number(self.max_input_tokens, 1):
            problems.append(
                f"max_input_tokens={self.max_input_tokens!r} must be a whole number >= 1"
            )
        if not is_whole_number(self.keep_recent_turns, 0):
            problems.append(
                f"keep_recent_turns={self.keep_recent_turns!r} must be a whole number >= 0"
            )
        trim = self.trim_tool_outputs_to
        if trim is not None and not is_whole_number(trim, 0):
            problems.append(f"trim_tool_outputs_to={trim!r} must be a whole number >= 0, or None")
        model = self.compaction_model
        if (
            model is not None
            and not isinstance(model, str)
            and not callable(getattr(model, "get_response", None))
        ):
            kind = type(model).__name__
            problems.append(f"compaction_model must be a model name, a Model or None, not {kind}")
        if not isinstance(self.compaction_instructions, str) or not self.compaction_instructions:  # pyright: ignore[reportUnnecessaryIsInstance]
            problems.append("compaction_instructions must be a non-empty string")
        if problems:
            raise UserError(f"ContextPolicy: {'; '.join(problems)}")
