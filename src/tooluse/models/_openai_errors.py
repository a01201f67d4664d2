"""The OpenAI models' edge: what the `openai` client raises, as `ModelTransportError`.

- `APITimeoutError`, `APIConnectionError`: no answer came; retryable.
- `APIStatusError`: the API answered with an error status; its `Retry-After` is
  the wait asked for, and `x-should-retry: false` (which the OpenAI API sends for
  failures a retry cannot fix) makes it not retryable.
- `APIResponseValidationError`: the answer does not fit the API's own schema.
- The HTTP library's errors that escape the client mid-stream (a connection cut
  while events arrive): the connection was lost; retryable.

The client's error stays the `__cause__`. Anything else passes through.
"""

from __future__ import annotations

from collections.abc import Mapping

from ._base import ERROR_STATUS, ModelTransportError
from ._http import retry_after

__all__ = ["openai_failure"]

TIMED_OUT = "the model's API did not answer in time"
UNREACHABLE = "the model's API could not be reached"
CONNECTION_LOST = "the connection to the model's API was lost"
NOT_ITS_SCHEMA = "the model's API answered with data that does not fit the API's own schema"

_HTTP_LIBRARIES = frozenset({"httpx", "httpx2", "httpcore", "h11", "h2", "aiohttp"})


def raised_by_http_library(error: BaseException) -> bool:
    """Whether `error` comes from the HTTP library under a provider's SDK.

    Such an error got past the SDK's own types (a stream cut mid-body): a lost
    connection, whichever the provider.

    Args:
        error: What a call or a stream raised.

    Returns:
        True for an error of httpx, httpcore, h11, h2 or aiohttp.
    """
    return type(error).__module__.partition(".")[0] in _HTTP_LIBRARIES


def openai_failure(error: BaseException) -> ModelTransportError | None:
    """The neutral error for what the `openai` client raised, or None for anything else.

    Args:
        error: What a call or a stream raised.

    Returns:
        The `ModelTransportError` to raise from it, or None to let `error` through.
    """
    if raised_by_http_library(error):
        return ModelTransportError(CONNECTION_LOST, retryable=True)
    import openai  # noqa: PLC0415 - imported by the time a client has raised

    if not isinstance(error, openai.APIError):
        return None
    if isinstance(error, openai.APIConnectionError):  # APITimeoutError is one
        timed_out = isinstance(error, openai.APITimeoutError)
        return ModelTransportError(TIMED_OUT if timed_out else UNREACHABLE, retryable=True)
    if isinstance(error, openai.APIStatusError):
        headers = _headers(error)
        refuses = headers.get("x-should-retry") == "false"
        return ModelTransportError(
            ERROR_STATUS,
            error.status_code,
            retry_after=retry_after(headers),
            retryable=False if refuses else None,
        )
    if isinstance(error, openai.APIResponseValidationError):
        return ModelTransportError(NOT_ITS_SCHEMA, error.status_code, retryable=False)
    return ModelTransportError(f"the model's API reported an error ({type(error).__name__})")


def _headers(error: BaseException) -> Mapping[str, str]:
    """The headers of the answer an `APIStatusError` carries; empty if it has none."""
    response: object = getattr(error, "response", None)
    headers: object = getattr(response, "headers", None)
    return headers if isinstance(headers, Mapping) else {}  # pyright: ignore[reportUnknownVariableType]
