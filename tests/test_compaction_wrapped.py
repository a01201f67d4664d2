"""The compaction model goes through the test's model wrapper, as the agent's model does.

A cassette (or the docs' Claude relay) wraps every model a run calls; a summary written
by a compaction model is one of those calls.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from tooluse import Agent, RunConfig, Runner
from tooluse.models import Model, ModelRequest, ModelResponse, StreamEvent
from tooluse.run._model_wrapper import model_wrapper

from .test_context import SUMMARISE, compacting, page, scripted_reader


class Noting(Model):
    """Calls the model it wraps, noting its name."""

    def __init__(self, inner: Model, seen: list[str]) -> None:
        self.inner, self.seen = inner, seen

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        self.seen.append(getattr(self.inner, "model", "?"))
        return await self.inner.get_response(request)

    async def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        async for event in self.inner.stream_response(request):
            yield event


async def test_the_compaction_model_is_wrapped_like_the_agents() -> None:
    model, sent = scripted_reader(8)
    calls: list[str] = []
    seen: list[str] = []
    policy = compacting(calls, compaction_instructions=SUMMARISE)
    agent = Agent(name="a", tools=[page], model=model)
    token = model_wrapper.set(lambda inner: Noting(inner, seen))
    try:
        result = await Runner.run(agent, "go", run_config=RunConfig(context=policy))
    finally:
        model_wrapper.reset(token)
    assert result.final_output == "done"
    assert calls  # the summariser ran, and each of its calls went through the wrapper
    assert seen.count("function:summarise") == len(calls)
    assert seen.count("function:reply") == len(sent)
