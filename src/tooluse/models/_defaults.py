"""The default OpenAI client and API, the default model, and its default settings.

An agent without a model uses `get_default_model()`: the `OPENAI_DEFAULT_MODEL`
environment variable, else `DEFAULT_MODEL`, as in openai-agents. A GPT-5 model named
with no settings of the agent's own gets the settings it is meant to run with
(`get_default_model_settings`): low verbosity, and the reasoning effort each GPT-5
model is tuned for.
"""

from __future__ import annotations

import functools
import os
import re
from abc import ABC
from collections.abc import Mapping
from types import MethodType
from typing import TYPE_CHECKING, Any, Literal, cast

from ..core._settings import ModelSettings
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
    "get_default_model",
    "get_default_model_settings",
    "gpt_5_reasoning_settings_required",
    "is_gpt_5_default",
    "send_as_is",
    "set_default_openai_api",
    "set_default_openai_client",
    "set_default_openai_key",
]

DEFAULT_MODEL = "gpt-5.6-luna"
"""The model an agent without one uses, unless `OPENAI_DEFAULT_MODEL` names another
(openai-agents 0.24's default)."""
DEFAULT_MODEL_VARIABLE = "OPENAI_DEFAULT_MODEL"
"""The environment variable naming the default model, read at each run."""
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


def get_default_model() -> str:
    """The model an agent without one uses: `OPENAI_DEFAULT_MODEL`, else `DEFAULT_MODEL`.

    Returns:
        The model's name, lower-cased.
    """
    return os.environ.get(DEFAULT_MODEL_VARIABLE, DEFAULT_MODEL).lower()


def is_gpt_5_default() -> bool:
    """Whether an agent without a model uses a GPT-5 model that takes reasoning settings.

    Returns:
        True for the built-in default (`gpt-5.6-luna`) and any `OPENAI_DEFAULT_MODEL`
        that `gpt_5_reasoning_settings_required` accepts.
    """
    return gpt_5_reasoning_settings_required(get_default_model())


# GPT-5's chat aliases are GPT-5 by name, but refuse reasoning settings.
_GPT_5_CHAT_ALIASES = frozenset(f"gpt-5{version}-chat-latest" for version in ("", ".1", ".2", ".3"))
_Effort = Literal["none", "low", "medium"]
# The reasoning effort each GPT-5 model runs with by default; the names in the first
# table may end in a snapshot's date (`gpt-5-2025-08-07`), the second's may not.
_EFFORT_OF_FAMILY: dict[str, _Effort] = {
    "gpt-5": "low",  # not "minimal": some hosted tools refuse it
    "gpt-5.1": "none",
    "gpt-5.2": "none",
    "gpt-5.2-pro": "medium",
    "gpt-5.4": "none",
    "gpt-5.4-pro": "medium",
    "gpt-5.4-mini": "none",
    "gpt-5.4-nano": "none",
    "gpt-5.5": "none",
    "gpt-5.6": "none",
    "gpt-5.6-sol": "none",
    "gpt-5.6-terra": "none",
    "gpt-5.6-luna": "none",
}
_EFFORT_OF_UNDATED: dict[str, _Effort] = {"gpt-5.2-codex": "low", "gpt-5.3-codex": "none"}
_SNAPSHOT_DATE = re.compile(r"-\d{4}-\d{2}-\d{2}$")


def gpt_5_reasoning_settings_required(model_name: str) -> bool:
    """Whether a model is a GPT-5 model that is sent reasoning settings by default.

    Args:
        model_name: The model's name, e.g. `"gpt-5.1"`.

    Returns:
        True for names starting `gpt-5`, except the `-chat-latest` aliases, which
        take no reasoning settings.
    """
    return model_name.startswith("gpt-5") and model_name not in _GPT_5_CHAT_ALIASES


def get_default_model_settings(model: str | None = None) -> ModelSettings:
    """The settings a model named with no settings of the agent's own is sent.

    Args:
        model: The model's name; None for `get_default_model()`.

    Returns:
        For a GPT-5 model, low verbosity and the model's own default reasoning effort
        (none named for GPT-5 models whose efforts are not known); for any other
        model, empty settings. A new object each time, yours to change.
    """
    name = get_default_model() if model is None else model
    if not gpt_5_reasoning_settings_required(name):
        return ModelSettings()
    effort = _EFFORT_OF_UNDATED.get(name) or _EFFORT_OF_FAMILY.get(_SNAPSHOT_DATE.sub("", name))
    if effort is None:
        return ModelSettings(verbosity="low")
    return ModelSettings(reasoning={"effort": effort}, verbosity="low")


class OpenAIModel(Model, ABC):
    """What both OpenAI models share: a model name, and the client, made on first use."""

    provider_name = "openai"

    def __init__(self, model: str, openai_client: AsyncOpenAI | None = None) -> None:
        """Name the model, and the client to call it with (default: the shared client).

        Args:
            model: The model name, e.g. `"gpt-5.1"`.
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
