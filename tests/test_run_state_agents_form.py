"""`await RunState.from_json(agent, data)`: openai-agents' form, beside tooluse's own."""

from __future__ import annotations

import json

import pytest

from tooluse import Agent, Runner, RunState, UserError, function_tool
from tooluse.testing import FunctionModel, ModelReply, ToolCall


@function_tool(needs_approval=True)
def delete(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


async def test_both_forms_give_the_same_state_and_the_run_resumes() -> None:
    model = FunctionModel(
        lambda items, tools: ModelReply(tool_calls=[ToolCall("delete", {"path": "a"})])
    )
    agent = Agent("files", tools=[delete], model=model)
    result = await Runner.run(agent, "delete a")
    data = json.loads(result.to_state().to_json())
    ours = RunState.from_json(json.dumps(data))
    theirs = await RunState.from_json(agent, data)
    assert theirs == ours
    assert [i.tool_name for i in theirs.get_interruptions()] == ["delete"]


def test_a_wrong_number_of_arguments_is_refused() -> None:
    with pytest.raises(UserError, match="takes the JSON"):
        RunState.from_json()  # pyright: ignore[reportCallIssue]
