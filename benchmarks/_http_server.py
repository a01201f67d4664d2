"""The scripted OpenAI-compatible server of tests/openai_server.py, in a process of its own.

Run with:
    python benchmarks/_http_server.py

Prints the server's base URL on one line, then serves until its stdin closes. It plays
one fixed, deterministic script for any number of runs, on the Responses and Chat
Completions APIs, plain and streamed: a request that carries no tool output yet gets a
call of `add` with a=2, b=3; one that does gets the text "The sum is <output>.". It
speaks HTTP/1.1 and keeps connections open, as a real API does. A process of its own so
that its CPU is not in the client's timings (bench_http.py).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.openai_server import Call, ScriptedServer, Turn, sent_tool_outputs

ARGUMENTS = '{"a": 2, "b": 3}'
CALL = Turn(calls=[Call("add", ARGUMENTS, "call_1")])


def reply(body: dict[str, Any]) -> Turn:
    """A call of `add` until the request carries its output, then the answer."""
    outputs = sent_tool_outputs(body)
    if not outputs:
        return CALL
    return Turn(text=f"The sum is {next(iter(outputs.values()))}.")


def main() -> None:
    server = ScriptedServer(reply, keep_alive=True)
    server.start()
    print(server.base_url, flush=True)
    try:
        sys.stdin.read()  # until the benchmark closes our stdin (or exits)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
