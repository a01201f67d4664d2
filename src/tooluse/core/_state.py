"""`RunState`: the whole state of a run, as plain JSON-safe data, and `ToolApproval`.

A run is this value and a few steps over it (`_turn.py`). A paused run's
state, or the one a `RunStopped` error carries, can be written out with
`to_json()` and picked up again, in another process, with
`Runner.run(agent, RunState.from_json(text))`: the resumed run sends the model
exactly the requests the uninterrupted run would have sent.
What is not data (the agents, their tools, your context object) is given
again when resuming; the state names the current agent.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Coroutine
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar, cast, overload

from pydantic import ConfigDict, TypeAdapter, ValidationError, with_config
from typing_extensions import TypedDict

from ._context import Usage
from ._context_record import ContextRecord
from ._errors import UserError
from ._factories import new_dict, new_list
from ._items import Item
from ._paused_context import keep_context

__all__ = [
    "REJECTION",
    "Decision",
    "RunState",
    "ServerThread",
    "SessionProgress",
    "ToolApproval",
    "TurnInProgress",
]

_CLOSED = ConfigDict(
    extra="forbid"
)  # reading a state: a field this tooluse does not know is a mistake


@with_config(_CLOSED)
class Decision(TypedDict):
    """A human's decision on a call."""

    approved: bool
    """Whether the call may run."""
    message: str | None
    """What the model is told of a rejected call."""


REJECTION = "Tool execution was not approved."  # openai-agents' words, which prompts may expect
"""What the model is told of a rejected call, unless the human says more."""


@with_config(_CLOSED)
@dataclass(frozen=True)
class ToolApproval:
    """A tool call waiting for a human's approval."""

    call_id: str
    """The id of the function call this belongs to."""
    tool_name: str
    """The tool the model called."""
    arguments: str
    """The raw JSON arguments, for the human to read."""
    approval_id: str = ""
    """The id to approve or reject it by: the call id, or `<call id>:<n>` for the n-th
    entry of a `multi_tool_use.parallel` call. Defaults to the call id."""
    item_type: str = "function_call"
    """The kind of call waiting: `function_call`; `shell_call` for a `ShellTool`'s
    commands (then `arguments` is the action's JSON: `commands`, `timeout_ms`, ...); or
    `mcp_approval_request` for a hosted MCP server asking to run one of its tools (then
    `call_id` is the request's id and `tool_name` the MCP tool's name)."""
    server_label: str = ""
    """The hosted MCP server asking, for an `mcp_approval_request`; empty otherwise."""

    def __post_init__(self) -> None:
        if not self.approval_id:
            object.__setattr__(self, "approval_id", self.call_id)

    @property
    def name(self) -> str:
        """The tool's name, as openai-agents' approval items spell it."""
        return self.tool_name

    @property
    def standing_key(self) -> str:
        """What an `always_approve` or `always_reject` decision on it stands for.

        The tool's name; for a hosted MCP server's tool, `mcp:<server_label>/<name>` (as
        openai-agents keys it by server and tool), and for a shell, `shell:<name>`: names
        no function tool can have, so that a decision on one never covers the other.
        """
        if self.item_type == "mcp_approval_request":
            return f"mcp:{self.server_label}/{self.tool_name}"
        if self.item_type == "shell_call":
            return f"shell:{self.tool_name}"
        return self.tool_name


@with_config(_CLOSED)
@dataclass
class TurnInProgress:
    """A model response whose calls are not all answered yet."""

    output: list[Item]
    """The response's output items, as recorded (call ids made unique)."""
    response_id: str | None = None
    """The provider's id for the response."""
    answers: dict[str, Item] = field(default_factory=new_dict)
    """The items answering its calls so far, by the id they answer; what is here is not
    run again on resume."""


@with_config(_CLOSED)
@dataclass
class SessionProgress:
    """What of a run a session holds: the run stores each whole turn as it completes."""

    unsaved_input: list[Item] = field(default_factory=new_list)
    """The run's new input, stored with its first completed turn (then emptied)."""
    saved: int = 0
    """How many of the run's `new_items` the session holds."""
    tip: str | None = None
    """A fingerprint of the session's newest item after the run's last write: a state
    is resumed on a session only where the session still is."""


@with_config(_CLOSED)
@dataclass
class ServerThread:
    """A run continuing a conversation the Responses API keeps (`previous_response_id`)."""

    response_id: str
    """The response the next request continues (`previous_response_id`)."""
    held: int = 0
    """How many items of the run's conversation (its input, then its new items) the
    server holds: the next request sends only those after them."""


@with_config(_CLOSED)
@dataclass
class RunState:
    """Everything a run is, to save it and resume it (after a pause for approval, or anywhere).

    Pass it as the input of `Runner.run(agent, state)`; `to_json()` and
    `RunState.from_json()` carry it through text. Resuming works on a copy: the
    same state can be resumed again.
    """

    VERSION: ClassVar[int] = 1
    """The version of the JSON form this tooluse writes and reads."""

    agent_name: str
    """The agent answering now."""
    input: list[Item]
    """The run's original input."""
    new_items: list[Item] = field(default_factory=new_list)
    """The items the run added: messages, calls and outputs, in order."""
    turn: TurnInProgress | None = None
    """The model response being answered, if the run stopped in the middle of a turn."""
    decisions: dict[str, Decision] = field(default_factory=new_dict)
    """The human's decisions, by approval id."""
    standing: dict[str, Decision] = field(default_factory=new_dict)
    """Decisions for every later call of a tool in this run (`always_approve`,
    `always_reject`), by tool name; `mcp:<server_label>/<name>` for a hosted MCP
    server's tool and `shell:<name>` for a shell (`ToolApproval.standing_key`)."""
    interruptions: list[ToolApproval] = field(default_factory=new_list)
    """The calls the run paused for."""
    filtered_history: list[Item] | None = None
    """What a handoff's `input_filter` left of the conversation for the current agent;
    None when it sees all of it."""
    filtered_at: int = 0
    """How many of `new_items` existed when the filter ran; later ones are seen too."""
    turns: int = 0
    """Model calls made so far (`max_turns` counts these)."""
    failed_turns: int = 0
    """Consecutive turns in which every tool call failed (the error budget)."""
    tool_choice_released: bool = False
    """Whether a forced `tool_choice` was dropped after a turn with tool calls."""
    usage: Usage = field(default_factory=Usage)
    """What the run used so far."""
    session: SessionProgress | None = None
    """What a run on a session has stored in it; None for a run without a session."""
    context: ContextRecord | None = None
    """What the run's `ContextPolicy` trimmed or summarised of the history the model is
    sent (`RunConfig(context=...)`); None while it has changed nothing."""
    server_thread: ServerThread | None = None
    """The conversation the Responses API keeps for a run given `previous_response_id`;
    None when each request sends the whole conversation."""
    nested: dict[str, RunState] = field(default_factory=new_dict)
    """The paused runs of agents used as tools in the turn in progress, by the id of the
    call that started each: resuming the turn resumes them, with the decisions made on
    their calls (which wait in `interruptions` beside this run's own)."""

    def history(self) -> list[Item]:
        """The conversation the current agent sees.

        Returns:
            The input and new items, or what an `input_filter` left and the items since.
        """
        if self.filtered_history is None:
            return self.conversation()
        return [*self.filtered_history, *self.new_items[self.filtered_at :]]

    def conversation(self) -> list[Item]:
        """The whole conversation: the input, then every item the run added."""
        return [*self.input, *self.new_items]

    def approve(self, call: ToolApproval | str, always_approve: bool = False) -> None:
        """Let a waiting call run when the run resumes.

        Args:
            call: The approval item, or its approval id.
            always_approve: Also approve every later call of the same tool in this run.
        """
        self._decide(call, {"approved": True, "message": None}, always_approve, "always_approve")

    def reject(
        self,
        call: ToolApproval | str,
        always_reject: bool = False,
        *,
        rejection_message: str | None = None,
    ) -> None:
        """Refuse a waiting call: the model gets `rejection_message` as its output.

        A hosted MCP server's request is answered with `approve: false`, and with the
        message as its `reason` when one is given.

        Args:
            call: The approval item, or its approval id.
            always_reject: Also refuse every later call of the same tool in this run.
            rejection_message: What the model is told; None for a standard refusal.
        """
        if rejection_message is not None and not isinstance(rejection_message, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(
                f"reject: rejection_message={rejection_message!r} must be the text the model "
                "is told, or None for the standard refusal"
            )
        decision: Decision = {"approved": False, "message": rejection_message or REJECTION}
        self._decide(call, decision, always_reject, "always_reject")

    def get_interruptions(self) -> list[ToolApproval]:
        """The calls waiting for a decision, as openai-agents names it (`interruptions`)."""
        return list(self.interruptions)

    def _decide(
        self, call: ToolApproval | str, decision: Decision, always: object, flag: str
    ) -> None:
        if not isinstance(always, bool):
            raise UserError(
                f"{flag}={always!r} must be True or False; a message for the model goes in "
                "rejection_message=..."
            )
        approval_id = self._waiting(call)
        self.decisions[approval_id] = decision
        if always:
            self.standing[self._standing_key(call, approval_id)] = decision

    def _standing_key(self, call: ToolApproval | str, approval_id: str) -> str:
        if isinstance(call, ToolApproval):
            return call.standing_key
        named = [i.standing_key for i in self.interruptions if i.approval_id == approval_id]
        if not named:
            raise UserError(
                f"always_approve/always_reject need a waiting call to know its tool; no call "
                f"waits under {approval_id!r}"
            )
        return named[0]

    def _waiting(self, call: ToolApproval | str) -> str:
        approval_id = call if isinstance(call, str) else call.approval_id
        waiting = [i.approval_id for i in self.interruptions]
        if waiting and approval_id not in waiting:
            raise UserError(
                f"No call waits for approval under {approval_id!r}; the waiting ones are "
                f"{', '.join(waiting)}"
            )
        return approval_id

    def copy(self) -> RunState:
        """A deep copy, for a run to work on."""
        return copy.deepcopy(self)

    def to_json(self) -> dict[str, Any]:
        """The state as a JSON-ready dict, with a `version` field (`to_string()` for text)."""
        return {"version": self.VERSION, **asdict(self)}

    def to_string(self) -> str:
        """The state as JSON text, to store; `RunState.from_json(text)` reads it back."""
        return json.dumps(self.to_json())

    @classmethod
    async def from_string(
        cls,
        initial_agent: object,
        state_string: str | bytes | dict[str, Any],
        *,
        context_override: object = None,
        context_deserializer: object = None,
        strict_context: bool = False,
    ) -> RunState:
        """A state back from its text, as openai-agents spells it; see `from_json`.

        Args:
            initial_agent: Unused: the run resumes with the agent given to `Runner.run`.
            state_string: The text `to_string()` made (or `to_json()`'s dict).
            context_override: The context a run resuming from this state gets (unless
                `Runner.run(..., context=...)` gives another).
            context_deserializer: Refused: the JSON holds no context to deserialize.
            strict_context: Refused without `context_override`, for the same reason.

        Returns:
            The state.
        """
        del initial_agent
        state = cls._from_json(state_string)
        _resumed_context(state, context_override, context_deserializer, strict_context)
        return state

    @overload
    @classmethod
    def from_json(cls, text: str | bytes | dict[str, Any], /) -> RunState: ...
    @overload
    @classmethod
    def from_json(
        cls,
        initial_agent: object,
        text: str | bytes | dict[str, Any],
        /,
        *,
        context_override: object = None,
        context_deserializer: object = None,
        strict_context: bool = False,
    ) -> Coroutine[Any, Any, RunState]: ...
    @classmethod
    def from_json(cls, *args: object, **context: Any) -> RunState | Coroutine[Any, Any, RunState]:
        """A state back from `to_json()`'s dict or `to_string()`'s text.

        `RunState.from_json(data)` returns the state. openai-agents' form,
        `await RunState.from_json(agent, data, context_override=...)`, works too: given
        the agent first, it returns a coroutine of the state (the agent is not needed:
        the run resumes with the one given to `Runner.run`); see `from_string`.

        Args:
            *args: The JSON; or the starting agent, then the JSON.
            **context: With the agent first: `context_override`, `context_deserializer`,
                `strict_context`, as `from_string` takes them.

        Returns:
            The state; a coroutine of it when the agent comes first.

        Raises:
            UserError: If it is not a run state of the version this tooluse reads; the
                message names every field that does not fit.
        """
        if len(args) == 2:
            return cls.from_string(args[0], cast("str", args[1]), **context)
        if len(args) != 1 or context:
            raise UserError(
                f"RunState.from_json takes the JSON (or the agent, then the JSON, and the "
                f"context keywords), not {len(args)} arguments and {sorted(context)}"
            )
        return cls._from_json(cast("str | bytes | dict[str, Any]", args[0]))

    @classmethod
    def _from_json(cls, text: str | bytes | dict[str, Any]) -> RunState:
        data: Any = text
        if not isinstance(text, dict):
            try:
                data = json.loads(text)
            except json.JSONDecodeError as error:
                raise UserError(f"RunState.from_json: the text is not JSON ({error.msg})") from None
        if not isinstance(data, dict) or "agent_name" not in data:
            raise UserError("RunState.from_json: the JSON is not a run state (no 'agent_name')")
        fields = dict(cast(dict[str, Any], data))
        version = fields.pop("version", None)
        if version != cls.VERSION:
            raise UserError(
                f"RunState.from_json: the state has version {version!r}, this tooluse reads "
                f"version {cls.VERSION}; resume it with the tooluse version that wrote it"
            )
        try:
            return _adapter().validate_json(json.dumps(fields), strict=True)
        except ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'the state'}: {e['msg']}"
                for e in error.errors(include_url=False, include_input=False)
            )
            raise UserError(f"RunState.from_json: the state does not fit ({problems})") from None


@functools.cache
def _adapter() -> TypeAdapter[RunState]:
    return TypeAdapter(RunState)


def _resumed_context(state: RunState, override: object, deserializer: object, strict: bool) -> None:
    """Keep openai-agents' `context_override` with a state read back; refuse what cannot be."""
    if deserializer is not None:
        raise UserError(
            "RunState.from_json: tooluse keeps the run's context out of the state's JSON, so "
            "context_deserializer has nothing to read; pass the context itself, "
            "context_override=... (or Runner.run(..., context=...))"
        )
    if override is not None:
        keep_context(state, override)
    elif strict:
        raise UserError(
            "RunState.from_json: strict_context=True, but tooluse keeps the run's context out "
            "of the state's JSON; pass context_override=... (or Runner.run(..., context=...))"
        )
