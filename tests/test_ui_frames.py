"""The SSE text the UI adapters write themselves is the text the official encoders write.

AG-UI: every event of the flows (text, a tool call, parallel calls, an approval paused,
approved and refused, an error), run in process, is parsed, validated by `ag_ui.core`'s
models with no field they do not know, and encoded again by `ag_ui`'s `EventEncoder`:
the same text, byte for byte. Vercel: every part is the
`json.dumps` text of itself, as the adapter wrote each part before its fast path.
Hypothesis drives the frequent events, and the ids and names written into the rare
ones, with quotes, backslashes, control characters, newlines and any Unicode.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
import random
import time
import uuid
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
from ag_ui.core import (
    CustomEvent,
    Event,
    RunAgentInput,
    RunFinishedEvent,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StepStartedEvent,
    TextMessageContentEvent,
    TextMessageStartEvent,
    TokenUsage,
    ToolCallArgsEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from ag_ui.encoder import EventEncoder
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter

from tests import ui_agents
from tests.test_ui_ag_ui import run_input
from tooluse import (
    Agent,
    AgentUpdatedStreamEvent,
    RequestUsage,
    RunItemStreamEvent,
    Runner,
    RunResultStreaming,
    TextDeltaStreamEvent,
    ToolCallArgumentsDeltaStreamEvent,
    Usage,
    UsageStreamEvent,
)
from tooluse.core._items import function_call_output
from tooluse.run._run_items import run_item
from tooluse.testing import FunctionModel
from tooluse.ui._ag_ui import ag_ui_stream
from tooluse.ui._ag_ui_events import AGUIEvents
from tooluse.ui._sse import new_id
from tooluse.ui._threads import Threads
from tooluse.ui._vercel import vercel_request, vercel_stream
from tooluse.ui._vercel_events import VercelParts

EVENT: TypeAdapter[Any] = TypeAdapter(Event)
ENCODER = EventEncoder()

TRICKY = '"\\/\n\r\t\b\f\x00\x01\x1f\x7f\u0085\u2028\u2029é€😀</script>'
texts = st.text(st.characters(codec="utf-8") | st.sampled_from(TRICKY), min_size=1)
"""Any text a model or a client may send (a lone surrogate is not text: no codec takes it)."""


def frames(chunks: list[str]) -> list[str]:
    """The SSE frames of a response's chunks, each `data: ...` and a blank line."""
    text = "".join(chunks)
    assert text.endswith("\n\n")
    return [frame + "\n\n" for frame in text.split("\n\n")[:-1]]


def assert_official(frame: str) -> None:
    """The frame is what `EventEncoder` writes for the event it holds."""
    assert frame.startswith("data: ")
    event: Any = EVENT.validate_json(frame[len("data: ") : -2])
    assert _unknown_fields(event) == []
    assert frame == ENCODER.encode(event)


def _unknown_fields(model: BaseModel) -> list[str]:
    unknown = list(model.model_extra or {})
    for value in model.__dict__.values():
        nested: list[Any] = value if isinstance(value, list) else [value]  # pyright: ignore[reportUnknownVariableType]
        for each in nested:
            if isinstance(each, BaseModel):
                unknown += _unknown_fields(each)
    return unknown


# -- AG-UI: the flows ---------------------------------------------------------------------


def ag_ui_request(thread: str, text: str | None, **extra: Any) -> RunAgentInput:
    messages = [] if text is None else [{"id": uuid.uuid4().hex, "role": "user", "content": text}]
    return RunAgentInput.model_validate(run_input(thread, messages, **extra))


async def ag_ui_frames(threads: Threads, request: RunAgentInput) -> list[str]:
    stream = ag_ui_stream(ui_agents.agent, threads, request, state_snapshots=True)
    return frames([chunk async for chunk in stream])


def test_every_ag_ui_event_of_the_flows_is_the_encoders_text() -> None:
    async def flows() -> list[str]:
        threads = Threads(None)
        written: list[str] = []
        for thread, text in [("t1", "hi"), ("t2", "weather"), ("t3", "both"), ("t4", "boom")]:
            written += await ag_ui_frames(threads, ag_ui_request(thread, text))
        paused = await ag_ui_frames(threads, ag_ui_request("t5", "delete it"))
        interrupt = json.loads(paused[-1][6:])["outcome"]["interrupts"][0]
        answer: dict[str, Any] = {
            "interruptId": interrupt["id"],
            "status": "resolved",
            "payload": {"approved": True},
        }
        approved = await ag_ui_frames(threads, ag_ui_request("t5", None, resume=[answer]))
        refused = await ag_ui_frames(threads, ag_ui_request("t5", None, resume=[answer]))
        return [*written, *paused, *approved, *refused]

    written = run_and_check(flows)
    kinds = {json.loads(frame[6:])["type"] for frame in written}
    assert kinds >= {
        "RUN_STARTED", "STEP_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END",
        "TOOL_CALL_RESULT", "CUSTOM", "STEP_FINISHED", "STATE_SNAPSHOT", "RUN_FINISHED",
        "RUN_ERROR",
    }  # fmt: skip


@dataclasses.dataclass
class Point:
    """An output the standard library's JSON cannot write."""

    x: int
    y: int


class Opaque:
    """An output JSON has no form for."""

    def __str__(self) -> str:
        return "opaque"


@pytest.mark.parametrize(
    ("output", "result"), [(Point(1, 2), {"x": 1, "y": 2}), (Opaque(), "opaque")]
)
def test_a_structured_final_output_is_the_result_as_json(output: Any, result: Any) -> None:
    async def finished() -> str:
        agent = Agent("Pointer", model=FunctionModel(lambda items, tools: "done"))
        run = Runner.run_streamed(agent, "where?")
        async for _ in run.stream_events():
            pass
        run.final_output = output  # as an agent with that output type would end
        return AGUIEvents("t", "r").finished(run)

    [*_, frame] = frames([asyncio.run(finished())])
    assert_official(frame)
    assert json.loads(frame[6:])["result"] == result


def run_and_check(flows: Callable[[], Coroutine[Any, Any, list[str]]]) -> list[str]:
    """Run the flows; check every frame is the encoder's."""
    written = asyncio.run(flows())
    for frame in written:
        assert_official(frame)
    return written


# -- AG-UI: the frequent events and every written id and name ----------------------------


@given(thread_id=texts, run_id=texts)
def test_run_started_is_the_encoders_text(thread_id: str, run_id: str) -> None:
    written = AGUIEvents(thread_id, run_id).started()
    assert written == ENCODER.encode(RunStartedEvent(thread_id=thread_id, run_id=run_id))


@given(first=texts, second=texts)
def test_text_deltas_are_the_encoders_text(first: str, second: str) -> None:
    translate = AGUIEvents("t", "r")
    opened = frames([translate.translate(TextDeltaStreamEvent(first))])
    message_id = translate.message_id
    assert message_id is not None
    start = TextMessageStartEvent(message_id=message_id, role="assistant")
    assert opened == [
        ENCODER.encode(start),
        ENCODER.encode(TextMessageContentEvent(message_id=message_id, delta=first)),
    ]
    then = translate.translate(TextDeltaStreamEvent(second))  # the message open: the fast path
    assert then == ENCODER.encode(TextMessageContentEvent(message_id=message_id, delta=second))


@given(call_id=texts, name=texts, first=texts, second=texts)
def test_argument_deltas_are_the_encoders_text(
    call_id: str, name: str, first: str, second: str
) -> None:
    translate = AGUIEvents("t", "r")
    opened = translate.translate(ToolCallArgumentsDeltaStreamEvent(call_id, name, first))
    assert frames([opened]) == [
        ENCODER.encode(ToolCallStartEvent(tool_call_id=call_id, tool_call_name=name)),
        ENCODER.encode(ToolCallArgsEvent(tool_call_id=call_id, delta=first)),
    ]
    then = translate.translate(ToolCallArgumentsDeltaStreamEvent(call_id, name, second))
    assert then == ENCODER.encode(ToolCallArgsEvent(tool_call_id=call_id, delta=second))
    for frame in frames([translate.failed("stopped", "test")]):  # the call's end
        assert_official(frame)


@given(name=texts)
def test_steps_are_the_encoders_text(name: str) -> None:
    translate = AGUIEvents("t", "r")
    written = translate.translate(AgentUpdatedStreamEvent(Agent(name)))
    assert written == ENCODER.encode(StepStartedEvent(step_name=name))


tokens = st.integers(min_value=0, max_value=2**53 - 1)  # what JSON numbers hold exactly
seconds = st.floats(min_value=0, max_value=1e7)
"""Durations: from a microsecond or less, which JSON serializers write in more than one way."""


@given(call_id=texts, output=texts, took=seconds)
def test_tool_results_and_their_durations_are_the_encoders_text(
    call_id: str, output: str, took: float
) -> None:
    translate = AGUIEvents("t", "r")
    translate.called_at[call_id] = time.monotonic() - took
    item = function_call_output(call_id, output)
    event = RunItemStreamEvent("tool_output", run_item(item, Agent("a")))
    written = frames([translate.translate(event)])
    result, timing = (json.loads(frame[6:]) for frame in written)
    expected_result = ToolCallResultEvent(
        message_id=result["messageId"], tool_call_id=call_id, content=output, role="tool"
    )
    assert written[0] == ENCODER.encode(expected_result)
    assert timing["value"]["duration_seconds"] >= took - 1e-6
    expected_timing = CustomEvent(name="tooluse.call", value=timing["value"])
    assert written[1] == ENCODER.encode(expected_timing)


@given(
    agent=st.none() | texts,
    model=st.none() | texts,
    used=st.tuples(tokens, tokens, tokens),
    took=seconds,
)
def test_usage_events_are_the_encoders_text(
    agent: str | None, model: str | None, used: tuple[int, int, int], took: float
) -> None:
    request = RequestUsage(*used, model=model, agent_name=agent, duration_seconds=took)
    written = AGUIEvents("t", "r").translate(UsageStreamEvent(request, Usage()))
    value = {
        "turn": 1,
        "agent": agent,
        "model": model,
        "input_tokens": used[0],
        "output_tokens": used[1],
        "total_tokens": used[2],
        "duration_seconds": took,
    }
    assert written == ENCODER.encode(CustomEvent(name="tooluse.usage", value=value))


@given(
    thread_id=texts, run_id=texts, output=st.none() | texts, used=st.tuples(tokens, tokens, tokens)
)
def test_run_finished_is_the_encoders_text(
    thread_id: str, run_id: str, output: str | None, used: tuple[int, int, int]
) -> None:
    run = finished_run()
    run.final_output = output
    run.usage = Usage(input_tokens=used[0], output_tokens=used[1], total_tokens=used[2])
    written = AGUIEvents(thread_id, run_id).finished(run)
    usage = TokenUsage(input_tokens=used[0], output_tokens=used[1], total_tokens=used[2])
    expected = RunFinishedEvent(
        thread_id=thread_id,
        run_id=run_id,
        result=output,
        outcome=RunFinishedSuccessOutcome(type="success"),
        usage=[usage],
    )
    assert written == ENCODER.encode(expected)


@functools.cache
def finished_run() -> RunResultStreaming:
    """A streamed run read to its end (each example sets the output and usage it needs)."""

    async def read() -> RunResultStreaming:
        run = Runner.run_streamed(Agent("Done", model=FunctionModel(lambda i, t: "ok")), "hi")
        async for _ in run.stream_events():
            pass
        return run

    return asyncio.run(read())


def test_message_ids_are_128_random_bits_in_hex_each_new() -> None:
    ids = {new_id() for _ in range(1000)}
    assert len(ids) == 1000
    assert all(len(each) == 32 and int(each, 16) >= 0 for each in ids)
    state = random.getstate()
    try:
        random.seed(35)  # a program seeding the random module for repeatable runs
        first = new_id()
        random.seed(35)
        assert new_id() != first
    finally:
        random.setstate(state)


# -- Vercel --------------------------------------------------------------------------------


def assert_json_dumps(frame: str) -> None:
    """The frame is `json.dumps` of the part it holds, as the adapter always wrote it."""
    assert frame.startswith("data: ")
    payload = frame[len("data: ") : -2]
    if payload != "[DONE]":
        assert payload == json.dumps(json.loads(payload), separators=(",", ":"))


def test_every_vercel_part_of_the_flows_is_its_json_dumps() -> None:
    async def flows() -> list[str]:
        threads = Threads(None)
        written: list[str] = []
        for chat, text in [("c1", "hi"), ("c2", "weather"), ("c3", "both"), ("c4", "boom")]:
            message = {"id": "u", "role": "user", "parts": [{"type": "text", "text": text}]}
            chat_id, request, continued = vercel_request({"id": chat, "messages": [message]})
            stream = vercel_stream(ui_agents.agent, threads, chat_id, request, None, continued)
            written += frames([chunk async for chunk in stream])
        return written

    written = asyncio.run(flows())
    kinds = {json.loads(frame[6:])["type"] for frame in written if "[DONE]" not in frame}
    assert kinds >= {
        "start", "start-step", "text-start", "text-delta", "text-end", "tool-input-start",
        "tool-input-delta", "tool-input-available", "tool-output-available", "finish-step",
        "error", "finish",
    }  # fmt: skip
    for frame in written:
        assert_json_dumps(frame)


@given(first=texts, second=texts)
def test_vercel_text_deltas_are_their_json_dumps(first: str, second: str) -> None:
    translate = VercelParts()
    opened = frames([translate.translate(TextDeltaStreamEvent(first))])
    text_id = translate.text_id
    then = translate.translate(TextDeltaStreamEvent(second))
    expected = {"type": "text-delta", "id": text_id, "delta": second}
    assert then == f"data: {json.dumps(expected, separators=(',', ':'))}\n\n"
    for frame in opened:
        assert_json_dumps(frame)


@given(call_id=texts, name=texts, first=texts, second=texts)
def test_vercel_input_deltas_are_their_json_dumps(
    call_id: str, name: str, first: str, second: str
) -> None:
    translate = VercelParts()
    opened = frames([translate.translate(ToolCallArgumentsDeltaStreamEvent(call_id, name, first))])
    then = translate.translate(ToolCallArgumentsDeltaStreamEvent(call_id, name, second))
    expected = {"type": "tool-input-delta", "toolCallId": call_id, "inputTextDelta": second}
    assert then == f"data: {json.dumps(expected, separators=(',', ':'))}\n\n"
    assert [json.loads(frame[6:])["type"] for frame in opened] == [
        "start-step",
        "tool-input-start",
        "tool-input-delta",
    ]
    for frame in opened:
        assert_json_dumps(frame)
