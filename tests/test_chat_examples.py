"""Every example opens in `tooluse chat`, offline, and answers a message or two.

Each chat runs in process (`run_chat`, as the command does) on a script of lines;
the examples pick their scripted models at import, with no OPENAI_API_KEY set.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from tooluse.cli._chat import run_chat

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(path.name for path in (ROOT / "examples").glob("*.py"))


class Script:
    """The lines a person would type, each prompt it was asked at kept."""

    def __init__(self, *lines: str) -> None:
        self.lines: Iterator[str] = iter(lines)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        line = next(self.lines, None)
        if line is None:
            raise EOFError
        return line


# Per example: what is typed, and lines the chat must show (in this order).
CHATS: dict[str, tuple[list[str], list[str]]] = {
    "approval.py": (
        ["clean up", "y", "n"],
        [
            "Chatting with 'janitor'.",
            "janitor> Done: deleted /tmp/cache.db; ",
        ],
    ),
    "chat_session.py": (
        ["tidy up", "y"],
        ["Chatting with 'janitor'.", "[tool] delete_file -> deleted a", "janitor> {"],
    ),
    "manager.py": (
        ["hello in French and Spanish?", "and again?"],
        [
            "Chatting with 'manager'.",
            "[tool] french(",
            "manager> French: bonjour; Spanish: hola.",
            "[tool] french(",  # the second message is a turn of its own
            "manager> French: bonjour; Spanish: hola.",
        ],
    ),
    "mcp_roundtrip.py": (
        ["weather in Paris?"],
        [
            "Chatting with 'assistant'.",
            "[tool] weather_fetch_weather -> Sunny at 48.85, 2.35",
            "assistant> Sunny at 48.85, 2.35; 69.8",
        ],
    ),
    "quickstart.py": (
        ["weather in Paris?", "and in Oslo?"],
        [
            "Chatting with 'weather'.",
            "[tool] fetch_weather(",
            "weather> {",
            "[tool] fetch_weather(",  # TestModel calls the tools again: a new turn
            "weather> {",
        ],
    ),
    "temporal_approval.py": (
        ["clean up", "y"],
        ["Chatting with 'janitor'.", "[tool] delete_file -> deleted a", "janitor> {"],
    ),
    "triage.py": (
        ["I was charged twice"],
        [
            "Chatting with 'triage'.",
            "[handoff] triage -> billing",
            "billing> I have refunded your last invoice.",
        ],
    ),
    "weather.py": (
        ["weather?"],
        ["Chatting with 'weather'.", "[tool] fetch_weather(", "weather> {"],
    ),
    "web_assistant.py": (
        ["plan tonight", "y"],
        [
            "Chatting with 'Assistant'.",
            "[tool] book_table(",
            "[tool] book_table -> Booked a table for 0 at a",
            "Assistant> {",
        ],
    ),
}


def test_every_example_has_a_chat_here() -> None:
    assert sorted(CHATS) == EXAMPLES


@pytest.mark.parametrize("example", EXAMPLES)
def test_the_example_opens_in_tooluse_chat(
    example: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.chdir(ROOT)  # as the examples' "Run with:" lines say
    typed, shown = CHATS[example]
    out = io.StringIO()

    assert run_chat(f"examples/{example}", read=Script(*typed), out=out) == 0

    text = out.getvalue()
    position = 0
    for line in shown:
        found = text.find(line, position)
        assert found >= 0, f"{line!r} not shown after position {position} in:\n{text}"
        position = found + len(line)
    assert "[error]" not in text
