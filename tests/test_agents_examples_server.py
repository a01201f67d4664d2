"""The local server that openai-agents' examples run against refuses what the real API refuses."""

from __future__ import annotations

from typing import Any, cast

import openai
import pytest
from openai import OpenAI

from .agents_examples import CountingServer, reply


def test_a_prompt_without_an_id_is_refused() -> None:
    assert reply({"input": "hi", "prompt": {"version": "1"}}).status == 400
    assert reply({"input": "hi", "prompt": "pmpt_1"}).status == 400
    assert reply({"input": "hi", "prompt": {"id": "pmpt_1"}}).status == 200


def test_chat_completions_takes_no_prompt() -> None:
    messages = [{"role": "user", "content": "hi"}]
    assert reply({"messages": messages, "prompt": {"id": "pmpt_1"}}).status == 400
    assert reply({"messages": messages}).text == "Answer to: hi"


def test_a_continuation_must_name_a_response_given_and_send_only_what_is_new() -> None:
    server = CountingServer()
    server.start()
    try:
        client = OpenAI(base_url=server.base_url, api_key="test-key", max_retries=0)
        with pytest.raises(openai.BadRequestError):  # no response given yet
            client.responses.create(model="m", input="hi", previous_response_id="resp_1")
        first = client.responses.create(model="m", input="hi")
        assert first.id == "resp_1"
        again = client.responses.create(model="m", input="more", previous_response_id=first.id)
        assert again.output_text == "Answer to: more"
        resent = [item.model_dump(exclude_none=True) for item in first.output]
        with pytest.raises(openai.BadRequestError):  # the server holds those items already
            client.responses.create(
                model="m", input=cast(Any, resent), previous_response_id=first.id
            )
        with pytest.raises(openai.BadRequestError):  # Chat Completions keeps nothing
            client.chat.completions.create(
                model="m",
                messages=[{"role": "user", "content": "hi"}],
                extra_body={"previous_response_id": first.id},
            )
        client.close()
    finally:
        server.stop()
    assert server.count == 5


def test_an_mcp_tool_choice_must_name_a_server_offered() -> None:
    choice = {"type": "mcp", "server_label": "deepwiki", "name": "ask_wiki_question"}
    offered = [{"type": "mcp", "server_label": "deepwiki", "server_url": "https://x.invalid"}]
    assert reply({"input": "hi", "tool_choice": choice, "tools": offered}).status == 200
    assert reply({"input": "hi", "tool_choice": choice, "tools": []}).status == 400
    messages = [{"role": "user", "content": "hi"}]
    assert reply({"messages": messages, "tool_choice": choice}).status == 400
