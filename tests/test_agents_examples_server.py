"""The local server that openai-agents' examples run against refuses what the real API refuses."""

from __future__ import annotations

from .agents_examples import reply


def test_a_prompt_without_an_id_is_refused() -> None:
    assert reply({"input": "hi", "prompt": {"version": "1"}}).status == 400
    assert reply({"input": "hi", "prompt": "pmpt_1"}).status == 400
    assert reply({"input": "hi", "prompt": {"id": "pmpt_1"}}).status == 200


def test_chat_completions_takes_no_prompt() -> None:
    messages = [{"role": "user", "content": "hi"}]
    assert reply({"messages": messages, "prompt": {"id": "pmpt_1"}}).status == 400
    assert reply({"messages": messages}).text == "Answer to: hi"
