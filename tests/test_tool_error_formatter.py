"""`RunConfig(tool_error_formatter=...)`: one function words a run's tool errors."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from tooluse import (
    Agent,
    RunConfig,
    Runner,
    ToolErrorFormatterArgs,
    TResponseInputItem,
    function_tool,
)
from tooluse.testing import FunctionModel, ModelReply, ToolCall, current_turn


@function_tool(needs_approval=True)
def publish(title: str) -> str:
    """Publish an announcement."""
    return f"published {title}"


@function_tool
def explode(secret: str) -> str:
    """Fail, with the argument in the message."""
    raise ValueError(f"bad {secret}")


@function_tool(failure_error_function=lambda ctx, error: "my own words")
def explode_own(secret: str) -> str:
    """Fail, with a failure function of its own."""
    raise ValueError(f"bad {secret}")


def _agent(name: str, arguments: dict[str, Any], *tools: Any) -> Agent[Any]:
    def script(items: list[TResponseInputItem], offered: Any) -> ModelReply | str:
        outputs = [i for i in current_turn(items) if i.get("type") == "function_call_output"]
        if outputs:
            return f"told: {outputs[-1]['output']}"
        return ModelReply(tool_calls=[ToolCall(name, arguments)])

    return Agent("ops", tools=list(tools), model=FunctionModel(script))


def _recording(answer: str | None) -> tuple[list[ToolErrorFormatterArgs[Any]], Any]:
    seen: list[ToolErrorFormatterArgs[Any]] = []

    async def formatter(args: ToolErrorFormatterArgs[Any]) -> str | None:
        seen.append(args)
        return answer

    return seen, formatter


async def test_a_rejection_without_a_message_is_worded_by_the_formatter() -> None:
    seen, formatter = _recording("Publishing was cancelled.")
    config = RunConfig(tool_error_formatter=formatter)
    agent = _agent("publish", {"title": "t"}, publish)
    result = await Runner.run(agent, "publish", run_config=config)
    state = result.to_state()
    state.reject(result.interruptions[0])
    result = await Runner.run(agent, state, run_config=config)
    assert result.final_output == "told: Publishing was cancelled."
    (args,) = seen
    assert (args.kind, args.tool_name, args.tool_type) == (
        "approval_rejected",
        "publish",
        "function",
    )
    assert args.default_message == "Tool execution was not approved."
    assert args.call_id
    assert args.error is None


async def test_a_rejection_message_of_the_humans_wins_over_the_formatter() -> None:
    seen, formatter = _recording("Publishing was cancelled.")
    config = RunConfig(tool_error_formatter=formatter)
    agent = _agent("publish", {"title": "t"}, publish)
    result = await Runner.run(agent, "publish", run_config=config)
    state = result.to_state()
    state.reject(result.interruptions[0], rejection_message="Not today.")
    result = await Runner.run(agent, state, run_config=config)
    assert result.final_output == "told: Not today."
    assert seen == []


async def test_an_unknown_tool_is_worded_by_the_formatter() -> None:
    seen, formatter = _recording(None)  # None keeps the default text
    agent = _agent("nope", {}, publish)
    result = await Runner.run(agent, "x", run_config=RunConfig(tool_error_formatter=formatter))
    (args,) = seen
    assert args.kind == "tool_not_found"
    assert result.final_output == f"told: {args.default_message}"


async def test_a_raising_tool_is_worded_by_the_formatter_with_the_error() -> None:
    seen, formatter = _recording("That failed; try another title.")
    agent = _agent("explode", {"secret": "s3cret"}, explode)
    result = await Runner.run(agent, "x", run_config=RunConfig(tool_error_formatter=formatter))
    assert result.final_output == "told: That failed; try another title."
    (args,) = seen
    assert args.kind == "tool_exception"
    assert isinstance(args.error, ValueError)
    assert "s3cret" not in args.default_message  # the default stays value-free


async def test_a_tool_with_its_own_failure_function_is_not_formatted() -> None:
    seen, formatter = _recording("formatted")
    agent = _agent("explode_own", {"secret": "s"}, explode_own)
    result = await Runner.run(agent, "x", run_config=RunConfig(tool_error_formatter=formatter))
    assert result.final_output == "told: my own words"
    assert seen == []


async def test_a_broken_formatter_keeps_the_default_and_logs_no_message(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(args: ToolErrorFormatterArgs[Any]) -> str:
        raise RuntimeError("formatter leaked s3cret")

    agent = _agent("explode", {"secret": "s3cret"}, explode)
    with caplog.at_level(logging.ERROR, logger="tooluse"):
        result = await Runner.run(agent, "x", run_config=RunConfig(tool_error_formatter=broken))
    assert "explode" in result.final_output
    assert "s3cret" not in result.final_output
    assert "RuntimeError" in caplog.text
    assert "s3cret" not in caplog.text


async def test_new_items_is_a_list_as_in_openai_agents() -> None:
    agent = _agent("explode", {"secret": "s"}, explode)
    result = await Runner.run(agent, "x")
    assert isinstance(result.new_items, list)
    assert [item.type for item in result.new_items] == [
        "tool_call_item",
        "tool_call_output_item",
        "message_output_item",
    ]
    assert result.new_items[-1] in result.new_items
    assert next(reversed(result.new_items)).type == "message_output_item"
