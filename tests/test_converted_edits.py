"""A conversation edited between requests converts as a fresh one does, from the first edit on.

A context policy's trim replaces an older tool output with a shorter copy; the
run's memo (`models/_converted.py`) then converts again only from that item.
These tests edit random conversations at random places (replace, cut, grow) and
compare every request the memo makes with a conversion from scratch, for the
Responses, Chat Completions, Anthropic and Gemini forms. The estimate of an item's tokens
is checked against the JSON text it counts.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tooluse.core._items import (
    assistant_message,
    function_call,
    function_call_output,
    user_message,
)
from tooluse.models import items_to_messages
from tooluse.models._anthropic_conversion import to_messages
from tooluse.models._converted import converted, first_difference
from tooluse.models._gemini_conversion import signature_item, to_contents
from tooluse.models._responses_input import responses_input
from tooluse.run._token_estimate import json_length


def _responses(items: list[Any], memo: dict[Any, Any] | None) -> Any:
    return responses_input(items, memo)


def _chat(items: list[Any], memo: dict[Any, Any] | None) -> Any:
    return items_to_messages("Be brief.", items, memo)


def _anthropic(items: list[Any], memo: dict[Any, Any] | None) -> Any:
    conversation = to_messages(items, memo)
    return copy.deepcopy((conversation.system, conversation.messages))


def _gemini(items: list[Any], memo: dict[Any, Any] | None) -> Any:
    conversation = to_contents(items, memo)
    return copy.deepcopy((conversation.system, conversation.contents, conversation.names))


CONVERT = {"responses": _responses, "chat": _chat, "anthropic": _anthropic, "gemini": _gemini}
NO_CUSTOM_TOOLS = ("anthropic", "gemini")
"""The forms whose APIs have no custom tools."""


@st.composite
def _turn(draw: st.DrawFn, number: int, form: str) -> list[Any]:
    """A user message, or a model response (text, parallel calls) and its outputs.

    A custom tool call only where the form's API has custom tools; a Gemini thought
    signature before the calls only for Gemini (the others leave it out).
    """
    kinds = ["user", "text", "calls", "chat calls", "system"]
    if form not in NO_CUSTOM_TOOLS:
        kinds.append("custom")
    if form == "gemini":
        kinds.append("thought")
    kind = draw(st.sampled_from(kinds))
    if kind == "user":
        return [user_message(draw(st.text(max_size=8)))]
    if kind == "system":
        return [{"role": "system", "content": f"rule {number}"}]
    if kind == "text":
        return [assistant_message(draw(st.text(max_size=8)))]
    count = draw(st.integers(1, 3))
    ids = [f"call_{number}_{n}" for n in range(count)]
    name = draw(st.sampled_from(["f", "g"]))  # a call id met again may call another tool
    if kind == "chat calls":  # Chat's form: one assistant message, then tool messages
        calls = [
            {"id": i, "type": "function", "function": {"name": name, "arguments": "{}"}}
            for i in ids
        ]
        replies = [{"role": "tool", "tool_call_id": i, "content": "out " + i} for i in ids]
        return [{"role": "assistant", "content": None, "tool_calls": calls}, *replies]
    if kind == "custom":  # a custom tool call answered by a Chat tool message
        call = {"id": ids[0], "type": "custom", "custom": {"name": "grep", "input": "x"}}
        reply = {"role": "tool", "tool_call_id": ids[0], "content": "found"}
        return [{"role": "assistant", "content": "", "tool_calls": [call]}, reply]
    output = draw(st.text(max_size=30))
    thought = [signature_item(f"sig {number}".encode())] if kind == "thought" else []
    return [
        *thought,
        *(function_call(i, name, "{}") for i in ids),
        *(function_call_output(i, output) for i in ids),
    ]


@st.composite
def _conversation(draw: st.DrawFn, form: str) -> list[Any]:
    items: list[Any] = [user_message("start")]
    for number in range(draw(st.integers(0, 8))):
        items.extend(draw(_turn(number, form)))
    return items


def _trimmed(item: Any) -> Any:
    """The item as a trim leaves it: a new object, its output (or content) shorter."""
    if "output" in item:
        return {**item, "output": str(item["output"])[:3] + " [cut]"}
    if item.get("role") == "tool":
        return {**item, "content": str(item["content"])[:2] + " [cut]"}
    return copy.deepcopy(item)  # an equal copy: converts alike


@st.composite
def _edits(draw: st.DrawFn) -> list[tuple[str, int]]:
    kinds = st.sampled_from(["trim", "cut", "grow", "same"])
    return draw(st.lists(st.tuples(kinds, st.integers(0, 10_000)), min_size=1, max_size=6))


@pytest.mark.parametrize("form", list(CONVERT))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), edits=_edits())
def test_an_edited_conversation_converts_as_a_fresh_one_does(
    form: str, data: st.DataObject, edits: list[tuple[str, int]]
) -> None:
    convert = CONVERT[form]
    conversation = data.draw(_conversation(form))
    later = data.draw(_conversation(form))
    memo: dict[Any, Any] = {}
    items = list(conversation)
    sent = [(list(items), copy.deepcopy(convert(items, memo)))]
    for kind, at in edits:
        items = list(items)
        if kind == "trim" and items:
            position = at % len(items)
            items[position] = _trimmed(items[position])
        elif kind == "cut":
            del items[at % (len(items) + 1) :]
        elif kind == "grow":
            items.extend(later[: at % (len(later) + 1)])
        request = convert(items, memo)
        assert request == convert(items, None)
        sent.append((items, copy.deepcopy(request)))
    for items, request in sent[:-1]:  # what an earlier request sent was not changed by later ones
        assert request == convert(items, None)


class _Log:
    """A state that converts an item to its text, and can be taken back (`Rewindable`)."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.converted: list[int] = []  # the positions converted, in order

    def rewind(self, index: int) -> None:
        del self.texts[index:]


def _convert(state: _Log, items: list[Any], first: int) -> None:
    for index in range(first, len(items)):
        state.texts.append(str(items[index].get("output", "")))
        state.converted.append(index)


def test_a_trim_converts_again_only_from_the_item_it_changed() -> None:
    items: list[Any] = [user_message("go")]
    for n in range(50):
        items += [function_call(f"c{n}", "page", "{}"), function_call_output(f"c{n}", "x" * 100)]
    memo: dict[Any, Any] = {}
    kept = converted(memo, "log", _Log)
    kept.extend(items, _convert)
    edited = list(items)
    edited[80] = _trimmed(items[80])
    state = kept.extend([*edited, user_message("more")], _convert)
    assert state.converted == [*range(101), *range(80, 102)]  # the 80 before: kept
    assert state.texts[80] == "xxx [cut]"


def test_a_state_that_cannot_be_taken_back_is_converted_from_the_start() -> None:
    memo: dict[Any, Any] = {}
    seen: list[int] = []

    def convert(state: list[str], items: list[Any], first: int) -> None:
        seen.append(first)
        state.extend(str(item.get("output", "")) for item in items[first:])

    items: list[Any] = [
        user_message("go"),
        function_call("c", "f", "{}"),
        function_call_output("c", "long"),
    ]
    converted(memo, "list", list[str]).extend(items, convert)
    edited = [*items[:2], _trimmed(items[2])]
    assert converted(memo, "list", list[str]).extend(edited, convert) == ["", "", "lon [cut]"]
    assert seen == [0, 0]


@pytest.mark.parametrize(
    ("form", "key"),
    [
        ("responses", responses_input),
        ("chat", items_to_messages),
        ("anthropic", to_messages),
        ("gemini", to_contents),
    ],
)
def test_a_trimmed_conversation_keeps_its_state(form: str, key: Any) -> None:
    items: list[Any] = [user_message("go")]
    for n in range(20):
        items += [function_call(f"c{n}", "page", "{}"), function_call_output(f"c{n}", "x" * 100)]
    memo: dict[Any, Any] = {}
    convert = CONVERT[form]
    convert(items, memo)
    state = converted(memo, key, object).state
    edited = list(items)
    edited[10] = _trimmed(items[10])
    assert convert(edited, memo) == convert(edited, None)
    assert converted(memo, key, object).state is state  # rewound, not made anew


def test_a_gemini_conversation_cut_after_a_thought_signature_sends_it_on_the_next_call() -> None:
    thought = signature_item(b"sig")
    items: list[Any] = [user_message("go"), thought, function_call("c1", "f", "{}")]
    memo: dict[Any, Any] = {}
    _gemini([*items, function_call_output("c1", "out")], memo)
    again = [*items[:2], function_call("c2", "g", "{}"), function_call_output("c2", "out")]
    contents = _gemini(again, memo)[1]
    assert contents == _gemini(again, None)[1]
    assert contents[1]["parts"][0]["thought_signature"] == b"sig"


def test_first_difference_finds_where_two_conversations_part() -> None:
    same: list[Any] = [user_message(str(n)) for n in range(9)]
    assert first_difference(same, list(same)) == 9
    assert first_difference(same, same[:4]) == 4
    assert first_difference(same, [*same[:6], user_message("other"), *same[7:]]) == 6
    assert first_difference(same, [copy.deepcopy(item) for item in same]) == 9  # equal items
    assert first_difference([], same) == 0


_TEXT = st.text(alphabet=st.sampled_from(list('ab "\\\n\t\ré中😀')), max_size=600)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=_JSON)
def test_the_estimate_counts_the_json_text_without_writing_it(value: Any) -> None:
    assert json_length(value) == len(json.dumps(value))


def test_the_estimate_counts_a_rare_control_character_as_one() -> None:
    text = "x" * 300 + "\x01"  # json.dumps writes \u0001: six characters
    assert json_length(text) == len(json.dumps(text)) - 5
    assert json_length(text + "\b") == len(json.dumps(text + "\b")) - 6  # \b: two
    assert json_length(text[-10:]) == len(json.dumps(text[-10:]))  # a short string: exact
    item = {"short": "a\bb", "long": "y" * 300}  # short strings in an item: exact
    assert json_length(item) == len(json.dumps(item))
