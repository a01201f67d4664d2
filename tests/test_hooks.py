"""Hooks: called in the documented order, streamed or not; a hook that raises stops the run."""

from __future__ import annotations

from typing import Any

import pytest

from tooluse import (
    Agent,
    AgentHooks,
    AgentUpdatedStreamEvent,
    LocalShellTool,
    RunContextWrapper,
    RunHooks,
    Runner,
    RunState,
    ToolContext,
    function_tool,
    handoff,
)
from tooluse.models import ModelResponse

from .scripted import ScriptModel, call, shell, text


class Recorder(RunHooks[Any]):
    def __init__(self, log: list[str]) -> None:
        self.log = log

    async def on_agent_start(self, context: RunContextWrapper[Any], agent: Agent[Any]) -> None:
        self.log.append(f"run.agent_start {agent.name}")

    async def on_agent_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], output: Any
    ) -> None:
        self.log.append(f"run.agent_end {agent.name} {output}")

    async def on_handoff(
        self, context: RunContextWrapper[Any], from_agent: Agent[Any], to_agent: Agent[Any]
    ) -> None:
        self.log.append(f"run.handoff {from_agent.name}->{to_agent.name}")

    async def on_tool_start(
        self, context: RunContextWrapper[Any], agent: Agent[Any], tool: Any
    ) -> None:
        where = context.tool_call_id if isinstance(context, ToolContext) else "local"
        self.log.append(f"run.tool_start {tool.name} {where}")

    async def on_tool_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], tool: Any, result: str
    ) -> None:
        self.log.append(f"run.tool_end {tool.name} {result[:12]}")

    async def on_llm_start(
        self,
        context: RunContextWrapper[Any],
        agent: Agent[Any],
        system_prompt: str | None,
        input_items: list[dict[str, Any]],
    ) -> None:
        self.log.append(f"run.llm_start {agent.name} {system_prompt} {len(input_items)}")

    async def on_llm_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], response: ModelResponse
    ) -> None:
        self.log.append(f"run.llm_end {agent.name} {response.response_id}")


class AgentRecorder(AgentHooks[Any]):
    def __init__(self, log: list[str]) -> None:
        self.log = log

    async def on_start(self, context: RunContextWrapper[Any], agent: Agent[Any]) -> None:
        self.log.append(f"{agent.name}.start")

    async def on_end(self, context: RunContextWrapper[Any], agent: Agent[Any], output: Any) -> None:
        self.log.append(f"{agent.name}.end {output}")

    async def on_handoff(
        self, context: RunContextWrapper[Any], agent: Agent[Any], source: Agent[Any]
    ) -> None:
        self.log.append(f"{agent.name}.handoff from {source.name}")

    async def on_tool_start(
        self, context: RunContextWrapper[Any], agent: Agent[Any], tool: Any
    ) -> None:
        self.log.append(f"{agent.name}.tool_start {tool.name}")

    async def on_tool_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], tool: Any, result: str
    ) -> None:
        self.log.append(f"{agent.name}.tool_end {tool.name}")

    async def on_llm_start(
        self,
        context: RunContextWrapper[Any],
        agent: Agent[Any],
        system_prompt: str | None,
        input_items: list[dict[str, Any]],
    ) -> None:
        self.log.append(f"{agent.name}.llm_start")

    async def on_llm_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], response: ModelResponse
    ) -> None:
        self.log.append(f"{agent.name}.llm_end")


@function_tool
def lookup(key: str) -> str:
    """Look up.

    Args:
        key: The key.
    """
    return f"value of {key}"


@function_tool(needs_approval=True)
def delete(path: str) -> str:
    """Delete.

    Args:
        path: The file.
    """
    return f"deleted {path}"


def agents(log: list[str], model: ScriptModel) -> Agent[Any]:
    expert = Agent(
        "expert", instructions="Expert.", tools=[delete], model=model, hooks=AgentRecorder(log)
    )
    return Agent(
        "triage",
        instructions="Triage.",
        tools=[lookup, LocalShellTool(executor=lambda action: "listed")],  # pyright: ignore[reportUnknownLambdaType, reportUnknownArgumentType]
        handoffs=[handoff(expert)],
        model=model,
        hooks=AgentRecorder(log),
    )


SCRIPT = (
    [call("c1", "lookup", {"key": "k"}), shell("s1", "ls")],
    [call("h1", "transfer_to_expert")],
    [call("c2", "delete", {"path": "/tmp/x"})],
    [text("done")],
)

EXPECTED = [
    "run.agent_start triage", "triage.start",
    "run.llm_start triage Triage. 1", "triage.llm_start",
    "run.llm_end triage resp_1", "triage.llm_end",
    "run.tool_start local_shell local", "triage.tool_start local_shell",
    "run.tool_end local_shell {\"type\": \"lo", "triage.tool_end local_shell",
    "run.tool_start lookup c1", "triage.tool_start lookup",
    "run.tool_end lookup value of k", "triage.tool_end lookup",
    "run.llm_start triage Triage. 5", "triage.llm_start",
    "run.llm_end triage resp_2", "triage.llm_end",
    "run.handoff triage->expert", "expert.handoff from triage",
    "run.agent_start expert", "expert.start",
    "run.llm_start expert Expert. 7", "expert.llm_start",
    "run.llm_end expert resp_3", "expert.llm_end",
    # paused for approval: no end; the resumed run starts the current agent again
    "run.agent_start expert", "expert.start",
    "run.tool_start delete c2", "expert.tool_start delete",
    "run.tool_end delete deleted /tmp", "expert.tool_end delete",
    "run.llm_start expert Expert. 9", "expert.llm_start",
    "run.llm_end expert resp_4", "expert.llm_end",
    "run.agent_end expert done", "expert.end done",
]  # fmt: skip


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_hooks_are_called_in_the_documented_order(streamed: bool) -> None:
    log: list[str] = []
    agent = agents(log, ScriptModel(*SCRIPT))
    updates: list[str] = []

    async def run(source: str | RunState) -> Any:
        if not streamed:
            return await Runner.run(agent, source, hooks=Recorder(log))
        result = Runner.run_streamed(agent, source, hooks=Recorder(log))
        events = [event async for event in result.stream_events()]
        updates.extend(e.new_agent.name for e in events if isinstance(e, AgentUpdatedStreamEvent))
        return result

    paused = await run("go")
    paused.approve(paused.interruptions[0])
    result = await run(RunState.from_json(paused.to_state().to_json()))
    assert result.final_output == "done"
    assert log == EXPECTED
    if streamed:  # the stream's agent changes come from the same seam as on_agent_start
        assert updates == [e.split()[1] for e in EXPECTED if e.startswith("run.agent_start")]


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_a_hook_that_raises_stops_the_run_with_its_error(streamed: bool) -> None:
    class Strict(RunHooks[Any]):
        async def on_tool_start(
            self, context: RunContextWrapper[Any], agent: Agent[Any], tool: Any
        ) -> None:
            raise PermissionError(f"{tool.name} is not allowed")

    model = ScriptModel([call("c1", "lookup", {"key": "k"})], [text("done")])
    agent = Agent("a", tools=[lookup], model=model)
    with pytest.raises(PermissionError, match="lookup is not allowed"):
        await drain(agent, streamed, hooks=Strict())
    assert len(model.requests) == 1


async def drain(agent: Agent[Any], streamed: bool, **options: Any) -> Any:
    if not streamed:
        return await Runner.run(agent, "go", **options)
    result = Runner.run_streamed(agent, "go", **options)
    async for _ in result.stream_events():
        pass
    return result
