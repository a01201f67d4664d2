"""`await RunState.from_json(agent, data)`: openai-agents' form, beside tooluse's own."""

from __future__ import annotations

import json

import pytest

from tooluse import Agent, RunContextWrapper, Runner, RunState, UserError, function_tool
from tooluse.core._items import Item
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
    data = result.to_state().to_json()
    ours = RunState.from_json(json.dumps(data))
    theirs = await RunState.from_json(agent, data)
    assert theirs == ours
    assert [i.tool_name for i in theirs.get_interruptions()] == ["delete"]


def test_a_wrong_number_of_arguments_is_refused() -> None:
    with pytest.raises(UserError, match="takes the JSON"):
        RunState.from_json()  # pyright: ignore[reportCallIssue]


async def test_context_override_is_the_context_a_run_resumed_from_the_state_gets() -> None:
    seen: list[object] = []

    @function_tool(needs_approval=True)
    def remember(ctx: RunContextWrapper[dict[str, str]], note: str) -> str:
        """Remember a note for the user."""
        seen.append(ctx.context)
        return f"kept {note}"

    def reply(items: list[Item], tools: object) -> ModelReply | str:
        if any(item.get("type") == "function_call_output" for item in items):
            return "done"
        return ModelReply(tool_calls=[ToolCall("remember", {"note": "n"})])

    agent = Agent("notes", tools=[remember], model=FunctionModel(reply))
    paused = await Runner.run(agent, "remember n", context={"user_id": "101"})
    stored = paused.to_state().to_string()  # to another process: the context is not in it
    assert "101" not in stored
    state = await RunState.from_json(agent, stored, context_override={"user_id": "104"})
    state.approve(state.get_interruptions()[0])
    assert (await Runner.run(agent, state)).final_output == "done"
    assert seen == [{"user_id": "104"}]


async def test_a_context_the_json_cannot_hold_is_refused_with_what_to_pass() -> None:
    state = RunState(agent_name="a", input=[])
    with pytest.raises(UserError, match=r"context_deserializer has nothing to read.*override"):
        await RunState.from_json("a", state.to_json(), context_deserializer=dict)
    with pytest.raises(UserError, match=r"strict_context=True.*context_override=\.\.\."):
        await RunState.from_string("a", state.to_string(), strict_context=True)
    with pytest.raises(UserError, match="and the context keywords"):
        RunState.from_json(state.to_json(), context_override={})  # pyright: ignore[reportCallIssue]
