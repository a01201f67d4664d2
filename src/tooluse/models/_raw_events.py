"""Streamed events read as JSON dicts, then typed by pydantic's own validator.

The response-side mirror of `send_as_is`. The `openai` client turns every
streamed event into its type with its own lax construction, which walks the
event's fields in Python against every type the API's event union has: most of
a streamed run's cost over HTTP. Asked through `with_raw_response` and parsed to
`AsyncStream[object]` (the client's public, documented way to choose what a
response becomes), the stream yields each event as the JSON object it decoded.
The model then builds the same type from it with pydantic's validator (compiled
code), picking the type by the event's `type` as the API's union does.

What the consumer sees is unchanged: the same `openai` types, with the same
fields. An event that does not fit its type (a compatible server that leaves a
field out) is built with the client's lax construction instead, as before; one
of a type this `openai` version does not know becomes an `openai.BaseModel`
holding its fields. Everything else is the client's as before: the request it
builds and sends, its errors (an HTTP status, a lost connection, an `error` key
in an event), and closing the connection.

Nothing changes when `create` is not the client's own method: instrumentation that
wraps it (OpenTelemetry's, Langfuse's) sees the typed events it expects.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, cast

from ._defaults import clients_own

if TYPE_CHECKING:  # imported on first use: importing openai costs 0.3 s
    from pydantic import BaseModel

__all__ = ["chat_chunk", "open_stream", "responses_event"]


class _RawResponse(Protocol):
    """What `with_raw_response.create(...)` returns: the answer, still to be parsed."""

    def parse(self, *, to: type[Any]) -> Any: ...


class _RawCreate(Protocol):
    """The `with_raw_response` form of a resource: its `create`, answering unparsed."""

    create: Callable[..., Awaitable[_RawResponse]]


async def open_stream(
    create: Callable[..., Awaitable[object]],
    raw: Callable[[], object],
    params: Mapping[str, object],
) -> tuple[Any, bool]:
    """Start a stream whose events come as JSON dicts, where the client's method allows it.

    Args:
        create: The resource's own `create`, e.g. `client.responses.create`.
        raw: Gives the resource's `with_raw_response` (looked up only when used), whose
            `create` answers unparsed.
        params: The call's parameters, `stream=True` among them.

    Returns:
        The client's `AsyncStream`, and whether its events come as dicts (False when
        `create` is wrapped: then it was called, and its events are typed).
    """
    if not clients_own(create):
        return await create(**params), False
    from openai import AsyncStream  # noqa: PLC0415 - imported by the time a client exists

    answer = await cast(_RawCreate, raw()).create(**params)
    return answer.parse(to=AsyncStream[object]), True


def responses_event(data: dict[str, object]) -> BaseModel:
    """The Responses API's event type for one streamed event.

    Args:
        data: The event, as the JSON object the client decoded.

    Returns:
        The event, of the type its `type` names in `ResponseStreamEvent`.
    """
    kind = data.get("type")
    event_type = _responses_event_types().get(kind) if isinstance(kind, str) else None
    return _typed(event_type, data)


def chat_chunk(data: dict[str, object]) -> BaseModel:
    """A Chat Completions chunk for one streamed event.

    Args:
        data: The chunk, as the JSON object the client decoded.

    Returns:
        The `ChatCompletionChunk`.
    """
    from openai.types.chat import ChatCompletionChunk  # noqa: PLC0415 - see open_stream

    return _typed(ChatCompletionChunk, data)


def _typed(event_type: type[BaseModel] | None, data: dict[str, object]) -> BaseModel:
    from pydantic import ValidationError  # noqa: PLC0415 - pydantic is imported with openai

    if event_type is None:
        from openai import BaseModel  # noqa: PLC0415 - see open_stream

        event_type = BaseModel
    try:
        return event_type.model_validate(data)
    except ValidationError:
        # The client's own lax construction, as it built every event before.
        return event_type.model_construct(None, **data)


@functools.cache
def _responses_event_types() -> dict[str, type[BaseModel]]:
    """Each Responses event type by the `type` it carries (built once)."""
    from openai.types.responses import ResponseStreamEvent  # noqa: PLC0415 - see open_stream

    union = typing.get_args(ResponseStreamEvent)[0]  # Annotated[Union[...], discriminator]
    types: dict[str, type[BaseModel]] = {}
    for event_type in typing.get_args(union):
        field = event_type.model_fields.get("type")
        for kind in typing.get_args(field.annotation) if field is not None else ():
            types.setdefault(kind, event_type)
    return types
