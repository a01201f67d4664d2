"""`ModelProvider`: a model's name, resolved to a `Model`, the same way everywhere.

A run asks its `RunConfig.model_provider` for the model an agent (or the run's
config) names; the Temporal plugin takes the same object for its model activity,
and `tooluse chat` uses it too. A `Model` object given where a name could be is used
as it is. `OpenAIProvider` resolves every name to an OpenAI model on the default
client and API (`set_default_openai_client`, `set_default_openai_api`); the default
provider, `MultiProvider` (`_multi.py`), sends it the names without a prefix.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from ._base import Model
from ._chat import OpenAIChatCompletionsModel
from ._defaults import default_openai_api, get_default_model
from ._responses import OpenAIResponsesModel

if TYPE_CHECKING:  # imported on first use: importing openai costs 0.3 s
    from openai import AsyncOpenAI

__all__ = ["ModelProvider", "OpenAIProvider"]


class ModelProvider(ABC):
    """Gives the `Model` for a model name: subclass it to route names to your models.

    Example:
        `RunConfig(model_provider=MyProvider())`, and the same object for
        `TooluseTemporalPlugin(model_provider=...)`.
    """

    @abstractmethod
    def get_model(self, model_name: str | None) -> Model:
        """The model to call for a name.

        Args:
            model_name: The name an agent or the run's config gives; None for the
                provider's default model.

        Returns:
            The model. A run calls its `close()` when the run ends.
        """


class OpenAIProvider(ModelProvider):
    """Resolves names to OpenAI models: the Responses API, or Chat Completions."""

    def __init__(
        self, *, openai_client: AsyncOpenAI | None = None, use_responses: bool | None = None
    ) -> None:
        """Resolve names with `openai_client` and the API chosen.

        Args:
            openai_client: The client the models call; None uses the default client
                (`set_default_openai_client`, else `AsyncOpenAI()` on first use).
            use_responses: True for the Responses API, False for Chat Completions; None
                follows `set_default_openai_api`.
        """
        self.openai_client = openai_client
        """The client the models call; None for the default."""
        self.use_responses = use_responses
        """The API; None follows the default."""

    def get_model(self, model_name: str | None) -> Model:
        """An OpenAI model for the name.

        Args:
            model_name: The model's name; None for `get_default_model()`.

        Returns:
            An `OpenAIResponsesModel` or `OpenAIChatCompletionsModel`.
        """
        name = model_name or get_default_model()
        responses = self.use_responses
        if responses is None:
            responses = default_openai_api() == "responses"
        if responses:
            return OpenAIResponsesModel(name, self.openai_client)
        return OpenAIChatCompletionsModel(name, self.openai_client)
