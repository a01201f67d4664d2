"""Serialising a tool for each OpenAI API, checked against the openai package's own types."""

from __future__ import annotations

from openai.types.chat import ChatCompletionFunctionToolParam
from openai.types.responses import FunctionToolParam
from pydantic import TypeAdapter

from tooluse import FunctionTool, chat_completions_tool_param, function_tool, responses_tool_param


@function_tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


async def noop(ctx: object, arguments: str) -> str:
    return arguments


def test_chat_completions_param() -> None:
    param: ChatCompletionFunctionToolParam = chat_completions_tool_param(add)
    assert param == {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add two numbers.",
            "parameters": add.params_json_schema,
            "strict": True,
        },
    }
    TypeAdapter(ChatCompletionFunctionToolParam).validate_python(param, strict=True)


def test_responses_param() -> None:
    param: FunctionToolParam = responses_tool_param(add)
    assert param == {
        "type": "function",
        "name": "add",
        "description": "Add two numbers.",
        "parameters": add.params_json_schema,
        "strict": True,
    }
    TypeAdapter(FunctionToolParam).validate_python(param, strict=True)


def test_no_description_is_left_out() -> None:
    tool = FunctionTool(
        "t", None, {"type": "object", "properties": {}}, noop, strict_json_schema=False
    )
    assert "description" not in chat_completions_tool_param(tool)["function"]
    assert "description" not in responses_tool_param(tool)
    assert responses_tool_param(tool)["strict"] is False
