"""The local Messages API and generateContent servers of tests/, in a process of their own.

Run with:
    python benchmarks/_provider_server.py

Prints the two base URLs (Anthropic's, then Gemini's) on one line, then serves until
its stdin closes. Every request gets the same answer, the text "The sum is 5.",
whole or streamed, so that any number of calls can be timed (bench_providers.py). A
process of its own so that its CPU is not in the client's timings.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.anthropic_server import AnthropicServer
from tests.anthropic_server import Turn as ClaudeTurn
from tests.gemini_server import GeminiServer
from tests.gemini_server import Turn as GeminiTurn

ANSWER = "The sum is 5."


def claude_reply(body: dict[str, Any]) -> ClaudeTurn:
    del body
    return ClaudeTurn(text=ANSWER)


def gemini_reply(body: dict[str, Any]) -> GeminiTurn:
    del body
    return GeminiTurn(text=ANSWER)


def main() -> None:
    claude, gemini = AnthropicServer(claude_reply), GeminiServer(gemini_reply)
    claude.start()
    gemini.start()
    print(claude.base_url, gemini.base_url, flush=True)
    try:
        sys.stdin.read()
    finally:
        claude.stop()
        gemini.stop()


if __name__ == "__main__":
    main()
