"""Anthropic's server-side compaction as a context policy's provider compaction.

Against the official `anthropic` client and the local Messages API server, which
compacts as the API does (the beta `context_management` edit `compact_20260112`)
and refuses what it refuses (`tests/anthropic_compaction.py`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anthropic
import pytest

from tooluse import Agent, ContextPolicy, RunConfig, Runner, function_tool
from tooluse.core._items import Item, function_call, function_call_output, user_message
from tooluse.models import ModelRequest
from tooluse.models._anthropic_compaction import FIRST_USER_MESSAGE
from tooluse.models._anthropic_conversion import to_messages
from tooluse.models._responses_input import responses_input

from .anthropic_compaction import COMPACT_BETA, block_signature, counted_tokens
from .anthropic_server import AnthropicServer, Turn, Use

PAGE = 20_000
"""Characters of a page: about 5,000 tokens."""


@pytest.fixture
def server() -> Iterator[AnthropicServer]:
    running = AnthropicServer()
    running.start()
    yield running
    running.stop()


@function_tool
def read_page(n: int) -> str:
    """A page of the log.

    Args:
        n: The page.
    """
    return f"page {n}: " + "z" * PAGE


def _answering(server: AnthropicServer) -> list[dict[str, Any]]:
    return [r for r in server.requests if "compacted" not in r and "refused" not in r]


async def test_a_run_has_claude_compact_its_oldest_turns(server: AnthropicServer) -> None:
    server.script(*(Turn(uses=[Use("read_page", {"n": n})]) for n in range(1, 17)))
    server.script(Turn(text="done"))
    policy = ContextPolicy(
        max_input_tokens=70_000,
        keep_recent_turns=2,
        trim_tool_outputs_to=None,
        compaction_model=server.model(),
        compaction_instructions="Keep every page number.",
        provider_compaction=True,
    )
    agent = Agent(name="reader", tools=[read_page], model=server.model())
    config = RunConfig(context=policy)
    result = await Runner.run(agent, "Read the log.", run_config=config, max_turns=20)
    assert result.final_output == "done"
    assert not [r for r in server.requests if "refused" in r]
    compactions = [r for r in server.requests if r.get("compacted")]
    assert compactions
    first = compactions[0]
    assert COMPACT_BETA in first["headers"]["anthropic-beta"]
    edit = first["body"]["context_management"]["edits"][0]
    assert edit == {
        "type": "compact_20260112",
        "trigger": {"type": "input_tokens", "value": 50_000},
        "pause_after_compaction": True,
        "instructions": "Keep every page number.",
    }
    # Every answering request after it sends the block back (with the beta header), in
    # an assistant message after one user message, and is within the budget by the
    # server's count (which reads from the block on, as the API does).
    answering = _answering(server)
    after = answering[-1]
    assert COMPACT_BETA in after["headers"]["anthropic-beta"]
    messages = after["body"]["messages"]
    assert messages[0] == {
        "role": "user",
        "content": [{"type": "text", "text": FIRST_USER_MESSAGE}],
    }
    block = messages[1]["content"][0]
    assert block["type"] == "compaction"
    assert block["signature"] == block_signature(block["content"])
    assert max(counted_tokens(r["body"]) for r in answering) <= 70_000
    assert len(answering) == 17  # each scripted turn once: the compactions used none
    # The compaction's own tokens (the API's usage.iterations) are counted in its entry.
    entries = [e for e in result.usage.request_usage_entries if e.compaction]
    assert len(entries) == len(compactions)
    assert entries[0].input_tokens == counted_tokens(first["body"])
    assert result.usage.requests == 17 + len(compactions)
    # The run's items keep every original page; the block is in what was sent.
    outputs = [i for i in result.new_items if i.get("type") == "function_call_output"]
    assert len(outputs) == 16


async def test_a_conversation_under_the_trigger_is_answered_and_summarised_instead(
    server: AnthropicServer,
) -> None:
    model = server.model()
    server.script(Turn(text="an answer, not a compaction"))
    items: list[Item] = [user_message("Read page 1."), function_call("c1", "read_page", "{}")]
    items.append(function_call_output("c1", "short"))
    response = await model.compact(ModelRequest(instructions="Keep it all.", input=items))
    assert response.output == []  # the run writes its summary instead
    assert response.usage.requests == 1
    assert response.usage.input_tokens == 10  # the answer was made, and is counted
    assert COMPACT_BETA in server.requests[-1]["headers"]["anthropic-beta"]


def _compaction_item(content: str, signature: str) -> Item:
    return {
        "type": "compaction",
        "content": content,
        "signature": signature,
        "provider_data": {"provider": "anthropic"},
    }


def test_the_compaction_item_goes_to_claude_only() -> None:
    items = [user_message("go"), _compaction_item("summary", "s"), user_message("next")]
    messages = to_messages(items, None).messages
    assert messages[1] == {
        "role": "assistant",
        "content": [{"type": "compaction", "content": "summary", "signature": "s"}],
    }
    assert [i.get("type", "message") for i in responses_input(items)] == ["message", "message"]


def _beta_client(server: AnthropicServer) -> anthropic.AsyncAnthropic:
    return server.client()


async def _create(server: AnthropicServer, **params: Any) -> Any:
    client = _beta_client(server)
    base: dict[str, Any] = {"model": "claude-test", "max_tokens": 100}
    base["messages"] = [{"role": "user", "content": "hi"}]
    create: Any = client.beta.messages.create
    return await create(**{**base, **params})


@pytest.mark.parametrize(
    ("params", "refused"),
    [
        (
            {"context_management": {"edits": [{"type": "compact_20260112"}]}},
            "context_management: Extra inputs are not permitted",
        ),
        (
            {
                "betas": [COMPACT_BETA],
                "context_management": {
                    "edits": [
                        {
                            "type": "compact_20260112",
                            "trigger": {"type": "input_tokens", "value": 1_000},
                        }
                    ]
                },
            },
            "context_management.edits.0.trigger.value: Input should be greater than or equal to 50000",
        ),
        (
            {"betas": [COMPACT_BETA], "context_management": {"edits": [{"type": "compact_2099"}]}},
            "context_management.edits.0.type: Input tag 'compact_2099' does not match any of "
            "the expected tags",
        ),
        (
            {
                "messages": [
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": [{"type": "compaction", "content": "s"}]},
                    {"role": "user", "content": "go on"},
                ]
            },
            "messages.1.content.0: compaction blocks need the compact-2026-01-12 beta header",
        ),
        (
            {
                "betas": [COMPACT_BETA],
                "messages": [
                    {"role": "user", "content": "hi"},
                    {
                        "role": "assistant",
                        "content": [{"type": "compaction", "content": "edited", "signature": "x"}],
                    },
                    {"role": "user", "content": "go on"},
                ],
            },
            "messages.1.content.0: Invalid `signature` in `compaction` block",
        ),
    ],
)
async def test_the_server_refuses_what_the_api_refuses_about_compaction(
    server: AnthropicServer, params: dict[str, Any], refused: str
) -> None:
    with pytest.raises(anthropic.BadRequestError) as caught:
        await _create(server, **params)
    assert caught.value.status_code == 400
    assert server.requests[-1]["refused"] == refused


async def test_the_server_compacts_past_the_trigger_and_drops_what_came_before(
    server: AnthropicServer,
) -> None:
    server.script(Turn(text="carrying on"))
    long = [
        {"role": "user", "content": "x" * 240_000},
        {"role": "assistant", "content": "read"},
        {"role": "user", "content": "and now?"},
    ]
    edit = {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50_000}}
    answer = await _create(
        server, betas=[COMPACT_BETA], messages=long, context_management={"edits": [edit]}
    )
    # Not paused: the block, then the answer; the compaction's tokens in its iteration.
    assert [block.type for block in answer.content] == ["compaction", "text"]
    assert answer.stop_reason == "end_turn"
    assert answer.usage.iterations[0].type == "compaction"
    block = answer.content[0].model_dump(exclude_none=True)
    server.script(Turn(text="still here"))
    after = [*long, {"role": "assistant", "content": [block]}, {"role": "user", "content": "go"}]
    again = await _create(server, betas=[COMPACT_BETA], messages=after)
    assert again.content[0].text == "still here"
    assert counted_tokens(server.requests[-1]["body"]) < 100  # read from the block on
