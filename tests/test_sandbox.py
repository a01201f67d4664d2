"""`tooluse.sandbox`: a real local workspace (a temporary directory, real subprocesses).

Sessions are made by `UnixLocalSandboxClient` over temporary directories; runs go
through the local scripted OpenAI server, whose `shell_call` items the capability's
`ShellTool` runs in the workspace.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tooluse import (
    Agent,
    RunConfig,
    RunHooks,
    RunItemStreamEvent,
    Runner,
    ShellCallOutcome,
    ShellCommandOutput,
    ShellCommandRequest,
    ShellResult,
    ShellTool,
    UserError,
    function_tool,
)
from tooluse.sandbox import (
    BaseSandboxSession,
    Capability,
    ExecTimeoutError,
    File,
    InvalidManifestPathError,
    Manifest,
    SandboxAgent,
    SandboxPathGrant,
    SandboxRunConfig,
    UnixLocalSandboxClient,
    WorkspaceArchiveWriteError,
    WorkspaceReadNotFoundError,
)
from tooluse.tools._toolsets import Tool

from .openai_server import Call, ScriptedServer, Turn


class Shell(Capability):
    """A shell tool whose commands run in the run's session (as the examples' own)."""

    def __init__(self) -> None:
        super().__init__(type="shell")
        self._session: BaseSandboxSession | None = None

    def bind(self, session: BaseSandboxSession) -> None:
        self._session = session
        BOUND.append(session)

    def tools(self) -> list[Tool]:
        return [ShellTool(executor=self._run)]

    async def instructions(self, manifest: Manifest) -> str | None:
        return "Use the shell tool to read the workspace."

    async def _run(self, request: ShellCommandRequest) -> ShellResult:
        assert self._session is not None
        outputs: list[ShellCommandOutput] = []
        for command in request.data.action.commands:
            done = await self._session.exec(command)
            outcome = ShellCallOutcome("exit", done.exit_code)
            outputs.append(
                ShellCommandOutput(done.stdout.decode(), done.stderr.decode(), outcome, command)
            )
        return ShellResult(outputs)


BOUND: list[BaseSandboxSession] = []
"""The sessions `Shell` was bound to, in order."""


@pytest.fixture(autouse=True)
def _forget_sessions() -> None:
    BOUND.clear()


def shell_call(call_id: str, *commands: str) -> dict[str, Any]:
    return {
        "type": "shell_call",
        "id": f"sh_{call_id}",
        "call_id": call_id,
        "status": "completed",
        "action": {"commands": list(commands)},
    }


def manifest(**files: str) -> Manifest:
    return Manifest(entries={name: File(content=text.encode()) for name, text in files.items()})


def sandbox() -> RunConfig:
    return RunConfig(sandbox=SandboxRunConfig(client=UnixLocalSandboxClient()))


async def test_a_session_materialises_the_manifest_and_runs_commands_in_it() -> None:
    client = UnixLocalSandboxClient()
    session = await client.create(manifest=manifest(**{"notes/a.md": "alpha\n"}))
    async with session:
        root = session.root
        assert (root / "notes" / "a.md").read_text() == "alpha\n"
        pwd = await session.exec("pwd")
        assert pwd.stdout.decode().strip() == str(root.resolve())
        assert pwd.exit_code == 0
        assert pwd.ok()
        listed = await session.exec("ls", "notes", shell=False)
        assert listed.stdout == b"a.md\n"
        failed = await session.exec("cat missing.md")
        assert failed.exit_code != 0
        assert b"missing.md" in failed.stderr
        await session.write("out/b.txt", io.BytesIO(b"beta"))
        assert (await session.read("out/b.txt")).read() == b"beta"
        assert (await session.read(root / "notes" / "a.md")).read() == b"alpha\n"
        with pytest.raises(WorkspaceReadNotFoundError, match=r"'nothing\.txt'"):
            await session.read("nothing.txt")
    assert root.is_dir()  # until the client deletes it
    await client.delete(session)
    assert not root.exists()


async def test_a_command_past_its_timeout_is_killed() -> None:
    client = UnixLocalSandboxClient()
    session = await client.create()
    try:
        async with session:
            with pytest.raises(ExecTimeoutError, match=r"'sleep 5' ran past its 0.1 s timeout"):
                await session.exec("sleep 5", timeout=0.1)
    finally:
        await client.delete(session)


async def test_grants_allow_paths_outside_the_workspace_and_read_only_ones_refuse_writes(
    tmp_path: Path,
) -> None:
    outside, scratch = tmp_path / "outside", tmp_path / "scratch"
    outside.mkdir()
    scratch.mkdir()
    (outside / "in.txt").write_text("given\n")
    granted = manifest().model_copy(
        update={
            "extra_path_grants": (
                SandboxPathGrant(path=str(outside), read_only=True),
                SandboxPathGrant(path=str(scratch)),
            )
        },
        deep=True,
    )
    client = UnixLocalSandboxClient()
    session = await client.create(manifest=granted)
    try:
        async with session:
            assert (await session.read(outside / "in.txt")).read() == b"given\n"
            with pytest.raises(WorkspaceArchiveWriteError, match="under the read-only grant"):
                await session.write(outside / "blocked.txt", io.BytesIO(b"no"))
            assert not (outside / "blocked.txt").exists()
            await session.write(scratch / "out.txt", b"yes")
            assert (scratch / "out.txt").read_bytes() == b"yes"
            with pytest.raises(InvalidManifestPathError, match="outside the sandbox workspace"):
                await session.read(tmp_path / "elsewhere.txt")
            with pytest.raises(InvalidManifestPathError, match=r"'\.\./escape\.txt'"):
                await session.write("../escape.txt", b"no")
    finally:
        await client.delete(session)


def test_a_manifest_refuses_entries_outside_its_root_and_grants_of_relative_paths() -> None:
    with pytest.raises(ValueError, match="must be a path relative to the workspace root"):
        manifest(**{"/etc/passwd": "x"})
    with pytest.raises(ValueError, match="must be a path relative"):
        Manifest(entries={"../up.txt": File(content=b"")})
    with pytest.raises(ValueError, match="must be an absolute path"):
        SandboxPathGrant(path="relative/dir")


async def test_a_run_works_in_a_fresh_workspace_and_deletes_it(
    openai_server: ScriptedServer,
) -> None:
    openai_server.script(
        Turn(items=[shell_call("c1", "cat notes.md", "pwd")]), Turn(text="Read it.")
    )

    @function_tool
    def lookup(topic: str) -> str:
        """Look a topic up.

        Args:
            topic: What to look up.
        """
        return topic

    class Policies:
        """A toolset standing in for an MCP server: its tools come first, as there."""

        async def list_tools(self, context: Any, agent: Any) -> list[Tool]:
            return [lookup_policy]

    @function_tool
    def lookup_policy(topic: str) -> str:
        """Look a policy up.

        Args:
            topic: Which policy.
        """
        return topic

    agent = SandboxAgent(
        name="reader",
        instructions="Answer from the files.",
        model=openai_server.model("responses"),
        tools=[lookup],
        mcp_servers=[Policies()],
        default_manifest=manifest(**{"notes.md": "the notes\n"}),
        capabilities=[Shell()],
    )

    result = await Runner.run(agent, "What do the notes say?", run_config=sandbox())

    assert result.final_output == "Read it."
    assert result.last_agent is agent
    (session,) = BOUND
    assert not session.root.exists()  # deleted when the run ended
    first, second = (request["body"] for request in openai_server.requests)
    assert [tool.get("name", tool["type"]) for tool in first["tools"]] == [
        "lookup_policy",
        "lookup",
        "shell",
    ]
    instructions = first["instructions"]
    assert instructions.startswith("Answer from the files.\n\nUse the shell tool")
    assert "- notes.md" in instructions
    (output,) = [item for item in second["input"] if item.get("type") == "shell_call_output"]
    cat, pwd = output["output"]
    assert cat["stdout"] == "the notes\n"
    assert pwd["stdout"].strip() == str(session.root.resolve())
    assert agent.capabilities[0].session is None  # the run bound a copy of its own


async def test_the_workspace_is_deleted_when_the_run_fails(openai_server: ScriptedServer) -> None:
    openai_server.script(Turn(status=400))
    agent = SandboxAgent(
        name="reader", model=openai_server.model("responses"), capabilities=[Shell()]
    )
    with pytest.raises(Exception, match="400"):
        await Runner.run(agent, "hi", run_config=sandbox())
    (session,) = BOUND
    assert not session.root.exists()


async def test_a_sandbox_agent_without_a_sandbox_is_refused_before_any_request(
    openai_server: ScriptedServer,
) -> None:
    agent = SandboxAgent(name="reader", model=openai_server.model("responses"))
    with pytest.raises(UserError, match=r"'reader' took over in a run without a sandbox"):
        await Runner.run(agent, "hi")
    assert openai_server.requests == []
    with pytest.raises(UserError, match=r"give client=UnixLocalSandboxClient\(\)"):
        SandboxRunConfig()
    with pytest.raises(UserError, match=r"capabilities\[0\] is a str"):
        SandboxAgent(name="x", capabilities=["shell"])  # pyright: ignore[reportArgumentType]


async def test_handoffs_to_it_and_agent_tools_of_it_get_workspaces_of_their_own(
    openai_server: ScriptedServer,
) -> None:
    model = openai_server.model("responses")
    reviewer = SandboxAgent(
        name="reviewer",
        model=model,
        default_manifest=manifest(**{"a.md": "A\n"}),
        capabilities=[Shell()],
    )
    intake = Agent("intake", model=model, handoffs=[reviewer])
    openai_server.script(
        Turn(calls=[Call("transfer_to_reviewer", "{}", "h1")]),
        Turn(items=[shell_call("c1", "cat a.md")]),
        Turn(text="Reviewed."),
    )
    handed = await Runner.run(intake, "review", run_config=sandbox())
    assert handed.final_output == "Reviewed."
    assert handed.last_agent is reviewer
    sent = json.dumps(openai_server.requests[2]["body"]["input"])
    assert '"stdout": "A\\n"' in sent

    tool = reviewer.as_tool(tool_name="review", tool_description="Review.", run_config=sandbox())
    coordinator = Agent("coordinator", model=model, tools=[tool])
    openai_server.script(
        Turn(calls=[Call("review", '{"input": "go"}', "t1")]),
        Turn(items=[shell_call("c2", "cat a.md")]),
        Turn(text="A is fine."),
        Turn(text="Done."),
    )
    asked = await Runner.run(coordinator, "check")  # the tool's own config has the sandbox
    assert asked.final_output == "Done."
    assert len(BOUND) == 2
    assert BOUND[0].root != BOUND[1].root
    assert not any(session.root.exists() for session in BOUND)


async def test_a_streamed_run_works_in_the_workspace_too(openai_server: ScriptedServer) -> None:
    openai_server.script(Turn(items=[shell_call("c1", "cat a.md")]), Turn(text="Streamed."))
    agent = SandboxAgent(
        name="reader",
        model=openai_server.model("responses"),
        default_manifest=manifest(**{"a.md": "A\n"}),
        capabilities=[Shell()],
    )
    seen: list[tuple[str, object]] = []

    class Watch(RunHooks[Any]):
        async def on_agent_start(self, context: Any, agent: Agent[Any]) -> None:
            seen.append(("start", agent))

        async def on_llm_start(
            self, context: Any, agent: Agent[Any], system_prompt: str | None, input_items: Any
        ) -> None:
            seen.append(("llm", agent))

        async def on_agent_end(self, context: Any, agent: Agent[Any], output: Any) -> None:
            seen.append(("end", agent))

    streamed = Runner.run_streamed(agent, "read", run_config=sandbox(), hooks=Watch())
    events = [event async for event in streamed.stream_events()]
    assert streamed.final_output == "Streamed."
    assert streamed.last_agent is agent
    items = [event.item for event in events if isinstance(event, RunItemStreamEvent)]
    assert items
    assert all(item.agent is agent for item in items)  # the agent given, not the run's copy
    assert [kind for kind, _ in seen] == ["start", "llm", "llm", "end"]
    assert all(watched is agent for _, watched in seen)
    (session,) = BOUND
    assert not session.root.exists()


async def test_a_cancelled_run_kills_its_command_and_deletes_the_workspace(
    openai_server: ScriptedServer,
) -> None:
    openai_server.script(Turn(items=[shell_call("c1", "echo $$ > started; exec sleep 5")]))
    agent = SandboxAgent(
        name="waiter", model=openai_server.model("responses"), capabilities=[Shell()]
    )
    run = asyncio.ensure_future(Runner.run(agent, "wait", run_config=sandbox()))
    started = None
    for _ in range(200):  # until the command has written its pid (at most 2 s)
        await asyncio.sleep(0.01)
        if BOUND and (BOUND[0].root / "started").exists():
            started = (BOUND[0].root / "started").read_text().strip()
            if started:
                break
    assert started, "the command did not start"
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert not BOUND[0].root.exists()
    with pytest.raises(ProcessLookupError):  # killed with its group, and reaped
        os.kill(int(started), 0)


async def test_a_session_of_your_own_is_used_and_kept(openai_server: ScriptedServer) -> None:
    openai_server.script(
        Turn(items=[shell_call("c1", "echo kept > kept.txt")]), Turn(text="Wrote it.")
    )
    client = UnixLocalSandboxClient()
    session = await client.create(manifest=manifest(**{"a.md": "A\n"}))
    try:
        async with session:
            config = RunConfig(sandbox=SandboxRunConfig(session=session))
            agent = SandboxAgent(
                name="writer", model=openai_server.model("responses"), capabilities=[Shell()]
            )
            result = await Runner.run(agent, "write", run_config=config)
            assert result.final_output == "Wrote it."
            (bound,) = BOUND
            assert bound is session
            assert (await session.read("kept.txt")).read() == b"kept\n"
    finally:
        await client.delete(session)
    assert not session.root.exists()
