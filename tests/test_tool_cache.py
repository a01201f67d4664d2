"""The tool list and tool params kept from run to run: never stale.

An agent's static tools are indexed once and its requests' tool params built
once (`_run_scope._KeptTools`, `_tool_params`); every change a later run must
see is checked here: tools added, removed or replaced (in place or by
assigning the list), an offered field set again on a tool, `is_enabled`
functions (asked every run), toolsets, handoffs, clones, `tool_use_behavior`
and approvals.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest

from tooluse import (
    Agent,
    FileSearchTool,
    FunctionTool,
    RunContextWrapper,
    Runner,
    TResponseInputItem,
    UserError,
    function_tool,
)
from tooluse.models._tool_params import (
    chat_completions_tools_params,
    includes_search_results,
    responses_tools_params,
)

from .scripted import ScriptModel, call, text


def make_tool(name: str) -> FunctionTool:
    def tool(x: int) -> str:
        """Say which tool ran.

        Args:
            x: A number.
        """
        return f"{name} {x}"

    return function_tool(tool, name_override=name)


def offered(model: ScriptModel) -> list[list[str]]:
    """The tool names offered in each request the model received."""
    return [request["tools"] for request in model.requests]


async def run_once(agent: Agent[Any], *turns: list[TResponseInputItem]) -> Any:
    model = ScriptModel(*turns) if turns else ScriptModel([text("done")])
    agent.model = model
    result = await Runner.run(agent, "go")
    return result, model


async def offered_once(agent: Agent[Any]) -> list[str]:
    _, model = await run_once(agent)
    return offered(model)[0]


async def test_a_tool_appended_in_place_is_offered_next_run() -> None:
    tools: list[Any] = [make_tool("a")]
    agent = Agent("bot", tools=tools)
    assert await offered_once(agent) == ["a"]
    tools.append(make_tool("b"))
    assert await offered_once(agent) == ["a", "b"]


async def test_a_tool_removed_in_place_or_by_assignment_is_not_offered() -> None:
    agent = Agent("bot", tools=[make_tool("a"), make_tool("b"), make_tool("c")])
    assert await offered_once(agent) == ["a", "b", "c"]
    del agent.tools[1]  # type: ignore[attr-defined]
    assert await offered_once(agent) == ["a", "c"]
    agent.tools = [agent.tools[0]]
    assert await offered_once(agent) == ["a"]


async def test_a_replaced_tool_is_the_one_called() -> None:
    agent = Agent("bot", tools=[make_tool("a")])
    await offered_once(agent)
    agent.tools[0] = make_tool("a")  # type: ignore[index] # same name, another function
    replaced = agent.tools[0]

    def other(x: int) -> str:
        """Another.

        Args:
            x: A number.
        """
        return f"other {x}"

    agent.tools[0] = function_tool(other, name_override="a")  # type: ignore[index]
    assert agent.tools[0] is not replaced
    result, _ = await run_once(agent, [call("c1", "a", {"x": 1})], [text("done")])
    assert result.new_items[1]["output"] == "other 1"


async def test_a_renamed_tool_is_offered_and_called_by_its_new_name() -> None:
    tool = make_tool("a")
    agent = Agent("bot", tools=[tool])
    assert await offered_once(agent) == ["a"]
    tool.name = "renamed"
    result, model = await run_once(agent, [call("c1", "renamed", {"x": 2})], [text("done")])
    assert offered(model)[0] == ["renamed"]
    assert result.new_items[1]["output"] == "a 2"


async def test_is_enabled_set_to_false_then_back_is_seen() -> None:
    tool = make_tool("a")
    agent = Agent("bot", tools=[tool, make_tool("b")])
    assert await offered_once(agent) == ["a", "b"]
    tool.is_enabled = False
    assert await offered_once(agent) == ["b"]
    tool.is_enabled = True
    assert await offered_once(agent) == ["a", "b"]


async def test_an_is_enabled_function_is_asked_every_run() -> None:
    asked: list[int] = []

    def enabled(context: RunContextWrapper[Any], agent: Any) -> bool:
        asked.append(context.context)
        return context.context == 1

    tool = replace(make_tool("a"), is_enabled=enabled)
    agent = Agent("bot", tools=[tool, make_tool("b")])
    for context, expected in ((1, ["a", "b"]), (2, ["b"]), (1, ["a", "b"])):
        agent.model = model = ScriptModel([text("done")])
        await Runner.run(agent, "go", context=context)
        assert offered(model)[0] == expected
    assert asked == [1, 2, 1]


async def test_a_toolset_is_listed_every_turn() -> None:
    class Changing:
        def __init__(self) -> None:
            self.tools = [make_tool("t1")]

        async def list_tools(self, context: RunContextWrapper[Any], agent: Any) -> list[Any]:
            listed = list(self.tools)
            self.tools.append(make_tool(f"t{len(self.tools) + 1}"))
            return listed

    agent = Agent("bot", tools=[make_tool("a"), Changing()])
    _, model = await run_once(agent, [call("c1", "a", {"x": 1})], [text("done")])
    assert offered(model) == [["a", "t1"], ["a", "t1", "t2"]]
    assert await offered_once(agent) == ["a", "t1", "t2", "t3"]


async def test_handoffs_changed_between_runs_are_offered() -> None:
    agent = Agent("bot", tools=[make_tool("a")])
    assert await offered_once(agent) == ["a"]
    agent.handoffs = [Agent("helper")]
    assert await offered_once(agent) == ["a", "transfer_to_helper"]
    agent.handoffs = []
    assert await offered_once(agent) == ["a"]


async def test_a_clone_offers_its_own_tools_and_leaves_the_original() -> None:
    agent = Agent("bot", tools=[make_tool("a")])
    assert await offered_once(agent) == ["a"]
    clone = agent.clone(tools=[make_tool("b")])
    assert await offered_once(clone) == ["b"]
    assert await offered_once(agent) == ["a"]
    shallow = copy.copy(agent)  # shares what the agent kept: checked against its own tools
    shallow.tools = [make_tool("c")]
    assert await offered_once(shallow) == ["c"]
    assert await offered_once(agent) == ["a"]


async def test_tool_use_behavior_changed_between_runs_is_followed() -> None:
    agent = Agent("bot", tools=[make_tool("a")])
    result, _ = await run_once(agent, [call("c1", "a", {"x": 1})], [text("done")])
    assert result.final_output == "done"
    agent.tool_use_behavior = "stop_on_first_tool"
    result, _ = await run_once(agent, [call("c1", "a", {"x": 1})], [text("done")])
    assert result.final_output == "a 1"


async def test_needs_approval_set_between_runs_is_followed() -> None:
    tool = make_tool("a")
    agent = Agent("bot", tools=[tool])
    result, _ = await run_once(agent, [call("c1", "a", {"x": 1})], [text("done")])
    assert not result.interruptions
    tool.needs_approval = True
    result, _ = await run_once(agent, [call("c1", "a", {"x": 1})], [text("done")])
    assert [approval.tool_name for approval in result.interruptions] == ["a"]


async def test_two_tools_given_one_name_later_are_refused() -> None:
    first, second = make_tool("a"), make_tool("b")
    agent = Agent("bot", tools=[first, second])
    assert await offered_once(agent) == ["a", "b"]
    second.name = "a"
    with pytest.raises(UserError, match="more than one tool named"):
        await offered_once(agent)


@pytest.mark.parametrize("build", [chat_completions_tools_params, responses_tools_params])
def test_params_follow_a_field_set_on_a_tool(build: Any) -> None:
    tool = make_tool("a")
    tools: list[Any] = [tool, make_tool("b")]

    def first() -> dict[str, Any]:
        param = build(list(tools))[0]
        return param.get("function", param)

    assert first()["name"] == "a"
    changes: list[tuple[str, Any]] = [
        ("name", "renamed"),
        ("description", "Now this."),
        ("params_json_schema", {"type": "object", "properties": {}}),
        ("strict_json_schema", False),
    ]
    for field, value in changes:
        setattr(tool, field, value)
        key = {"params_json_schema": "parameters", "strict_json_schema": "strict"}.get(field, field)
        assert first()[key] == value


@pytest.mark.parametrize("build", [chat_completions_tools_params, responses_tools_params])
def test_params_follow_tools_added_and_replaced(build: Any) -> None:
    tools: list[Any] = [make_tool("a")]
    assert len(build(list(tools))) == 1
    tools.append(make_tool("b"))
    assert len(build(list(tools))) == 2
    tools[1] = make_tool("c")
    names = [p.get("function", p)["name"] for p in build(list(tools))]
    assert names == ["a", "c"]


def test_params_lists_are_new_each_time() -> None:
    tools: list[Any] = [make_tool("a")]
    params = responses_tools_params(list(tools))
    params.append({"type": "web_search"})
    assert len(responses_tools_params(list(tools))) == 1


def test_namespace_set_on_a_tool_regroups_the_params() -> None:
    tool = make_tool("a")
    tools: list[Any] = [tool]
    assert responses_tools_params(list(tools))[0]["type"] == "function"
    tool.namespace, tool.namespace_description = "crm", "CRM tools."
    grouped = responses_tools_params(list(tools))[0]
    assert (grouped["type"], grouped["description"]) == ("namespace", "CRM tools.")


def test_a_hosted_tool_changed_in_place_is_serialised_again() -> None:
    search = FileSearchTool(vector_store_ids=["vs_1"])
    tools: list[Any] = [make_tool("a"), search]
    assert responses_tools_params(list(tools))[1]["vector_store_ids"] == ["vs_1"]
    assert not includes_search_results(tools)
    search.vector_store_ids = ["vs_2"]
    search.include_search_results = True
    assert responses_tools_params(list(tools))[1]["vector_store_ids"] == ["vs_2"]
    assert includes_search_results(tools)


def test_chat_still_refuses_a_hosted_tool() -> None:
    tools: list[Any] = [make_tool("a"), FileSearchTool(vector_store_ids=["vs_1"])]
    with pytest.raises(UserError, match="works only with the Responses API"):
        chat_completions_tools_params(tools)


def test_building_a_tool_does_not_count_as_a_change() -> None:
    from tooluse.tools._changes import changes

    before = changes()
    tool = make_tool("a")
    replace(tool, description="Other.")
    FunctionTool("hand", "By hand.", {"type": "object", "properties": {}}, tool.on_invoke_tool)
    assert changes() == before
    tool.description = "Changed."
    assert changes() == before + 1


@pytest.mark.parametrize("build", [chat_completions_tools_params, responses_tools_params])
def test_params_of_no_tools_or_a_tuple_are_built_each_time(build: Any) -> None:
    assert build([]) == []
    tool = make_tool("a")
    first = build((tool,))
    tool.description = "Changed."
    assert first != build((tool,))
