"""Every way a run stops is a typed error that keeps the conversation, streamed or not; every
stream a run opens is closed. Over real HTTP, with the real `openai` client."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tooluse import Agent, Runner
from tooluse.exceptions import ModelAPIError, ResponseIncomplete, RunStopped

from .conftest import EVERY_EXAMPLE
from .openai_server import Call, ScriptedServer, Turn, sent_tool_outputs
from .stream_leak_main import FIRST, get_weather

APIS = ["responses", "chat"]
ROOT = Path(__file__).resolve().parent.parent


async def run(agent: Agent[Any], streamed: bool) -> Any:
    if not streamed:
        return await Runner.run(agent, "go")
    result = Runner.run_streamed(agent, "go")
    async for _ in result.stream_events():
        pass
    return result


def assert_keeps_the_conversation(error: RunStopped) -> None:
    assert error.items[0] == {"role": "user", "content": "go"}
    assert [i.get("type") for i in error.new_items] == ["function_call", "function_call_output"]


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize(
    ("api", "turn", "reason"),
    [
        ("responses", Turn(text="It is sun", incomplete="max_output_tokens"), "max_output_tokens"),
        ("responses", Turn(text="It", incomplete="content_filter"), "content_filter"),
        ("chat", Turn(text="It is sun", incomplete="max_output_tokens"), "length"),
        ("chat", Turn(text="It", incomplete="content_filter"), "content_filter"),
    ],
)
async def test_an_incomplete_response_is_the_same_typed_error_in_both_modes(
    openai_server: ScriptedServer, api: str, turn: Turn, reason: str, streamed: bool
) -> None:
    openai_server.script(FIRST, turn)
    agent = Agent("a", tools=[get_weather], model=openai_server.model(api))
    with pytest.raises(ResponseIncomplete) as raised:
        await run(agent, streamed)
    assert raised.value.reason == reason
    assert f"incomplete ({reason})" in str(raised.value)
    assert_keeps_the_conversation(raised.value)


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_a_failed_response_is_a_model_api_error_in_both_modes(
    openai_server: ScriptedServer, streamed: bool
) -> None:
    openai_server.script(FIRST, Turn(failed=("server_error", "The server had an error")))
    agent = Agent("a", tools=[get_weather], model=openai_server.model("responses"))
    with pytest.raises(ModelAPIError) as raised:
        await run(agent, streamed)
    assert raised.value.description == (
        "the model's API reported that the response failed (server_error: The server had an error)"
    )
    assert_keeps_the_conversation(raised.value)


UNREADABLE = [
    ("responses", False, Turn(raw_body="<html>bad gateway</html>"), "answered with a body that is not valid JSON"),
    ("chat", False, Turn(raw_body="{not json"), "answered with a body that is not valid JSON"),
    ("responses", True, Turn(raw_events=["event: x\ndata: {not json\n\n"]), "a streamed event from the model's API was not valid JSON"),
    ("chat", True, Turn(raw_events=["data: {not json\n\n"]), "a streamed event from the model's API was not valid JSON"),
    ("responses", True, Turn(text="It", error_event=("server_error", "overloaded")), "sent an error event mid-stream (server_error: overloaded)"),
    ("chat", True, Turn(text="It", error_event=("server_error", "overloaded")), "sent an error event mid-stream (server_error: overloaded)"),
    ("responses", True, Turn(text="It", ends_early=True), "the stream ended before the response was complete"),
]  # fmt: skip


@pytest.mark.parametrize(("api", "streamed", "turn", "description"), UNREADABLE)
async def test_an_unreadable_answer_is_a_model_api_error_saying_what_happened(
    openai_server: ScriptedServer, api: str, streamed: bool, turn: Turn, description: str
) -> None:
    openai_server.script(FIRST, turn)
    agent = Agent("a", tools=[get_weather], model=openai_server.model(api))
    with pytest.raises(ModelAPIError) as raised:
        await run(agent, streamed)
    assert description in raised.value.description
    assert "after the client's retries" not in str(raised.value)
    assert_keeps_the_conversation(raised.value)


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("api", APIS)
async def test_a_lone_surrogate_in_the_arguments_does_not_stop_the_run(
    openai_server: ScriptedServer, api: str, streamed: bool
) -> None:
    openai_server.script(
        Turn(calls=[Call("get_weather", '{"city": "Par\ud800is"}')]), Turn(text="done")
    )
    agent = Agent("a", tools=[get_weather], model=openai_server.model(api))
    result = await run(agent, streamed)
    assert result.final_output == "done"
    assert sent_tool_outputs(openai_server.requests[1]["body"]) == {
        "call_1": "sunny in Par\ufffdis"
    }


async def test_an_unknown_tool_name_is_echoed_cut_short(openai_server: ScriptedServer) -> None:
    name = "n" * 10_000
    openai_server.script(
        Turn(calls=[Call(name, "{}", f"c{i}") for i in range(100)]), Turn(text="done")
    )
    agent = Agent("a", tools=[get_weather], model=openai_server.model("responses"))
    await Runner.run(agent, "go")
    echoed = sent_tool_outputs(openai_server.requests[1]["body"])
    assert all(len(output) < 300 for output in echoed.values())


STREAM_LEAK_SECONDS = 120  # about 5 s on an idle machine


# A leak shows as a socket per run: 100 runs tell; CI runs 300 (the rounds' sockets add up).
STREAM_LEAK_ROUNDS = 3 if EVERY_EXAMPLE else 1


@pytest.mark.parametrize("api", APIS)
def test_no_stream_is_left_open_after_hundreds_of_streamed_runs(api: str) -> None:
    """In a fresh interpreter with the collector off (see tests/stream_leak_main.py)."""
    command = [sys.executable, "-m", "tests.stream_leak_main", api, str(STREAM_LEAK_ROUNDS)]
    try:
        done = subprocess.run(
            command,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=STREAM_LEAK_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired as timeout:
        pytest.fail(f"{' '.join(command)} ran past {STREAM_LEAK_SECONDS} s: {timeout.stderr!r}")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["left_open"] <= 5
    assert found["requests"] == 200 * STREAM_LEAK_ROUNDS
    assert found["last_request_is_json"]  # every request was whole
