"""`tooluse chat` names the key of the provider the agent's model belongs to.

An agent on Claude or Gemini needs `ANTHROPIC_API_KEY` or `GEMINI_API_KEY`, not OpenAI's:
the chat's first line says which, and whether it is set.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tooluse.cli._chat import run_chat

AGENTS = """
from tooluse import Agent
from tooluse.models import AnthropicModel, GeminiModel

claude = Agent("claude", model=AnthropicModel("claude-sonnet-4-5"))
claude_by_name = Agent("claude_by_name", model="anthropic/claude-sonnet-4-5")
gemini = Agent("gemini", model=GeminiModel("gemini-2.5-flash"))
gemini_by_name = Agent("gemini_by_name", model="gemini/gemini-2.5-flash")
"""

KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")


def first_line(tmp_path: Path, agent: str) -> str:
    path = (
        tmp_path / "keyed_agents.py"
    )  # not `agents`: openai-agents is imported in this process too
    path.write_text(AGENTS)

    def read(prompt: str) -> str:
        raise EOFError  # the user quits at once: no model is called

    out = io.StringIO()
    assert run_chat(f"{path}:{agent}", read=read, out=out) == 0
    return out.getvalue().splitlines()[0]


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in KEYS:
        monkeypatch.delenv(key, raising=False)


@pytest.mark.parametrize("agent", ["claude", "claude_by_name"])
def test_a_claude_agent_without_its_key_is_told_anthropics(tmp_path: Path, agent: str) -> None:
    line = first_line(tmp_path, agent)
    assert line.startswith("No ANTHROPIC_API_KEY: the agent's model, ")
    assert "export ANTHROPIC_API_KEY=..." in line
    assert "OPENAI" not in line


@pytest.mark.parametrize("agent", ["gemini", "gemini_by_name"])
def test_a_gemini_agent_without_its_key_is_told_geminis(tmp_path: Path, agent: str) -> None:
    line = first_line(tmp_path, agent)
    assert line.startswith("No GEMINI_API_KEY or GOOGLE_API_KEY: the agent's model, ")
    assert "OPENAI" not in line


def test_a_set_key_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    assert first_line(tmp_path, "claude_by_name") == (
        "Using the agent's model: anthropic/claude-sonnet-4-5 (ANTHROPIC_API_KEY is set)."
    )
    monkeypatch.setenv("GOOGLE_API_KEY", "google-test")
    assert first_line(tmp_path, "gemini") == (
        "Using the agent's model: GeminiModel (GOOGLE_API_KEY is set)."
    )
