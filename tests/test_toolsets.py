"""Toolsets: tools listed turn by turn, entered once a run, filtered, prefixed and renamed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from tooluse import (
    Agent,
    FilteredToolset,
    FunctionTool,
    PrefixedToolset,
    RenamedToolset,
    RunContextWrapper,
    Runner,
    Toolset,
    UserError,
    WebSearchTool,
    function_tool,
    handoff,
)

from .scripted import ScriptModel, call, outputs, text


@function_tool
def search(query: str) -> str:
    """Search.

    Args:
        query: What to look for.
    """
    return f"found {query}"


@function_tool
def fetch(url: str) -> str:
    """Fetch a page.

    Args:
        url: The page.
    """
    return f"page {url}"


class Server:
    """A toolset that connects on entry, like an MCP server, and counts what happens."""

    def __init__(self, tools: Sequence[Any]) -> None:
        self.tools = list(tools)
        self.listed = 0
        self.entered = 0
        self.exited = 0

    async def list_tools(self, context: RunContextWrapper[Any], agent: Any) -> list[Any]:
        assert self.entered > self.exited, "listed while not connected"
        self.listed += 1
        return self.tools

    async def __aenter__(self) -> Server:
        self.entered += 1
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.exited += 1


def test_a_toolset_is_a_toolset() -> None:
    assert isinstance(Server([]), Toolset)
    assert not isinstance(search, Toolset)


async def test_a_toolset_is_listed_each_turn_and_entered_once_a_run() -> None:
    server = Server([search])
    model = ScriptModel([call("c1", "search", {"query": "q"})], [text("done")])
    result = await Runner.run(Agent("a", tools=[fetch, server], model=model), "go")
    assert result.final_output == "done"
    assert (server.listed, server.entered, server.exited) == (2, 1, 1)
    assert model.requests[0]["tools"] == ["fetch", "search"]
    assert outputs(model.requests[1]) == {"c1": "found q"}


async def test_a_toolset_is_left_when_the_run_fails() -> None:
    server = Server([search])

    def boom(context: RunContextWrapper[Any], agent: Agent[Any]) -> str:
        raise RuntimeError("no instructions")

    with pytest.raises(RuntimeError):
        await Runner.run(Agent("a", instructions=boom, tools=[server], model=ScriptModel()), "go")
    assert (server.entered, server.exited) == (1, 1)


async def test_the_toolsets_of_an_agent_taking_over_are_entered_when_it_does() -> None:
    server = Server([search])
    model = ScriptModel(
        [call("h", "transfer_to_researcher")],
        [call("c1", "search", {"query": "q"})],
        [text("done")],
    )
    researcher = Agent("researcher", tools=[server], model=model)
    triage = Agent("triage", handoffs=[handoff(researcher)], model=model)
    result = await Runner.run(triage, "go")
    assert result.final_output == "done"
    assert (server.entered, server.exited, server.listed) == (1, 1, 2)


async def test_filtered_toolset() -> None:
    def for_admins(ctx: RunContextWrapper[dict[str, bool]], agent: Any, tool: Any) -> bool:
        return ctx.context["admin"] or tool.name != "fetch"

    async def also_async(ctx: RunContextWrapper[Any], agent: Any, tool: Any) -> bool:
        return True

    filtered = FilteredToolset(FilteredToolset([search, fetch], for_admins), also_async)
    model = ScriptModel([text("a")], [text("b")])
    agent = Agent("a", tools=[filtered], model=model)
    await Runner.run(agent, "go", context={"admin": False})
    await Runner.run(agent, "go", context={"admin": True})
    assert [r["tools"] for r in model.requests] == [["search"], ["search", "fetch"]]


async def test_prefixed_and_renamed_toolsets_call_the_right_tools_under_their_new_names() -> None:
    docs = PrefixedToolset(Server([search, WebSearchTool()]), "docs")
    web = RenamedToolset([search, fetch], {"search": "web_search_pages"})
    model = ScriptModel(
        [
            call("c1", "docs_search", {"query": "a"}),
            call("c2", "web_search_pages", {"query": "b"}),
            call("c3", "fetch", {"url": "u"}),
            call("c4", "docs_search", {"query": 1}),
        ],
        [text("done")],
    )
    await Runner.run(Agent("a", tools=[docs, web], model=model), "go")
    assert model.requests[0]["tools"] == [
        "docs_search", "WebSearchTool", "web_search_pages", "fetch",
    ]  # fmt: skip
    assert outputs(model.requests[1]) == {
        "c1": "found a",
        "c2": "found b",
        "c3": "page u",
        "c4": "Tool 'docs_search' was called with invalid arguments:\n"
        "- query: Input should be a valid string\n"
        "Call 'docs_search' again with corrected arguments.",
    }
    assert search.name == "search"  # the original is untouched


async def test_two_tools_with_one_name_are_refused_with_a_way_out() -> None:
    clash = function_tool(name_override="search")(lambda query: query)  # pyright: ignore[reportUnknownLambdaType, reportUnknownArgumentType]
    agent = Agent("a", tools=[search, Server([clash])], model=ScriptModel())
    with pytest.raises(
        UserError, match=r"Agent 'a' offers more than one tool named search: .*PrefixedToolset"
    ):
        await Runner.run(agent, "go")


async def test_a_toolset_listing_something_else_is_a_clear_error() -> None:
    def plain(x: int) -> int:
        return x

    agent = Agent("a", tools=[Server([plain])], model=ScriptModel())
    with pytest.raises(
        UserError,
        match=r"Server.list_tools\(\) returned the function .*plain: a toolset lists FunctionTools and hosted tools only",
    ):
        await Runner.run(agent, "go")


def test_wrappers_check_their_tools() -> None:
    with pytest.raises(UserError, match="FilteredToolset has tools that are not tools"):
        FilteredToolset([print], lambda ctx, agent, tool: True)  # pyright: ignore[reportArgumentType, reportUnknownLambdaType]


async def test_is_enabled_applies_to_toolset_tools() -> None:
    hidden: FunctionTool = function_tool(name_override="hidden", is_enabled=False)(lambda: "x")  # pyright: ignore[reportUnknownLambdaType]
    model = ScriptModel([text("a")])
    await Runner.run(Agent("a", tools=[PrefixedToolset([hidden, search], "p")], model=model), "go")
    assert model.requests[0]["tools"] == ["p_search"]


async def test_a_wrapper_enters_and_lists_the_toolsets_in_its_list() -> None:
    server = Server([search])
    model = ScriptModel([call("c1", "x_search", {"query": "q"})], [text("done")])
    tools = PrefixedToolset([fetch, FilteredToolset([server], lambda ctx, agent, tool: True)], "x")  # pyright: ignore[reportUnknownLambdaType]
    await Runner.run(Agent("a", tools=[tools], model=model), "go")
    assert model.requests[0]["tools"] == ["x_fetch", "x_search"]
    assert outputs(model.requests[1]) == {"c1": "found q"}
    assert (server.entered, server.exited) == (1, 1)


async def test_a_toolset_shared_by_two_agents_and_wrapped_is_entered_once() -> None:
    server = Server([search])
    model = ScriptModel([call("h", "transfer_to_specialist")], [text("done")])
    specialist = Agent(
        "specialist",
        tools=[
            FilteredToolset(server, lambda ctx, agent, tool: True),
            PrefixedToolset(server, "x"),
        ],  # pyright: ignore[reportUnknownLambdaType]
        model=model,
    )
    triage = Agent("triage", tools=[server], handoffs=[specialist], model=model)
    await Runner.run(triage, "go")
    assert (server.entered, server.exited) == (1, 1)
    assert model.requests[1]["tools"] == ["search", "x_search"]


async def test_a_sync_list_tools_is_fine_and_a_wrong_return_is_named() -> None:
    class Plain:
        def list_tools(self, context: Any, agent: Any) -> Any:
            return [search]

    class Broken:
        async def list_tools(self, context: Any, agent: Any) -> Any:
            return search

    model = ScriptModel([text("a")])
    await Runner.run(Agent("a", tools=[Plain()], model=model), "go")  # pyright: ignore[reportArgumentType]
    assert model.requests[0]["tools"] == ["search"]
    with pytest.raises(
        UserError,
        match=r"Broken.list_tools\(\) returned a FunctionTool 'search': return a list of tools",
    ):
        await Runner.run(Agent("a", tools=[Broken()], model=ScriptModel()), "go")
