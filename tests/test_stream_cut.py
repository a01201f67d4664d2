"""A connection cut in the middle of a stream, on every `openai` version allowed.

The server stops a chunked stream mid-body (no terminal event, no last chunk), so the
HTTP library under the `openai` client raises its own protocol error, which some
`openai` versions let through as it is. Either way the model's edge makes it a lost
connection (`ModelTransportError`, retryable), and the run stops with `ModelAPIError`
that keeps the conversation. CI runs this file on the lowest `openai` too (`.ci/run`).
"""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest

from tooluse import Agent, RetryPolicy, RunConfig, Runner
from tooluse.exceptions import ModelAPIError
from tooluse.models import OpenAIChatCompletionsModel, OpenAIResponsesModel

from .openai_server import ScriptedServer, Turn


@pytest.fixture
def kept_alive() -> Iterator[ScriptedServer]:
    server = ScriptedServer(keep_alive=True)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def agent_on(api: str, client: openai.AsyncOpenAI) -> Agent[None]:
    if api == "responses":
        return Agent("a", model=OpenAIResponsesModel("test-model", client))
    return Agent("a", model=OpenAIChatCompletionsModel("test-model", client))


async def streamed(agent: Agent[None], config: RunConfig) -> object:
    result = Runner.run_streamed(agent, "Say hello", run_config=config)
    async for _ in result.stream_events():
        pass
    return result.final_output


@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_a_stream_cut_with_no_retry_left_keeps_the_conversation(
    kept_alive: ScriptedServer, api: str
) -> None:
    kept_alive.script(Turn(text="Hel", ends_early=True, cut=True))
    async with kept_alive.client() as client:
        agent = agent_on(api, client)
        with pytest.raises(ModelAPIError) as raised:
            await streamed(agent, RunConfig(retry_policy=RetryPolicy(max_retries=0)))
    error = raised.value
    assert error.items[0].get("content") == "Say hello"
    assert error.state is not None
    assert error.status_code is None  # no answer: the connection was lost
