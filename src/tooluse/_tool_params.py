"""What the model sees of a function tool, in each OpenAI API's request format."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._function_tool import FunctionTool

if TYPE_CHECKING:  # types only: importing openai costs 0.3 s, paid at the first model call
    from openai.types.chat import ChatCompletionFunctionToolParam
    from openai.types.responses import FunctionToolParam
    from openai.types.shared_params import FunctionDefinition

__all__ = ["chat_completions_tool_param", "responses_tool_param"]


def chat_completions_tool_param(tool: FunctionTool) -> ChatCompletionFunctionToolParam:
    """Serialise a tool for the Chat Completions API's `tools` list.

    Args:
        tool: The tool to offer.

    Returns:
        `{"type": "function", "function": {"name", "description", "parameters", "strict"}}`.
    """
    function: FunctionDefinition = {"name": tool.name}
    if tool.description is not None:
        function["description"] = tool.description
    function["parameters"] = tool.params_json_schema
    function["strict"] = tool.strict_json_schema
    return {"type": "function", "function": function}


def responses_tool_param(tool: FunctionTool) -> FunctionToolParam:
    """Serialise a tool for the Responses API's `tools` list.

    Args:
        tool: The tool to offer.

    Returns:
        `{"type": "function", "name", "description", "parameters", "strict"}`.
    """
    param: FunctionToolParam = {"type": "function", "name": tool.name}  # type: ignore[typeddict-item]
    if tool.description is not None:
        param["description"] = tool.description
    param["parameters"] = tool.params_json_schema
    param["strict"] = tool.strict_json_schema
    return param
