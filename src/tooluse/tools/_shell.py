"""`ShellTool`: the Responses API's `shell` tool, its commands run here by an executor of yours.

The model sends a `shell_call` item (`action.commands`, with an optional timeout and
output limit); the run gives it to your executor as a `ShellCommandRequest` and sends
back a `shell_call_output` item: each command's stdout, stderr and outcome (its exit
code, or a timeout). A shell in a container OpenAI hosts (`environment={"type":
"container_auto"}` or `"container_reference"`) runs there instead, with no executor.
Approval (`needs_approval`, `on_approval`) is the run's, as for function tools.
"""

from __future__ import annotations

import inspect
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, cast

from typing_extensions import NotRequired, TypedDict

from ..core._context import RunContextWrapper
from ..core._errors import UserError
from ..core._items import Item

if TYPE_CHECKING:
    from openai.types.responses import FunctionShellToolParam

__all__ = [
    "ShellActionRequest",
    "ShellCallData",
    "ShellCallOutcome",
    "ShellCommandOutput",
    "ShellCommandRequest",
    "ShellOnApprovalFunctionResult",
    "ShellResult",
    "ShellTool",
    "ShellToolEnvironment",
    "ShellToolLocalSkill",
    "answer_shell_call",
    "approval_arguments",
    "shell_action",
    "shell_output_text",
    "shell_rejection",
]

logger = logging.getLogger("tooluse")

_HOSTED_ENVIRONMENTS = ("container_auto", "container_reference")


class ShellToolLocalSkill(TypedDict):
    """A skill the model may use in a local shell: a directory with its instructions."""

    name: str
    """The skill's name."""
    description: str
    """What the skill does, for the model to choose it."""
    path: str
    """The directory holding the skill (its `SKILL.md` and scripts)."""


class ShellToolLocalEnvironment(TypedDict):
    """Commands run here, by the tool's executor."""

    type: Literal["local"]
    """Always `local`."""
    skills: NotRequired[list[ShellToolLocalSkill]]
    """Skills the model is told of."""


ShellToolEnvironment: TypeAlias = ShellToolLocalEnvironment | Mapping[str, Any]
"""Where commands run: `{"type": "local"}` (the default), or a container OpenAI hosts
(`{"type": "container_auto", ...}`, `{"type": "container_reference", "container_id": ...}`,
sent as given)."""


@dataclass
class ShellCallOutcome:
    """How a command ended."""

    type: Literal["exit", "timeout"]
    """`exit` (it finished) or `timeout` (it was stopped)."""
    exit_code: int | None = None
    """Its exit code, when it finished (None reads as 0)."""


@dataclass
class ShellCommandOutput:
    """What one command printed, and how it ended."""

    stdout: str = ""
    """Its standard output."""
    stderr: str = ""
    """Its standard error."""
    outcome: ShellCallOutcome = field(default_factory=lambda: ShellCallOutcome(type="exit"))
    """How it ended."""
    command: str | None = None
    """The command, for your own records (the model knows what it asked)."""
    provider_data: dict[str, Any] | None = None
    """Anything of yours about it; never sent to the model."""

    @property
    def exit_code(self) -> int | None:
        """The exit code, if it finished."""
        return self.outcome.exit_code

    @property
    def status(self) -> Literal["completed", "timeout"]:
        """`timeout` if it was stopped, else `completed`."""
        return "timeout" if self.outcome.type == "timeout" else "completed"


@dataclass
class ShellResult:
    """What an executor returns for a call: each command's output, in order."""

    output: list[ShellCommandOutput]
    """The commands' outputs."""
    max_output_length: int | None = None
    """The most characters of output to send the model (the model's own limit, if
    smaller, wins)."""
    provider_data: dict[str, Any] | None = None
    """Anything of yours about the call; never sent to the model."""


@dataclass
class ShellActionRequest:
    """The commands a `shell_call` asks for."""

    commands: list[str]
    """The commands, to run in order."""
    timeout_ms: int | None = None
    """How long they may take, in milliseconds (None or 0: no limit asked)."""
    max_output_length: int | None = None
    """The most characters of output the model wants back."""


@dataclass
class ShellCallData:
    """A `shell_call`, read."""

    call_id: str
    """The call's id."""
    action: ShellActionRequest
    """What it asks for."""
    status: Literal["in_progress", "completed", "incomplete"] | None = None
    """The item's status, as the model sent it."""
    raw: Any = None
    """The item, as the model sent it."""


@dataclass
class ShellCommandRequest:
    """What an executor gets: the run's context and the call."""

    ctx_wrapper: RunContextWrapper[Any]
    """The run's context."""
    data: ShellCallData
    """The call."""


class ShellOnApprovalFunctionResult(TypedDict):
    """An `on_approval` function's decision."""

    approve: bool
    """Whether the commands may run."""
    reason: NotRequired[str]
    """What the model is told of a refusal."""


ShellExecutor: TypeAlias = Callable[
    [ShellCommandRequest], "str | ShellResult | Awaitable[str | ShellResult]"
]
"""Runs a call's commands: returns a `ShellResult`, or text (sent as one command's stdout)."""
ShellApprovalFunction: TypeAlias = Callable[
    [RunContextWrapper[Any], ShellActionRequest, str], "bool | Awaitable[bool]"
]
"""`(context, action, call_id) -> whether the call needs approval`."""
ShellOnApprovalFunction: TypeAlias = Callable[
    [RunContextWrapper[Any], Any],
    "ShellOnApprovalFunctionResult | Awaitable[ShellOnApprovalFunctionResult]",
]
"""`(context, approval_item) -> {"approve": bool, "reason": ...}`: decides at once, in
place of pausing the run; any other answer pauses it."""


@dataclass
class ShellTool:
    """Lets the model run shell commands: here, through `executor`, or in a hosted container.

    Raises:
        UserError: A local shell has no executor, a hosted one has an executor or an
            approval setting, or the environment is not one the API knows.
    """

    executor: ShellExecutor | None = None
    """Runs a call's commands (a local shell only)."""
    name: str = "shell"
    """The tool's name in the run's items and approvals."""
    needs_approval: bool | ShellApprovalFunction = False
    """Whether a call waits for a human: a bool, or a function of (context, action, call id)."""
    on_approval: ShellOnApprovalFunction | None = None
    """Decides a call that needs approval at once (`{"approve": ..., "reason": ...}`)."""
    environment: ShellToolEnvironment | None = None
    """Where commands run; None is `{"type": "local"}`."""

    def __post_init__(self) -> None:
        self.environment = _checked_environment(self.environment)
        if self.is_local:
            if self.executor is None:
                raise UserError(
                    f"ShellTool '{self.name}': a local shell needs executor=..., a function "
                    "that runs a ShellCommandRequest's commands and returns a ShellResult "
                    "(or text); for a shell OpenAI hosts, give environment={'type': "
                    "'container_auto'}"
                )
            return
        if self.executor is not None or self.needs_approval is not False or self.on_approval:
            raise UserError(
                f"ShellTool '{self.name}': a hosted shell ({self.environment['type']}) runs on "
                "OpenAI's side, so executor, needs_approval and on_approval cannot apply: "
                "remove them, or use environment={'type': 'local'}"
            )

    @property
    def is_local(self) -> bool:
        """Whether commands run here, through the executor."""
        return self._environment["type"] == "local"

    @property
    def _environment(self) -> Mapping[str, Any]:
        return cast(Mapping[str, Any], self.environment)

    def to_tool_param(self) -> FunctionShellToolParam:
        """The Responses API tool param."""
        return cast(
            "FunctionShellToolParam", {"type": "shell", "environment": dict(self._environment)}
        )


def _checked_environment(environment: object) -> Mapping[str, Any]:
    if environment is None:
        return {"type": "local"}
    if not isinstance(environment, Mapping):
        raise UserError(
            f"ShellTool(environment={environment!r}): give a dict such as {{'type': 'local'}}"
        )
    checked = dict(cast(Mapping[str, Any], environment))
    checked.setdefault("type", "local")
    kind = checked["type"]
    if kind != "local" and kind not in _HOSTED_ENVIRONMENTS:
        raise UserError(
            f"ShellTool(environment={{'type': {kind!r}}}): the type is 'local', "
            "'container_auto' or 'container_reference'"
        )
    for index, skill in enumerate(checked.get("skills") or []) if kind == "local" else ():
        _check_local_skill(index, skill)
    return checked


def _check_local_skill(index: int, skill: object) -> None:
    fields: Mapping[str, object] = (
        cast(Mapping[str, object], skill) if isinstance(skill, Mapping) else {}
    )
    missing = [
        key for key in ("name", "description", "path") if not isinstance(fields.get(key), str)
    ]
    if missing:
        raise UserError(
            f"ShellTool(environment=...): skill {index} needs {', '.join(missing)} (strings): "
            "{'name': ..., 'description': ..., 'path': <the skill's directory>}"
        )


def shell_action(item: Item) -> ShellActionRequest:
    """The commands a `shell_call` item asks for (what a malformed one lacks reads as empty).

    Args:
        item: The model's `shell_call` item.

    Returns:
        Its action.
    """
    action = item.get("action")
    fields = cast(dict[str, Any], action) if isinstance(action, dict) else {}
    commands = fields.get("commands")
    listed = cast(list[object], commands) if isinstance(commands, list) else []
    return ShellActionRequest(
        commands=[str(command) for command in listed],
        timeout_ms=_positive(fields.get("timeout_ms")),
        max_output_length=_positive(fields.get("max_output_length")),
    )


def _positive(value: object) -> int | None:
    return value if type(value) is int and value > 0 else None


def shell_rejection(item: Item, message: str) -> Item:
    """The `shell_call_output` of a refused call: nothing ran, and the model is told why.

    Args:
        item: The model's `shell_call` item.
        message: What the model is told.

    Returns:
        The answering item.
    """
    return _output_item(item, [_entry("", message, {"type": "exit", "exit_code": 1})], None)


async def answer_shell_call(item: Item, tool: ShellTool, context: RunContextWrapper[Any]) -> Item:
    """Run a `shell_call` with the tool's executor and return its `shell_call_output`.

    An executor that raises answers the model with a failure that names no detail of the
    error (it may hold paths or secrets); the error is logged by type.

    Args:
        item: The model's `shell_call` item.
        tool: The local shell tool.
        context: The run's context, given to the executor.

    Returns:
        The answering item.
    """
    assert tool.executor is not None  # a local shell has one (checked when made)
    action = shell_action(item)
    status = item.get("status")
    data = ShellCallData(
        call_id=str(item.get("call_id", "")),
        action=action,
        status=status if status in ("in_progress", "completed", "incomplete") else None,
        raw=item,
    )
    try:
        result: object = tool.executor(ShellCommandRequest(context, data))
        if inspect.isawaitable(result):
            result = await result
    except Exception as error:
        logger.warning("The executor of shell tool '%s' raised %s", tool.name, type(error).__name__)
        failed = (
            f"The shell tool '{tool.name}' failed to run the commands (its executor raised "
            f"{type(error).__name__}); whether any of them ran is unknown."
        )
        return _output_item(item, [_entry("", failed, {"type": "exit", "exit_code": 1})], None)
    return _result_item(item, tool, result, action.max_output_length)


def _result_item(item: Item, tool: ShellTool, result: object, asked: int | None) -> Item:
    if isinstance(result, ShellResult):
        limit = _smaller(_positive(result.max_output_length), asked)
        entries = [_command_entry(output) for output in result.output]
    elif isinstance(result, str):
        limit = asked
        entries = [_entry(result, "", {"type": "exit", "exit_code": 0})]
    else:
        raise UserError(
            f"The executor of shell tool '{tool.name}' returned {type(result).__name__}: "
            "return a ShellResult (each command's ShellCommandOutput) or the output as text"
        )
    return _output_item(item, _truncated(entries, limit), limit)


def _command_entry(output: ShellCommandOutput) -> dict[str, Any]:
    outcome = output.outcome
    if outcome.type == "timeout":
        return _entry(output.stdout, output.stderr, {"type": "timeout"})
    return _entry(
        output.stdout, output.stderr, {"type": "exit", "exit_code": outcome.exit_code or 0}
    )


def _entry(stdout: str, stderr: str, outcome: dict[str, Any]) -> dict[str, Any]:
    return {"stdout": stdout, "stderr": stderr, "outcome": outcome}


def _smaller(first: int | None, second: int | None) -> int | None:
    if first is None or second is None:
        return first if second is None else second
    return min(first, second)


def _truncated(entries: list[dict[str, Any]], limit: int | None) -> list[dict[str, Any]]:
    """The entries with at most `limit` characters of output in all, earliest kept first."""
    if limit is None:
        return entries
    left = limit
    for entry in entries:
        for stream in ("stdout", "stderr"):
            text: str = entry[stream]
            entry[stream] = text[:left]
            left -= len(entry[stream])
    return entries


def _output_item(item: Item, entries: list[dict[str, Any]], limit: int | None) -> Item:
    answer: Item = {
        "type": "shell_call_output",
        "call_id": str(item.get("call_id", "")),
        "output": entries,
    }
    if limit is not None:
        answer["max_output_length"] = limit
    return answer


def shell_output_text(output: Any) -> str:
    """A shell call output's entries as a person reads them (the UI streams, the chat).

    Each command's stdout and stderr, or how it failed.

    Args:
        output: A `shell_call_output` item's `output`.

    Returns:
        The text, a line per part.
    """
    lines: list[str] = []
    entries = cast(list[Any], output) if isinstance(output, list) else []
    for each in entries:
        entry = cast(dict[str, Any], each) if isinstance(each, dict) else {}
        said = [str(entry[key]) for key in ("stdout", "stderr") if entry.get(key)]
        outcome = entry.get("outcome")
        fields = cast(dict[str, Any], outcome) if isinstance(outcome, dict) else {}
        if fields.get("type") == "timeout":
            said.append("(timed out)")
        elif not said and fields.get("exit_code") not in (None, 0):  # a silent failure
            said.append(f"(exit code {fields['exit_code']})")
        lines += said
    return "\n".join(lines)


def approval_arguments(item: Item) -> str:
    """The call's action as JSON text, as an approval shows it to a human.

    Args:
        item: The model's `shell_call` item.

    Returns:
        The action's JSON.
    """
    action = shell_action(item)
    return json.dumps(
        {
            "commands": action.commands,
            "timeout_ms": action.timeout_ms,
            "max_output_length": action.max_output_length,
        }
    )
