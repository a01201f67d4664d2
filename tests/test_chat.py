"""`tooluse chat`: in a pseudo-terminal as a person uses it, and in process with a script.

The pty tests spawn the command (three processes in all); the others call
`run_chat` with scripted lines, for what a terminal cannot show cheaply.
"""

from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tooluse import Agent
from tooluse.cli._chat import find_agent, history_line, offline_run_config, run_chat
from tooluse.cli._loading import CliError
from tooluse.cli._main import main
from tooluse.testing import TestModel

from . import chat_agents

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = "examples/chat_session.py"
AGENTS = "tests/chat_agents.py"

pexpect = pytest.importorskip("pexpect")


def _spawn(*args: str) -> Any:
    env = {key: value for key, value in os.environ.items() if key != "OPENAI_API_KEY"}
    env["PYTHONUNBUFFERED"] = "1"
    return pexpect.spawn(
        sys.executable,
        ["-m", "tooluse", "chat", *args],
        cwd=str(ROOT),
        env=env,
        timeout=10,
        encoding="utf-8",
        dimensions=(24, 200),
    )


def _interrupt_until(child: Any, answer: str) -> None:
    """Send Ctrl-C once the child's main thread waits for input, until it prints `answer`.

    CPython notices a signal that lands just before it blocks in `select` (readline's
    prompt) or `epoll_wait` (the event loop) only when that call returns: under load
    such a Ctrl-C, sent as soon as the output appeared, went unseen. The kernel says
    where the thread sleeps (`/proc/PID/wchan`); where it cannot, the signal is sent
    at once. A thread can sit in such a wait for a moment just before the one that
    matters, so an unanswered Ctrl-C is sent again, as a user would press it again.
    """
    for _ in range(3):
        _wait_for_input(child)
        child.sendintr()
        if child.expect_exact([answer, pexpect.TIMEOUT], timeout=3) == 0:
            return
    pytest.fail(f"three Ctrl-Cs and the chat never printed {answer!r}")


def _wait_for_input(child: Any) -> None:
    wchan = Path(f"/proc/{child.pid}/wchan")
    deadline = time.monotonic() + 10
    while wchan.exists() and time.monotonic() < deadline:
        if wchan.read_text().startswith(_WAITING_FOR_INPUT):
            return
        time.sleep(0.01)
    if wchan.exists():
        pytest.fail(f"the chat never waited for input: its main thread sits in {wchan.read_text()}")


# Where the kernel shows a thread blocked in select/poll (readline) or epoll (asyncio).
_WAITING_FOR_INPUT = (
    "poll_schedule_timeout",
    "do_select",
    "do_sys_poll",
    "do_epoll_wait",
    "ep_poll",
)


def _ends(child: Any) -> None:
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


# -- in a pseudo-terminal ---------------------------------------------------------------


def test_a_conversation_in_memory_with_an_approval() -> None:
    child = _spawn(EXAMPLE)
    child.expect_exact("No OPENAI_API_KEY: using tooluse.testing.TestModel")
    child.expect_exact("you> ")
    child.sendline("tidy up")
    child.expect_exact('[tool] list_files({"folder": "a"})')
    child.expect_exact('approve delete_file({"path": "a"})? [y/N] ')
    child.sendline("y")
    child.expect_exact("[tool] list_files -> a: notes.txt, old.log")
    child.expect_exact("[tool] delete_file -> deleted a")
    child.expect_exact('janitor> {"list_files"')
    child.expect_exact("you> ")
    child.sendline("/history")
    child.expect_exact("you: tidy up")
    child.expect_exact("assistant: {")
    child.expect_exact("you> ")
    child.sendline("/reset")
    child.expect_exact("[reset]")
    child.sendline("/history")
    child.expect_exact("(no messages yet)")
    child.expect_exact("you> ")
    child.sendeof()
    _ends(child)


def test_ctrl_c_cancels_the_run_and_the_chat_goes_on() -> None:
    child = _spawn(f"{AGENTS}:assistant")
    child.expect_exact("you> ")
    child.sendline("slow")
    child.expect_exact('[tool] wait({"seconds": 30})')
    _interrupt_until(child, "[cancelled]")
    child.expect_exact("you> ")
    child.sendline("transfer")
    child.expect_exact("[handoff] assistant -> helper")
    child.expect_exact("helper> helper here")
    child.expect_exact("you> ")
    _interrupt_until(child, "(Ctrl-D or /exit quits)")  # at the prompt: says how to quit
    child.sendline("/exit")
    _ends(child)


def test_a_session_outlives_the_process_and_its_paused_run_is_offered(tmp_path: Path) -> None:
    db = str(tmp_path / "chat.db")
    first = _spawn(EXAMPLE, "--session", "s1", "--db", db)
    first.expect_exact(f"(session 's1' in {db})")
    first.expect_exact("you> ")
    first.sendline("tidy up")
    first.expect_exact("[y/N] ")
    first.sendeof()  # no decision: the run stays paused in the session
    first.expect_exact("it stays paused in the session")
    first.expect_exact("you> ")
    first.sendeof()
    _ends(first)

    second = _spawn(EXAMPLE, "--session", "s1", "--db", db)
    second.expect_exact("Session 's1' holds a run waiting for approval.")
    second.expect_exact('approve delete_file({"path": "a"})? [y/N] ')
    second.sendline("y")
    second.expect_exact("[tool] delete_file -> deleted a")
    second.expect_exact("you> ")
    second.sendline("/history")
    second.expect_exact("you: tidy up")  # the first process's message
    second.expect_exact("[tool] delete_file -> deleted a")
    second.expect_exact("you> ")
    second.sendline("/exit")
    _ends(second)


# -- in process, with a script ----------------------------------------------------------


class Script:
    """Lines for `read`, in order; a line that is an exception class is raised instead."""

    def __init__(self, *lines: str | type[BaseException]) -> None:
        self.lines = list(lines)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if not self.lines:
            raise EOFError
        line = self.lines.pop(0)
        if isinstance(line, type):
            raise line
        return line


@pytest.fixture
def in_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def _chat(target: str, script: Script, **options: Any) -> str:
    out = io.StringIO()
    assert run_chat(target, read=script, out=out, **options) == 0
    return out.getvalue()


@pytest.mark.usefixtures("in_root")
def test_scripted_memory_chat_shows_runs_commands_and_failures() -> None:
    script = Script(
        "", "hello", "boom", "/nope", "interrupt", "transfer", "/history", "again", "/exit"
    )
    shown = _chat(f"{AGENTS}:assistant", script)
    assert "No OPENAI_API_KEY: using the agent's own model, FunctionModel." in shown
    assert "assistant> echo: hello\n" in shown
    assert "[error] RuntimeError: the model broke on two lines\n" in shown
    assert "unknown command /nope: /history shows" in shown
    assert "[cancelled]\n" in shown
    assert "[handoff] assistant -> helper\nhelper> helper here\n" in shown
    history = shown.split("you: hello\n", 1)[1]
    assert history.startswith(
        "assistant: echo: hello\nyou: transfer\n[tool] transfer_to_helper({})\n"
        "[tool] transfer_to_helper -> "
    )
    assert shown.endswith("helper> helper here\n")  # the helper keeps the conversation
    assert script.prompts.count("you> ") == 9


@pytest.mark.usefixtures("in_root")
def test_scripted_session_chat_keeps_history_and_a_paused_run(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    options: dict[str, Any] = {"session_id": "s", "db": db}
    _chat(EXAMPLE, Script("tidy up", KeyboardInterrupt, KeyboardInterrupt), **options)
    shown = _chat(EXAMPLE, Script("n", "/history", "/reset", "/history"), **options)
    assert "[tool] delete_file -> Tool execution was not approved." in shown
    assert "you: tidy up\n" in shown
    assert shown.endswith("[reset] the conversation starts over\n(no messages yet)\n\n")
    # A run left paused, then a new message: the run is offered before it is sent.
    shown = _chat(EXAMPLE, Script("tidy up", EOFError, "more", "y", "n", "/history"), **options)
    assert shown.count("holds a run waiting for approval") == 1
    assert "[tool] delete_file -> deleted a" in shown
    history = shown.rsplit("you: tidy up\n", 1)[1]
    before, after = history.split("you: more\n")
    assert "[tool] delete_file -> deleted a\n" in before
    # The new message is a turn of its own: TestModel calls the tools again (refused here).
    assert "[tool] delete_file -> Tool execution was not approved.\n" in after


@pytest.mark.usefixtures("in_root")
def test_named_models_run_on_test_model_without_a_key(tmp_path: Path) -> None:
    shown = _chat(f"{AGENTS}:named", Script("go"))
    assert "using tooluse.testing.TestModel" in shown
    assert "[tool] wait -> waited 0" in shown


def test_the_model_used_with_a_key_set() -> None:
    key = {"OPENAI_API_KEY": "sk-test"}
    assert offline_run_config(chat_agents.named, key).model is None
    assert isinstance(offline_run_config(chat_agents.named, {}).model, TestModel)
    assert offline_run_config(chat_agents.assistant, {}).model is None
    with_named = Agent("front", model=TestModel(), handoffs=[chat_agents.named])
    assert isinstance(offline_run_config(with_named, {}).model, TestModel)


@pytest.mark.usefixtures("in_root")
def test_the_command_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["chat", EXAMPLE, "--db", "x.db"]) == 2
    assert "give --session ID with it" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.StringIO("/exit\n"))
    assert main(["chat", f"{AGENTS}:assistant"]) == 0
    assert "Chatting with 'assistant'." in capsys.readouterr().out
    assert main(["chat", AGENTS]) == 2
    assert "holds several agents ('helper', 'assistant', 'named', 'spare')" in (
        capsys.readouterr().err
    )


def _module(**values: Any) -> ModuleType:
    module = ModuleType("agents")
    vars(module).update(values)
    return module


def test_finding_the_agent() -> None:
    helper, front = Agent("helper"), Agent("front")
    front.handoffs = [helper]
    assert find_agent(_module(a=helper, b=front), "m.py", "") is front
    assert find_agent(_module(a=helper, b=front), "m.py", "helper") is helper
    assert find_agent(_module(one=helper, again=helper), "m.py", "") is helper
    assert find_agent(_module(bot=helper), "m.py", "bot") is helper
    with pytest.raises(CliError, match=r"m\.py: no agent named 'x'; agents found: 'helper'"):
        find_agent(_module(bot=helper), "m.py", "x")
    with pytest.raises(CliError, match=r"m\.py: defines no Agent and no tool at module level"):
        find_agent(_module(), "m.py", "")
    with pytest.raises(CliError, match=r"several agents \('helper', 'front'\).* as m\.py:a$"):
        find_agent(_module(a=helper, b=Agent("front")), "m.py", "")


def test_an_agent_used_as_a_tool_is_not_where_the_chat_starts() -> None:
    french = Agent("french")
    manager = Agent("manager", tools=[french.as_tool(tool_description="Translates.")])
    assert find_agent(_module(a=french, b=manager), "m.py", "") is manager
    assert find_agent(_module(a=french, b=manager), "m.py", "french") is french


def test_a_module_of_tools_and_no_agent_gives_an_agent_holding_them() -> None:
    module = _module(wait=chat_agents.wait)
    module.__name__ = "pkg.clock"

    agent = find_agent(module, "pkg/clock.py", "")

    assert (agent.name, agent.tools) == ("clock", [chat_agents.wait])


def testhistory_lines() -> None:
    parts = {"role": "user", "content": [{"type": "input_text", "text": "hi"}, {"type": "x"}]}
    output = {"type": "function_call_output", "call_id": "c", "output": [{"type": "image"}]}
    assert history_line(parts, {}) == "you: hi [x]"
    assert history_line(output, {"c": "draw"}) == "[tool] draw -> [image]"
    assert history_line({"type": "reasoning"}, {}) == ""
    assert history_line({"type": "web_search_call"}, {}) == "[web_search_call]"
    assert history_line({"role": "user", "content": "x" * 300}, {}).endswith("x…")


def test_a_shells_and_a_computers_outputs_read_as_a_person_reads_them() -> None:
    ran = {"stdout": "hi\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}
    failed = {"stdout": "", "stderr": "", "outcome": {"type": "exit", "exit_code": 2}}
    slow = {"stdout": "", "stderr": "", "outcome": {"type": "timeout"}}
    shell = {"type": "shell_call_output", "call_id": "s", "output": [ran, failed, slow]}
    screenshot = {"type": "computer_screenshot", "image_url": "data:image/png;base64,AA=="}
    computer = {"type": "computer_call_output", "call_id": "c", "output": screenshot}
    # (shown as "[None]" and "" before: read as a function's output parts)
    assert history_line(shell, {"s": "shell"}) == "[tool] shell -> hi (exit code 2) (timed out)"
    assert history_line(computer, {"c": "computer"}) == "[tool] computer -> [screenshot]"
