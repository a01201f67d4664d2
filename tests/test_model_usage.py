"""Usage you can bill, and the model's name, as the OpenAI models read them.

Cached input tokens and reasoning tokens, present, missing or null (as vLLM and
Ollama leave them), and the name of the model that answered, over real HTTP
from a `CannedServer`, whole and streamed: the two modes give the same response.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Literal

import openai
import pytest

from tooluse import InputTokensDetails, OutputTokensDetails, Usage

from .canned_server import (
    REQUEST,
    SNAPSHOT,
    Api,
    CannedServer,
    Json,
    Mode,
    answer,
    arguments_by_call,
    call_head,
    call_piece,
    chat_body,
    chat_chunks,
    chunk,
    done,
    events_of,
    function_call_item,
    joined,
    message_item,
    model_for,
    responses_body,
    responses_events,
    script,
    split,
)


@pytest.fixture
def server() -> Iterator[CannedServer]:
    canned = CannedServer()
    canned.start()
    try:
        yield canned
    finally:
        canned.stop()


@pytest.fixture
async def client(server: CannedServer) -> AsyncIterator[openai.AsyncOpenAI]:
    async with server.client() as client:
        yield client


# ---------------------------------------------------------------- usage you can bill

BILLED = Usage(
    requests=1,
    input_tokens=1200,
    output_tokens=300,
    total_tokens=1500,
    input_tokens_details=InputTokensDetails(cached_tokens=1024),
    output_tokens_details=OutputTokensDetails(reasoning_tokens=256),
)
NO_DETAILS = Usage(requests=1, input_tokens=1200, output_tokens=300, total_tokens=1500)
COUNTS = {
    "responses": ("input_tokens", "output_tokens"),
    "chat": ("prompt_tokens", "completion_tokens"),
}
DETAILS = {
    "responses": ("input_tokens_details", "output_tokens_details"),
    "chat": ("prompt_tokens_details", "completion_tokens_details"),
}


def usage_json(api: Api, details: Literal["present", "missing", "null", "null counts"]) -> Json:
    sent, produced = COUNTS[api]
    usage: Json = {sent: 1200, produced: 300, "total_tokens": 1500}
    input_details, output_details = DETAILS[api]
    if details == "present":
        usage[input_details] = {"cached_tokens": 1024, "audio_tokens": 0}
        usage[output_details] = {"reasoning_tokens": 256, "audio_tokens": 0}
    elif details == "null":
        usage[input_details] = usage[output_details] = None
    elif details == "null counts":
        usage[input_details] = {"cached_tokens": None}
        usage[output_details] = {"reasoning_tokens": None}
    return usage


@pytest.mark.parametrize("mode", ["whole", "streamed"])
@pytest.mark.parametrize("api", ["responses", "chat"])
@pytest.mark.parametrize(
    ("details", "expected"),
    [
        ("present", BILLED),
        ("missing", NO_DETAILS),
        ("null", NO_DETAILS),
        ("null counts", NO_DETAILS),
    ],
)
async def test_cached_and_reasoning_tokens_are_read_and_default_to_zero(
    server: CannedServer,
    client: openai.AsyncOpenAI,
    api: Api,
    mode: Mode,
    details: Literal["present", "missing", "null", "null counts"],
    expected: Usage,
) -> None:
    script(server, api, mode, usage_json(api, details), SNAPSHOT)

    response = await answer(api, mode, client)

    assert response.usage == expected
    assert response.usage.cached_input_tokens == expected.input_tokens_details.cached_tokens
    assert response.usage.reasoning_tokens == expected.output_tokens_details.reasoning_tokens


@pytest.mark.parametrize("mode", ["whole", "streamed"])
@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_a_server_without_usage_or_totals_counts_what_it_sent(
    server: CannedServer, client: openai.AsyncOpenAI, api: Api, mode: Mode
) -> None:
    sent, produced = COUNTS[api]
    script(server, api, mode, None, SNAPSHOT)
    script(server, api, mode, {sent: 7, produced: None}, SNAPSHOT)  # no total, a null count

    assert (await answer(api, mode, client)).usage == Usage(requests=1)
    assert (await answer(api, mode, client)).usage == Usage(
        requests=1, input_tokens=7, output_tokens=0, total_tokens=7
    )


@pytest.mark.parametrize("mode", ["whole", "streamed"])
@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_counts_that_are_not_whole_numbers_count_zero(
    server: CannedServer, client: openai.AsyncOpenAI, api: Api, mode: Mode
) -> None:
    sent, produced = COUNTS[api]
    input_details, output_details = DETAILS[api]
    usage: Json = {sent: "12", produced: 3, "total_tokens": 3, input_details: 5, output_details: []}
    script(server, api, mode, usage, SNAPSHOT)

    assert (await answer(api, mode, client)).usage == Usage(
        requests=1, input_tokens=0, output_tokens=3, total_tokens=3
    )


# ---------------------------------------------------------------- the model's name


@pytest.mark.parametrize("mode", ["whole", "streamed"])
@pytest.mark.parametrize("api", ["responses", "chat"])
@pytest.mark.parametrize(("sent", "expected"), [(SNAPSHOT, SNAPSHOT), (None, None), ("", None)])
async def test_the_model_name_is_the_one_the_api_reports(
    server: CannedServer,
    client: openai.AsyncOpenAI,
    api: Api,
    mode: Mode,
    sent: str | None,
    expected: str | None,
) -> None:
    script(server, api, mode, usage_json(api, "present"), sent)

    assert (await answer(api, mode, client)).model == expected


async def test_a_streamed_chat_reply_takes_the_first_model_name_it_is_given(
    server: CannedServer, client: openai.AsyncOpenAI
) -> None:
    # Azure's first chunk (prompt filter results) has an empty model; the others name it.
    chunks = chat_chunks("Sunny.", None)
    server.events([chunk(choices=False, model=""), *chunks], named=False)

    assert done(await events_of(model_for("chat", client))).model == SNAPSHOT


# ---------------------------------------------------------------- plain and streamed agree


@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_plain_and_streamed_give_the_same_response(
    server: CannedServer, client: openai.AsyncOpenAI, api: Api
) -> None:
    calls = [("call_a", "weather", '{"city": "Paris"}'), ("call_b", "time", '{"zone": "CET"}')]
    usage = usage_json(api, "present")
    if api == "responses":
        output = [message_item("Checking."), *(function_call_item(*call) for call in calls)]
        server.json(responses_body(output, usage))
        server.events(responses_events(output, usage))
    else:
        tool_calls = [
            {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
            for i, n, a in calls
        ]
        message = {"role": "assistant", "content": "Checking.", "tool_calls": tool_calls}
        server.json(chat_body(message, usage))
        server.events(
            [
                chunk({"role": "assistant", "content": "Checking."}),
                *(chunk(call_head(i, call_id, name)) for i, (call_id, name, _) in enumerate(calls)),
                *(
                    chunk(call_piece(i, part))
                    for i, call in enumerate(calls)
                    for part in split(call[2])
                ),
                chunk({}, "stop"),
                chunk(usage=usage, choices=False),
            ],
            named=False,
        )
    model = model_for(api, client)

    whole = await model.get_response(REQUEST)
    events = await events_of(model)

    assert done(events) == whole
    assert whole.model == SNAPSHOT
    assert whole.usage == BILLED
    assert joined(events) == arguments_by_call(whole) == {c: a for c, _, a in calls}
