"""Many agents, end to end over HTTP: handoffs, agents as tools, Swarm returns, human approval."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel

from tooluse import (
    Agent,
    Result,
    RunConfig,
    RunContextWrapper,
    Runner,
    RunState,
    TResponseInputItem,
    function_tool,
    handoff,
)

from .openai_server import Call, ScriptedServer, Turn, sent_tool_outputs

APIS = ["responses", "chat"]


def offered_tools(body: dict[str, Any]) -> list[str]:
    return [t.get("name") or t["function"]["name"] for t in body.get("tools", [])]


def instructions_of(body: dict[str, Any]) -> str:
    return body.get("instructions") or body["messages"][0]["content"]


def team(
    api: str, server: ScriptedServer, one_tool: bool = False, **triage: Any
) -> tuple[Agent[Any], list[str]]:
    handed: list[str] = []

    def remember(ctx: RunContextWrapper[Any]) -> None:
        handed.append("on_handoff")

    model = server.model(api)
    billing = Agent(
        "billing",
        instructions="You do billing.",
        handoff_description="Invoices and refunds.",
        model=model,
    )
    tech = Agent(
        "tech",
        instructions="You fix things.",
        handoff_description="Technical problems.",
        model=model,
    )
    sales = Agent("sales", instructions="You sell.", handoff_description="Buying.", model=model)
    agent = Agent(
        "triage",
        instructions="Route the user.",
        handoffs=[handoff(billing, on_handoff=remember), tech, sales],
        handoff_mode="one_tool" if one_tool else "tool_per_agent",
        model=model,
        **triage,
    )
    return agent, handed


@pytest.mark.parametrize("api", APIS)
async def test_triage_hands_off_with_a_tool_per_agent(
    openai_server: ScriptedServer, api: str
) -> None:
    openai_server.script(
        Turn(calls=[Call("transfer_to_billing", "{}")]), Turn(text="Your refund is on its way.")
    )
    triage, handed = team(api, openai_server)
    result = await Runner.run(triage, "I want a refund")
    assert result.final_output == "Your refund is on its way."
    assert result.last_agent.name == "billing"
    assert handed == ["on_handoff"]
    first, second = (r["body"] for r in openai_server.requests)
    assert offered_tools(first) == ["transfer_to_billing", "transfer_to_tech", "transfer_to_sales"]
    assert instructions_of(second) == "You do billing."
    assert sent_tool_outputs(second) == {"call_1": '{"assistant": "billing"}'}


@pytest.mark.parametrize("api", APIS)
async def test_one_tool_mode_offers_an_enum_of_exactly_the_targets(
    openai_server: ScriptedServer, api: str
) -> None:
    openai_server.script(
        Turn(calls=[Call("transfer", '{"agent": "tech"}')]), Turn(text="Try turning it off and on.")
    )
    triage, _ = team(api, openai_server, one_tool=True)
    result = await Runner.run(triage, "It is broken")
    assert result.last_agent.name == "tech"
    first = openai_server.requests[0]["body"]
    [tool] = first["tools"]
    params = tool.get("parameters") or tool["function"]["parameters"]
    assert params["properties"]["agent"]["enum"] == ["billing", "tech", "sales", "none"]
    assert (tool.get("strict") if "strict" in tool else tool["function"]["strict"]) is True


@pytest.mark.parametrize("api", APIS)
async def test_a_hallucinated_target_is_refused_before_any_side_effect(
    openai_server: ScriptedServer, api: str
) -> None:
    openai_server.script(
        Turn(calls=[Call("transfer", '{"agent": "pirates"}')]), Turn(text="I will help myself.")
    )
    triage, handed = team(api, openai_server, one_tool=True)
    result = await Runner.run(triage, "Arr")
    assert result.last_agent.name == "triage"
    assert handed == []
    outputs = sent_tool_outputs(openai_server.requests[1]["body"])
    assert outputs == {
        "call_1": "There is no agent 'pirates' to transfer to; valid names: billing, tech, sales, none."
    }


@pytest.mark.parametrize("api", APIS)
async def test_none_means_answer_yourself(openai_server: ScriptedServer, api: str) -> None:
    openai_server.script(
        Turn(calls=[Call("transfer", '{"agent": "none"}')]), Turn(text="Hello there.")
    )
    triage, _ = team(api, openai_server, one_tool=True)
    result = await Runner.run(triage, "Hi")
    assert result.last_agent.name == "triage"
    assert sent_tool_outputs(openai_server.requests[1]["body"]) == {
        "call_1": "No agent fits: answer the user yourself."
    }


@pytest.mark.parametrize("api", APIS)
async def test_only_the_first_handoff_is_taken(openai_server: ScriptedServer, api: str) -> None:
    openai_server.script(
        Turn(calls=[Call("transfer_to_tech", "{}"), Call("transfer_to_sales", "{}")]),
        Turn(text="tech here"),
    )
    triage, _ = team(api, openai_server)
    result = await Runner.run(triage, "both?")
    assert result.last_agent.name == "tech"
    outputs = sent_tool_outputs(openai_server.requests[1]["body"])
    assert outputs["call_1"] == '{"assistant": "tech"}'
    assert outputs["call_2"].startswith("Only the first handoff in a response is taken")


async def test_input_filter_edits_what_the_next_agent_sees(openai_server: ScriptedServer) -> None:
    def only_user_messages(items: list[TResponseInputItem]) -> list[TResponseInputItem]:
        return [item for item in items if item.get("role") == "user"]

    model = openai_server.model("responses")
    expert = Agent("expert", instructions="Expert.", model=model)
    triage = Agent(
        "triage", handoffs=[handoff(expert, input_filter=only_user_messages)], model=model
    )
    openai_server.script(
        Turn(text="Let me pass you on.", calls=[Call("transfer_to_expert", "{}")]),
        Turn(text="Expert answer."),
    )
    result = await Runner.run(triage, "Deep question")
    assert result.final_output == "Expert answer."
    # The filter kept the user's words only: not the triage's reply, call, or handoff output.
    assert openai_server.requests[1]["body"]["input"] == [
        {"role": "user", "content": "Deep question"}
    ]
    assert len(result.new_items) == 4  # the result still holds everything


class Escalation(BaseModel):
    reason: str


async def test_handoff_input_type_reaches_on_handoff(openai_server: ScriptedServer) -> None:
    seen: list[Any] = []

    def on_escalation(ctx: RunContextWrapper[Any], data: Escalation) -> None:
        seen.append(data)

    model = openai_server.model("responses")
    boss = Agent("boss", model=model)
    agent = Agent(
        "clerk",
        handoffs=[handoff(boss, on_handoff=on_escalation, input_type=Escalation)],
        model=model,
    )
    openai_server.script(
        Turn(calls=[Call("transfer_to_boss", '{"reason": "angry customer"}')]),
        Turn(text="Boss here."),
    )
    await Runner.run(agent, "I want the manager")
    assert seen == [Escalation(reason="angry customer")]
    tool = openai_server.requests[0]["body"]["tools"][0]
    assert tool["parameters"]["required"] == ["reason"]


@pytest.mark.parametrize("api", APIS)
async def test_an_agent_as_a_tool(openai_server: ScriptedServer, api: str) -> None:
    model = openai_server.model(api)
    translator = Agent(
        "translator",
        instructions="Translate to French.",
        handoff_description="Translates to French.",
        model=model,
    )
    manager = Agent("manager", instructions="Delegate.", tools=[translator.as_tool()], model=model)
    openai_server.script(
        Turn(calls=[Call("translator", '{"input": "hello"}')]),  # the manager calls the tool
        Turn(text="bonjour"),  # the nested translator run answers
        Turn(text="It is 'bonjour'."),  # the manager answers
    )
    result = await Runner.run(manager, "How do I say hello in French?")
    assert result.final_output == "It is 'bonjour'."
    assert result.last_agent.name == "manager"
    assert result.usage.requests == 3
    nested, final = openai_server.requests[1]["body"], openai_server.requests[2]["body"]
    assert instructions_of(nested) == "Translate to French."
    assert sent_tool_outputs(final) == {"call_1": "bonjour"}


async def test_agent_tool_failure_goes_through_the_tool_error_path(
    openai_server: ScriptedServer,
) -> None:
    model = openai_server.model("responses")
    flaky = Agent("flaky", model=model)
    manager = Agent("manager", tools=[flaky.as_tool()], model=model)
    openai_server.script(
        Turn(calls=[Call("flaky", '{"input": "x"}')]),
        Turn(status=500),
        Turn(text="It failed; sorry."),
    )
    result = await Runner.run(manager, "go", run_config=RunConfig(max_retries=0))
    assert result.final_output == "It failed; sorry."
    outputs = sent_tool_outputs(openai_server.requests[2]["body"])
    assert outputs == {
        "call_1": "Tool 'flaky' failed with an internal error (ModelAPIError); its details are hidden. Do not retry the same call unchanged."
    }


@dataclass
class Session:
    user: str = "?"
    tier: str = "free"


async def test_tools_returning_an_agent_and_a_result(openai_server: ScriptedServer) -> None:
    model = openai_server.model("responses")
    vip = Agent("vip", instructions="Treat them well.", model=model)

    @function_tool
    def identify(name: str) -> Result:
        """Identify the user.

        Args:
            name: Their name.
        """
        return Result(value=f"Hello {name}", context_variables={"user": name, "tier": "gold"})

    @function_tool
    def upgrade() -> Agent[Any]:
        """Send the user to the VIP desk."""
        return vip

    desk = Agent("desk", tools=[identify, upgrade], model=model)
    openai_server.script(
        Turn(calls=[Call("identify", '{"name": "Ann"}')]),
        Turn(calls=[Call("upgrade", "{}")]),
        Turn(text="Welcome, Ann."),
    )
    session = Session()
    result = await Runner.run(desk, "hi", context=session)
    assert session == Session(user="Ann", tier="gold")
    assert result.last_agent.name == "vip"
    handed = sent_tool_outputs(openai_server.requests[2]["body"])["call_1"]
    assert handed == '{"assistant": "vip"}'  # Swarm's text
    dict_context: dict[str, Any] = {}
    openai_server.script(Turn(calls=[Call("identify", '{"name": "Bo"}')]), Turn(text="ok"))
    await Runner.run(desk, "hi", context=dict_context)
    assert dict_context == {"user": "Bo", "tier": "gold"}


async def test_execute_tools_false_returns_the_calls(openai_server: ScriptedServer) -> None:
    ran: list[str] = []

    @function_tool
    def delete(path: str) -> str:
        """Delete a file.

        Args:
            path: The file.
        """
        ran.append(path)
        return "deleted"

    agent = Agent("a", tools=[delete], model=openai_server.model("responses"))
    openai_server.script(Turn(calls=[Call("delete", '{"path": "/tmp/x"}')]))
    result = await Runner.run(agent, "clean up", execute_tools=False)
    assert ran == []
    assert result.final_output is None
    assert [(c["name"], c["arguments"]) for c in result.pending_tool_calls] == [
        ("delete", '{"path": "/tmp/x"}')
    ]


@pytest.mark.parametrize("api", APIS)
async def test_approval_and_rejection_through_json(openai_server: ScriptedServer, api: str) -> None:
    ran: list[str] = []

    @function_tool(needs_approval=True)
    def delete(path: str) -> str:
        """Delete a file.

        Args:
            path: The file.
        """
        ran.append(path)
        return f"deleted {path}"

    @function_tool(needs_approval=lambda ctx, args: args.get("path", "").startswith("/etc"))  # pyright: ignore[reportUnknownLambdaType, reportUnknownMemberType, reportUnknownArgumentType]
    def touch(path: str) -> str:
        """Touch a file.

        Args:
            path: The file.
        """
        ran.append(f"touch {path}")
        return "touched"

    agent = Agent("admin", tools=[delete, touch], model=openai_server.model(api))
    openai_server.script(
        Turn(
            calls=[
                Call("delete", '{"path": "/tmp/a"}'),
                Call("delete", '{"path": "/home"}'),
                Call("touch", '{"path": "/tmp/t"}'),
            ]
        ),
        Turn(text="Deleted /tmp/a; /home was refused."),
    )
    paused = await Runner.run(agent, "clean")
    assert ran == []  # nothing ran before the decisions
    assert [(i.tool_name, i.arguments) for i in paused.interruptions] == [
        ("delete", '{"path": "/tmp/a"}'),
        ("delete", '{"path": "/home"}'),
    ]
    paused.approve(paused.interruptions[0])
    paused.reject(paused.interruptions[1], rejection_message="Never delete /home.")
    text = paused.to_state().to_string()  # as if it went to another process

    resumed = await Runner.run(agent, RunState.from_json(text))
    assert resumed.final_output == "Deleted /tmp/a; /home was refused."
    assert sorted(ran) == ["/tmp/a", "touch /tmp/t"]  # the two calls ran at once
    assert sent_tool_outputs(openai_server.requests[1]["body"]) == {
        "call_1": "deleted /tmp/a",
        "call_2": "Never delete /home.",
        "call_3": "touched",
    }
    assert json.loads(text)["agent_name"] == "admin"


async def test_handoffs_and_tools_appended_after_the_agent_is_made_are_offered(
    openai_server: ScriptedServer,
) -> None:
    # openai-agents' customer_service example wires agents that hand off to each other
    # by appending to `agent.handoffs` once both exist; both fields are lists for that.
    @function_tool
    def lookup(order: str) -> str:
        """Look an order up."""
        return f"order {order} shipped"

    model = openai_server.model("responses")
    billing = Agent("billing", instructions="You do billing.", model=model)
    sales = Agent("sales", instructions="You sell.", handoffs=(billing,), model=model)
    triage = Agent("triage", instructions="Route.", model=model)
    triage.handoffs.append(sales)
    triage.tools.append(lookup)
    openai_server.script(Turn(text="Hello."))
    await Runner.run(triage, "Hi")
    assert offered_tools(openai_server.requests[0]["body"]) == ["lookup", "transfer_to_sales"]
    assert sales.handoffs == [billing]  # a tuple given is held as a list
    assert Agent("other").handoffs == []
    assert Agent("other").tools is not Agent("b").tools  # no default list is shared
    given: list[Agent[Any]] = [billing]  # the caller's own list is kept, not copied
    assert Agent("kept", handoffs=given).handoffs is given


@pytest.mark.parametrize("api", APIS)
async def test_a_rejection_without_a_message_tells_the_model_openai_agents_words(
    openai_server: ScriptedServer, api: str
) -> None:
    # A prompt written for openai-agents may name this sentence ("if a tool was not
    # approved, ..."); the same default keeps such prompts working after the port.
    @function_tool(needs_approval=True)
    def delete(path: str) -> str:
        """Delete a file."""
        return f"deleted {path}"

    agent = Agent("admin", tools=[delete], model=openai_server.model(api))
    openai_server.script(Turn(calls=[Call("delete", '{"path": "/tmp/a"}')]), Turn(text="Kept."))
    paused = await Runner.run(agent, "clean")
    state = paused.to_state()
    state.reject(paused.interruptions[0])
    await Runner.run(agent, state)
    outputs = sent_tool_outputs(openai_server.requests[-1]["body"])
    assert outputs == {"call_1": "Tool execution was not approved."}
