"""The Codex tool: a function tool whose call runs the Codex CLI as a subprocess.

`tests/codex_cli.py` stands in for `codex`: a real executable, given to the tool as its
path, that records its arguments and stdin and writes the JSONL events of a scripted
thread. The agent's own model calls go to the local OpenAI server.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from tooluse import Agent, FunctionTool, Runner, UserError
from tooluse.extensions.experimental.codex import (
    FAILED_CALL_TEXT,
    AgentMessageItem,
    Codex,
    CodexCLIError,
    CodexNotFoundError,
    CodexOptions,
    CodexToolStreamEvent,
    CommandExecutionItem,
    ItemCompletedEvent,
    ItemStartedEvent,
    ItemUpdatedEvent,
    ReasoningItem,
    ThreadOptions,
    ThreadStartedEvent,
    TodoListItem,
    TurnCompletedEvent,
    TurnOptions,
    TurnStartedEvent,
    UnknownThreadItem,
    Usage,
    codex_tool,
)
from tooluse.extensions.experimental.codex import _run_context as codex_run_context

from .codex_cli import SECRET, SLOW_SECONDS
from .openai_server import Call, ScriptedServer, Turn

CLI = Path(__file__).with_name("codex_cli.py")
USAGE = {"input_tokens": 12, "cached_input_tokens": 2, "output_tokens": 7}


def text_call(prompt: str, thread_id: str | None = None, *, context_mode: bool = False) -> Call:
    arguments: dict[str, Any] = {"inputs": [{"type": "text", "text": prompt, "path": None}]}
    if not context_mode:
        arguments["thread_id"] = thread_id
    return Call("codex" if not context_mode else "codex_engineer", json.dumps(arguments))


class FakeCodex:
    """`codex_cli.py` as the tool's executable, and what it recorded."""

    def __init__(self, tmp_path: Path) -> None:
        self.record = tmp_path / "record.jsonl"

    def options(
        self, scenario: str = "ok", *, api_key: str | None = None, base_url: str | None = None
    ) -> CodexOptions:
        # The venv's python first on PATH: the script's `#!/usr/bin/env python3` finds it
        # (not a slower shim), and the tool is given a whole environment of its own.
        path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
        env = {"PATH": path, "CODEX_RECORD": str(self.record), "CODEX_SCENARIO": scenario}
        return CodexOptions(str(CLI), base_url, api_key, env)

    def calls(self) -> list[dict[str, Any]]:
        if not self.record.exists():
            return []
        return [json.loads(line) for line in self.record.read_text().splitlines()]


@pytest.fixture
def fake(tmp_path: Path) -> FakeCodex:
    return FakeCodex(tmp_path)


def outputs(server: ScriptedServer) -> list[str]:
    """The tool outputs the model was sent, in order."""
    items: list[dict[str, Any]] = [
        item for request in server.requests for item in request["body"]["input"]
    ]
    return [item["output"] for item in items if item.get("type") == "function_call_output"]


def agent(server: ScriptedServer, tool: FunctionTool) -> Agent[Any]:
    return Agent("coder", tools=[tool], model=server.model("responses"))


async def test_a_run_calls_codex_streams_typed_events_and_the_model_reads_the_answer(
    openai_server: ScriptedServer, fake: FakeCodex
) -> None:
    seen: list[CodexToolStreamEvent] = []

    async def on_stream(payload: CodexToolStreamEvent) -> None:
        seen.append(payload)

    tool = codex_tool(
        codex_options=fake.options(api_key="sk-codex", base_url="http://127.0.0.1:9/v1"),
        sandbox_mode="read-only",
        default_thread_options=ThreadOptions(
            model="gpt-5.5",
            model_reasoning_effort="low",
            network_access_enabled=True,
            web_search_enabled=False,
            approval_policy="never",
        ),
        default_turn_options=TurnOptions(idle_timeout_seconds=60),
        on_stream=on_stream,
    )
    openai_server.script(Turn(calls=[text_call("Read the README.")]), Turn(text="Done."))

    result = await Runner.run(agent(openai_server, tool), "What is in the README?")

    assert result.final_output == "Done."
    [cli] = fake.calls()
    assert cli["args"] == [
        "exec", "--experimental-json", "--model", "gpt-5.5", "--sandbox", "read-only",
        "--config", 'model_reasoning_effort="low"',
        "--config", "sandbox_workspace_write.network_access=true",
        "--config", 'web_search="disabled"', "--config", 'approval_policy="never"', "-",
    ]  # fmt: skip
    assert cli["stdin"] == "Read the README."
    assert cli["env"] == {"CODEX_API_KEY": "sk-codex", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    events = [payload.event for payload in seen]
    assert [type(event) for event in events] == [
        ThreadStartedEvent, TurnStartedEvent, ItemCompletedEvent, ItemStartedEvent,
        ItemCompletedEvent, ItemUpdatedEvent, ItemCompletedEvent, ItemCompletedEvent,
        TurnCompletedEvent,
    ]  # fmt: skip
    items = [getattr(event, "item", None) for event in events]
    assert isinstance(items[2], ReasoningItem)
    assert items[2].text == "Look."
    assert isinstance(items[4], CommandExecutionItem)
    assert (items[4].command, items[4].status, items[4].exit_code) == (
        "cat README.md",
        "completed",
        0,
    )
    assert isinstance(items[5], TodoListItem)
    assert items[5].items[0].completed
    assert isinstance(items[6], UnknownThreadItem)
    assert items[6].type == "new_kind"
    assert isinstance(items[7], AgentMessageItem)
    assert events[-1] == TurnCompletedEvent(Usage(12, 2, 7))
    assert seen[0].thread.id == "thread-1"
    assert (seen[0].tool_call.name, seen[0].tool_call.type) == ("codex", "function_call")
    # The text openai-agents' model reads: `json.dumps`' spacing.
    assert outputs(openai_server) == [
        json.dumps(
            {"thread_id": "thread-1", "response": "Codex read: Read the README.", "usage": USAGE}
        )
    ]
    # Codex's turn counts in the run's usage as one more request (the server's use 10 and 5).
    usage = result.context_wrapper.usage
    assert (usage.requests, usage.input_tokens, usage.output_tokens) == (3, 32, 17)
    assert usage.cached_input_tokens == 2
    assert [(e.model, e.agent_name) for e in usage.request_usage_entries][1] == ("gpt-5.5", "codex")


async def test_a_second_call_continues_the_thread_the_model_names(
    openai_server: ScriptedServer, fake: FakeCodex
) -> None:
    tool = codex_tool(codex_options=fake.options())
    openai_server.script(
        Turn(calls=[text_call("First.")]),
        Turn(calls=[text_call("Second.", "thread-1")]),
        Turn(text="Done."),
    )

    await Runner.run(agent(openai_server, tool), "Go.")

    first, second = fake.calls()
    assert first["args"] == ["exec", "--experimental-json", "-"]
    assert second["args"] == ["exec", "--experimental-json", "resume", "--", "thread-1", "-"]
    assert json.loads(outputs(openai_server)[-1])["thread_id"] == "thread-1"


class EngineerContext(BaseModel):
    codex_thread_id_engineer: str | None = None


async def test_the_run_context_keeps_the_thread_id_so_the_next_run_continues_it(
    openai_server: ScriptedServer, fake: FakeCodex
) -> None:
    events: list[str] = []
    tool = codex_tool(
        name="codex_engineer",
        codex_options=fake.options(),
        use_run_context_thread_id=True,
        on_stream=lambda payload: events.append(payload.event.type),  # a sync handler
    )
    assert set(tool.params_json_schema["properties"]) == {"inputs"}
    context = EngineerContext()
    openai_server.script(
        Turn(calls=[text_call("List the checks.", context_mode=True)]),
        Turn(text="Listed."),
        Turn(calls=[text_call("Shorter.", context_mode=True)]),
        Turn(text="Shortened."),
    )

    await Runner.run(agent(openai_server, tool), "Checks?", context=context)
    assert context.codex_thread_id_engineer == "thread-1"
    await Runner.run(agent(openai_server, tool), "Shorter?", context=context)

    first, second = fake.calls()
    assert "resume" not in first["args"]
    assert second["args"][-3:] == ["--", "thread-1", "-"]
    assert context.codex_thread_id_engineer == "thread-1"
    assert events.count("thread.started") == 2


async def test_a_dict_context_gets_the_thread_id_under_the_default_key(
    openai_server: ScriptedServer, fake: FakeCodex
) -> None:
    tool = codex_tool(codex_options=fake.options(), use_run_context_thread_id=True)
    context: dict[str, str] = {}
    openai_server.script(
        Turn(calls=[Call("codex", json.dumps({"inputs": [{"type": "text", "text": "Hi"}]}))]),
        Turn(text="Done."),
    )
    await Runner.run(agent(openai_server, tool), "Hi", context=context)
    assert context == {"codex_thread_id": "thread-1"}


@pytest.mark.parametrize("scenario", ["exit", "turn_failed", "error_event", "not_json"])
async def test_a_failing_cli_gives_the_model_a_value_free_error(
    openai_server: ScriptedServer,
    fake: FakeCodex,
    scenario: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    tool = codex_tool(codex_options=fake.options(scenario))
    openai_server.script(Turn(calls=[text_call("Do it.")]), Turn(text="Sorry."))

    with caplog.at_level(logging.WARNING, logger="tooluse"):
        result = await Runner.run(agent(openai_server, tool), "Go.")

    assert result.final_output == "Sorry."
    assert outputs(openai_server) == [FAILED_CALL_TEXT]
    assert SECRET not in json.dumps([request["body"] for request in openai_server.requests])
    assert "codex tool 'codex' failed" in caplog.text
    assert SECRET not in caplog.text  # the CLI's words are logged only when asked


async def test_with_no_failure_function_the_cli_error_is_raised_with_its_stderr(
    openai_server: ScriptedServer, fake: FakeCodex
) -> None:
    tool = codex_tool(codex_options=fake.options("exit"), failure_error_function=None)
    openai_server.script(Turn(calls=[text_call("Do it.")]))

    with pytest.raises(CodexCLIError, match="exited with status 3") as raised:
        await Runner.run(agent(openai_server, tool), "Go.")
    assert SECRET in raised.value.stderr
    # The developer reads why, and what to do (the model never sees this text).
    assert f"its stderr ends: fatal: {SECRET}." in str(raised.value)
    assert "Run `codex exec` by hand" in str(raised.value)


async def test_a_failed_turn_still_keeps_its_thread_id_in_the_context(
    openai_server: ScriptedServer, fake: FakeCodex
) -> None:
    tool = codex_tool(codex_options=fake.options("turn_failed"), use_run_context_thread_id=True)
    context: dict[str, str] = {}
    openai_server.script(Turn(calls=[text_call("Do it.", context_mode=True)]), Turn(text="Ok."))
    openai_server.turns[0].calls[0].name = "codex"
    await Runner.run(agent(openai_server, tool), "Go.", context=context)
    assert context == {"codex_thread_id": "thread-9"}
    assert outputs(openai_server) == [FAILED_CALL_TEXT]


async def test_a_missing_executable_is_a_user_error_saying_how_to_install_or_point_at_it(
    openai_server: ScriptedServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    missing = CodexOptions(codex_path_override=str(tmp_path / "codex"))
    openai_server.script(Turn(calls=[text_call("Do it.")]), Turn(text="No Codex."))
    with caplog.at_level(logging.WARNING, logger="tooluse"):
        result = await Runner.run(agent(openai_server, codex_tool(codex_options=missing)), "Go.")
    # The run goes on, as openai-agents' does: the model is told the call failed...
    assert (result.final_output, outputs(openai_server)) == ("No Codex.", [FAILED_CALL_TEXT])
    # ...and the developer how to fix it.
    assert "is not an executable file: install the Codex CLI" in caplog.text

    openai_server.script(Turn(calls=[text_call("Do it.")]))
    raising = codex_tool(codex_options=missing, failure_error_function=None)
    with pytest.raises(CodexNotFoundError, match="npm install -g @openai/codex") as raised:
        await Runner.run(agent(openai_server, raising), "Go.")
    assert isinstance(raised.value, UserError)
    assert "CODEX_PATH" in str(raised.value)
    assert "codex_path_override" in str(raised.value)


async def test_with_no_codex_on_path_the_error_says_where_it_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CODEX_PATH", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(CodexNotFoundError, match=r"\(`codex`\) is not on PATH: install"):
        await Codex().start_thread().run("Hi")


async def test_bad_arguments_tell_the_model_what_to_correct(
    openai_server: ScriptedServer, fake: FakeCodex
) -> None:
    tool = codex_tool(codex_options=fake.options())
    blank = {"inputs": [{"type": "text", "text": "  ", "path": "ignored"}], "thread_id": None}
    openai_server.script(Turn(calls=[Call("codex", json.dumps(blank))]), Turn(text="Ok."))

    await Runner.run(agent(openai_server, tool), "Go.")

    [output] = outputs(openai_server)
    assert "inputs[0]: a `text` input needs a non-empty `text`" in output
    assert fake.calls() == []


class OtherContext(BaseModel):
    user: str = "ada"


async def test_a_context_that_cannot_keep_the_thread_id_is_a_user_error(
    openai_server: ScriptedServer, fake: FakeCodex
) -> None:
    tool = codex_tool(codex_options=fake.options(), use_run_context_thread_id=True)
    for context, expected in ((None, "pass context={}"), (OtherContext(), "writable field")):
        openai_server.script(Turn(calls=[text_call("Hi", context_mode=True)]))
        openai_server.turns[-1].calls[0].name = "codex"
        with pytest.raises(UserError, match=expected):
            await Runner.run(agent(openai_server, tool), "Go.", context=context)
    assert fake.calls() == []


async def test_a_thread_runs_turns_directly_and_an_idle_cli_is_stopped(fake: FakeCodex) -> None:
    codex = Codex(fake.options())
    thread = codex.start_thread({"skip_git_repo_check": True, "working_directory": "/w"})
    turn = await thread.run(
        [{"type": "text", "text": "Hi"}, {"type": "local_image", "path": "a.png"}]
    )
    assert (thread.id, turn.final_response, turn.usage) == (
        "thread-1",
        "Codex read: Hi",
        Usage(12, 2, 7),
    )
    assert fake.calls()[0]["args"] == [
        "exec", "--experimental-json", "--cd", "/w", "--skip-git-repo-check",
        "--image", "a.png", "-",
    ]  # fmt: skip

    idle = Codex(fake.options("idle")).start_thread()
    with pytest.raises(CodexCLIError, match=r"wrote no event for 0\.2 s"):  # not 30 s
        await idle.run("Hi", TurnOptions(idle_timeout_seconds=0.2))


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda: codex_tool(output_schema={"type": "object"}), "output_schema: ask for JSON"),
        (lambda: codex_tool({"persist_session": True}), "persist_session: keep the thread id"),
        (lambda: codex_tool(sandbox="read-only"), "no option sandbox; the options are name,"),
        (lambda: codex_tool({"sandbox": "x"}), "CodexToolOptions has no field sandbox"),
        (lambda: codex_tool(default_thread_options={"modle": "x"}), "no field modle; its"),
        (lambda: TurnOptions(output_schema={"type": "object"}), "not built in tooluse"),
        (lambda: TurnOptions(idle_timeout_seconds=0), "above 0"),
        (lambda: codex_tool(run_context_thread_id_key=" "), "non-empty key"),
    ],
)
def test_what_is_not_built_or_known_is_refused_with_what_to_do(
    make: Callable[[], object], expected: str
) -> None:
    with pytest.raises(UserError, match=expected):
        make()


def test_importing_tooluse_does_not_import_the_codex_tool() -> None:
    code = "import sys, tooluse; assert 'tooluse.extensions' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


class PlainContext:
    """A user's own context object, without the thread id's attribute."""


async def test_checking_the_context_leaves_no_thread_id_attribute_when_there_is_none(
    openai_server: ScriptedServer, fake: FakeCodex
) -> None:
    tool = codex_tool(codex_options=fake.options("exit"), use_run_context_thread_id=True)
    context = PlainContext()
    openai_server.script(Turn(calls=[text_call("Hi", context_mode=True)]), Turn(text="Ok."))
    openai_server.turns[0].calls[0].name = "codex"

    await Runner.run(agent(openai_server, tool), "Go.", context=context)

    assert len(fake.calls()) == 1  # the check passed, Codex ran and failed: no thread id
    assert vars(context) == {}


async def test_parallel_calls_on_the_context_thread_run_one_after_the_other_on_one_thread(
    openai_server: ScriptedServer, fake: FakeCodex
) -> None:
    tool = codex_tool(codex_options=fake.options(), use_run_context_thread_id=True)
    context: dict[str, str] = {}
    calls = [
        Call("codex", json.dumps({"inputs": [{"type": "text", "text": text}]}), call_id)
        for text, call_id in (("Plan.", "c1"), ("Test.", "c2"))
    ]
    openai_server.script(Turn(calls=calls), Turn(text="Done."))

    await Runner.run(agent(openai_server, tool), "Go.", context=context)

    first, second = fake.calls()
    assert "resume" not in first["args"]  # the first starts the thread...
    assert second["args"][-3:] == ["--", "thread-1", "-"]  # ...the second continues it
    assert context == {"codex_thread_id": "thread-1"}


@pytest.mark.parametrize("named_by", ["model", "tool"])
async def test_parallel_calls_resuming_one_thread_id_run_one_after_the_other(
    openai_server: ScriptedServer, fake: FakeCodex, named_by: str
) -> None:
    # Named by the model in each call, or by the tool's `thread_id=`: either way two
    # `codex exec resume` processes must never write one thread at once.
    default = "thread-7" if named_by == "tool" else None
    tool = codex_tool(codex_options=fake.options("slow"), thread_id=default)
    named = "thread-7" if named_by == "model" else None
    calls = [text_call(text, named) for text in ("Plan.", "Test.")]
    calls[0].call_id, calls[1].call_id = "c1", "c2"
    openai_server.script(Turn(calls=calls), Turn(text="Done."))

    await Runner.run(agent(openai_server, tool), "Go.")

    first, second = fake.calls()
    assert first["args"][-3:] == second["args"][-3:] == ["--", "thread-7", "-"]
    assert second["at"] - first["at"] >= SLOW_SECONDS  # started after the first had ended
    assert not codex_run_context._locks  # pyright: ignore[reportPrivateUsage] - none outlives its calls


def test_runs_in_two_threads_each_hold_their_own_loops_lock_on_one_thread_id(
    fake: FakeCodex,
) -> None:
    # `Runner.run_sync` in two threads: two event loops. An asyncio lock shared by both
    # would leave one waiting forever, or raise for the loop it is not bound to.
    tool = codex_tool(codex_options=fake.options("slow"), thread_id=" thread-7 ")
    server = ScriptedServer(
        lambda body: (
            Turn(text="Done.")
            if body["input"][-1].get("type") == "function_call_output"
            else Turn(calls=[text_call("Go.")])
        )
    )
    server.start()
    outputs: list[object] = []

    def run() -> None:
        outputs.append(Runner.run_sync(agent(server, tool), "Go.").final_output)

    threads = [threading.Thread(target=run, daemon=True) for _ in range(2)]  # a hung one too
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
    finally:
        server.stop()

    assert outputs == ["Done.", "Done."]
    assert [call["args"][-3:] for call in fake.calls()] == [["--", "thread-7", "-"]] * 2
    assert not codex_run_context._locks  # pyright: ignore[reportPrivateUsage]
