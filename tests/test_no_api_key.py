"""No OpenAI key: a tooluse error at the first model call that says what to do, and keeps the run."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from inline_snapshot import snapshot

from tooluse import (
    Agent,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    Runner,
    TResponseInputItem,
    UserError,
    set_default_openai_api,
    set_default_openai_client,
)
from tooluse.exceptions import MissingAPIKey, RunStopped
from tooluse.models import default_openai_client
from tooluse.testing import TestModel

from .openai_server import Call, ScriptedServer, Turn

HISTORY: list[TResponseInputItem] = [
    {"role": "user", "content": "Hi, I am Ann."},
    {"role": "assistant", "content": "Hello Ann!"},
    {"role": "user", "content": "What is my name?"},
]
APIS = ["responses", "chat_completions"]


@pytest.fixture(autouse=True)
def no_key(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No key in the environment, and no default client made with one before."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_ADMIN_KEY", raising=False)
    set_default_openai_client(None)
    try:
        yield
    finally:
        set_default_openai_client(None)
        set_default_openai_api("responses")


async def run(agent: Agent[Any], items: Any, streamed: bool) -> Any:
    if not streamed:
        return await Runner.run(agent, items)
    result = Runner.run_streamed(agent, items)
    async for _ in result.stream_events():
        pass
    return result


def test_the_error_says_how_to_set_a_key_or_go_without() -> None:
    error = MissingAPIKey()
    assert isinstance(error, UserError)
    assert isinstance(error, RunStopped)
    assert str(error) == snapshot(
        'No OpenAI API key: set the OPENAI_API_KEY environment variable (a local server that needs none still needs a value, e.g. OPENAI_API_KEY=unused), or give tooluse a client: set_default_openai_client(AsyncOpenAI(api_key=...)) for every model, or OpenAIResponsesModel("gpt-4.1", openai_client=AsyncOpenAI(api_key=...)) for one. To run without a key (tests, examples), use Agent(..., model=tooluse.testing.TestModel())'
    )
    assert (error.items, error.new_items, error.state) == ([], [], None)


def test_nothing_fails_before_the_first_model_call() -> None:
    Agent("a")
    Agent("b", model="gpt-4.1-mini")
    OpenAIResponsesModel("gpt-4.1")
    OpenAIChatCompletionsModel("gpt-4.1")


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
@pytest.mark.parametrize("api", APIS)
async def test_the_first_model_call_raises_and_keeps_the_conversation(
    api: Any, streamed: bool
) -> None:
    set_default_openai_api(api)
    agent = Agent("assistant", instructions="Be brief.")  # a model name: the default client
    with pytest.raises(MissingAPIKey) as caught:
        await run(agent, HISTORY, streamed)
    error = caught.value
    assert error.items == HISTORY
    assert error.new_items == []
    assert error.state is not None
    assert error.state.input == HISTORY
    assert error.__cause__ is None  # nothing from the openai client to read through


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_a_handoff_to_an_agent_without_a_key_keeps_what_the_run_did(
    openai_server: ScriptedServer, api: str, streamed: bool
) -> None:
    keyless = Agent("keyless")  # the default client, which has no key
    triage = Agent("triage", handoffs=[keyless], model=openai_server.model(api))
    openai_server.script(Turn(calls=[Call("transfer_to_keyless", "{}", "call_1")]))
    with pytest.raises(MissingAPIKey) as caught:
        await run(triage, "Help me.", streamed)
    error = caught.value
    assert [item.get("type") for item in error.new_items] == [
        "function_call",
        "function_call_output",
    ]
    assert error.items == [{"role": "user", "content": "Help me."}, *error.new_items]
    assert error.state is not None
    assert error.state.agent_name == "keyless"


async def test_setting_the_key_then_resuming_goes_on(
    openai_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = Agent("assistant")
    with pytest.raises(MissingAPIKey) as caught:
        await Runner.run(agent, HISTORY)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.base_url)
    openai_server.script(Turn(text="Ann."))
    assert caught.value.state is not None
    result = await Runner.run(agent, caught.value.state)
    assert result.final_output == "Ann."
    assert openai_server.requests[0]["body"]["input"] == HISTORY


async def test_an_empty_key_is_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "")
    with pytest.raises(MissingAPIKey):
        await Runner.run(Agent("a"), "hi")


def test_asking_for_the_default_client_raises_it_too() -> None:
    with pytest.raises(MissingAPIKey) as caught:
        default_openai_client()
    assert caught.value.items == []


async def test_models_with_their_own_client_and_test_models_need_no_key(
    openai_server: ScriptedServer,
) -> None:
    openai_server.script(Turn(text="ok"))
    assert (
        await Runner.run(Agent("a", model=openai_server.model("responses")), "hi")
    ).final_output == "ok"
    assert (
        await Runner.run(Agent("a", model=TestModel()), "hi")
    ).final_output == "No tools were called."
