"""Items to Chat Completions messages and back: the two formats carry the same conversation."""

from __future__ import annotations

from typing import Any

import pytest
from inline_snapshot import snapshot

from tooluse import TResponseInputItem, UserError
from tooluse.core._items import assistant_message, function_call, function_call_output, user_message
from tooluse.models import items_to_messages, message_to_items

CONVERSATION = [
    user_message("Weather in Paris and Oslo?"),
    assistant_message("Let me check."),
    function_call("call_1", "get_weather", '{"city": "Paris"}'),
    function_call("call_2", "get_weather", '{"city": "Oslo"}'),
    function_call_output("call_1", "21"),
    function_call_output("call_2", "3"),
    function_call("call_3", "get_time", "{}"),
    function_call_output("call_3", "noon"),
    assistant_message("Paris 21, Oslo 3, at noon."),
]


def test_items_to_messages() -> None:
    assert items_to_messages("Be brief.", CONVERSATION) == snapshot(
        [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather in Paris and Oslo?"},
            {
                "role": "assistant",
                "content": "Let me check.",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                    },
                    {
                        "id": "call_2",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                    },
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "21"},
            {"role": "tool", "tool_call_id": "call_2", "content": "3"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_3",
                        "type": "function",
                        "function": {"name": "get_time", "arguments": "{}"},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_3", "content": "noon"},
            {"role": "assistant", "content": "Paris 21, Oslo 3, at noon."},
        ]
    )


def test_round_trip_of_each_assistant_turn() -> None:
    messages = items_to_messages(None, CONVERSATION)
    items: list[TResponseInputItem] = []
    for message in messages:
        if message["role"] == "assistant":
            items.extend(message_to_items(message))
    expected = [
        i
        for i in CONVERSATION
        if i.get("type") in ("message", "function_call")
        and i.get("role", "assistant") == "assistant"
    ]
    assert items == expected


def test_content_parts() -> None:
    item = {
        "role": "user",
        "content": [
            {"type": "input_text", "text": "look"},
            {"type": "input_image", "image_url": "data:image/png;base64,AA"},
        ],
    }
    assert items_to_messages(None, [item]) == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA"}},
            ],
        }
    ]


@pytest.mark.parametrize("kind", ["web_search_call", "reasoning", "local_shell_call"])
def test_responses_only_items_are_refused(kind: str) -> None:
    expected = rf"input\[0\] \(a '{kind}' item\) cannot be sent to the Chat Completions API"
    with pytest.raises(UserError, match=expected):
        items_to_messages(None, [{"type": kind, "id": "x"}])


def test_an_assistant_message_without_a_type_keeps_its_text() -> None:
    # As people write history by hand; it used to become an empty message.
    items = [user_message("hi"), {"role": "assistant", "content": "Hello!"}]
    assert items_to_messages(None, items) == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Hello!"},
    ]


def test_the_items_are_not_changed() -> None:
    chat_assistant: dict[str, Any] = {
        "role": "assistant",
        "content": "Let me check.",
        "tool_calls": [],
    }
    items = [chat_assistant, function_call("call_1", "get_time", "{}")]
    messages = items_to_messages(None, items)
    assert messages[0]["tool_calls"][0]["id"] == "call_1"
    assert chat_assistant == {"role": "assistant", "content": "Let me check.", "tool_calls": []}
