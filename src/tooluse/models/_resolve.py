"""Resolving what an agent names as its model to a `Model`."""

from __future__ import annotations

from ._base import Model
from ._chat import OpenAIChatCompletionsModel
from ._defaults import DEFAULT_MODEL, default_openai_api
from ._responses import OpenAIResponsesModel

__all__ = ["resolve_model"]


def resolve_model(model: str | Model | None) -> Model:
    """A `Model` for a name (with the default API), a `Model` as it is, or the default.

    Args:
        model: A model name, a model, or None.

    Returns:
        The model to call.
    """
    if isinstance(model, Model):
        return model
    name = model or DEFAULT_MODEL
    if default_openai_api() == "chat_completions":
        return OpenAIChatCompletionsModel(name)
    return OpenAIResponsesModel(name)
