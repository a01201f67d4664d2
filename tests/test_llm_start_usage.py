"""`on_llm_start` sees the requests made before the call, as in openai-agents."""

from __future__ import annotations

from typing import Any

import pytest

from tooluse import (
    Agent,
    RunConfig,
    RunContextWrapper,
    RunHooks,
    Runner,
    TResponseInputItem,
    UsageLimitExceeded,
    UsageLimits,
)
from tooluse.testing import FunctionModel, ModelReply, ToolCall, current_turn


class Counts(RunHooks[Any]):
    def __init__(self) -> None:
        self.seen: list[tuple[str, int]] = []

    async def on_llm_start(
        self, context: RunContextWrapper[Any], agent: Any, system_prompt: Any, input_items: Any
    ) -> None:
        self.seen.append(("start", context.usage.requests))

    async def on_llm_end(self, context: RunContextWrapper[Any], agent: Any, response: Any) -> None:
        self.seen.append(("end", context.usage.requests))


def _two_turns(items: list[TResponseInputItem], tools: Any) -> ModelReply | str:
    if any(i.get("type") == "function_call_output" for i in current_turn(items)):
        return "done"
    return ModelReply(tool_calls=[ToolCall("nothing", {})])


async def test_on_llm_start_sees_the_requests_before_the_call_and_on_llm_end_after() -> None:
    hooks = Counts()
    agent = Agent("a", model=FunctionModel(_two_turns))
    result = await Runner.run(agent, "go", hooks=hooks)
    assert hooks.seen == [("start", 0), ("end", 1), ("start", 1), ("end", 2)]
    assert result.context_wrapper.usage.requests == 2


async def test_the_request_limit_still_refuses_before_the_hook() -> None:
    hooks = Counts()
    agent = Agent("a", model=FunctionModel(_two_turns))
    config = RunConfig(usage_limits=UsageLimits(request_limit=1))
    with pytest.raises(UsageLimitExceeded):
        await Runner.run(agent, "go", hooks=hooks, run_config=config)
    assert hooks.seen == [("start", 0), ("end", 1)]  # no start for the refused request
