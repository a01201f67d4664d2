"""`MultiProvider`: `"anthropic/claude-..."`, `"gemini/..."`, `"openai/..."` resolved by prefix.

A name's prefix, up to its first `/`, picks the provider; the rest is the model's
name at that provider. A name without a prefix stays OpenAI's (so every name that
worked before still does). An unknown prefix is a `UserError` listing the known
ones. A run, `tooluse chat` and the Temporal plugin all resolve names through the
same provider (`RunConfig(model_provider=...)`; `MultiProvider()` when none is
given).

`AnthropicProvider` and `GeminiProvider` resolve a bare name to their own models;
each model made without a client makes the SDK's default client (which reads
the SDK's environment variables) and the run closes it at its end.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..exceptions import UserError
from ._anthropic import AnthropicModel
from ._base import Model
from ._gemini import GeminiModel
from ._provider import ModelProvider, OpenAIProvider

if TYPE_CHECKING:  # imported on first use: `import tooluse` imports no provider's SDK
    from anthropic import AsyncAnthropic
    from google.genai import Client as GenaiClient
    from openai import AsyncOpenAI

__all__ = [
    "DEFAULT_ANTHROPIC_MODEL",
    "DEFAULT_GEMINI_MODEL",
    "DEFAULT_PROVIDER",
    "AnthropicProvider",
    "GeminiProvider",
    "MultiProvider",
    "resolve_model",
]

DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5"
"""The model `AnthropicProvider` gives for no name (`"anthropic/"` with nothing after it)."""
DEFAULT_GEMINI_MODEL = "gemini-2.5-flash"
"""The model `GeminiProvider` gives for no name."""


class AnthropicProvider(ModelProvider):
    """Resolves names to `AnthropicModel`s on one client (or each on the default client)."""

    def __init__(
        self, *, anthropic_client: AsyncAnthropic | None = None, prompt_caching: bool = False
    ) -> None:
        """Resolve names with `anthropic_client`.

        Args:
            anthropic_client: The client the models call; None gives each model the SDK's
                default client (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`), closed when the
                run ends.
            prompt_caching: Whether the models mark requests for Anthropic's prompt cache.
        """
        self.anthropic_client = anthropic_client
        self.prompt_caching = prompt_caching

    def get_model(self, model_name: str | None) -> Model:
        """An `AnthropicModel` for the name.

        Args:
            model_name: The model's name; None for `DEFAULT_ANTHROPIC_MODEL`.

        Returns:
            The model.
        """
        return AnthropicModel(
            model_name or DEFAULT_ANTHROPIC_MODEL,
            self.anthropic_client,
            prompt_caching=self.prompt_caching,
        )


class GeminiProvider(ModelProvider):
    """Resolves names to `GeminiModel`s on one client (or each on the default client)."""

    def __init__(self, *, genai_client: GenaiClient | None = None) -> None:
        """Resolve names with `genai_client`.

        Args:
            genai_client: The `google.genai.Client` the models call; None gives each model
                the SDK's default client (`GEMINI_API_KEY` or `GOOGLE_API_KEY`).
        """
        self.genai_client = genai_client

    def get_model(self, model_name: str | None) -> Model:
        """A `GeminiModel` for the name.

        Args:
            model_name: The model's name; None for `DEFAULT_GEMINI_MODEL`.

        Returns:
            The model.
        """
        return GeminiModel(model_name or DEFAULT_GEMINI_MODEL, self.genai_client)


class MultiProvider(ModelProvider):
    """Resolves `"provider/model"` names by their prefix; a bare name is OpenAI's.

    Example:
        `RunConfig(model_provider=MultiProvider(anthropic_client=AsyncAnthropic()))`, and
        `Agent("a", model="anthropic/claude-sonnet-4-5")`.
    """

    def __init__(
        self,
        provider_map: Mapping[str, ModelProvider] | None = None,
        *,
        openai_client: AsyncOpenAI | None = None,
        openai_use_responses: bool | None = None,
        anthropic_client: AsyncAnthropic | None = None,
        genai_client: GenaiClient | None = None,
    ) -> None:
        """The built-in prefixes (`openai`, `anthropic`, `gemini`), and yours.

        Args:
            provider_map: More prefixes, or other providers for the built-in ones (e.g.
                `{"local": OpenAIProvider(openai_client=AsyncOpenAI(base_url=...))}`).
            openai_client: The client of `openai/` and bare names; None for the default.
            openai_use_responses: The OpenAI API: True for Responses, False for Chat
                Completions, None for `set_default_openai_api`'s.
            anthropic_client: The client of `anthropic/` names; None for the default.
            genai_client: The client of `gemini/` names; None for the default.
        """
        openai = OpenAIProvider(openai_client=openai_client, use_responses=openai_use_responses)
        self.providers: dict[str, ModelProvider] = {
            "openai": openai,
            "anthropic": AnthropicProvider(anthropic_client=anthropic_client),
            "gemini": GeminiProvider(genai_client=genai_client),
            **(provider_map or {}),
        }
        """Each prefix's provider."""
        self.default = self.providers["openai"]
        """The provider of names without a prefix."""

    def get_model(self, model_name: str | None) -> Model:
        """The model the name's prefix points to.

        Args:
            model_name: `"prefix/name"`, a bare name (OpenAI's), or None (OpenAI's default).

        Returns:
            The model.

        Raises:
            UserError: If the prefix is not one of the known ones.
        """
        if model_name is None or "/" not in model_name:
            return self.default.get_model(model_name)
        prefix, _, name = model_name.partition("/")
        provider = self.providers.get(prefix)
        if provider is None:
            known = ", ".join(f"'{known}/'" for known in sorted(self.providers))
            raise UserError(
                f"The model name {model_name!r} starts with an unknown provider {prefix!r}: "
                f"use one of {known}, a name without a prefix (OpenAI's), or add the prefix "
                f"with MultiProvider(provider_map={{{prefix!r}: YourProvider()}})"
            )
        return provider.get_model(name or None)


DEFAULT_PROVIDER = MultiProvider()
"""The provider of a run whose config names none: prefixes as above, bare names OpenAI's."""


def resolve_model(model: str | Model | None, provider: ModelProvider | None = None) -> Model:
    """A `Model` as it is, or the provider's model for a name (None: the default model).

    Args:
        model: A model name, a model, or None.
        provider: Resolves names; None uses `MultiProvider()`.

    Returns:
        The model to call.

    Raises:
        UserError: If the name's prefix names no provider the provider knows.
    """
    if isinstance(model, Model):
        return model
    return (provider or DEFAULT_PROVIDER).get_model(model)
