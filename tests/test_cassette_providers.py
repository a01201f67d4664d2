"""Cassettes on Claude and Gemini: a run through `AnthropicModel` or `GeminiModel`, with
the official SDK talking to the local wire-format server, is recorded once and replays
with the server stopped to an equal result, plain and streamed.

The cassette holds the neutral `ModelResponse` and stream events, never SDK objects, so
the same `RecordingModel` and `ReplayModel` serve every provider.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tooluse.models import Model
from tooluse.testing import RecordingModel, ReplayModel

from .anthropic_server import AnthropicServer, Use
from .anthropic_server import Turn as ClaudeTurn
from .gemini_server import FunctionCall, GeminiServer
from .gemini_server import Turn as GeminiTurn
from .test_cassettes import (
    agent_with,
    assert_two_weather_calls,
    event_shapes,
    run,
    usage_without_durations,
)

ANSWER = "Sunny and 21 in Paris."


def claude() -> tuple[AnthropicServer, Model]:
    server = AnthropicServer()
    server.script(ClaudeTurn(uses=[Use("get_weather", {"city": "Paris"})]), ClaudeTurn(text=ANSWER))
    return server, server.model()


def gemini() -> tuple[GeminiServer, Model]:
    server = GeminiServer()
    server.script(
        GeminiTurn(calls=[FunctionCall("get_weather", {"city": "Paris"})]),
        GeminiTurn(text=ANSWER),
    )
    return server, server.model()


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("provider", [claude, gemini], ids=["anthropic", "gemini"])
async def test_a_recorded_provider_run_replays_with_no_server_to_an_equal_result(
    tmp_path: Path, provider: Any, streamed: bool
) -> None:
    path = tmp_path / "weather.jsonl"
    server, model = provider()
    server.start()
    try:
        recorded, recorded_events = await run(agent_with(RecordingModel(model, path)), streamed)
    finally:
        server.stop()  # no network from here on: the replay has nothing to reach
    assert len(server.requests) == 2
    assert recorded.final_output == ANSWER

    replayed, replayed_events = await run(agent_with(ReplayModel(path)), streamed)

    assert replayed.final_output == ANSWER
    assert replayed.to_input_list() == recorded.to_input_list()
    assert usage_without_durations(replayed) == usage_without_durations(recorded)
    assert event_shapes(replayed_events) == event_shapes(recorded_events)
    assert len(server.requests) == 2
    assert_two_weather_calls(path, streamed)
    assert "test-key" not in path.read_text()  # the SDK's API key is never written
