"""Reading what the `openai` client hands back; what cannot be read raises `ModelTransportError`.

The client does not check much of what the API sends. It raises
`json.JSONDecodeError` for a body or a streamed event that is not JSON, a bare
`openai.APIError` for a streamed event holding an `error` key, and returns any
other JSON value as it is: `null` as None, `[]` as a list, `{}` as a response
whose every field is None. These helpers turn each of those into one
`ModelTransportError` saying what happened, with the client's error as the
cause. Errors of the request itself (`APIStatusError`, `APIConnectionError`)
pass through: the runner maps them.

What compatible servers (vLLM, Ollama, proxies) merely leave out is no error:
`token_count` reads a missing or null count as 0, and `model_name` a missing
name as None.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeGuard, TypeVar, cast

from pydantic import BaseModel

from ..core._context import Usage, input_details, output_details
from ._base import ModelTransportError

if TYPE_CHECKING:  # imported on first use: importing openai costs 0.3 s
    from openai import APIError

__all__ = [
    "NOT_A_RESPONSE",
    "NOT_JSON_BODY",
    "NOT_JSON_EVENT",
    "NOT_JSON_OBJECT_EVENT",
    "STREAM_ENDED",
    "EventReader",
    "error_event",
    "model_name",
    "read_usage",
    "read_whole",
    "token_count",
]

NOT_JSON_BODY = "the model's API answered with a body that is not valid JSON"
NOT_A_RESPONSE = "the model's API answered with JSON that is not a response"
NOT_JSON_EVENT = "a streamed event from the model's API was not valid JSON"
NOT_JSON_OBJECT_EVENT = "a streamed event from the model's API was not a JSON object"
STREAM_ENDED = "the stream ended before the response was complete"

T = TypeVar("T")


def error_event(code: str | None, message: str, status_code: int | None) -> ModelTransportError:
    """The error for an error event in the middle of a stream.

    Args:
        code: The API's error code, if it sent one.
        message: The API's error message.
        status_code: The HTTP status the stream came with.

    Returns:
        The error to raise.
    """
    detail = f"{code}: {message}" if code else message
    return ModelTransportError(
        f"the model's API sent an error event mid-stream ({detail})", status_code
    )


def token_count(usage: object, *path: str) -> int:
    """A token count from the API's usage, or 0 where a server left it out.

    Args:
        usage: The usage object the client parsed (None when the API sent none).
        *path: The attributes leading to the count, e.g. `"input_tokens_details",
            "cached_tokens"`.

    Returns:
        The count; 0 if any step is missing or null, or the count is not an integer.
    """
    value = usage
    for name in path:
        value = getattr(value, name, None)
    return value if type(value) is int else 0  # not bool, nor a number sent as text


def read_usage(usage: object, input_field: str, output_field: str) -> Usage:
    """The usage the API reported for one call; what a compatible server leaves out counts 0.

    Args:
        usage: The usage object the client parsed (None when the API sent none).
        input_field: The API's name for the input count (`prompt_tokens`, `input_tokens`);
            its details are under the same name with `_details` after it.
        output_field: The API's name for the output count (`completion_tokens`,
            `output_tokens`), likewise.

    Returns:
        The usage of one request; a missing total is the sum of the other two.
    """
    input_tokens = token_count(usage, input_field)
    output_tokens = token_count(usage, output_field)
    return Usage(
        requests=1,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=token_count(usage, "total_tokens") or input_tokens + output_tokens,
        input_tokens_details=input_details(
            token_count(usage, f"{input_field}_details", "cached_tokens")
        ),
        output_tokens_details=output_details(
            token_count(usage, f"{output_field}_details", "reasoning_tokens")
        ),
    )


def model_name(value: object) -> str | None:
    """The model name the API reported, or None if it sent none (or an empty one).

    Args:
        value: The response's `model` field, as the client parsed it.

    Returns:
        The name.
    """
    return value if isinstance(value, str) and value else None


async def read_whole(call: Awaitable[T]) -> T:
    """Await a whole (not streamed) call, raising `ModelTransportError` for a body not JSON.

    Args:
        call: The client's `create(...)` call, not yet awaited.

    Returns:
        What the client parsed; the caller checks its shape.

    Raises:
        ModelTransportError: If the body is not valid JSON. The client does not say
            the status of a body it could not parse, so `status_code` is None.
    """
    try:
        return await call
    except json.JSONDecodeError as error:
        raise ModelTransportError(NOT_JSON_BODY) from error


class EventReader:
    """Iterates a stream's events, raising `ModelTransportError` for what cannot be read.

    It does not close the stream: the model does, with `async with stream:`
    around the whole read, so that the connection is released however reading
    stops. (A generator here would itself need closing; a plain iterator does not.)
    """

    def __init__(
        self, stream: Any, build: Callable[[dict[str, object]], BaseModel] | None = None
    ) -> None:
        """Read a stream the client started.

        Args:
            stream: The client's `AsyncStream`.
            build: Types an event that comes as a JSON object (a stream parsed to
                `AsyncStream[object]`); None when the client types its events.
        """
        self._stream = stream
        self._build = build
        self.status_code: int | None = stream.response.status_code
        """The HTTP status the stream came with."""

    def __aiter__(self) -> EventReader:
        return self

    async def __anext__(self) -> BaseModel:
        try:
            event = await self._stream.__anext__()
        except json.JSONDecodeError as error:
            raise self.failure(NOT_JSON_EVENT) from error
        except Exception as error:
            if not _is_error_payload(error):
                raise
            raise error_event(error.code, error.message, self.status_code) from error
        if type(event) is dict and self._build is not None:
            return self._build(cast(dict[str, object], event))
        if not isinstance(event, BaseModel):  # the client returns other JSON values as they are
            raise self.failure(NOT_JSON_OBJECT_EVENT)
        return event

    def failure(self, description: str) -> ModelTransportError:
        """The error for something wrong with this stream.

        Args:
            description: What happened, e.g. `STREAM_ENDED`.

        Returns:
            The error to raise, with the stream's HTTP status.
        """
        return ModelTransportError(description, self.status_code)


def _is_error_payload(error: Exception) -> TypeGuard[APIError]:
    """Whether the client raised this for an event holding an `error` key.

    It raises a bare `APIError` for those; its subclasses (a status, a lost
    connection) are errors of the request, which the runner maps.
    """
    import openai  # noqa: PLC0415 - imported by the time a stream exists

    return type(error) is openai.APIError
