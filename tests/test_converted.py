"""Each request of a run converts only the items added since the last one, with the same result."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tooluse import UserError
from tooluse.core._items import assistant_message, function_call, function_call_output, user_message
from tooluse.models import items_to_messages
from tooluse.models._responses_input import responses_input

CONVERSATION = [
    user_message("Weather in Paris and Oslo?"),
    assistant_message("Let me check."),
    function_call("call_1", "get_weather", '{"city": "Paris"}'),
    function_call("call_2", "get_weather", '{"city": "Oslo"}'),
    function_call_output("call_1", "21"),
    function_call_output("call_2", "3"),
    {"role": "assistant", "content": "Now the time."},
    function_call("call_3", "get_time", "{}"),
    function_call_output("call_3", "noon"),
    assistant_message("Paris 21, Oslo 3, at noon."),
]


def _chat(items: list[Any], memo: dict[Any, Any] | None) -> Any:
    return items_to_messages("Be brief.", items, memo)


def _responses(items: list[Any], memo: dict[Any, Any] | None) -> Any:
    return responses_input(items, memo)


CONVERT = [_chat, _responses]


@pytest.mark.parametrize("convert", CONVERT)
def test_a_growing_conversation_converts_as_a_whole_one_does(convert: Any) -> None:
    memo: dict[Any, Any] = {}
    ends = range(1, len(CONVERSATION) + 1)
    sent = [(end, copy.deepcopy(convert(CONVERSATION[:end], memo))) for end in ends]
    for end, request in sent:  # and what an earlier request sent stays as it was
        assert request == convert(CONVERSATION[:end], None)


@pytest.mark.parametrize("convert", CONVERT)
def test_tool_calls_that_join_a_message_sent_before_leave_that_request_alone(
    convert: Any,
) -> None:
    memo: dict[Any, Any] = {}
    first = convert(CONVERSATION[:2], memo)
    before = copy.deepcopy(first)
    convert(CONVERSATION[:4], memo)
    assert first == before


@pytest.mark.parametrize("convert", CONVERT)
def test_a_conversation_that_changed_is_converted_again(convert: Any) -> None:
    memo: dict[Any, Any] = {}
    convert(CONVERSATION, memo)
    filtered = [user_message("Only this."), *CONVERSATION[6:]]  # e.g. a handoff's input_filter
    assert convert(filtered, memo) == convert(filtered, None)
    shorter = CONVERSATION[:3]
    assert convert(shorter, memo) == convert(shorter, None)
    replaced = [*CONVERSATION[:2], function_call("call_9", "other", "{}")]
    assert convert(replaced, memo) == convert(replaced, None)


@pytest.mark.parametrize("convert", CONVERT)
def test_a_failed_conversion_is_reported_again_then_forgotten(convert: Any) -> None:
    memo: dict[Any, Any] = {}
    convert(CONVERSATION[:2], memo)
    broken = [*CONVERSATION[:2], {"type": "function_call", "name": "x", "arguments": "{}"}]
    for _ in range(2):
        with pytest.raises(UserError, match=r"input\[2\]"):
            convert(broken, memo)
    assert convert(CONVERSATION, memo) == convert(CONVERSATION, None)


def test_each_request_gets_its_own_list() -> None:
    memo: dict[Any, Any] = {}
    first = items_to_messages(None, CONVERSATION[:1], memo)
    first.append({"role": "user", "content": "added by a caller"})
    assert len(items_to_messages(None, CONVERSATION[:1], memo)) == 1
    second = responses_input(CONVERSATION[:1], memo)
    second.clear()
    assert responses_input(CONVERSATION[:1], memo) == CONVERSATION[:1]
