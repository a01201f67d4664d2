"""`function_tool(defer_loading=True)`: openai-agents' flag, kept, and refused where it cannot work."""

from __future__ import annotations

from typing import Any

import pytest

from tooluse import UserError, function_tool
from tooluse.models._tool_params import chat_completions_tools_params, responses_tools_params


@function_tool(defer_loading=True)
def lookup(key: str) -> str:
    """Look a key up."""
    return key


def test_the_flag_is_kept_on_the_tool() -> None:
    assert lookup.defer_loading is True
    assert function_tool(lambda: "x", name_override="plain").defer_loading is False


def test_the_responses_api_refuses_it_saying_why_and_what_to_do() -> None:
    tools: list[Any] = [lookup]
    with pytest.raises(UserError, match=r"'lookup' has defer_loading=True.*drop defer_loading"):
        responses_tools_params(tools)


def test_chat_completions_offers_it_as_any_tool() -> None:
    tools: list[Any] = [lookup]
    (param,) = chat_completions_tools_params(tools)
    assert param == {
        "type": "function",
        "function": {
            "name": "lookup",
            "description": "Look a key up.",
            "parameters": lookup.params_json_schema,
            "strict": True,
        },
    }


def test_setting_the_flag_again_on_a_built_tool_is_seen() -> None:
    def later(key: str) -> str:
        """Echo."""
        return key

    tool = function_tool(later)
    tools: list[Any] = [tool]
    assert responses_tools_params(list(tools))[0]["name"] == "later"  # offered at first
    tool.defer_loading = True
    with pytest.raises(UserError, match="defer_loading"):
        responses_tools_params(list(tools))
