"""The default model and its settings follow openai-agents 0.24.

An agent without a model uses `OPENAI_DEFAULT_MODEL`, else `gpt-5.6-luna`; an agent
with no settings of its own that runs a GPT-5 model by name is sent that model's
defaults (low verbosity, its reasoning effort), as openai-agents sends them. The
requests are read from a real HTTP server on 127.0.0.1.
"""

from __future__ import annotations

from typing import Any

import pytest

from tooluse import Agent, ModelSettings, RunConfig, Runner
from tooluse.models import (
    DEFAULT_MODEL,
    OpenAIProvider,
    get_default_model,
    get_default_model_settings,
    gpt_5_reasoning_settings_required,
    is_gpt_5_default,
)

from .openai_server import ScriptedServer, Turn


@pytest.fixture(autouse=True)
def no_default_model_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_DEFAULT_MODEL", raising=False)


def test_the_default_model_is_openai_agents_unless_the_variable_names_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert get_default_model() == DEFAULT_MODEL == "gpt-5.6-luna"
    assert is_gpt_5_default()
    monkeypatch.setenv("OPENAI_DEFAULT_MODEL", "GPT-4.1")
    assert get_default_model() == "gpt-4.1"
    assert not is_gpt_5_default()
    monkeypatch.setenv("OPENAI_DEFAULT_MODEL", "gpt-5-chat-latest")
    assert not is_gpt_5_default()  # a chat alias takes no reasoning settings


@pytest.mark.parametrize(
    ("model", "effort", "verbosity"),
    [
        ("gpt-5", "low", "low"),
        ("gpt-5-2025-08-07", "low", "low"),
        ("gpt-5.1", "none", "low"),
        ("gpt-5.2-pro", "medium", "low"),
        ("gpt-5.2-codex", "low", "low"),
        ("gpt-5.3-codex", "none", "low"),
        ("gpt-5.6-luna", "none", "low"),
        ("gpt-5-mini", None, "low"),  # GPT-5, effort unknown: verbosity alone
        ("gpt-5.2-codex-2025-01-01", None, "low"),
        ("gpt-5.1-chat-latest", None, None),
        ("gpt-4.1", None, None),
        ("openai/gpt-5", None, None),  # as openai-agents: the bare name only
    ],
)
def test_each_model_has_openai_agents_default_settings(
    model: str, effort: str | None, verbosity: str | None
) -> None:
    settings = get_default_model_settings(model)
    assert settings.reasoning == (None if effort is None else {"effort": effort})
    assert settings.verbosity == verbosity
    assert gpt_5_reasoning_settings_required(model) is (verbosity is not None)
    assert settings.temperature is None
    assert settings.extra_args == {}


def test_the_default_settings_are_a_new_object_each_time() -> None:
    first = get_default_model_settings()
    first.verbosity = "high"
    assert get_default_model_settings().verbosity == "low"


def _sent(server: ScriptedServer) -> dict[str, Any]:
    return server.requests[-1]["body"]


async def _run(server: ScriptedServer, agent: Agent[Any], config: RunConfig, api: str) -> None:
    server.script(Turn(text="ok"))
    async with server.client() as client:
        provider = OpenAIProvider(openai_client=client, use_responses=api == "responses")
        config.model_provider = provider
        result = await Runner.run(agent, "hi", run_config=config)
    assert result.final_output == "ok"


async def test_an_agent_without_a_model_sends_the_default_and_its_settings(
    openai_server: ScriptedServer,
) -> None:
    await _run(openai_server, Agent("a"), RunConfig(), "responses")
    body = _sent(openai_server)
    assert body["model"] == "gpt-5.6-luna"
    assert body["reasoning"] == {"effort": "none"}
    assert body["text"] == {"verbosity": "low"}


async def test_chat_completions_get_the_defaults_in_its_own_words(
    openai_server: ScriptedServer,
) -> None:
    await _run(openai_server, Agent("a", model="gpt-5"), RunConfig(), "chat")
    body = _sent(openai_server)
    assert (body["model"], body["reasoning_effort"], body["verbosity"]) == ("gpt-5", "low", "low")


async def test_the_variable_names_the_model_sent(
    openai_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_DEFAULT_MODEL", "gpt-4.1")
    await _run(openai_server, Agent("a"), RunConfig(), "responses")
    body = _sent(openai_server)
    assert body["model"] == "gpt-4.1"
    assert "reasoning" not in body
    assert "text" not in body


async def test_an_agent_with_settings_of_its_own_is_sent_them_alone(
    openai_server: ScriptedServer,
) -> None:
    agent = Agent("a", model_settings=ModelSettings(max_tokens=50))
    await _run(openai_server, agent, RunConfig(), "responses")
    body = _sent(openai_server)
    assert body["max_output_tokens"] == 50
    assert "reasoning" not in body
    assert "text" not in body


async def test_the_run_config_model_chooses_the_defaults_and_its_settings_win(
    openai_server: ScriptedServer,
) -> None:
    config = RunConfig(model="gpt-5", model_settings=ModelSettings(verbosity="high"))
    await _run(openai_server, Agent("a", model="gpt-4.1"), config, "responses")
    body = _sent(openai_server)
    assert body["model"] == "gpt-5"
    assert (body["reasoning"], body["text"]) == ({"effort": "low"}, {"verbosity": "high"})


async def test_a_model_object_gets_no_defaults(openai_server: ScriptedServer) -> None:
    agent = Agent("a", model=openai_server.model("responses"))
    openai_server.script(Turn(text="ok"))
    await Runner.run(agent, "hi")
    assert "reasoning" not in _sent(openai_server)
