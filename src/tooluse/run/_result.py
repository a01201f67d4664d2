"""What a run returns: `RunResult`, and `RunResultStreaming` with its events."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, cast

from ..core._context import RunContextWrapper, Usage
from ..core._factories import new_list
from ..core._items import Item
from ..core._paused_context import keep_context
from ..core._state import RunState, ToolApproval
from ..exceptions import UserError
from ..models import ModelResponse
from ._run_items import RunItems, ToolApprovalItem
from ._stream_buffer import EventBuffer
from ._stream_events import RunStreamEvent

if TYPE_CHECKING:
    from ..agents._agent import Agent
    from ..guardrails._agent_guardrails import InputGuardrailResult, OutputGuardrailResult
    from ..guardrails._tool_guardrails import ToolInputGuardrailResult, ToolOutputGuardrailResult

__all__ = ["RunResult", "RunResultStreaming", "StreamedRun"]

T = TypeVar("T")


@dataclass
class RunResult:
    """The outcome of a run."""

    input: list[Item]
    """The input the run started from, as items."""
    new_items: RunItems
    """Every item the run added (messages, tool calls, tool outputs) as item objects:
    `MessageOutputItem`, `ToolCallItem`, ... (each reads as its dict too)."""
    raw_responses: list[ModelResponse]
    """Each model response, in order."""
    final_output: Any
    """The answer: text, or a value of the agent's `output_type`."""
    last_agent: Agent[Any]
    """The agent that answered."""
    usage: Usage = field(default_factory=Usage)
    """What the run used."""
    pending_tool_calls: list[Item] = field(default_factory=new_list)
    """With `execute_tools=False`: the calls the model asked for, not executed."""
    interruptions: list[ToolApprovalItem] = field(default_factory=new_list)
    """Calls waiting for approval; `approve` or `reject` them, then resume with `to_state()`."""
    input_guardrail_results: list[InputGuardrailResult] = field(default_factory=new_list)
    """What the input guardrails said (none tripped: a trip raises)."""
    output_guardrail_results: list[OutputGuardrailResult] = field(default_factory=new_list)
    """What the output guardrails said of the final output."""
    tool_input_guardrail_results: list[ToolInputGuardrailResult] = field(default_factory=new_list)
    """What the tools' input guardrails said, call by call."""
    tool_output_guardrail_results: list[ToolOutputGuardrailResult] = field(default_factory=new_list)
    """What the tools' output guardrails said, call by call."""
    context_wrapper: RunContextWrapper[Any] = field(
        default_factory=lambda: RunContextWrapper[Any](None)
    )
    """The run's context: your `context`, and the usage."""
    _state: RunState | None = field(default=None, repr=False)

    @property
    def last_response_id(self) -> str | None:
        """The id of the run's last model response, to continue from.

        Pass it as the next run's `previous_response_id` to continue the conversation
        the Responses API keeps; None without a response, or from a model giving no id.
        """
        return self.raw_responses[-1].response_id if self.raw_responses else None

    def final_output_as(self, cls: type[T], raise_if_incorrect_type: bool = False) -> T:
        """The final output, typed as `cls` for the type checker.

        Args:
            cls: The type the output should have.
            raise_if_incorrect_type: Check it, and raise if it is not a `cls`.

        Returns:
            The final output.

        Raises:
            TypeError: When asked to check and the output is not a `cls`.
        """
        if raise_if_incorrect_type and not isinstance(self.final_output, cls):
            raise TypeError(
                f"final_output is a {type(self.final_output).__name__}, not a {cls.__name__}"
            )
        return cast(T, self.final_output)

    def approve(self, call: ToolApproval | str, always_approve: bool = False) -> None:
        """Let a waiting call run when the run resumes.

        Args:
            call: One of `interruptions`, or its approval id.
            always_approve: Also approve every later call of the same tool in this run.
        """
        self.to_state().approve(call, always_approve)

    def reject(
        self,
        call: ToolApproval | str,
        always_reject: bool = False,
        *,
        rejection_message: str | None = None,
    ) -> None:
        """Refuse a waiting call: the model gets `rejection_message` as the call's output.

        Args:
            call: One of `interruptions`, or its approval id.
            always_reject: Also refuse every later call of the same tool in this run.
            rejection_message: What the model is told; None for a standard refusal.
        """
        self.to_state().reject(call, always_reject, rejection_message=rejection_message)

    def to_state(self) -> RunState:
        """The run's state, to resume with `Runner.run(agent, state)`, or to save.

        A paused run resumes where it paused; a finished one goes on with another
        model call over the whole conversation (as openai-agents does), so a program
        may save the state after every run, paused or not.

        Returns:
            The state, with the approvals and rejections made so far.

        Raises:
            UserError: If the result was not made by a run (built by hand).
        """
        if self._state is None:
            raise UserError(
                "This RunResult has no state: it was not made by Runner.run. Resume from the "
                "result Runner.run returned, or continue with result.to_input_list()"
            )
        # Resumed in this process without `context=`, it runs with this run's context,
        # paused or finished alike (kept only once asked for: most runs never are).
        keep_context(self._state, self.context_wrapper.context)
        return self._state

    def to_input_list(self) -> list[Item]:
        """The whole conversation, to continue it: add a user message and run again.

        Returns:
            The input items followed by the new items.
        """
        return [*self.input, *self.new_items.raw()]


class StreamedRun:
    """A streamed run as its result reads it: the events' buffer, the run's task, its end.

    The runner makes one for each `Runner.run_streamed`, and fills in the task.
    """

    __slots__ = ("buffer", "result", "task")

    def __init__(self, buffer: EventBuffer) -> None:
        """A streamed run writing its events to `buffer`.

        Args:
            buffer: Where the run puts its events.
        """
        self.buffer = buffer
        """The events not yet read."""
        self.task: asyncio.Task[RunResult] | None = None
        """The task running the run."""
        self.result: RunResult | None = None
        """What the run returned, once it has."""


@dataclass
class RunResultStreaming(RunResult):
    """A run in progress: iterate `stream_events()`; the other fields fill in as it goes."""

    is_complete: bool = False
    """Whether the run has finished (answered, paused, failed or cancelled)."""
    cancelled: bool = False
    """Whether the run was cancelled: by `cancel()`, or by its consumer leaving early."""
    _run: StreamedRun = field(default_factory=lambda: StreamedRun(EventBuffer()), repr=False)
    _drained: bool = field(default=False, repr=False)

    @property
    def current_agent(self) -> Agent[Any]:
        """The agent answering now (the last one, once the run has ended)."""
        return self.new_items.current_agent

    def to_state(self) -> RunState:
        """The run's state once it has ended, to resume with `Runner.run(agent, state)`.

        Returns:
            The state, with the approvals and rejections made so far.

        Raises:
            UserError: If the run has not ended yet (read its events to the end first).
        """
        finished = self._run.result
        if finished is None:
            raise UserError(
                "This streamed run has not ended, so it has no state yet: read "
                "result.stream_events() to the end, then call result.to_state()"
            )
        return finished.to_state()

    async def stream_events(
        self, *, patience: float | None = None
    ) -> AsyncGenerator[RunStreamEvent]:
        """Yield the run's events as they happen, until it ends.

        While you read, at most 1,024 model events wait for you: when that many wait,
        the run reads no further from the model's stream until you have taken half of them
        (a slow reader slows the model instead of growing memory); after a second with
        nothing taken (your `patience`), the run reads on. With no loop reading, the run
        does not wait: its events wait, all of them, for a later call.
        Leaving early cancels the run: the consuming task being cancelled, or a `break`
        (at once with `async with contextlib.aclosing(result.stream_events()) as events:`;
        otherwise when the abandoned generator is collected, or its task ends).
        Called again after a loop has ended or been left, it goes on from there.

        Args:
            patience: Seconds the run waits, its buffer full, while this loop takes
                nothing, before it reads on; None for a second. `math.inf` waits as
                long as the loop lasts: for a loop that writes each event to a client
                that may stop reading for a while (the run pauses with it).

        Yields:
            Raw model deltas, produced items, and agent changes.

        Raises:
            UserError: If another task is reading the events (read them in one loop).
            Exception: Whatever ended the run, once the events before it are yielded.
        """
        buffer = self._run.buffer
        ready = buffer.ready
        reader = self._attach_reader(patience)
        try:
            while not self._drained:
                if not ready and not buffer.refill():
                    await buffer.arrival()  # none waits: the run is working, or you are ahead
                    continue
                while ready:  # the batch, popped one by one: no call per event
                    event = ready.popleft()
                    if event is None:
                        self._drained = True  # a second call yields nothing, and does not wait
                        break
                    yield event
        except BaseException:  # the reader left (GeneratorExit) or was cancelled
            self.cancel()
            raise
        finally:
            buffer.detach(reader)
        task = self._run.task
        if task is not None and not task.cancelled():
            task.result()  # raises what ended the run, if anything did

    def _attach_reader(self, patience: float | None) -> object:
        """Bound the buffer while the current task reads; refuse a second task reading.

        Args:
            patience: How long a full buffer waits for the reader to take something.

        Returns:
            The reader's token, to detach it when its loop ends.
        """
        task = asyncio.current_task()
        if task is None or self._drained:
            return None  # nothing left to bound
        buffer = self._run.buffer
        reader = buffer.reader
        if reader is not None and reader is not task and not reader.done():
            raise UserError(
                "This streamed run's events are already being read by another task: "
                "read stream_events() in one loop and hand the events on (an asyncio.Queue "
                "per task, say), or call it again once that loop has ended"
            )
        return buffer.attach(task, patience)

    def cancel(self) -> None:
        """Stop the run; the events end.

        No further model call or tool call starts, running async tools are cancelled,
        and sync tools see `ctx.cancelled` set.
        """
        task = self._run.task
        if task is not None and not task.done():
            self.cancelled = True
            task.cancel()
