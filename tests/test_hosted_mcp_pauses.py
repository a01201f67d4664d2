"""A hosted MCP server's approval request with no `on_approval_request` pauses the run.

As in openai-agents: the run stops with the request in `result.interruptions`, and the
caller's `approve` / `reject` go back, on resume, as an `mcp_approval_response`. Runs go
through the real `openai` client to the local scripted server, which refuses a response
item the real API would refuse.
"""

from __future__ import annotations

from typing import Any

import openai
import pytest

from tooluse import (
    Agent,
    HostedMCPTool,
    ModelBehaviorError,
    Runner,
    RunResult,
    RunResultStreaming,
    RunState,
    SQLiteSession,
    ToolApprovalItem,
    function_tool,
)
from tooluse.testing import FunctionModel, ModelReply, ToolCall, current_turn

from .openai_server import Call, ScriptedServer, Turn

CONFIG: Any = {"type": "mcp", "server_label": "wiki", "server_url": "https://example.invalid/mcp"}


def asked(request_id: str, name: str = "ask_wiki_question", label: str = "wiki") -> dict[str, Any]:
    """An `mcp_approval_request` output item, as the Responses API sends it."""
    return {
        "type": "mcp_approval_request",
        "id": request_id,
        "name": name,
        "arguments": '{"repo": "openai/codex"}',
        "server_label": label,
    }


def answer(request_id: str, approve: bool, **reason: str) -> dict[str, Any]:
    return {
        "type": "mcp_approval_response",
        "approval_request_id": request_id,
        "approve": approve,
        **reason,
    }


def wiki_agent(server: ScriptedServer, *tools: Any) -> Agent[Any]:
    return Agent("a", tools=[HostedMCPTool(CONFIG), *tools], model=server.model("responses"))


async def run(
    agent: Agent[Any], given: str | RunState, streamed: bool = False, **options: Any
) -> RunResult | RunResultStreaming:
    if not streamed:
        return await Runner.run(agent, given, **options)
    result = Runner.run_streamed(agent, given, **options)
    async for _ in result.stream_events():
        pass
    return result


def sent(server: ScriptedServer, request: int = -1) -> list[dict[str, Any]]:
    """The input items of a request the server received."""
    return server.requests[request]["body"]["input"]


def resumable(result: RunResult | RunResultStreaming) -> RunState:
    """The paused run's state, through its JSON text, as another process would read it."""
    return RunState.from_json(result.to_state().to_string())


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_the_run_pauses_and_an_approval_goes_back_on_resume(
    openai_server: ScriptedServer, streamed: bool
) -> None:
    openai_server.script(Turn(items=[asked("apr_1")]), Turn(text="Rust."))
    agent = wiki_agent(openai_server)

    paused = await run(agent, "Which language?", streamed)

    (waiting,) = paused.interruptions
    assert isinstance(waiting, ToolApprovalItem)
    assert (waiting.name, waiting.call_id, waiting.item_type) == (
        "ask_wiki_question",
        "apr_1",
        "mcp_approval_request",
    )
    assert waiting.arguments == '{"repo": "openai/codex"}'
    assert waiting.raw_item == asked("apr_1")  # the request, as openai-agents' raw_item
    assert waiting.raw_item.server_label == "wiki"
    assert waiting.agent is agent
    assert paused.final_output is None
    assert len(openai_server.requests) == 1

    state = resumable(paused)
    state.approve(state.get_interruptions()[0])
    done = await run(agent, state, streamed)

    assert done.final_output == "Rust."
    assert not done.interruptions
    assert sent(openai_server)[-2:] == [asked("apr_1"), answer("apr_1", True)]
    assert [item.get("type") for item in done.to_input_list()][-2:] == [
        "mcp_approval_response",
        "message",
    ]
    assert openai_server.refused == []


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Not that repository.", answer("apr_1", False, reason="Not that repository.")),
        (None, answer("apr_1", False)),
    ],
    ids=["with-reason", "without"],
)
async def test_a_rejection_goes_back_with_the_reason_given(
    openai_server: ScriptedServer, message: str | None, expected: dict[str, Any]
) -> None:
    openai_server.script(Turn(items=[asked("apr_1")]), Turn(text="I may not ask."))
    agent = wiki_agent(openai_server)
    paused = await run(agent, "Which language?")

    state = resumable(paused)
    state.reject(paused.interruptions[0], rejection_message=message)
    done = await run(agent, state)

    assert done.final_output == "I may not ask."
    assert sent(openai_server)[-1] == expected
    assert openai_server.refused == []


async def test_always_approve_answers_the_servers_later_requests_for_that_tool(
    openai_server: ScriptedServer,
) -> None:
    @function_tool(needs_approval=True)
    def ask_wiki_question(repo: str) -> str:
        """A function tool of the MCP tool's name: a standing MCP decision is not its.

        Args:
            repo: A repository.
        """
        return repo

    openai_server.script(
        Turn(items=[asked("apr_1")]),
        Turn(items=[asked("apr_2")]),  # answered without a pause
        Turn(
            items=[asked("apr_3", name="read_wiki_structure")],
            calls=[Call("ask_wiki_question", '{"repo": "x"}', "c1")],
        ),
        Turn(text="Done."),
    )
    agent = wiki_agent(openai_server, ask_wiki_question)
    paused = await run(agent, "Which language?")
    state = resumable(paused)
    state.approve(paused.interruptions[0], always_approve=True)

    again = await run(agent, state)

    # Another tool of the server, and the function tool of the same name, wait.
    assert [(i.name, i.item_type) for i in again.interruptions] == [
        ("ask_wiki_question", "function_call"),
        ("read_wiki_structure", "mcp_approval_request"),
    ]
    assert sent(openai_server)[-1] == answer("apr_2", True)
    state = resumable(again)
    for waiting in again.interruptions:
        state.reject(waiting, always_reject=True)
    done = await run(agent, state)

    assert done.final_output == "Done."
    assert sent(openai_server)[-2:] == [
        {
            "type": "function_call_output",
            "call_id": "c1",
            "output": "Tool execution was not approved.",
        },
        answer("apr_3", False),  # after the turn's other answers, as openai-agents sends it
    ]
    assert openai_server.refused == []


async def test_other_calls_of_the_turn_wait_for_the_decision_and_answer_first(
    openai_server: ScriptedServer,
) -> None:
    ran: list[str] = []

    @function_tool
    def note(text: str) -> str:
        """Write a note.

        Args:
            text: The note.
        """
        ran.append(text)
        return "noted"

    openai_server.script(
        Turn(items=[asked("apr_1")], calls=[Call("note", '{"text": "x"}', "c1")]),
        Turn(text="Done."),
    )
    agent = wiki_agent(openai_server, note)
    paused = await run(agent, "go")

    assert [i.call_id for i in paused.interruptions] == ["apr_1"]
    assert ran == []  # nothing of the turn runs before its approvals (tooluse's rule)
    state = resumable(paused)
    state.approve(paused.interruptions[0])
    await run(agent, state)

    assert ran == ["x"]
    # The MCP answer follows the turn's other answers, as openai-agents sends it.
    assert [item["type"] for item in sent(openai_server)[-4:]] == [
        "mcp_approval_request",
        "function_call",
        "function_call_output",
        "mcp_approval_response",
    ]


async def test_a_request_of_a_server_the_agent_lacks_is_a_model_behavior_error(
    openai_server: ScriptedServer,
) -> None:
    openai_server.script(Turn(items=[asked("apr_1", label="elsewhere")]), Turn(text="?"))

    with pytest.raises(
        ModelBehaviorError, match=r"MCP server label 'elsewhere' not found.*\['wiki'\]"
    ):
        await run(wiki_agent(openai_server), "go")

    assert len(openai_server.requests) == 1


async def test_a_session_keeps_the_paused_run_and_then_the_answer(
    openai_server: ScriptedServer,
) -> None:
    openai_server.script(Turn(items=[asked("apr_1")]), Turn(text="Rust."))
    agent = wiki_agent(openai_server)
    session = SQLiteSession("chat")
    paused = await run(agent, "Which language?", session=session)
    assert [i.call_id for i in paused.interruptions] == ["apr_1"]

    state = await session.get_paused_run()
    assert state is not None
    state.approve(state.get_interruptions()[0])
    await run(agent, state, session=session)

    assert [item.get("type", "message") for item in await session.get_items()] == [
        "message",
        "mcp_approval_request",
        "mcp_approval_response",
        "message",
    ]


@pytest.mark.parametrize(
    ("item", "refusal"),
    [
        ({"approve": True}, "Missing required parameter: 'input[1].approval_request_id'."),
        (
            {"approval_request_id": "apr_1", "approve": "yes"},
            "Invalid type for 'input[1].approve'.",
        ),
        (
            {"approval_request_id": "apr_1", "approve": False, "message": "no"},
            "Unknown parameter: 'input[1].message'.",
        ),
    ],
)
async def test_the_server_refuses_a_malformed_answer_as_the_api_does(
    openai_server: ScriptedServer, item: dict[str, Any], refusal: str
) -> None:
    given = [asked("apr_1"), {"type": "mcp_approval_response", **item}]
    with pytest.raises(openai.BadRequestError):
        await openai_server.client().responses.create(model="m", input=given)  # type: ignore[arg-type]
    assert openai_server.refused == [refusal]


async def test_a_request_in_an_agent_used_as_a_tool_pauses_the_caller(
    openai_server: ScriptedServer,
) -> None:
    def desk_script(items: list[Any], tools: Any) -> ModelReply | str:
        done = [i["output"] for i in current_turn(items) if i.get("type") == "function_call_output"]
        if done:
            return f"desk: {done[0]}"
        return ModelReply(tool_calls=[ToolCall("ask_wiki", {"input": "Which language?"})])

    openai_server.script(Turn(items=[asked("apr_1")]), Turn(text="Rust."))
    wiki = wiki_agent(openai_server)
    desk = Agent(
        "desk", tools=[wiki.as_tool("ask_wiki", "Ask the wiki.")], model=FunctionModel(desk_script)
    )
    paused = await run(desk, "go")

    (waiting,) = paused.interruptions
    assert (waiting.item_type, waiting.raw_item["id"], waiting.agent.name) == (
        "mcp_approval_request",
        "apr_1",
        "a",
    )
    state = resumable(paused)
    state.reject(waiting, rejection_message="Not now.")
    done = await run(desk, state)

    assert done.final_output == "desk: Rust."
    assert sent(openai_server)[-1] == answer("apr_1", False, reason="Not now.")
