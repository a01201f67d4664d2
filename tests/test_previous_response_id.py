"""`previous_response_id`: runs continuing a conversation the Responses API keeps.

Runs go through the real `openai` client to the local scripted server, which records
each request's body: a continuing run sends only what the server does not hold yet.
"""

from __future__ import annotations

from typing import Any

import pytest

from tooluse import (
    Agent,
    ContextPolicy,
    RunConfig,
    Runner,
    RunResult,
    RunState,
    function_tool,
    handoff,
)
from tooluse.exceptions import UserError
from tooluse.sessions import SQLiteSession

from .openai_server import Call, ScriptedServer, Turn

plain_and_streamed = pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])


@function_tool(needs_approval=True)
def lookup(city: str) -> str:
    """Look a city up.

    Args:
        city: The city.
    """
    return f"{city}: 12 million people"


async def run(agent: Agent[Any], input: Any, streamed: bool, **options: Any) -> RunResult:
    if not streamed:
        return await Runner.run(agent, input, **options)
    result = Runner.run_streamed(agent, input, **options)
    async for _ in result.stream_events():
        pass
    return result


def inputs(server: ScriptedServer) -> list[tuple[str | None, list[Any]]]:
    """Each request's `previous_response_id` and input."""
    return [
        (request["body"].get("previous_response_id"), request["body"]["input"])
        for request in server.requests
    ]


@plain_and_streamed
async def test_the_next_run_sends_only_its_input_with_the_last_response_id(
    openai_server: ScriptedServer, streamed: bool
) -> None:
    openai_server.script(Turn(text="Brazil"), Turn(text="Brasilia"))
    agent = Agent("a", instructions="Be brief.", model=openai_server.model("responses"))
    first = await run(agent, "Largest country in South America?", streamed)
    assert first.last_response_id == "resp_1"
    second = await run(agent, "Its capital?", streamed, previous_response_id=first.last_response_id)
    assert second.final_output == "Brasilia"
    sent = inputs(openai_server)
    assert sent[0][0] is None
    assert len(sent[0][1]) == 1
    assert sent[1] == ("resp_1", [{"role": "user", "content": "Its capital?"}])
    assert openai_server.requests[1]["body"]["instructions"] == "Be brief."  # sent each time


async def test_within_a_run_each_turn_sends_only_the_tool_outputs(
    openai_server: ScriptedServer,
) -> None:
    @function_tool
    def population(city: str) -> str:
        """A city's population.

        Args:
            city: The city.
        """
        return "12 million"

    openai_server.script(
        Turn(calls=[Call("population", '{"city": "Tokyo"}', "call_a")]), Turn(text="12 million")
    )
    agent = Agent("a", tools=[population], model=openai_server.model("responses"))
    result = await run(agent, "How many in Tokyo?", False, previous_response_id="resp_0")
    assert result.final_output == "12 million"
    (first_id, first_input), (second_id, second_input) = inputs(openai_server)
    assert (first_id, first_input) == (
        "resp_0",
        [{"role": "user", "content": "How many in Tokyo?"}],
    )
    assert second_id == "resp_1"
    assert [item["type"] for item in second_input] == ["function_call_output"]
    assert second_input[0]["output"] == "12 million"


@plain_and_streamed
async def test_a_paused_run_resumes_continuing_the_response_it_paused_at(
    openai_server: ScriptedServer, streamed: bool
) -> None:
    openai_server.script(
        Turn(calls=[Call("lookup", '{"city": "Lima"}', "call_b")]), Turn(text="done")
    )
    agent = Agent("a", tools=[lookup], model=openai_server.model("responses"))
    paused = await run(agent, "Lima?", streamed, previous_response_id="resp_0")
    assert paused.interruptions
    state = RunState.from_json(paused.to_state().to_json())  # through text, as saved
    state.approve(paused.interruptions[0])
    resumed = await run(agent, state, streamed, previous_response_id="resp_0")
    assert resumed.final_output == "done"
    last_id, last_input = inputs(openai_server)[-1]
    assert last_id == "resp_1"  # not the id given first: the state keeps the newer one
    assert [item["type"] for item in last_input] == ["function_call_output"]


async def test_a_run_without_it_sends_the_whole_conversation(
    openai_server: ScriptedServer,
) -> None:
    openai_server.script(Turn(text="one"), Turn(text="two"))
    agent = Agent("a", model=openai_server.model("responses"))
    first = await run(agent, "hi", False)
    await run(agent, [*first.to_input_list(), {"role": "user", "content": "again"}], False)
    assert [previous for previous, _ in inputs(openai_server)] == [None, None]
    assert len(inputs(openai_server)[1][1]) == 3


@plain_and_streamed
async def test_chat_completions_refuses_it_before_sending(
    openai_server: ScriptedServer, streamed: bool
) -> None:
    agent = Agent("a", model=openai_server.model("chat"))
    with pytest.raises(UserError, match="OpenAIChatCompletionsModel cannot continue response"):
        await run(agent, "hi", streamed, previous_response_id="resp_1")
    assert openai_server.requests == []


@pytest.mark.parametrize("value", ["", 5])
def test_a_bad_id_is_refused(value: object) -> None:
    with pytest.raises(UserError, match=f"previous_response_id={value!r} must be a response's id"):
        Runner.run_sync(Agent("a"), "hi", previous_response_id=value)  # type: ignore[arg-type]


async def test_a_handoff_filter_cannot_filter_what_the_server_holds(
    openai_server: ScriptedServer,
) -> None:
    target = Agent("b", model=openai_server.model("responses"))
    to_b = handoff(target, input_filter=lambda data: data)
    openai_server.script(Turn(calls=[Call("transfer_to_b", "{}", "call_h")]), Turn(text="b here"))
    agent = Agent("a", handoffs=[to_b], model=openai_server.model("responses"))
    with pytest.raises(UserError, match="a handoff's input_filter cannot filter a conversation"):
        await run(agent, "hi", False, previous_response_id="resp_0")


def test_last_response_id_is_none_without_a_response() -> None:
    result = RunResult([], [], [], None, Agent("a"))  # type: ignore[arg-type]
    assert result.last_response_id is None


async def test_run_config_is_unchanged_by_it(openai_server: ScriptedServer) -> None:
    openai_server.script(Turn(text="ok"))
    config = RunConfig()
    agent = Agent("a", model=openai_server.model("responses"))
    await run(agent, "hi", False, previous_response_id="resp_0", run_config=config)
    assert config == RunConfig()


@plain_and_streamed
async def test_a_session_or_a_context_policy_is_refused_beside_it(
    openai_server: ScriptedServer, streamed: bool
) -> None:
    agent = Agent("a", model=openai_server.model("responses"))
    session = SQLiteSession("chat")
    with pytest.raises(UserError, match=r"session= cannot go with a run that continues response"):
        await run(agent, "hi", streamed, previous_response_id="resp_0", session=session)
    policy = RunConfig(context=ContextPolicy(max_input_tokens=10_000))
    with pytest.raises(UserError, match=r"RunConfig\(context=\.\.\.\) cannot go with a run"):
        await run(agent, "hi", streamed, previous_response_id="resp_0", run_config=policy)
    assert openai_server.requests == []
    assert await session.get_items() == []
