"""The Anthropic model's edge: what the `anthropic` client raises, as `ModelTransportError`.

- `APITimeoutError`, `APIConnectionError`: no answer came; retryable.
- `APIStatusError`: the API answered with an error status (429, 500, an overloaded
  529); its `Retry-After` is the wait asked for, `x-should-retry: false` makes it not
  retryable. The API's own words (`error.message`) are kept in the description of a
  refused request (a 4xx other than 408, 409 and 429), so that a run's error says what
  the provider refused: they name the part of the request, never its content.
- An `error` event in a stream (the client raises `APIStatusError` with the stream's
  200 status): the event's type says the status it stands for (`overloaded_error`:
  529, `rate_limit_error`: 429, `api_error`: 500), so that `RetryPolicy` treats it
  as it treats the same failure before the stream began.
- The HTTP library's errors that escape the client mid-stream: the connection was
  lost; retryable.

The client's error stays the `__cause__`. Anything else passes through.
"""

from __future__ import annotations

from collections.abc import Mapping

from ._base import ERROR_STATUS, ModelTransportError
from ._http import retry_after
from ._input import fields_of
from ._openai_errors import (
    CONNECTION_LOST,
    NOT_ITS_SCHEMA,
    TIMED_OUT,
    UNREACHABLE,
    raised_by_http_library,
)

__all__ = ["anthropic_failure", "refusal_text"]

_EVENT_STATUS = {
    "overloaded_error": 529,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "invalid_request_error": 400,
}
"""The status each error type of a streamed `error` event stands for."""
_RETRIED = frozenset({408, 409, 429})


def anthropic_failure(error: BaseException) -> ModelTransportError | None:
    """The neutral error for what the `anthropic` client raised, or None for anything else.

    Args:
        error: What a call or a stream raised.

    Returns:
        The `ModelTransportError` to raise from it, or None to let `error` through.
    """
    if raised_by_http_library(error):
        return ModelTransportError(CONNECTION_LOST, retryable=True)
    import anthropic  # noqa: PLC0415 - imported by the time a client has raised

    if not isinstance(error, anthropic.APIError):
        return None
    if isinstance(error, anthropic.APIConnectionError):  # APITimeoutError is one
        timed_out = isinstance(error, anthropic.APITimeoutError)
        return ModelTransportError(TIMED_OUT if timed_out else UNREACHABLE, retryable=True)
    if isinstance(error, anthropic.APIStatusError):
        return _status_failure(error.status_code, error.body, _headers(error))
    if isinstance(error, anthropic.APIResponseValidationError):
        return ModelTransportError(NOT_ITS_SCHEMA, error.status_code, retryable=False)
    return ModelTransportError(f"the model's API reported an error ({type(error).__name__})")


def _status_failure(status: int, body: object, headers: Mapping[str, str]) -> ModelTransportError:
    kind, message = _error_of(body)
    if status < 300:  # an error event in a stream that began well
        status = _EVENT_STATUS.get(kind or "", 500)
    refused = 400 <= status < 500 and status not in _RETRIED
    description = ERROR_STATUS
    if refused and message:
        description = refusal_text(kind, message)
    return ModelTransportError(
        description,
        status,
        retry_after=retry_after(headers),
        retryable=False if headers.get("x-should-retry") == "false" else None,
    )


def refusal_text(kind: str | None, message: str) -> str:
    """The description of a request the API refused, in its own words.

    Args:
        kind: The error's type (`invalid_request_error`), if the API named one.
        message: The API's message.

    Returns:
        E.g. "the API says invalid_request_error: messages.1: ...", which a run's
        error puts after the status.
    """
    named = f"{kind}: " if kind else ""
    return f"the API says {named}{message}"


def _error_of(body: object) -> tuple[str | None, str | None]:
    """The `error.type` and `error.message` of an Anthropic error body, where it has them."""
    error = fields_of(fields_of(body).get("error"))
    kind, message = error.get("type"), error.get("message")
    return (
        kind if isinstance(kind, str) else None,
        message if isinstance(message, str) else None,
    )


def _headers(error: BaseException) -> Mapping[str, str]:
    response: object = getattr(error, "response", None)
    headers: object = getattr(response, "headers", None)
    return headers if isinstance(headers, Mapping) else {}  # pyright: ignore[reportUnknownVariableType]
