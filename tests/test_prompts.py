"""`Agent(prompt=...)`: prompt templates sent as the Responses API's `prompt`, refused elsewhere.

Runs go through the real clients to local servers (OpenAI, Anthropic, Gemini), which
record the request bodies they receive.
"""

from __future__ import annotations

from typing import Any

import pytest

from tooluse import Agent, GenerateDynamicPromptData, Prompt, Runner
from tooluse.exceptions import UserError
from tooluse.models import ModelRequest
from tooluse.temporal._payloads import request_from_payload, request_payload

from .anthropic_server import AnthropicServer
from .gemini_server import GeminiServer
from .openai_server import ScriptedServer, Turn

STATIC: Prompt = {"id": "pmpt_123", "version": "1", "variables": {"poem_style": "limerick"}}


async def run(agent: Agent[Any], streamed: bool, context: object = None) -> object:
    if not streamed:
        return (await Runner.run(agent, "hi", context=context)).final_output
    result = Runner.run_streamed(agent, "hi", context=context)
    async for _ in result.stream_events():
        pass
    return result.final_output


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_a_static_prompt_is_sent_as_the_responses_prompt(
    openai_server: ScriptedServer, streamed: bool
) -> None:
    openai_server.script(Turn(text="a limerick"))
    agent = Agent("a", model=openai_server.model("responses"), prompt=STATIC)
    assert await run(agent, streamed) == "a limerick"
    body = openai_server.requests[0]["body"]
    assert body["prompt"] == STATIC
    assert "instructions" not in body  # the prompt holds them


async def test_a_prompt_function_gets_the_context_and_agent_each_turn(
    openai_server: ScriptedServer,
) -> None:
    seen: list[tuple[object, str]] = []

    async def make(data: GenerateDynamicPromptData) -> Prompt:
        seen.append((data.context.context, data.agent.name))
        return {"id": "pmpt_9", "variables": {"style": data.context.context}}

    openai_server.script(Turn(text="one"), Turn(text="two"))
    agent = Agent("poet", model=openai_server.model("responses"), prompt=make)
    assert await run(agent, False, context="haiku") == "one"
    assert await run(agent, True, context="ballad") == "two"
    assert seen == [("haiku", "poet"), ("ballad", "poet")]
    sent = [request["body"]["prompt"] for request in openai_server.requests]
    assert sent == [  # no version: the key is left out, as None would be
        {"id": "pmpt_9", "variables": {"style": "haiku"}},
        {"id": "pmpt_9", "variables": {"style": "ballad"}},
    ]


async def test_a_sync_prompt_function_works_too(openai_server: ScriptedServer) -> None:
    openai_server.script(Turn(text="ok"))
    agent = Agent(
        "a", model=openai_server.model("responses"), prompt=lambda _data: {"id": "pmpt_1"}
    )
    assert await run(agent, False) == "ok"
    assert openai_server.requests[0]["body"]["prompt"] == {"id": "pmpt_1"}


async def test_instructions_go_beside_the_prompt(openai_server: ScriptedServer) -> None:
    openai_server.script(Turn(text="ok"))
    agent = Agent(
        "a", instructions="Be brief.", model=openai_server.model("responses"), prompt=STATIC
    )
    await run(agent, False)
    body = openai_server.requests[0]["body"]
    assert (body["instructions"], body["prompt"]["id"]) == ("Be brief.", "pmpt_123")


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_chat_completions_refuses_a_prompt_before_sending(
    openai_server: ScriptedServer, streamed: bool
) -> None:
    agent = Agent("a", model=openai_server.model("chat"), prompt=STATIC)
    with pytest.raises(UserError, match="OpenAIChatCompletionsModel cannot send the agent's"):
        await run(agent, streamed)
    assert openai_server.requests == []


async def test_anthropic_refuses_a_prompt(anthropic_server: AnthropicServer) -> None:
    agent = Agent("a", model=anthropic_server.model(), prompt=STATIC)
    with pytest.raises(UserError, match="AnthropicModel cannot send the agent's prompt='pmpt_123'"):
        await run(agent, False)
    assert anthropic_server.requests == []


async def test_gemini_refuses_a_prompt(gemini_server: GeminiServer) -> None:
    agent = Agent("a", model=gemini_server.model(), prompt=STATIC)
    with pytest.raises(UserError, match=r"GeminiModel cannot send .* Use OpenAIResponsesModel"):
        await run(agent, True)
    assert gemini_server.requests == []


@pytest.mark.parametrize(
    ("prompt", "problem"),
    [
        ({"version": "1"}, "'id' must be the prompt's id, a non-empty string, not None"),
        ({"id": "p", "vars": {}}, "unknown key 'vars'"),
        ({"id": "p", "version": 1}, "'version' must be a string or None, not 1"),
        ({"id": "p", "variables": ["a"]}, "'variables' must be a dict of names to values"),
        ("pmpt_1", "prompt='pmpt_1' must be a dict with an 'id'"),
    ],
)
def test_a_prompt_the_api_would_refuse_is_refused_where_given(prompt: Any, problem: str) -> None:
    with pytest.raises(UserError) as raised:
        Agent("a", prompt=prompt)
    assert "Agent 'a': prompt" in str(raised.value)
    assert problem in str(raised.value)


async def test_a_prompt_function_returning_no_prompt_says_so(
    openai_server: ScriptedServer,
) -> None:
    def make(_data: GenerateDynamicPromptData) -> Any:
        return "pmpt_1"

    agent = Agent("a", model=openai_server.model("responses"), prompt=make)
    with pytest.raises(UserError, match=r"Agent 'a': its prompt function .*make returned 'pmpt_1'"):
        await run(agent, False)
    assert openai_server.requests == []


async def test_get_prompt_outside_a_run() -> None:
    from tooluse import RunContextWrapper

    assert await Agent("a", prompt=STATIC).get_prompt(RunContextWrapper(None)) == STATIC
    assert await Agent("a").get_prompt(RunContextWrapper(None)) is None


def test_the_prompt_crosses_to_a_temporal_worker() -> None:
    request = ModelRequest(instructions=None, input=[], prompt=dict(STATIC))
    assert request_from_payload(request_payload(request)).prompt == STATIC
