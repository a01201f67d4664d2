"""Nothing the model sends crashes a run: each misbehaviour over both APIs, streamed and not.

Every case goes through the real `openai` client and the local HTTP server, and
asserts what the model received next (the following request's body), and that
the run finishes, or raises a typed error that keeps the conversation.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from typing import Any

import pytest
from inline_snapshot import snapshot

from tooluse import (
    Agent,
    MaxTurnsExceeded,
    ModelRetry,
    RunConfig,
    RunContextWrapper,
    Runner,
    ToolContext,
    function_tool,
)
from tooluse.exceptions import ModelAPIError, ToolErrorBudgetExceeded

from .openai_server import Call, ScriptedServer, Turn, sent_call_ids, sent_tool_outputs

SECRET = "s3cr3t-sentinel"


@function_tool
def get_weather(city: str) -> str:
    """Get the weather.

    Args:
        city: The city.
    """
    return f"sunny in {city}"


@function_tool
def get_time(city: str) -> str:
    """Get the time.

    Args:
        city: The city.
    """
    return f"noon in {city}"


@function_tool(is_enabled=False)
def admin_reset() -> str:
    """Reset everything."""
    return "reset"


@function_tool
def explode(ctx: RunContextWrapper[dict[str, str]]) -> str:
    """Fail with a secret in the message."""
    raise RuntimeError(f"db password is {ctx.context['token']}")


@function_tool
def retry_me(city: str) -> str:
    """Ask the model to retry.

    Args:
        city: The city.
    """
    raise ModelRetry(f"No city named {city!r}; check the spelling.")


@function_tool(timeout=0.2)
async def slow_async() -> str:
    """Take too long."""
    await asyncio.sleep(10)
    return "late"


SYNC_STOPPED = threading.Event()


@function_tool(timeout=0.2)
def slow_sync(ctx: ToolContext[Any]) -> str:
    """Take too long, but watch for cancellation."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if ctx.cancelled.is_set():
            SYNC_STOPPED.set()
            return "stopped"
        time.sleep(0.01)
    return "late"


TOOLS = [get_weather, get_time, admin_reset, explode, retry_me, slow_async, slow_sync]


async def run(agent: Agent[Any], streamed: bool, **kwargs: Any) -> Any:
    if not streamed:
        return await Runner.run(agent, "go", context={"token": SECRET}, **kwargs)
    result = Runner.run_streamed(agent, "go", context={"token": SECRET}, **kwargs)
    async for _ in result.stream_events():
        pass
    return result


def parallel(*uses: tuple[str, Any]) -> str:
    return json.dumps({"tool_uses": [{"recipient_name": n, "parameters": p} for n, p in uses]})


CASES: dict[str, tuple[list[Call], dict[str, str]]] = {
    "unknown name": ([Call("get_wether", '{"city": "Paris"}')], {}),
    "prefixed name": ([Call("functions.get_weather", '{"city": "Paris"}')], {}),
    "disabled tool": ([Call("admin_reset", "{}")], {}),
    "invalid JSON": ([Call("get_weather", '{"city": ')], {}),
    "non-object JSON": ([Call("get_weather", '["Paris"]')], {}),
    "wrong type": ([Call("get_weather", '{"city": 5}')], {}),
    "missing field": ([Call("get_weather", "{}")], {}),
    "extra field": ([Call("get_weather", f'{{"city": "Paris", "note": "{SECRET}"}}')], {}),
    "parallel wrapper": (
        [
            Call(
                "multi_tool_use.parallel",
                parallel(
                    ("functions.get_weather", {"city": "Paris"}), ("get_time", '{"city": "Oslo"}')
                ),
            )
        ],
        {},
    ),
    "parallel with an unknown tool": (
        [
            Call(
                "multi_tool_use.parallel",
                parallel(("functions.nope", {"x": SECRET}), ("get_time", {"city": "Oslo"})),
            )
        ],
        {},
    ),
    "parallel with a bad payload": ([Call("parallel", '{"calls": []}')], {}),
    "tool raises": ([Call("explode", "{}")], {}),
    "ModelRetry": ([Call("retry_me", '{"city": "Pariss"}')], {}),
    "async timeout": ([Call("slow_async", "{}")], {}),
    "sync timeout": ([Call("slow_sync", "{}")], {}),
}


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("api", ["responses", "chat"])
@pytest.mark.parametrize("case", list(CASES))
async def test_misbehaviour_gets_an_answer_and_the_run_goes_on(
    openai_server: ScriptedServer,
    case: str,
    api: str,
    streamed: bool,
    caplog: pytest.LogCaptureFixture,
) -> None:
    calls, _ = CASES[case]
    openai_server.script(Turn(calls=calls), Turn(text="recovered"))
    agent = Agent("a", tools=TOOLS, model=openai_server.model(api))
    with caplog.at_level(logging.WARNING):
        result = await run(agent, streamed)
    assert result.final_output == "recovered"
    outputs = sent_tool_outputs(openai_server.requests[1]["body"])
    assert outputs == EXPECTED[case]
    sent_text = json.dumps(outputs)
    assert SECRET not in sent_text
    assert all(SECRET not in record.getMessage() for record in caplog.records)


EXPECTED: dict[str, dict[str, str]] = snapshot(
    {
        "unknown name": {
            "call_1": "Tool 'get_wether' does not exist. Available tools: explode, get_time, get_weather, retry_me, slow_async, slow_sync. Did you mean 'get_weather'?"
        },
        "prefixed name": {"call_1": "sunny in Paris"},
        "disabled tool": {
            "call_1": "Tool 'admin_reset' does not exist. Available tools: explode, get_time, get_weather, retry_me, slow_async, slow_sync."
        },
        "invalid JSON": {
            "call_1": """\
Tool 'get_weather' was called with invalid arguments:
- the arguments are not valid JSON: EOF while parsing a value at line 1 column 9
Call 'get_weather' again with corrected arguments.\
"""
        },
        "non-object JSON": {
            "call_1": """\
Tool 'get_weather' was called with invalid arguments:
- expected a JSON object (the arguments by name), not a JSON array
Call 'get_weather' again with corrected arguments.\
"""
        },
        "wrong type": {
            "call_1": """\
Tool 'get_weather' was called with invalid arguments:
- city: Input should be a valid string
Call 'get_weather' again with corrected arguments.\
"""
        },
        "missing field": {
            "call_1": """\
Tool 'get_weather' was called with invalid arguments:
- city: required field is missing
Call 'get_weather' again with corrected arguments.\
"""
        },
        "extra field": {
            "call_1": """\
Tool 'get_weather' was called with invalid arguments:
- note: unexpected field; remove it
Call 'get_weather' again with corrected arguments.\
"""
        },
        "parallel wrapper": {
            "call_1": '[{"tool": "get_weather", "output": "sunny in Paris"}, {"tool": "get_time", "output": "noon in Oslo"}]'
        },
        "parallel with an unknown tool": {
            "call_1": '[{"tool": "functions.nope", "output": "Tool \'functions.nope\' does not exist. Available tools: explode, get_time, get_weather, retry_me, slow_async, slow_sync."}, {"tool": "get_time", "output": "noon in Oslo"}]'
        },
        "parallel with a bad payload": {
            "call_1": 'The parallel call could not be read: expected {"tool_uses": [{"recipient_name": "functions.NAME", "parameters": {...}}, ...]}. Call the tools directly.'
        },
        "tool raises": {
            "call_1": "Tool 'explode' failed with an internal error (RuntimeError); its details are hidden. Do not retry the same call unchanged."
        },
        "ModelRetry": {"call_1": "No city named 'Pariss'; check the spelling."},
        "async timeout": {
            "call_1": "Tool 'slow_async' timed out after 0.2 s and was stopped. Try a smaller request, or another approach."
        },
        "sync timeout": {
            "call_1": "Tool 'slow_sync' timed out after 0.2 s but could not be stopped: it may still finish. Check its effect before retrying."
        },
    }
)


@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_sync_timeout_signals_the_abandoned_thread(
    openai_server: ScriptedServer, api: str
) -> None:
    SYNC_STOPPED.clear()
    openai_server.script(Turn(calls=[Call("slow_sync", "{}")]), Turn(text="ok"))
    await Runner.run(Agent("a", tools=TOOLS, model=openai_server.model(api)), "go")
    assert SYNC_STOPPED.wait(2)


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_duplicate_and_missing_call_ids(
    openai_server: ScriptedServer, api: str, streamed: bool
) -> None:
    openai_server.script(
        Turn(
            calls=[
                Call("get_time", '{"city": "A"}', "dup"),
                Call("get_time", '{"city": "B"}', "dup"),
            ]
        ),
        Turn(text="ok"),
    )
    result = await run(Agent("a", tools=TOOLS, model=openai_server.model(api)), streamed)
    body = openai_server.requests[1]["body"]
    assert sent_call_ids(body) == ["dup"]
    assert sent_tool_outputs(body) == {"dup": "noon in A"}
    assert result.final_output == "ok"


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_error_budget(openai_server: ScriptedServer, api: str, streamed: bool) -> None:
    openai_server.script(
        *(Turn(calls=[Call("nope", json.dumps({"k": SECRET}), f"c{i}")]) for i in range(5))
    )
    agent = Agent("a", tools=TOOLS, model=openai_server.model(api))
    with pytest.raises(ToolErrorBudgetExceeded) as raised:
        await run(agent, streamed, run_config=RunConfig(max_tool_errors=2))
    assert len(openai_server.requests) == 2
    assert raised.value.errors == [
        "Tool 'nope' does not exist. Available tools: explode, get_time, get_weather, retry_me, slow_async, slow_sync."
    ]
    assert [i.get("type") for i in raised.value.new_items] == [
        "function_call",
        "function_call_output",
    ] * 2
    assert raised.value.items[0] == {"role": "user", "content": "go"}
    assert SECRET not in str(raised.value)
    assert SECRET not in json.dumps(raised.value.errors)


async def test_a_success_resets_the_budget(openai_server: ScriptedServer) -> None:
    bad, good = Call("nope", "{}"), Call("get_time", '{"city": "X"}')
    openai_server.script(Turn(calls=[bad]), Turn(calls=[good]), Turn(calls=[bad]), Turn(text="ok"))
    agent = Agent("a", tools=TOOLS, model=openai_server.model("responses"))
    result = await Runner.run(agent, "go", run_config=RunConfig(max_tool_errors=2))
    assert result.final_output == "ok"


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_max_turns(openai_server: ScriptedServer, api: str, streamed: bool) -> None:
    openai_server.script(
        *(Turn(calls=[Call("get_time", '{"city": "X"}', f"c{i}")]) for i in range(3))
    )
    with pytest.raises(MaxTurnsExceeded) as raised:
        await run(Agent("a", tools=TOOLS, model=openai_server.model(api)), streamed, max_turns=2)
    assert len(raised.value.new_items) == 4


@pytest.mark.parametrize("status", [500, 429])
@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_api_errors_are_typed_and_keep_the_conversation(
    openai_server: ScriptedServer, api: str, streamed: bool, status: int
) -> None:
    openai_server.script(Turn(calls=[Call("get_time", '{"city": "X"}')]), Turn(status=status))
    agent = Agent("a", tools=TOOLS, model=openai_server.model(api))
    with pytest.raises(ModelAPIError) as raised:
        await run(agent, streamed, run_config=RunConfig(max_retries=0))
    assert raised.value.status_code == status
    assert [i.get("type") for i in raised.value.new_items] == [
        "function_call",
        "function_call_output",
    ]
    assert "scripted failure" in str(raised.value.__cause__)
    assert len(openai_server.requests) == 2


async def test_run_wide_failure_text_and_logging(
    openai_server: ScriptedServer, caplog: pytest.LogCaptureFixture
) -> None:
    def explain(ctx: RunContextWrapper[Any], error: Exception) -> str:
        return f"run-wide: {type(error).__name__}"

    openai_server.script(Turn(calls=[Call("explode", "{}")]), Turn(text="ok"))
    config = RunConfig(failure_error_function=explain, log_tool_errors=True)
    with caplog.at_level(logging.WARNING, logger="tooluse"):
        await Runner.run(
            Agent("a", tools=TOOLS, model=openai_server.model("responses")),
            "go",
            context={"token": SECRET},
            run_config=config,
        )
    assert sent_tool_outputs(openai_server.requests[1]["body"]) == {
        "call_1": "run-wide: RuntimeError"
    }
    assert any(SECRET in str(record.exc_info[1]) for record in caplog.records if record.exc_info)
