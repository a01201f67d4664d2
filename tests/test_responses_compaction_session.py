"""`OpenAIResponsesCompactionSession`: the history shrunk by `POST /v1/responses/compact`.

Every test runs real runs against the local OpenAI-compatible server
(`tests/openai_server.py`), whose `/v1/responses/compact` answers in the API's shape:
the input's user messages, then one opaque `compaction` item.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest

from tooluse import (
    Agent,
    ModelSettings,
    OpenAIResponsesCompactionSession,
    Runner,
    RunState,
    UsageStreamEvent,
    UserError,
    function_tool,
)
from tooluse.core._context import watcher_of
from tooluse.models import ModelTransportError
from tooluse.sessions import RunSession, SessionSettings, SQLiteSession

from .openai_server import Call, ScriptedServer, Turn
from .test_tracing import Traced

COMPACT = "/v1/responses/compact"


def _compactions(server: ScriptedServer) -> list[dict[str, Any]]:
    """The bodies of the compaction requests the server received, in order."""
    return [r["body"] for r in server.requests if r["path"].endswith("/responses/compact")]


def _model_inputs(server: ScriptedServer) -> list[list[dict[str, Any]]]:
    """The input of each model request (not compaction) the server received, in order."""
    return [r["body"]["input"] for r in server.requests if r["path"].endswith("/responses")]


def _kinds(items: list[Any]) -> list[str]:
    return [f"{item.get('type', 'message')}:{item.get('role', '')}" for item in items]


def _session(
    server: ScriptedServer, trigger: Callable[[dict[str, Any]], bool] | None = None, **options: Any
) -> OpenAIResponsesCompactionSession:
    return OpenAIResponsesCompactionSession(
        "chat",
        SQLiteSession(":memory:"),
        client=server.client(),
        should_trigger_compaction=trigger,
        **options,
    )


def _always(context: dict[str, Any]) -> bool:
    return True


def _two_candidates(context: dict[str, Any]) -> bool:
    return len(context["compaction_candidate_items"]) >= 2


def _agent(server: ScriptedServer, **settings: Any) -> Agent[Any]:
    return Agent(
        "a", model=server.model("responses"), model_settings=ModelSettings(**settings), tools=[]
    )


@function_tool
def weather(city: str) -> str:
    """The weather in a city.

    Args:
        city: The city.
    """
    return f"sunny in {city}"


@function_tool(needs_approval=True)
def delete_file(path: str) -> str:
    """Delete a file.

    Args:
        path: The file.
    """
    return f"deleted {path}"


async def test_below_the_default_threshold_nothing_is_compacted(
    openai_server: ScriptedServer,
) -> None:
    openai_server.script(*[Turn(text=f"answer {n}") for n in range(3)])
    session = _session(openai_server)  # the default: 10 items past the user's messages
    agent = _agent(openai_server)

    for n in range(3):
        await Runner.run(agent, f"question {n}", session=session)

    assert _compactions(openai_server) == []
    assert _kinds(await session.get_items()) == ["message:user", "message:assistant"] * 3


async def test_the_trigger_sees_each_turn_and_compaction_goes_by_the_last_response(
    openai_server: ScriptedServer,
) -> None:
    openai_server.script(*[Turn(text=f"answer {n}") for n in range(4)])
    seen: list[dict[str, Any]] = []

    def trigger(context: dict[str, Any]) -> bool:
        seen.append(context)
        return len(context["compaction_candidate_items"]) >= 2

    session = _session(openai_server, trigger)
    agent = _agent(openai_server)

    await Runner.run(agent, "question 0", session=session)
    assert _compactions(openai_server) == []
    result = await Runner.run(agent, "question 1", session=session)

    # Stored responses: the API compacts the conversation it holds, named by the last id.
    assert _compactions(openai_server) == [{"model": "gpt-4.1", "previous_response_id": "resp_1"}]
    assert [sorted(context) for context in seen] == [
        ["compaction_candidate_items", "compaction_mode", "response_id", "session_items"]
    ] * 2
    assert [(c["response_id"], c["compaction_mode"]) for c in seen] == [
        ("resp_1", "previous_response_id")
    ] * 2
    assert _kinds(seen[1]["session_items"]) == ["message:user", "message:assistant"] * 2
    (compaction,) = await session.get_items()
    assert compaction["type"] == "compaction"
    assert compaction["encrypted_content"]
    # The compaction's tokens are the run's too, as an entry of its own.
    assert [entry.compaction for entry in result.usage.request_usage_entries] == [False, True]

    await Runner.run(agent, "question 2", session=session)  # the next run reads it back
    assert _model_inputs(openai_server)[2][0] == compaction
    assert _kinds(await session.get_items()) == [
        "compaction:",
        "message:user",
        "message:assistant",
    ]
    # ... and so does the one after: the history begins at the compaction, not after it.
    await Runner.run(agent, "question 3", session=session)
    assert _kinds(_model_inputs(openai_server)[3]) == [
        "compaction:",
        "message:user",
        "message:assistant",
        "message:user",
    ]


async def test_unstored_responses_are_compacted_from_the_stored_items(
    openai_server: ScriptedServer,
) -> None:
    openai_server.script(*[Turn(text=f"answer {n}") for n in range(3)])
    session = _session(openai_server, _two_candidates)
    agent = _agent(openai_server, store=False)

    await Runner.run(agent, "question 0", session=session)
    await Runner.run(agent, "question 1", session=session)

    (sent,) = _compactions(openai_server)
    assert sorted(sent) == ["input", "model"]  # never a response id the API did not keep
    assert _kinds(sent["input"]) == ["message:user", "message:assistant"] * 2
    stored = await session.get_items()
    assert _kinds(stored) == ["message:user", "message:user", "compaction:"]
    assert [item["content"][0]["text"] for item in stored[:2]] == ["question 0", "question 1"]

    await Runner.run(agent, "question 2", session=session)
    assert _model_inputs(openai_server)[2][:3] == stored
    # A manual compaction remembers that the last response was not stored either.
    await session.run_compaction({"force": True})
    assert "previous_response_id" not in _compactions(openai_server)[1]
    assert _kinds(await session.get_items()) == ["message:user"] * 3 + ["compaction:"]


async def test_a_streamed_run_is_compacted_too(openai_server: ScriptedServer) -> None:
    openai_server.script(Turn(text="Hi."))
    session = _session(openai_server, _always)

    streamed = Runner.run_streamed(_agent(openai_server), "Hello", session=session)
    async for _ in streamed.stream_events():
        pass

    assert _compactions(openai_server) == [{"model": "gpt-4.1", "previous_response_id": "resp_1"}]
    assert _kinds(await session.get_items()) == ["compaction:"]


async def test_a_model_sent_part_of_the_history_is_not_compacted_by_its_response(
    openai_server: ScriptedServer,
) -> None:
    openai_server.script(*[Turn(text=f"answer {n}") for n in range(2)])
    windowed = SQLiteSession(":memory:", session_settings=SessionSettings(limit=2))
    session = OpenAIResponsesCompactionSession(
        "chat", windowed, client=openai_server.client(), should_trigger_compaction=_always
    )
    agent = _agent(openai_server)

    await Runner.run(agent, "question 0", session=session)  # the whole (empty) history
    assert len(_compactions(openai_server)) == 1
    await session.add_items(
        [{"role": "user", "content": "question 1"}, {"role": "assistant", "content": "answer 1"}]
    )
    await Runner.run(agent, "question 2", session=session)  # the last 2 of 3 items only

    # Compacting response 2 would replace all 5 items with what the model saw of them.
    assert len(_compactions(openai_server)) == 1
    assert len(await windowed.get_items(10)) == 5


async def test_a_turn_with_tool_outputs_waits_for_the_models_answer(
    openai_server: ScriptedServer,
) -> None:
    openai_server.script(
        Turn(calls=[Call("weather", '{"city": "Paris"}', "c1")]), Turn(text="Sunny.")
    )
    session = _session(openai_server, _always)
    agent = Agent("a", model=openai_server.model("responses"), tools=[weather])

    await Runner.run(agent, "Weather in Paris?", session=session)

    # One compaction, once the model read the tool's output: never between call and answer.
    (sent,) = _compactions(openai_server)
    assert sent == {"model": "gpt-4.1", "previous_response_id": "resp_1"}
    assert _kinds(await session.get_items()) == ["compaction:"]


async def test_a_run_paused_for_approval_is_not_compacted_under_its_state(
    openai_server: ScriptedServer,
) -> None:
    openai_server.script(
        Turn(calls=[Call("delete_file", '{"path": "plans.txt"}', "c1")]), Turn(text="Deleted.")
    )
    session = OpenAIResponsesCompactionSession(
        "chat",
        SQLiteSession(":memory:"),
        client=openai_server.client(),
        should_trigger_compaction=_always,
    )
    assert isinstance(session, RunSession)  # paused runs are the SQLite session's
    agent = Agent("a", model=openai_server.model("responses"), tools=[delete_file])

    paused = await Runner.run(agent, "Delete my plans", session=session)
    assert paused.interruptions
    assert _compactions(openai_server) == []
    with pytest.raises(UserError, match=r"holds a run paused for approval, .*: resume it"):
        await session.run_compaction({"force": True})

    state = await session.get_paused_run()
    assert isinstance(state, RunState)
    state.approve(state.get_interruptions()[0])
    done = await Runner.run(agent, state, session=session)

    assert done.final_output == "Deleted."
    assert len(_compactions(openai_server)) == 1
    assert _kinds(await session.get_items()) == ["compaction:"]


class ListCompactingSession:
    """A user's own session with openai-agents' `run_compaction(args)` and no `wrapper`."""

    def __init__(self) -> None:
        self.session_id = "mine"
        self.items: list[Any] = []
        self.calls: list[Any] = []

    async def get_items(self, limit: int | None = None) -> list[Any]:
        return list(self.items)

    async def add_items(self, items: list[Any]) -> None:
        self.items.extend(items)

    async def pop_item(self) -> Any:
        return self.items.pop() if self.items else None

    async def clear_session(self) -> None:
        self.items.clear()

    async def run_compaction(self, args: Any = None) -> None:
        self.calls.append(args)


async def test_the_runner_tells_any_session_with_run_compaction(
    openai_server: ScriptedServer,
) -> None:
    openai_server.script(
        Turn(calls=[Call("weather", '{"city": "Paris"}', "c1")]), Turn(text="Sunny."), Turn("Hi")
    )
    session = ListCompactingSession()
    agent = Agent("a", model=openai_server.model("responses"), tools=[weather])

    await Runner.run(agent, "Weather in Paris?", session=session)
    unstored = agent.clone(model_settings=ModelSettings(store=False))
    await Runner.run(unstored, "Hello", session=session)

    # Once a run, after the answer (not after the tool's output), with what it knows.
    assert session.calls == [{"response_id": "resp_1"}, {"response_id": "resp_1", "store": False}]


async def test_a_mode_given_to_one_call_and_the_input_it_sends(
    openai_server: ScriptedServer,
) -> None:
    session = _session(openai_server, compaction_mode="input")
    await session.add_items(
        [
            {"role": "user", "content": "Hi"},
            {"type": "message", "role": "assistant", "id": "msg_1", "content": []},
        ]
    )

    await session.run_compaction({"force": True, "response_id": "resp_9"})
    await session.run_compaction(
        {"force": True, "compaction_mode": "previous_response_id", "store": True}
    )

    first, second = _compactions(openai_server)
    assert first["input"][0] == {"role": "user", "content": "Hi"}
    assert second == {"model": "gpt-4.1", "previous_response_id": "resp_9"}


async def test_misuse_says_what_to_do(openai_server: ScriptedServer) -> None:
    store = SQLiteSession(":memory:")
    with pytest.raises(UserError, match=r"needs a session .* not dict \(no get_items"):
        OpenAIResponsesCompactionSession("chat", {})  # type: ignore[arg-type]
    wrapped = OpenAIResponsesCompactionSession("chat", store)
    with pytest.raises(UserError, match="it compacts already; wrap the session that stores"):
        OpenAIResponsesCompactionSession("chat", wrapped)
    with pytest.raises(UserError, match=r"model='claude-sonnet-4'.*name an OpenAI model"):
        OpenAIResponsesCompactionSession("chat", store, model="claude-sonnet-4")
    with pytest.raises(UserError, match="compaction_mode='server'"):
        OpenAIResponsesCompactionSession("chat", store, compaction_mode="server")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_rollback_items=0"):
        OpenAIResponsesCompactionSession("chat", store, max_rollback_items=0)
    for model in ("gpt-4.1", "openai/gpt-5.1", "o3", "ft:gpt-4.1:org:proj:x"):
        assert OpenAIResponsesCompactionSession("chat", store, model=model).model == model

    by_id = _session(openai_server, compaction_mode="previous_response_id")
    with pytest.raises(UserError, match="needs a response id"):
        await by_id.run_compaction({"force": True})
    bounded = _session(openai_server, max_rollback_items=1)
    await bounded.add_items([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}])
    with pytest.raises(UserError, match="more than max_rollback_items=1 items"):
        await bounded.run_compaction({"force": True})
    assert len(await bounded.get_items()) == 2
    assert _compactions(openai_server) == []


async def test_a_run_past_max_rollback_items_is_not_failed_and_says_why(
    openai_server: ScriptedServer, caplog: pytest.LogCaptureFixture
) -> None:
    # Unforced (as after each run), past the bound: a WARNING, not an error every run
    # after its turn is stored; the trigger is not asked, since it cannot see it all.
    asked: list[int] = []

    def counting(context: dict[str, Any]) -> bool:
        asked.append(len(context["session_items"]))
        return True

    openai_server.script(Turn(text="one"), Turn(text="two"))
    bounded = _session(openai_server, counting, max_rollback_items=2)

    with caplog.at_level(logging.WARNING, logger="tooluse.sessions"):
        for text in ("Hi", "Again"):
            await Runner.run(_agent(openai_server), text, session=bounded)

    assert asked == [2]  # after the first run (2 items, compacted to 1), not the second (3)
    assert _kinds(await bounded.get_items()) == ["compaction:", "message:user", "message:assistant"]
    (record,) = [r for r in caplog.records if "max_rollback_items=2" in r.message]
    assert record.levelno == logging.WARNING


async def test_a_trigger_that_raises_or_is_async_stops_the_run_with_the_turn_kept(
    openai_server: ScriptedServer,
) -> None:
    openai_server.script(Turn(text="one"), Turn(text="two"))

    def broken(context: dict[str, Any]) -> bool:
        return context["candidates"] > 3  # the wrong key

    async def asynchronous(context: dict[str, Any]) -> bool:
        return True

    agent = _agent(openai_server)
    # The type checker refuses the async one; an untyped caller learns at run time.
    triggers: list[tuple[Any, str]] = [
        (broken, r"'broken' raised KeyError, .*kept, with the turn.*compaction_candidate_items"),
        (asynchronous, "'asynchronous' returned an awaitable: .*make it a def"),
    ]
    for trigger, why in triggers:
        session = _session(openai_server, trigger)
        with pytest.raises(UserError, match=f"should_trigger_compaction .*{why}"):
            await Runner.run(agent, "question", session=session)
        assert _kinds(await session.get_items()) == ["message:user", "message:assistant"]
    assert _compactions(openai_server) == []


async def test_a_failed_compaction_keeps_the_history(openai_server: ScriptedServer) -> None:
    gone = ScriptedServer()
    gone.start()
    client = gone.client()
    gone.stop()  # nothing listens there now: the connection is refused
    session = OpenAIResponsesCompactionSession(
        "chat", SQLiteSession(":memory:"), client=client, compaction_mode="input"
    )
    await session.add_items([{"role": "user", "content": "Hi"}])

    with pytest.raises(ModelTransportError, match=r"responses.compact failed .* history was kept"):
        await session.run_compaction({"force": True})
    assert await session.get_items() == [{"role": "user", "content": "Hi"}]
    del openai_server


async def test_a_run_whose_compaction_fails_still_returns_its_answer(
    openai_server: ScriptedServer, caplog: pytest.LogCaptureFixture
) -> None:
    gone = ScriptedServer()
    gone.start()
    client = gone.client()
    gone.stop()  # compactions go nowhere: the connection is refused
    session = OpenAIResponsesCompactionSession(
        "chat", SQLiteSession(":memory:"), client=client, should_trigger_compaction=_always
    )
    openai_server.script(Turn(text="Hello."))

    with caplog.at_level(logging.WARNING, logger="tooluse"):
        result = await Runner.run(_agent(openai_server), "Hi", session=session)

    assert result.final_output == "Hello."
    assert _kinds(await session.get_items()) == ["message:user", "message:assistant"]
    assert watcher_of(result.context_wrapper) is None  # the run watches only while it saves
    (record,) = [r for r in caplog.records if "compacting after the run failed" in r.message]
    assert record.levelno == logging.WARNING
    assert "session 'chat'" in record.message
    assert "run_compaction({'force': True})" in record.message


async def test_a_compaction_the_api_refuses_fails_the_run_with_its_turn_stored(
    openai_server: ScriptedServer,
) -> None:
    # A key, a URL, a history the API will not take: no retry mends it, so the developer
    # hears of it now, not as a context overflow many runs later.
    openai_server.compact_status = 401
    openai_server.script(Turn(text="Hello."))
    session = _session(openai_server, _always)

    with pytest.raises(ModelTransportError, match=r"responses.compact failed .*HTTP 401"):
        await Runner.run(_agent(openai_server), "Hi", session=session)
    assert _kinds(await session.get_items()) == ["message:user", "message:assistant"]


async def test_a_runs_compaction_is_a_chat_span_in_its_trace_and_a_usage_event(
    openai_server: ScriptedServer,
) -> None:
    traced = Traced()
    openai_server.script(Turn(text="Hi."))
    session = _session(openai_server, _always)

    streamed = Runner.run_streamed(
        _agent(openai_server), "Hello", session=session, run_config=traced.config()
    )
    usage_events = [e async for e in streamed.stream_events() if isinstance(e, UsageStreamEvent)]

    assert traced.outline() == (
        "invoke_workflow Agent workflow\n  invoke_agent a\n    chat test-model\n    chat gpt-4.1"
    )
    turn, compaction = traced.one("chat test-model"), traced.one("chat gpt-4.1")
    assert "tooluse.compaction" not in (turn.attributes or {})
    assert (compaction.attributes or {})["tooluse.compaction"] is True
    assert [e.request.compaction for e in usage_events] == [False, True]
    assert usage_events[-1].usage is streamed.usage
    assert streamed.usage.requests == 2
    assert watcher_of(streamed.context_wrapper) is None


async def test_a_failed_compaction_ends_its_span_with_the_error(
    openai_server: ScriptedServer,
) -> None:
    traced = Traced()
    gone = ScriptedServer()
    gone.start()
    client = gone.client()
    gone.stop()
    session = OpenAIResponsesCompactionSession(
        "chat", SQLiteSession(":memory:"), client=client, should_trigger_compaction=_always
    )
    openai_server.script(Turn(text="Hello."))

    result = await Runner.run(
        _agent(openai_server), "Hi", session=session, run_config=traced.config()
    )

    assert result.final_output == "Hello."
    turn, compaction = traced.one("chat test-model"), traced.one("chat gpt-4.1")
    assert turn.status.is_ok
    assert not compaction.status.is_ok
    assert (compaction.attributes or {})["error.type"] == "openai.APIConnectionError"


class _FailingStore(SQLiteSession):
    """A store whose writes fail the first `failures` times after it is cleared."""

    def __init__(self) -> None:
        super().__init__("chat", ":memory:")
        self.failures = 0

    async def add_items(self, items: list[Any]) -> None:
        if self.failures:
            self.failures -= 1
            raise OSError("disk full")
        await super().add_items(items)


_MARKED: list[dict[str, Any]] = [
    {"role": "user", "content": "Hi"},
    {"role": "assistant", "content": "Hello."},
    {"type": "tooluse_context", "summary": "The user said hi.", "kept": []},
    {"role": "user", "content": "Again"},
]


async def test_a_failed_swap_puts_back_the_items_as_stored_marks_and_all(
    openai_server: ScriptedServer,
) -> None:
    store = _FailingStore()
    session = OpenAIResponsesCompactionSession(
        "chat", store, client=openai_server.client(), compaction_mode="input"
    )
    await store.add_items(_MARKED)
    store.failures = 1  # storing the compacted history fails; putting back works

    with pytest.raises(OSError, match="disk full"):
        await session.run_compaction({"force": True})
    assert await store.get_items() == _MARKED


async def test_when_putting_back_fails_too_the_first_error_is_raised_and_logged(
    openai_server: ScriptedServer, caplog: pytest.LogCaptureFixture
) -> None:
    store = _FailingStore()
    session = OpenAIResponsesCompactionSession(
        "chat", store, client=openai_server.client(), compaction_mode="input"
    )
    await store.add_items(_MARKED)
    store.failures = 2

    with pytest.raises(OSError, match="disk full") as raised:
        await session.run_compaction({"force": True})
    assert raised.value.__context__ is None  # the swap's error, not the restore's
    assert "putting the 4 previous items back failed too" in caplog.text
