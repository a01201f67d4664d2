"""Agents for tests/test_chat.py, loaded as `tooluse chat tests/chat_agents.py:NAME`.

`assistant` answers by script: `slow` calls a tool that waits 30 s (for Ctrl-C),
`interrupt` sends this process SIGINT while the model "thinks", `transfer` hands
off to `helper`, `boom` fails, anything else is echoed. `named` names its model,
so without a key the chat runs it on TestModel. Three agents are no handoff
target: naming none is ambiguous.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Sequence
from typing import Any

from tooluse import Agent, TResponseInputItem, function_tool
from tooluse.testing import FunctionModel, ModelReply, ToolCall


@function_tool
async def wait(seconds: float) -> str:
    """Wait a while.

    Args:
        seconds: How long.
    """
    await asyncio.sleep(seconds)
    return f"waited {seconds} s"


async def _script(items: list[TResponseInputItem], tools: Sequence[Any]) -> ModelReply | str:
    users = [i for i, item in enumerate(items) if item.get("role") == "user"]
    last = items[users[-1]]["content"]
    answered = any(item.get("type") == "function_call_output" for item in items[users[-1] :])
    if last == "slow" and not answered:
        return ModelReply(tool_calls=[ToolCall("wait", {"seconds": 30})])
    if last == "transfer" and not answered:
        return ModelReply(tool_calls=[ToolCall("transfer_to_helper", {})])
    if last == "interrupt":
        os.kill(os.getpid(), signal.SIGINT)
        await asyncio.sleep(30)
    if last == "boom":
        raise RuntimeError("the model broke\non two lines")
    return f"echo: {last}"


helper = Agent("helper", model=FunctionModel(lambda items, tools: "helper here"))
assistant = Agent("assistant", model=FunctionModel(_script), tools=[wait], handoffs=[helper])
named = Agent("named", model="gpt-4.1-mini", tools=[wait])
spare = Agent("spare")
