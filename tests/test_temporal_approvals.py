"""Approvals inside a workflow (`AgentWorkflow`), on a real Temporal dev server."""

from __future__ import annotations

import asyncio
import logging
import uuid

import pytest
from temporalio.client import Client, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError
from temporalio.worker import Replayer, Worker

from tooluse.temporal import (
    UNKNOWN_APPROVAL,
    ApproveCall,
    PendingApproval,
    RejectCall,
    TooluseTemporalPlugin,
)

from .openai_server import Call, ScriptedServer, Turn, sent_tool_outputs
from .temporal_approval_workflows import DELETED, CleanupWorkflow, delete_file
from .temporal_server import TemporalDevServer

# One worker runs every test of the Temporal dev server, which starts once per worker.
pytestmark = pytest.mark.xdist_group("temporal")

Handle = WorkflowHandle[CleanupWorkflow, str]


def delete(call_id: str, path: str) -> Call:
    return Call("delete_file", f'{{"path": "{path}"}}', call_id)


def pending(call_id: str, path: str) -> PendingApproval:
    return PendingApproval(
        approval_id=call_id, tool_name="delete_file", arguments=f'{{"path": "{path}"}}'
    )


class Setup:
    """A client, a task queue, and workers for it playing the scripted server's model."""

    def __init__(self, client: Client, server: ScriptedServer) -> None:
        self.client = client
        self.queue = f"q-{uuid.uuid4()}"
        self.server = server

    def plugin(self) -> TooluseTemporalPlugin:
        return TooluseTemporalPlugin(
            [delete_file], model_provider=lambda name: self.server.model("chat")
        )

    def worker(self) -> Worker:
        return Worker(
            self.client,
            task_queue=self.queue,
            workflows=[CleanupWorkflow],
            plugins=[self.plugin()],
        )

    async def start(self) -> Handle:
        return await self.client.start_workflow(
            CleanupWorkflow.run, "clean up", id=f"wf-{uuid.uuid4()}", task_queue=self.queue
        )


@pytest.fixture
async def setup(temporal_server: TemporalDevServer, openai_server: ScriptedServer) -> Setup:
    DELETED.clear()
    return Setup(await Client.connect(temporal_server.target), openai_server)


async def approve(handle: Handle, call: ApproveCall) -> list[PendingApproval]:
    """The `approve` update; what still waits."""
    update = CleanupWorkflow.approve
    return await handle.execute_update(update, call)  # pyright: ignore[reportUnknownMemberType]  # an overload types `args` as Unknown


async def reject(handle: Handle, call: RejectCall) -> list[PendingApproval]:
    """The `reject` update; what still waits."""
    update = CleanupWorkflow.reject
    return await handle.execute_update(update, call)  # pyright: ignore[reportUnknownMemberType]  # an overload types `args` as Unknown


async def waiting(handle: Handle, count: int) -> list[PendingApproval]:
    """The calls waiting, once there are `count` of them (the run pauses on its own time)."""
    calls: list[PendingApproval] = []
    for _ in range(500):
        calls = await handle.query(CleanupWorkflow.pending_approvals)
        if len(calls) == count:
            return calls
        await asyncio.sleep(0.01)
    raise AssertionError(f"not {count} calls waiting: {calls}")


async def result(handle: Handle) -> str:
    return await asyncio.wait_for(handle.result(), 10)


async def test_the_run_waits_for_an_approval_update(setup: Setup) -> None:
    setup.server.script(Turn(calls=[delete("call_1", "old.log")]), Turn(text="Done"))
    async with setup.worker():
        handle = await setup.start()
        assert await waiting(handle, 1) == [pending("call_1", "old.log")]
        assert DELETED == []
        assert await approve(handle, ApproveCall("call_1")) == []
        assert await result(handle) == "Done"
        assert await handle.query(CleanupWorkflow.pending_approvals) == []
    assert DELETED == ["old.log"]
    assert sent_tool_outputs(setup.server.requests[1]["body"]) == {"call_1": "deleted old.log"}


async def test_a_rejection_tells_the_model_the_message(setup: Setup) -> None:
    setup.server.script(Turn(calls=[delete("call_1", "old.log")]), Turn(text="Kept it"))
    async with setup.worker():
        handle = await setup.start()
        await waiting(handle, 1)
        rejection = RejectCall("call_1", "Not that file.")
        assert await reject(handle, rejection) == []
        assert await result(handle) == "Kept it"
    assert DELETED == []
    assert sent_tool_outputs(setup.server.requests[1]["body"]) == {"call_1": "Not that file."}


async def test_decisions_one_by_one_and_pauses_in_later_turns(setup: Setup) -> None:
    setup.server.script(
        Turn(calls=[delete("call_1", "a"), delete("call_2", "b")]),
        Turn(calls=[delete("call_3", "c")]),
        Turn(calls=[delete("call_4", "d")]),  # approved already: `always` on call_3
        Turn(text="Done"),
    )
    async with setup.worker():
        handle = await setup.start()
        assert await waiting(handle, 2) == [pending("call_1", "a"), pending("call_2", "b")]
        rejection = RejectCall("call_1", "Not a.")
        assert await reject(handle, rejection) == [pending("call_2", "b")]
        assert await approve(handle, ApproveCall("call_2")) == []
        assert await waiting(handle, 1) == [pending("call_3", "c")]
        always = ApproveCall("call_3", always=True)
        assert await approve(handle, always) == []
        assert await result(handle) == "Done"
    assert DELETED == ["b", "c", "d"]
    bodies = [request["body"] for request in setup.server.requests]
    assert sent_tool_outputs(bodies[1]) == {"call_1": "Not a.", "call_2": "deleted b"}
    assert sent_tool_outputs(bodies[3])["call_4"] == "deleted d"


async def test_a_new_worker_finishes_the_run_without_calling_the_model_again(
    setup: Setup,
) -> None:
    setup.server.script(Turn(calls=[delete("call_1", "old.log")]), Turn(text="Done"))
    async with setup.worker():
        handle = await setup.start()
        await waiting(handle, 1)
    assert len(setup.server.requests) == 1  # the first worker is gone, the run waits
    async with setup.worker():  # a new worker, on the same task queue
        assert await approve(handle, ApproveCall("call_1")) == []
        assert await result(handle) == "Done"
    assert len(setup.server.requests) == 2  # the first turn was not asked again
    assert DELETED == ["old.log"]
    # The pause, the update and the resumed run replay from the history as they ran.
    replayer = Replayer(workflows=[CleanupWorkflow], plugins=[setup.plugin()])
    await replayer.replay_workflow(await handle.fetch_history())


async def test_signals_decide_while_no_worker_runs(
    setup: Setup, caplog: pytest.LogCaptureFixture
) -> None:
    setup.server.script(
        Turn(calls=[delete("call_1", "a"), delete("call_2", "b")]), Turn(text="Done")
    )
    async with setup.worker():
        handle = await setup.start()
        await waiting(handle, 2)
    approve_signal, reject_signal = CleanupWorkflow.approve_signal, CleanupWorkflow.reject_signal
    await handle.signal(approve_signal, ApproveCall("call_8"))  # waits for nothing: dropped
    await handle.signal(reject_signal, RejectCall("call_9", "No."))  # likewise
    await handle.signal(approve_signal, ApproveCall("call_1"))
    await handle.signal(reject_signal, RejectCall("call_2", "Not b.", always=True))
    with caplog.at_level(logging.WARNING, logger="temporalio.workflow"):
        async with setup.worker():
            assert await result(handle) == "Done"
    assert DELETED == ["a"]
    assert sent_tool_outputs(setup.server.requests[1]["body"]) == {
        "call_1": "deleted a",
        "call_2": "Not b.",
    }
    dropped = [r.getMessage() for r in caplog.records if "dropped" in r.getMessage()]
    calls = "'call_1' (delete_file), 'call_2' (delete_file)"
    expected = [
        f"approve_signal: no call waits for a decision under 'call_8'; waiting: {calls}",
        f"reject_signal: no call waits for a decision under 'call_9'; waiting: {calls}",
    ]
    for message, start in zip(
        dropped, expected, strict=True
    ):  # the logger adds the workflow's details
        assert message.startswith(f"{start} (the signal is dropped)")


async def test_an_unknown_approval_id_is_refused(setup: Setup) -> None:
    setup.server.script(Turn(calls=[delete("call_1", "old.log")]), Turn(text="Done"))
    async with setup.worker():
        handle = await setup.start()
        await waiting(handle, 1)
        with pytest.raises(WorkflowUpdateFailedError) as approving:
            await approve(handle, ApproveCall("call_9"))
        with pytest.raises(WorkflowUpdateFailedError) as rejecting:
            await reject(handle, RejectCall("call_9"))
        for handler, failed in [("approve", approving), ("reject", rejecting)]:
            error = failed.value.cause
            assert isinstance(error, ApplicationError)
            assert error.type == UNKNOWN_APPROVAL
            assert error.message == (
                f"{handler}: no call waits for a decision under 'call_9'; "
                "waiting: 'call_1' (delete_file)"
            )
        assert await waiting(handle, 1) == [pending("call_1", "old.log")]  # nothing decided
        await approve(handle, ApproveCall("call_1"))
        assert await result(handle) == "Done"
    assert DELETED == ["old.log"]
