"""Human approvals inside a workflow: `AgentWorkflow`, a base for the user's workflow class.

A run pauses at a call whose tool `needs_approval`. Inside a workflow,
`AgentWorkflow.run_agent` keeps the paused state in the workflow and waits
(`workflow.wait_condition`, no timer, no polling) until every waiting call is
decided; clients decide through the workflow's handlers, hours or days later,
with any worker running it:

- `pending_approvals` (query): the calls still waiting for a decision;
- `approve` / `reject` (updates, given an `ApproveCall` / `RejectCall`): decide one
  call and get back what still waits.
  An id that does not wait is refused before it reaches the history, with an
  `ApplicationError` of type `UNKNOWN_APPROVAL`;
- `approve_signal` / `reject_signal` (signals): the same decisions, for a sender
  that cannot wait for a worker to answer (a signal is stored even while no
  worker runs). A signal has no answer: one for an id that does not wait is
  logged as a warning and dropped.

Once every waiting call is decided the run resumes with the decisions, and it
may pause again in a later turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

from temporalio import workflow
from temporalio.exceptions import ApplicationError
from typing_extensions import Unpack

from ..agents._agent import Agent
from ..core._state import RunState, ToolApproval
from ..run._result import RunResult
from ..run._runner import RunInput, Runner, RunOptions

__all__ = ["UNKNOWN_APPROVAL", "AgentWorkflow", "ApproveCall", "PendingApproval", "RejectCall"]

UNKNOWN_APPROVAL = "tooluse.UnknownApproval"
"""The `ApplicationError` type of an `approve` or `reject` update for an id that does not
wait (`error.cause.type` on the client's `WorkflowUpdateFailedError`)."""


class PendingApproval(TypedDict):
    """A call waiting for a human's decision, as the workflow's handlers show it."""

    approval_id: str
    """The id to approve or reject it by."""
    tool_name: str
    """The tool the model called."""
    arguments: str
    """The raw JSON arguments, for the human to read."""


@dataclass(frozen=True)
class ApproveCall:
    """The `approve` update's (and signal's) argument: let a waiting call run."""

    approval_id: str
    """The call's approval id (see `AgentWorkflow.pending_approvals`)."""
    always: bool = False
    """Also approve every later call of the same tool in this run."""


@dataclass(frozen=True)
class RejectCall:
    """The `reject` update's (and signal's) argument: refuse a waiting call."""

    approval_id: str
    """The call's approval id (see `AgentWorkflow.pending_approvals`)."""
    message: str | None = None
    """What the model is told instead of the tool's output; None for tooluse's standard
    refusal."""
    always: bool = False
    """Also refuse every later call of the same tool in this run."""


class AgentWorkflow:
    """A base for a workflow class that runs agents and waits for humans' approvals.

    Subclass it, decorate the subclass with `@workflow.defn`, and call
    `run_agent` from its `@workflow.run` method; the queries, updates and
    signals below come with it. One run waits for approvals at a time.

    Example:
        ```python
        @workflow.defn
        class Cleanup(AgentWorkflow):
            @workflow.run
            async def run(self, request: str) -> str:
                result = await self.run_agent(admin, request)
                return str(result.final_output)


        # a client, later:
        [waiting] = await handle.query(Cleanup.pending_approvals)
        await handle.execute_update(Cleanup.approve, ApproveCall(waiting["approval_id"]))
        ```
    """

    _paused: RunState | None = None  # the run waiting for decisions; set per instance

    async def run_agent(
        self, agent: Agent[Any], input: RunInput, **options: Unpack[RunOptions]
    ) -> RunResult:
        """Run the agent to its answer, waiting in the workflow whenever calls need approval.

        Args:
            agent: The agent.
            input: A user message, a list of input items, or a `RunState` to resume.
            **options: What `Runner.run` takes (`context`, `max_turns`, `run_config`, ...),
                used for the first run and each resumption.

        Returns:
            The result of the run, all its calls decided.
        """
        result = await Runner.run(agent, input, **options)
        while result.interruptions:
            state = result.to_state()
            self._paused = state
            await workflow.wait_condition(lambda: not self._undecided())
            self._paused = None
            result = await Runner.run(agent, state, **options)
        return result

    @workflow.query
    def pending_approvals(self) -> list[PendingApproval]:
        """The calls waiting for a decision now (none while the run is not paused)."""
        return _shown(self._undecided())

    @workflow.update
    def approve(self, call: ApproveCall) -> list[PendingApproval]:
        """Let a waiting call run.

        Args:
            call: The call's approval id, and whether to approve the tool's later calls too.

        Returns:
            The calls still waiting for a decision.
        """
        self._waiting("approve", call.approval_id).approve(call.approval_id, call.always)
        return _shown(self._undecided())

    @approve.validator
    def _check_approve(self, call: ApproveCall) -> None:
        self._waiting("approve", call.approval_id)

    @workflow.update
    def reject(self, call: RejectCall) -> list[PendingApproval]:
        """Refuse a waiting call: the model is told `call.message` instead of the tool's output.

        Args:
            call: The call's approval id, the message, and whether to refuse the tool's
                later calls too.

        Returns:
            The calls still waiting for a decision.
        """
        self._reject(self._waiting("reject", call.approval_id), call)
        return _shown(self._undecided())

    @reject.validator
    def _check_reject(self, call: RejectCall) -> None:
        self._waiting("reject", call.approval_id)

    @workflow.signal
    def approve_signal(self, call: ApproveCall) -> None:
        """`approve` as a signal: sent even while no worker runs; an unknown id is dropped."""
        state = self._signalled("approve_signal", call.approval_id)
        if state is not None:
            state.approve(call.approval_id, call.always)

    @workflow.signal
    def reject_signal(self, call: RejectCall) -> None:
        """`reject` as a signal: sent even while no worker runs; an unknown id is dropped."""
        state = self._signalled("reject_signal", call.approval_id)
        if state is not None:
            self._reject(state, call)

    @staticmethod
    def _reject(state: RunState, call: RejectCall) -> None:
        state.reject(call.approval_id, call.always, rejection_message=call.message)

    def _undecided(self) -> list[ToolApproval]:
        state = self._paused
        if state is None:
            return []
        return [
            call
            for call in state.interruptions
            if call.approval_id not in state.decisions and call.standing_key not in state.standing
        ]

    def _waiting(self, handler: str, approval_id: str) -> RunState:
        """The paused state, if `approval_id` waits in it.

        Raises:
            ApplicationError: If it does not (of type `UNKNOWN_APPROVAL`).
        """
        waiting = self._undecided()
        if self._paused is None or approval_id not in [c.approval_id for c in waiting]:
            raise ApplicationError(_unknown(handler, approval_id, waiting), type=UNKNOWN_APPROVAL)
        return self._paused

    def _signalled(self, handler: str, approval_id: str) -> RunState | None:
        try:
            return self._waiting(handler, approval_id)
        except ApplicationError as error:
            workflow.logger.warning("%s (the signal is dropped)", error.message)
            return None


def _shown(calls: list[ToolApproval]) -> list[PendingApproval]:
    return [
        PendingApproval(approval_id=c.approval_id, tool_name=c.tool_name, arguments=c.arguments)
        for c in calls
    ]


def _unknown(handler: str, approval_id: str, waiting: list[ToolApproval]) -> str:
    names = ", ".join(f"{c.approval_id!r} ({c.tool_name})" for c in waiting)
    return (
        f"{handler}: no call waits for a decision under {approval_id!r}; waiting: {names or 'none'}"
    )
