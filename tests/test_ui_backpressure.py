"""A slow browser never grows the UI server's memory: the run waits for the reader.

A real client on 127.0.0.1 (a socket with a small receive buffer, so that what the
kernel holds is small and known) posts to each adapter, served by uvicorn, for a run
whose model would stream 40 MB of text. It reads slowly, or stops reading; the model
counts what it has streamed, the client what it has read, and the difference (the
events made but not read: the run's buffer, the response, the sockets' buffers) must
stay within the run's bound plus what the sockets hold, and stop growing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Generator
from typing import Any

import pytest
import uvicorn
from starlette.applications import Starlette

from tooluse import Agent
from tooluse.core._items import assistant_message
from tooluse.models import (
    Model,
    ModelRequest,
    ModelResponse,
    ResponseDone,
    StreamEvent,
    TextDelta,
)
from tooluse.run._stream_buffer import READER_PATIENCE, STREAM_BUFFER_SIZE
from tooluse.ui import ag_ui_app, vercel_ai_app

PIECE = 2048  # characters per text delta: the sockets then hold few events
PIECES = 20_000  # 40 MB of text, were it all made at once
SOCKET_BUFFER = 32 * 1024  # asked of each socket (Linux doubles it, and may round it up)
IN_FLIGHT = 256  # events the sockets and the server's write buffer can hold, at most


class Endless(Model):
    """Streams `count` text deltas of `PIECE` characters; counts them, and says if it was closed."""

    def __init__(self, count: int = PIECES) -> None:
        self.count = count
        self.sent = 0
        self.closed = threading.Event()

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        raise NotImplementedError("the UI adapters stream")

    async def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        piece = "x" * PIECE
        try:
            for _ in range(self.count):
                await asyncio.sleep(0)  # as reading a socket would, let others run
                self.sent += 1
                yield TextDelta(piece)
            message = assistant_message(piece * self.count)
            yield ResponseDone(ModelResponse([message]))
        finally:
            self.closed.set()


@contextlib.contextmanager
def serving(app: Starlette) -> Generator[int]:
    """Serve `app` on 127.0.0.1 from a listening socket with a small send buffer; yield its port.

    Accepted sockets inherit the listening socket's send buffer on Linux, so the
    server's side of the connection holds little.
    """
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SOCKET_BUFFER)
    listener.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive(), "uvicorn stopped before it started"
        assert time.monotonic() < deadline, "uvicorn did not start in 20 s"
        time.sleep(0.02)
    try:
        yield listener.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(10)
        listener.close()


class SlowClient:
    """An HTTP client reading a server-sent event stream at its own pace, counting events."""

    def __init__(self, port: int, body: dict[str, Any]) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SOCKET_BUFFER)
        self.sock.connect(("127.0.0.1", port))
        self.sock.settimeout(10)
        data = json.dumps(body).encode()
        head = (
            f"POST / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(data)}\r\n\r\n"
        )
        self.sock.sendall(head.encode() + data)
        self.events = 0  # complete SSE frames read: JSON escapes newlines, so b"\n\n" ends one
        self.last = b""

    def read(self, size: int = 16 * 1024) -> bytes:
        """Read once, up to `size` bytes; what came."""
        chunk = self.sock.recv(size)
        assert chunk, "the server closed the stream early"
        self.events += (self.last + chunk).count(b"\n\n")
        self.last = chunk[-1:]
        return chunk

    def close(self) -> None:
        self.sock.close()


def ag_ui_body() -> dict[str, Any]:
    message = {"id": "m1", "role": "user", "content": "Tell me everything."}
    return {
        "threadId": "t-slow",
        "runId": "r1",
        "messages": [message],
        "state": {},
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }


def vercel_body() -> dict[str, Any]:
    message = {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Everything."}]}
    return {"id": "c-slow", "messages": [message], "trigger": "submit-message"}


ADAPTERS: dict[str, tuple[Callable[[Agent[Any]], Starlette], Callable[[], dict[str, Any]]]] = {
    "ag-ui": (ag_ui_app, ag_ui_body),
    "vercel": (vercel_ai_app, vercel_body),
}


@pytest.fixture(params=sorted(ADAPTERS))
def adapter(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def wait_until(condition: Callable[[], bool], seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_a_client_that_stops_reading_pauses_the_run(adapter: str) -> None:
    make_app, body = ADAPTERS[adapter]
    model = Endless()
    with (
        serving(make_app(Agent("Talker", model=model))) as port,
        contextlib.closing(SlowClient(port, body())) as client,
    ):
        while client.events < 50:
            client.read()
        time.sleep(0.5)  # the client stops reading: the sockets fill, then the run's buffer
        paused_at = model.sent
        time.sleep(READER_PATIENCE * 2.5)  # longer than a run waits on a reader taking nothing
        ahead = model.sent - client.events
        assert model.sent == paused_at, "the run went on making events nobody reads"
        assert ahead <= STREAM_BUFFER_SIZE + IN_FLIGHT
        assert not model.closed.is_set()  # paused, not stopped: a slow reader may read on
        while client.events < 500:  # and it can: the run goes on where it waited
            client.read()
        assert model.sent - client.events <= STREAM_BUFFER_SIZE + IN_FLIGHT
        read = client.events
        client.close()  # the browser goes away: the run is cancelled, the model's stream closed
        assert model.closed.wait(10)
        assert model.sent - read <= STREAM_BUFFER_SIZE + IN_FLIGHT  # nothing made for nobody


def test_a_slow_client_reads_everything_with_the_run_never_far_ahead(adapter: str) -> None:
    make_app, body = ADAPTERS[adapter]
    model = Endless(3_000)
    with (
        serving(make_app(Agent("Talker", model=model))) as port,
        contextlib.closing(SlowClient(port, body())) as client,
    ):
        most_ahead = 0
        tail = b""
        while not tail.endswith(b"\r\n0\r\n\r\n"):  # the chunked body's last chunk
            tail = (tail + client.read(32 * 1024))[-16:]
            most_ahead = max(most_ahead, model.sent - client.events)
            time.sleep(0.002)  # slower than the model
    assert model.sent == 3_000
    assert client.events > 3_000  # every delta came, with the frames around them
    assert most_ahead <= STREAM_BUFFER_SIZE + IN_FLIGHT
