"""`ShellTool`: the Responses API's `shell` tool, its commands run by a local executor.

The local server plays `shell_call` items and refuses, as the real API does, a request
whose shell calls are not all answered by well-formed `shell_call_output` items; the
executor runs real commands in a subprocess.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from pathlib import Path
from typing import Any, cast

import pytest

from tooluse import (
    Agent,
    ModelSettings,
    RunContextWrapper,
    Runner,
    RunState,
    ShellActionRequest,
    ShellCallOutcome,
    ShellCommandOutput,
    ShellCommandRequest,
    ShellResult,
    ShellTool,
    ToolApprovalItem,
    UserError,
    function_tool,
)
from tooluse.models import Model

from .openai_server import ScriptedServer, Turn


def shell_call(call_id: str, *commands: str, **limits: int) -> dict[str, Any]:
    return {
        "type": "shell_call",
        "id": f"sh_{call_id}",
        "call_id": call_id,
        "status": "completed",
        "action": {"commands": list(commands), **limits},
    }


class Executor:
    """Runs each command in a real shell, in `cwd`, recording the requests."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.requests: list[ShellCommandRequest] = []

    async def __call__(self, request: ShellCommandRequest) -> ShellResult:
        self.requests.append(request)
        action = request.data.action
        outputs: list[ShellCommandOutput] = []
        for command in action.commands:
            process = await asyncio.create_subprocess_shell(
                command,
                cwd=self.cwd,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,  # a timeout stops the shell's children too
            )
            try:
                timeout = (action.timeout_ms or 0) / 1000 or None
                out, err = await asyncio.wait_for(process.communicate(), timeout)
            except asyncio.TimeoutError:
                os.killpg(process.pid, signal.SIGKILL)
                out, err = await process.communicate()
                outputs.append(
                    ShellCommandOutput(out.decode(), err.decode(), ShellCallOutcome("timeout"))
                )
                break
            outcome = ShellCallOutcome("exit", process.returncode)
            outputs.append(ShellCommandOutput(out.decode(), err.decode(), outcome, command))
        return ShellResult(outputs)


def _agent(server: ScriptedServer, tool: ShellTool, model: Model | None = None) -> Agent[Any]:
    return Agent("shell", tools=[tool], model=model or server.model("responses"))


def _sent_output(server: ScriptedServer, index: int = 1) -> dict[str, Any]:
    sent = server.requests[index]["body"]["input"]
    return next(item for item in sent if item.get("type") == "shell_call_output")


async def test_the_tool_is_offered_as_the_api_names_it(openai_server: ScriptedServer) -> None:
    skill = {"name": "csv", "description": "Sums CSV files.", "path": "/opt/skills/csv"}
    openai_server.script(Turn(text="ok"), Turn(text="ok"))
    local = ShellTool(executor=lambda request: "", environment={"skills": [skill]})
    hosted = ShellTool(environment={"type": "container_auto"})
    settings = ModelSettings(tool_choice="required")
    await Runner.run(
        Agent("a", tools=[local], model=openai_server.model("responses"), model_settings=settings),
        "x",
    )
    await Runner.run(_agent(openai_server, hosted), "x")

    first, second = (request["body"] for request in openai_server.requests)
    assert first["tools"] == [
        {"type": "shell", "environment": {"type": "local", "skills": [skill]}}
    ]
    assert first["tool_choice"] == "required"
    assert second["tools"] == [{"type": "shell", "environment": {"type": "container_auto"}}]


async def test_a_chat_model_refuses_it_before_any_request(openai_server: ScriptedServer) -> None:
    agent = _agent(
        openai_server, ShellTool(executor=lambda request: ""), openai_server.model("chat")
    )
    with pytest.raises(UserError, match=r"ShellTool \('shell'\) works only with the Responses API"):
        await Runner.run(agent, "x")
    assert openai_server.requests == []


async def test_commands_run_and_their_outputs_go_back(
    openai_server: ScriptedServer, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    executor = Executor(tmp_path)
    openai_server.script(
        Turn(items=[shell_call("c1", "cat notes.txt", "ls nothing-here")]), Turn(text="Done.")
    )

    result = await Runner.run(
        _agent(openai_server, ShellTool(executor=executor)), "look", context={"u": 1}
    )

    assert result.final_output == "Done."
    assert openai_server.refused == []
    (request,) = executor.requests
    assert request.data.call_id == "c1"
    assert request.data.action == ShellActionRequest(["cat notes.txt", "ls nothing-here"])
    assert request.ctx_wrapper.context == {"u": 1}
    output = _sent_output(openai_server)
    assert output["call_id"] == "c1"
    (cat, ls) = output["output"]
    assert cat == {"stdout": "hello\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}
    assert ls["stdout"] == ""
    assert "nothing-here" in ls["stderr"]
    assert ls["outcome"]["type"] == "exit"
    assert ls["outcome"]["exit_code"] != 0
    assert [item.type for item in result.new_items] == [
        "tool_call_item",
        "tool_call_output_item",
        "message_output_item",
    ]


async def test_a_timeout_and_the_output_limit_are_kept(
    openai_server: ScriptedServer, tmp_path: Path
) -> None:
    call = shell_call(
        "c1", "printf 0123456789", "sleep 5", "echo never", timeout_ms=300, max_output_length=4
    )
    openai_server.script(Turn(items=[call]), Turn(text="Done."))

    await Runner.run(_agent(openai_server, ShellTool(executor=Executor(tmp_path))), "go")

    output = _sent_output(openai_server)
    assert output["max_output_length"] == 4
    assert output["output"] == [
        {"stdout": "0123", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}},
        {"stdout": "", "stderr": "", "outcome": {"type": "timeout"}},
    ]
    assert openai_server.refused == []


async def test_text_from_the_executor_is_one_command_s_stdout(
    openai_server: ScriptedServer,
) -> None:
    openai_server.script(Turn(items=[shell_call("c1", "pwd")]), Turn(text="Done."))
    await Runner.run(_agent(openai_server, ShellTool(executor=lambda request: "/home/me")), "go")
    assert _sent_output(openai_server)["output"] == [
        {"stdout": "/home/me", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}
    ]


async def test_an_executor_that_raises_tells_the_model_no_detail(
    openai_server: ScriptedServer, caplog: pytest.LogCaptureFixture
) -> None:
    def executor(request: ShellCommandRequest) -> str:
        raise PermissionError("/root/secret-token denied")

    openai_server.script(
        Turn(items=[shell_call("c1", "cat /root/secret-token")]), Turn(text="Sorry.")
    )
    result = await Runner.run(_agent(openai_server, ShellTool(executor=executor)), "go")

    assert result.final_output == "Sorry."
    (entry,) = _sent_output(openai_server)["output"]
    assert entry["outcome"] == {"type": "exit", "exit_code": 1}
    assert "raised PermissionError" in entry["stderr"]
    assert "secret" not in entry["stderr"]
    assert "secret" not in caplog.text


async def test_an_approval_pauses_and_the_state_resumes_elsewhere(
    openai_server: ScriptedServer, tmp_path: Path
) -> None:
    executor = Executor(tmp_path)
    tool = ShellTool(executor=executor, needs_approval=True)
    openai_server.script(Turn(items=[shell_call("c1", "echo approved")]), Turn(text="Ran it."))

    paused = await Runner.run(_agent(openai_server, tool), "go")

    (waiting,) = paused.interruptions
    assert isinstance(waiting, ToolApprovalItem)
    assert (waiting.tool_name, waiting.call_id) == ("shell", "c1")
    assert waiting.raw_item["action"]["commands"] == ["echo approved"]
    assert waiting.raw_item.action.commands == ["echo approved"]
    assert executor.requests == []
    state = RunState.from_json(paused.to_state().to_json())
    state.approve(state.get_interruptions()[0])
    done = await Runner.run(_agent(openai_server, tool), state)

    assert done.final_output == "Ran it."
    assert len(openai_server.requests) == 2
    assert _sent_output(openai_server)["output"][0]["stdout"] == "approved\n"


async def test_a_streamed_run_pauses_and_resumes_the_same_way(
    openai_server: ScriptedServer, tmp_path: Path
) -> None:
    tool = ShellTool(executor=Executor(tmp_path), needs_approval=True)
    openai_server.script(Turn(items=[shell_call("c1", "echo streamed")]), Turn(text="Ran it."))

    paused = Runner.run_streamed(_agent(openai_server, tool), "go")
    async for _ in paused.stream_events():
        pass
    (waiting,) = paused.interruptions
    assert waiting.raw_item["type"] == "shell_call"
    state = paused.to_state()
    state.approve(waiting)
    done = Runner.run_streamed(_agent(openai_server, tool), state)
    kinds = [event.type async for event in done.stream_events()]

    assert done.final_output == "Ran it."
    assert "run_item_stream_event" in kinds
    assert _sent_output(openai_server)["output"][0]["stdout"] == "streamed\n"


async def test_a_rejection_runs_nothing_and_tells_the_model(
    openai_server: ScriptedServer, tmp_path: Path
) -> None:
    executor = Executor(tmp_path)
    tool = ShellTool(executor=executor, needs_approval=True)
    openai_server.script(Turn(items=[shell_call("c1", "rm -rf build")]), Turn(text="Fine."))

    paused = await Runner.run(_agent(openai_server, tool), "clean")
    state = paused.to_state()
    state.reject(paused.interruptions[0], rejection_message="Not the build folder.")
    await Runner.run(_agent(openai_server, tool), state)

    assert executor.requests == []
    assert _sent_output(openai_server)["output"] == [
        {
            "stdout": "",
            "stderr": "Not the build folder.",
            "outcome": {"type": "exit", "exit_code": 1},
        }
    ]
    assert openai_server.refused == []


async def test_needs_approval_may_decide_per_call(openai_server: ScriptedServer) -> None:
    asked: list[tuple[Any, list[str], str]] = []

    def risky(context: RunContextWrapper[Any], action: ShellActionRequest, call_id: str) -> bool:
        asked.append((context.context, action.commands, call_id))
        return any(command.startswith("rm") for command in action.commands)

    tool = ShellTool(executor=lambda request: "ok", needs_approval=risky)
    openai_server.script(
        Turn(items=[shell_call("c1", "ls"), shell_call("c2", "rm a")]), Turn(text="ok")
    )
    paused = await Runner.run(_agent(openai_server, tool), "go", context="ctx")

    assert [i.call_id for i in paused.interruptions] == ["c2"]
    assert asked == [("ctx", ["ls"], "c1"), ("ctx", ["rm a"], "c2")]


async def test_on_approval_decides_without_a_pause(openai_server: ScriptedServer) -> None:
    seen: list[ToolApprovalItem] = []

    async def on_approval(context: RunContextWrapper[Any], item: ToolApprovalItem) -> Any:
        seen.append(item)
        if item.raw_item["action"]["commands"] == ["ls"]:
            return {"approve": True}
        return {"approve": False, "reason": "No deleting."}

    ran: list[list[str]] = []

    def executor(request: ShellCommandRequest) -> str:
        ran.append(request.data.action.commands)
        return "a.txt"

    tool = ShellTool(executor=executor, needs_approval=True, on_approval=on_approval)
    openai_server.script(
        Turn(items=[shell_call("c1", "ls"), shell_call("c2", "rm a.txt")]), Turn(text="ok")
    )
    result = await Runner.run(_agent(openai_server, tool), "go")

    assert result.final_output == "ok"
    assert ran == [["ls"]]
    assert [item.agent.name for item in seen] == ["shell", "shell"]
    sent = [
        i
        for i in openai_server.requests[1]["body"]["input"]
        if i.get("type") == "shell_call_output"
    ]
    assert [o["output"][0]["stderr"] for o in sent] == ["", "No deleting."]


async def test_an_undecided_on_approval_pauses_and_always_approve_stands(
    openai_server: ScriptedServer,
) -> None:
    tool = ShellTool(
        executor=lambda request: "ok",
        needs_approval=True,
        on_approval=lambda ctx, item: cast(Any, {}),
    )
    openai_server.script(
        Turn(items=[shell_call("c1", "ls")]),
        Turn(items=[shell_call("c2", "ls -a")]),
        Turn(text="ok"),
    )
    paused = await Runner.run(_agent(openai_server, tool), "go")
    state = paused.to_state()
    state.approve(paused.interruptions[0], always_approve=True)

    result = await Runner.run(_agent(openai_server, tool), state)

    assert result.final_output == "ok"
    assert result.interruptions == []
    assert len(openai_server.requests) == 3


async def test_always_approve_on_a_shell_never_covers_a_function_tool_of_its_name(
    openai_server: ScriptedServer,
) -> None:
    @function_tool(name_override="shell", needs_approval=True)
    def shell_function(command: str) -> str:
        """Run a command somewhere else.

        Args:
            command: The command.
        """
        return "ran elsewhere"

    tool = ShellTool(executor=lambda request: "ok", needs_approval=True)
    call = {"type": "function_call", "call_id": "f1", "name": "shell", "arguments": "{}"}
    call["arguments"] = json.dumps({"command": "ls"})
    openai_server.script(Turn(items=[shell_call("c1", "ls")]), Turn(items=[call]))
    agent = _agent(openai_server, tool)
    agent.tools.append(shell_function)
    paused = await Runner.run(agent, "go")
    state = paused.to_state()
    state.approve(paused.interruptions[0], always_approve=True)
    assert state.standing == {"shell:shell": {"approved": True, "message": None}}

    again = await Runner.run(agent, state)

    assert [(i.name, i.call_id) for i in again.interruptions] == [("shell", "f1")]


async def test_a_hosted_shell_s_calls_are_left_to_openai(openai_server: ScriptedServer) -> None:
    hosted = shell_call("c1", "ls")
    hosted["environment"] = {"type": "container_reference", "container_id": "cntr_1"}
    output: dict[str, Any] = {"type": "shell_call_output", "id": "sho_1", "call_id": "c1"}
    output["output"] = []
    openai_server.script(Turn(items=[hosted, output], text="There is nothing."))
    tool = ShellTool(environment={"type": "container_reference", "container_id": "cntr_1"})

    result = await Runner.run(_agent(openai_server, tool), "go")

    assert result.final_output == "There is nothing."
    assert len(openai_server.requests) == 1


def test_settings_that_cannot_work_are_refused_with_what_to_do() -> None:
    with pytest.raises(UserError, match=r"ShellTool 'shell': a local shell needs executor="):
        ShellTool()
    with pytest.raises(UserError, match=r"hosted shell \(container_auto\) .* remove them"):
        ShellTool(executor=lambda request: "", environment={"type": "container_auto"})
    with pytest.raises(UserError, match=r"hosted shell .* needs_approval"):
        ShellTool(environment={"type": "container_auto"}, needs_approval=True)
    with pytest.raises(UserError, match=r"the type is 'local', 'container_auto' or"):
        ShellTool(executor=lambda request: "", environment={"type": "docker"})
    with pytest.raises(UserError, match=r"skill 0 needs path \(strings\)"):
        ShellTool(
            executor=lambda request: "", environment={"skills": [{"name": "a", "description": "b"}]}
        )  # type: ignore[list-item]


async def test_a_failing_approval_function_names_the_tool(openai_server: ScriptedServer) -> None:
    def broken(context: Any, action: Any, call_id: str) -> bool:
        raise KeyError("oops")

    openai_server.script(Turn(items=[shell_call("c1", "ls")]))
    tool = ShellTool(executor=lambda request: "", needs_approval=broken)
    with pytest.raises(UserError, match=r"needs_approval of shell tool 'shell' raised KeyError"):
        await Runner.run(_agent(openai_server, tool), "go")


async def test_the_server_refuses_a_shell_call_left_unanswered(
    openai_server: ScriptedServer,
) -> None:
    # No ShellTool answers the call: the next request would carry it unanswered.
    client = openai_server.client()
    with pytest.raises(Exception, match="No tool output found for shell call c1"):
        await client.responses.create(
            model="m",
            input=[shell_call("c1", "ls"), {"role": "user", "content": "and?"}],  # type: ignore[list-item]
        )
    bad = {"type": "shell_call_output", "call_id": "c1", "output": [{"stdout": "x"}]}
    with pytest.raises(Exception, match="each chunk has exactly stdout, stderr and outcome"):
        await client.responses.create(model="m", input=[shell_call("c1", "ls"), bad])  # type: ignore[list-item]
    assert len(openai_server.refused) == 2
    assert json.dumps(openai_server.requests) == "[]"


async def test_a_forced_tool_choice_is_released_after_a_shell_turn(
    openai_server: ScriptedServer,
) -> None:
    openai_server.script(Turn(items=[shell_call("c1", "pwd")]), Turn(text="Done."))
    tool = ShellTool(executor=lambda request: "/home/me")
    agent = Agent(
        "shell",
        tools=[tool],
        model=openai_server.model("responses"),
        model_settings=ModelSettings(tool_choice="required"),
    )
    await Runner.run(agent, "go")
    sent = [request["body"].get("tool_choice") for request in openai_server.requests]
    assert sent == ["required", None]
