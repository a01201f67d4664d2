"""Server-sent events: the text of a frame, and the response that streams the frames.

The adapters write each frame's JSON themselves: a frequent event is a prefix and its
delta as a JSON string, most others an f-string of their fields, and what has no fixed
shape a value through pydantic's serializer (AG-UI) or an encoder built once (Vercel).
Building an `ag_ui` model per event, or calling `json.dumps` with options (a new encoder
each time), cost more than the run that made the event. The response pulls the next
frame only once the last is written to the socket, and the run is read with no patience
(`stream_events(patience=math.inf)`): a client that reads slowly, or not at all,
pauses the run at its buffer's bound instead of growing the server's memory.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import random
from collections.abc import AsyncGenerator, Mapping
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Any

from pydantic_core import to_json
from starlette.responses import StreamingResponse
from starlette.types import Receive, Send

from ..run._result import RunResultStreaming
from ..run._stream_events import RunStreamEvent

__all__ = [
    "EventStream",
    "ascii_json",
    "ascii_string",
    "new_id",
    "run_events",
    "sse_response",
    "utf8_json",
    "utf8_string",
]


def utf8_json(value: Any) -> str:
    """A value as compact JSON, written as the AG-UI models write themselves.

    Pydantic's serializer: non-ASCII characters as they are, NaN and infinities as
    null, dataclasses and models as objects, anything else JSON has no form for as its
    text.
    """
    return to_json(value, inf_nan_mode="null", fallback=str).decode()


ascii_json = json.JSONEncoder(separators=(",", ":")).encode
"""A value as compact JSON, non-ASCII characters escaped: `json.dumps(value, separators=...)`."""

utf8_string = encode_basestring
"""A string as a JSON string, quotes included, non-ASCII characters as they are."""

ascii_string = encode_basestring_ascii
"""A string as a JSON string, quotes included, non-ASCII characters escaped."""


# The ids' own generator, seeded from the system's randomness: a program that seeds
# `random` (for repeatable runs) does not make ids repeat, nor do forked workers.
_ids = random.Random()
if hasattr(os, "register_at_fork"):  # not on Windows, which does not fork
    os.register_at_fork(after_in_child=_ids.seed)


def new_id() -> str:
    """A new message or part id: 128 random bits in hex, as a uuid4's.

    Not a secret (a client sees it, the server looks nothing up by it): the bits come from
    a generator of this module's own, without the system call per id that cost more than
    the frame it went in.
    """
    return _ids.getrandbits(128).to_bytes(16, "big").hex()


def run_events(result: RunResultStreaming) -> AsyncGenerator[RunStreamEvent]:
    """A run's events, read by a response: the run waits for the client however long it takes.

    Args:
        result: The streamed run.

    Returns:
        Its events; closed (the client gone), the run is cancelled.
    """
    return result.stream_events(patience=math.inf)


class EventStream(StreamingResponse):
    """A `text/event-stream` response sending frames as they come, one at a time.

    The next frame is taken only once the last one is handed to the server, which
    waits while the client's socket is full. When the client goes away the response
    stops at the next frame and closes the frames at once (their run is cancelled):
    it does not rely on the cancellation Starlette sends, which a run that keeps the
    loop busy can keep from arriving while the frames go on into the void.
    """

    def __init__(self, frames: AsyncGenerator[str], headers: Mapping[str, str] | None) -> None:
        """Stream `frames`.

        Args:
            frames: The frames' text, each ending in a blank line.
            headers: Headers to send beside the content type.
        """
        super().__init__(frames, media_type="text/event-stream", headers=headers)
        self.frames = frames
        self.gone = False
        """Whether the client has gone away."""

    async def listen_for_disconnect(self, receive: Receive) -> None:
        """Wait until the client goes away, and say so.

        Args:
            receive: The ASGI receive channel.
        """
        await super().listen_for_disconnect(receive)
        self.gone = True

    async def stream_response(self, send: Send) -> None:
        """Send the frames until they end or the client goes away; close them either way.

        Args:
            send: The ASGI send channel.
        """
        start = {"type": "http.response.start", "status": self.status_code}
        await send({**start, "headers": self.raw_headers})
        async with contextlib.aclosing(self.frames) as frames:
            async for frame in frames:
                if self.gone:
                    return
                await send(
                    {"type": "http.response.body", "body": frame.encode(), "more_body": True}
                )
        await send({"type": "http.response.body", "body": b"", "more_body": False})


def sse_response(
    frames: AsyncGenerator[str], headers: Mapping[str, str] | None = None
) -> EventStream:
    """A response streaming `frames` (`EventStream`).

    Args:
        frames: The frames' text, each ending in a blank line.
        headers: Headers to send beside the content type.

    Returns:
        The response.
    """
    return EventStream(frames, headers)
