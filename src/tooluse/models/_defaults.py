"""The default OpenAI client and API, and resolving a model name to a `Model`."""

from __future__ import annotations

import functools
import os
from abc import ABC
from collections.abc import Mapping
from types import MethodType
from typing import TYPE_CHECKING, Any, Literal, cast

from ..exceptions import MissingAPIKey, UserError

if TYPE_CHECKING:  # imported on first use: importing openai costs 0.3 s
    from openai import AsyncOpenAI
from ._base import Model, ModelRequest

__all__ = [
    "DEFAULT_MODEL",
    "OpenAIModel",
    "clients_own",
    "default_openai_api",
    "default_openai_client",
    "is_gpt_5_default",
    "send_as_is",
    "set_default_openai_api",
    "set_default_openai_client",
    "set_default_openai_key",
]

DEFAULT_MODEL = "gpt-4.1"
"""The model an agent without one uses."""
OpenAIApi = Literal["responses", "chat_completions"]

# Where `AsyncOpenAI()` finds credentials (recent openai versions take an admin key too).
_KEY_VARIABLES = ("OPENAI_API_KEY", "OPENAI_ADMIN_KEY")

_client: AsyncOpenAI | None = None
_client_given = False
_key: str | None = None
_api: OpenAIApi = "responses"


def set_default_openai_client(client: AsyncOpenAI | None, use_for_tracing: bool = True) -> None:
    """Use `client` for models given by name; None goes back to a lazily made `AsyncOpenAI()`.

    Args:
        client: The client, e.g. `AsyncOpenAI(base_url=..., api_key=...)`.
        use_for_tracing: Accepted for openai-agents' signature: tooluse exports no
            traces to OpenAI (its spans go to your OpenTelemetry exporter).
    """
    del use_for_tracing
    global _client, _client_given
    _client, _client_given = client, client is not None


def set_default_openai_key(key: str, use_for_tracing: bool = True) -> None:
    """Use `key` for the default client, in place of the `OPENAI_API_KEY` variable.

    A client set with `set_default_openai_client` is kept: it has its own key.

    Args:
        key: The OpenAI API key.
        use_for_tracing: Accepted for openai-agents' signature: tooluse exports no
            traces to OpenAI (its spans go to your OpenTelemetry exporter).
    """
    global _client, _key  # noqa: PLW0603 - the one process-wide default, as in openai-agents
    del use_for_tracing
    _key = key
    if not _client_given:
        _client = None  # made again, with the key, on first use


def set_default_openai_api(api: OpenAIApi) -> None:
    """Choose the API models given by name use.

    Args:
        api: `"responses"` (the default) or `"chat_completions"`.

    Raises:
        UserError: For any other value.
    """
    global _api  # noqa: PLW0603 - the one process-wide default, as in openai-agents
    if api not in ("responses", "chat_completions"):
        raise UserError(f"set_default_openai_api({api!r}): use 'responses' or 'chat_completions'")
    _api = api


def default_openai_api() -> OpenAIApi:
    """The API models given by name use (`set_default_openai_api`).

    Returns:
        `"responses"` or `"chat_completions"`.
    """
    return _api


def default_openai_client() -> AsyncOpenAI:
    """The default client, made on first use (`OPENAI_API_KEY` and `OPENAI_BASE_URL` apply).

    Returns:
        The client.

    Raises:
        MissingAPIKey: If no client was set and the environment holds no key; the
            next call tries again, so setting the key afterwards is enough.
    """
    global _client  # noqa: PLW0603 - made once, on first use
    if _client is None:
        # Checked here, not left to the client: it would raise its own error, or (openai
        # 2.x, with the variable set but empty) send a request without a key.
        if _key is None and not any(os.environ.get(name) for name in _KEY_VARIABLES):
            raise MissingAPIKey
        from openai import AsyncOpenAI  # noqa: PLC0415 - imported on first use

        _client = AsyncOpenAI(api_key=_key) if _key is not None else AsyncOpenAI()
    return _client


def is_gpt_5_default() -> bool:
    """Whether an agent without a model uses a GPT-5 model (`DEFAULT_MODEL`).

    Returns:
        True when `DEFAULT_MODEL` is a `gpt-5` model; it is not (`gpt-4.1`).
    """
    return DEFAULT_MODEL.startswith("gpt-5")


class OpenAIModel(Model, ABC):
    """What both OpenAI models share: a model name, and the client, made on first use."""

    provider_name = "openai"

    def __init__(self, model: str, openai_client: AsyncOpenAI | None = None) -> None:
        """Name the model, and the client to call it with (default: the shared client).

        Args:
            model: The model name, e.g. `"gpt-4.1"`.
            openai_client: The client; None uses `default_openai_client()` at the first call.
        """
        self.model = model
        self._client = openai_client

    def client_for(self, request: ModelRequest) -> AsyncOpenAI:
        """The client to call for a request, making as many retries as the request asks.

        A run asks for none (`max_retries=0`): the runner retries by its
        `RetryPolicy`, so that hooks and spans see every attempt. So a client's own
        setting (`AsyncOpenAI(max_retries=5)`) does not apply to the calls runs
        make; set `RunConfig(max_retries=...)` or `retry_policy` instead. A request
        that leaves `max_retries` None (a call made outside a run) keeps the
        client's own retries.

        Args:
            request: The request about to be made.

        Returns:
            The client, or a copy of it (sharing its connections) with the request's retries.
        """
        client = self._client or default_openai_client()
        if request.max_retries is None or request.max_retries == client.max_retries:
            return client  # copying a client costs ~20 µs: only when the setting differs
        return client.with_options(max_retries=request.max_retries)

    def shared_params(self, request: ModelRequest, *, max_tokens_key: str) -> dict[str, Any]:
        """The parameters both APIs spell alike: the model, tool settings, sampling.

        Args:
            request: The request about to be made.
            max_tokens_key: The API's name for the output token limit.

        Returns:
            The parameters; `tools` holds the tools themselves, for the API to serialise.
        """
        settings = request.settings
        params: dict[str, Any] = {"model": self.model}
        if request.tools:  # tool settings are sent only with tools
            params["tools"] = list(request.tools)
            if settings.parallel_tool_calls is not None:
                params["parallel_tool_calls"] = settings.parallel_tool_calls
            if settings.tool_choice is not None:
                params["tool_choice"] = settings.tool_choice
        given = {
            "temperature": settings.temperature,
            "top_p": settings.top_p,
            max_tokens_key: settings.max_tokens,
            "store": settings.store,
            "metadata": settings.metadata,
            "top_logprobs": settings.top_logprobs,
            "extra_headers": settings.extra_headers,
            "extra_query": settings.extra_query,
            "extra_body": settings.extra_body,
        }
        params.update({key: value for key, value in given.items() if value is not None})
        return params


def send_as_is(params: dict[str, Any], create: object, *keys: str) -> bool:
    """Move the parameters named into `extra_body`, which the client sends as it is given.

    Before sending, the `openai` client walks every parameter against its declared
    types, to rename aliased keys and encode files and dates. The conversation and
    function tools have none of those (every item is a JSON-ready dict by now), yet
    that walk tries each item against every item type the API has: about 0.5 ms per
    item, on every request, growing with the conversation. `extra_body` goes into the
    request's JSON without it; the JSON sent is the same. A caller's own `extra_body`
    keys win, as they would over the parameters.

    Nothing moves when `create` is not the client's own method: instrumentation that
    wraps it (OpenTelemetry's, Langfuse's) reads the conversation from its arguments.

    Args:
        params: The parameters of one `create` call, changed in place.
        create: The method they are for, e.g. `client.responses.create`.
        *keys: The parameters to send as they are, where present.

    Returns:
        Whether they were moved: not for a wrapped `create`, nor when the caller's
        `extra_body` is not a mapping (the client reports that).
    """
    extra: object = params.get("extra_body")
    if (extra is not None and not isinstance(extra, Mapping)) or not clients_own(create):
        return False
    moved = {key: params.pop(key) for key in keys if key in params}
    params["extra_body"] = {**moved, **cast(Mapping[str, object], extra or {})}
    return True


def clients_own(create: object) -> bool:
    """Whether a bound `create` is the `openai` package's own code, as it ships.

    Args:
        create: The method, e.g. `client.responses.create`.

    Returns:
        False for a method instrumentation wrapped, which expects its usual arguments.
    """
    if type(create) is not MethodType:  # e.g. wrapt's proxies, which instrumentation uses
        return False
    code = getattr(create.__func__, "__code__", None)
    return code is not None and code.co_filename.startswith(_openai_directory())


@functools.cache
def _openai_directory() -> str:
    import openai  # noqa: PLC0415 - imported by the time a client exists

    return os.path.dirname(openai.__file__) + os.sep
