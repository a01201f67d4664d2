"""Errors raised by tooluse, and the one a tool raises to talk to the model.

The tree, by who has to act:

```
Exception
├── TooluseError                  base of every error tooluse raises
│   ├── UserError (TypeError)     the developer misused the API: fix the code
│   │   └── UserValueError (ValueError)  a setting's value is out of range (a 0 s timeout)
│   └── RunError                  something failed while a run was going on
│       ├── SessionBusyError      another run holds the session
│       ├── RunStopped            the run ended early; keeps the conversation so far
│       │   ├── MaxTurnsExceeded        it used all its turns
│       │   ├── ToolErrorBudgetExceeded every tool call failed, turn after turn
│       │   ├── ModelAPIError           the model's API failed, or sent something unreadable
│       │   ├── ResponseIncomplete      the model stopped before its answer was complete
│       │   ├── ToolTimeoutError        a tool that raises at its timeout ran past it
│       │   ├── UsageLimitExceeded      it reached a UsageLimits limit
│       │   ├── ContextWindowExceeded   a request cannot fit the ContextPolicy's budget
│       │   ├── RunTimeoutError         the whole run took longer than run_timeout
│       │   ├── GuardrailTripwireTriggered  a guardrail tripped (input, output, tool input/output)
│       │   └── MissingAPIKey (UserError) no OpenAI key for the first model call
│       └── ModelBehaviorError    the model sent something unusable
│           └── ToolArgumentsError  a tool call's arguments did not validate
├── ModelRetry                    raised by a tool: its message goes to the model
└── Warning
    └── UserWarning
        └── ToolDefinitionWarning  a tool's definition has a likely mistake
```

`UserError` subclasses `TypeError` because nearly every misuse is a function or
a type that tooluse cannot turn into a tool. `MissingAPIKey` is both a
`UserError` and a `RunStopped`: the developer has to act, and the run keeps its
conversation to go on from. `ModelRetry` is deliberately not a `TooluseError`:
tooluse never raises it, tools do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from .core._errors import TooluseError, UserError
from .core._items import Item

if TYPE_CHECKING:
    from .core._state import RunState

__all__ = [
    "ContextWindowExceeded",
    "GuardrailTripwireTriggered",
    "InputGuardrailTripwireTriggered",
    "MCPServerError",
    "MaxTurnsExceeded",
    "MissingAPIKey",
    "ModelAPIError",
    "ModelBehaviorError",
    "ModelRetry",
    "OutputGuardrailTripwireTriggered",
    "ResponseIncomplete",
    "RunError",
    "RunStopped",
    "RunTimeoutError",
    "SessionBusyError",
    "ToolArgumentsError",
    "ToolDefinitionWarning",
    "ToolErrorBudgetExceeded",
    "ToolInputGuardrailTripwireTriggered",
    "ToolOutputGuardrailTripwireTriggered",
    "ToolTimeoutError",
    "TooluseError",
    "UsageLimitExceeded",
    "UserError",
]


class RunError(TooluseError):
    """Something failed at run time, while calling a model or a tool."""


class RunStopped(RunError):
    """The run ended before a final answer. It keeps the conversation so far.

    `items` can be fed to a new run to continue from where this one stopped.
    """

    def __init__(self, message: str, items: list[Item], new_items: list[Item]) -> None:
        self.items = items
        """The whole conversation so far: the input and every item the run added."""
        self.new_items = new_items
        """The items the run added."""
        self.state: RunState | None = None
        """The run's state where it stopped: `Runner.run(agent, error.state)` goes on from
        there (after raising the limit, or once the API is back). Set by the runner."""
        super().__init__(message)


class MaxTurnsExceeded(RunStopped):
    """The run reached `max_turns` model calls without a final answer."""

    def __init__(self, max_turns: int, items: list[Item], new_items: list[Item]) -> None:
        self.max_turns = max_turns
        """The limit that was reached."""
        super().__init__(
            f"The run reached max_turns={max_turns} without a final answer; raise max_turns "
            "(Runner.run(..., max_turns=...)) or check why the model keeps calling tools",
            items,
            new_items,
        )


class ToolErrorBudgetExceeded(RunStopped):
    """Every tool call failed in `max_tool_errors` consecutive turns."""

    def __init__(
        self,
        max_tool_errors: int,
        errors: list[str],
        items: list[Item],
        new_items: list[Item],
    ) -> None:
        self.max_tool_errors = max_tool_errors
        """The budget that was used up."""
        self.errors = errors
        """What the model was told about the last turn's failed calls."""
        super().__init__(
            f"Every tool call failed in {max_tool_errors} consecutive turns; the model is not "
            "recovering. Look at `errors` and the conversation in `items`, or raise "
            "RunConfig(max_tool_errors=...)",
            items,
            new_items,
        )


class ModelAPIError(RunStopped):
    """The model's API failed, or answered with something that cannot be read.

    After the run's retries (`RetryPolicy`): an HTTP error, no connection, a body
    or streamed event that is not JSON, an error event mid-stream, or a response
    the API reports as failed. The original exception, if any, is the `__cause__`.
    """

    def __init__(
        self,
        status_code: int | None,
        items: list[Item],
        new_items: list[Item],
        description: str | None = None,
    ) -> None:
        self.status_code = status_code
        """The HTTP status the API answered with, if it answered with one."""
        self.description = description or (
            f"the model's API failed (HTTP {status_code}) after the run's retries"
            if status_code
            else "the model's API could not be reached after the run's retries"
        )
        """What happened, in one sentence."""
        super().__init__(
            f"The run stopped: {self.description}. See __cause__ for the details; "
            "RunConfig(max_retries=...) or RunConfig(retry_policy=...) sets the retries",
            items,
            new_items,
        )


class ResponseIncomplete(RunStopped):
    """The model stopped before its response was complete, in a streamed run or not.

    Raised instead of taking a truncated answer (or truncated tool arguments) as
    final: the Responses API's `incomplete` status, or a Chat Completions
    `finish_reason` of `length` or `content_filter`.
    """

    def __init__(self, reason: str, items: list[Item], new_items: list[Item]) -> None:
        self.reason = reason
        """Why, as the API says it: `max_output_tokens`, `length`, `content_filter`, ..."""
        hint = (
            "raise ModelSettings(max_tokens=...) or ask for a shorter answer"
            if reason in ("max_output_tokens", "length")
            else "the provider withheld the rest of the answer"
        )
        super().__init__(f"The model's response is incomplete ({reason}); {hint}", items, new_items)


class MCPServerError(RunStopped):
    """An MCP server an agent uses failed: it did not start or answer, or sent no usable tools.

    Raised when a run enters the server (its `initialize` went unanswered, its command
    could not start) or lists its tools (`tools/list` failed, timed out, or answered
    with something that is not MCP). What the server itself said is left out of the
    message (it may hold a secret) unless the server was created with
    `failure_error_function=server_error_message`, the sign that its words are trusted.
    """

    def __init__(
        self,
        server_name: str,
        server: str,
        problem: str,
        *,
        server_message: str | None = None,
        items: list[Item] | None = None,
        new_items: list[Item] | None = None,
    ) -> None:
        self.server_name = server_name
        """The server's name (`MCPServer.name`)."""
        self.server = server
        """What the server is: its command (stdio) or its URL (HTTP)."""
        self.problem = problem
        """What went wrong, in a few words (`did not answer initialize within 5 s`, ...)."""
        self.server_message = server_message
        """What the server said, for a server whose words are trusted; else None."""
        said = f" (the server said: {server_message})" if server_message else ""
        super().__init__(
            f"MCP server {server_name!r} ({server}) {problem}{said}. Check that it starts and "
            "answers when run by hand; raise client_session_timeout_seconds= if it is slow, "
            "or take it out of the agent's mcp_servers",
            items or [],
            new_items or [],
        )


class MissingAPIKey(RunStopped, UserError):
    """No OpenAI API key for the default client, found at a run's first model call.

    Raised by the first call of a model without a client of its own when neither
    `set_default_openai_client` gave one nor `OPENAI_API_KEY` is set; never at
    import, or when an agent is built. As a `RunStopped` it keeps the conversation:
    once a key is set, `Runner.run(agent, error.state)` goes on from it. Raised by
    `default_openai_client()` outside a run, its `items` are empty.
    """

    def __init__(
        self,
        items: list[Item] | None = None,
        new_items: list[Item] | None = None,
    ) -> None:
        super().__init__(
            "No OpenAI API key: set the OPENAI_API_KEY environment variable (a local server "
            "that needs none still needs a value, e.g. OPENAI_API_KEY=unused), or give tooluse "
            "a client: set_default_openai_client(AsyncOpenAI(api_key=...)) for every model, or "
            'OpenAIResponsesModel("gpt-4.1", openai_client=AsyncOpenAI(api_key=...)) for one. '
            "To run without a key (tests, examples), use "
            "Agent(..., model=tooluse.testing.TestModel())",
            items if items is not None else [],
            new_items if new_items is not None else [],
        )


class ToolTimeoutError(RunStopped):
    """A tool with `timeout_behavior="raise_exception"` ran past its timeout; the run stops.

    It keeps the conversation (filled in by the runner): resuming from `state` runs the
    call again, with the timeout raised.
    """

    def __init__(self, tool_name: str, timeout_seconds: float) -> None:
        self.tool_name = tool_name
        """The tool that timed out."""
        self.timeout_seconds = timeout_seconds
        """Its limit, in seconds."""
        super().__init__(
            f"Tool '{tool_name}' timed out after {timeout_seconds:g} s; raise its timeout, or "
            'use timeout_behavior="error_as_result" to tell the model and go on',
            [],
            [],
        )


class UsageLimitExceeded(RunStopped):
    """The run reached one of its `UsageLimits`: requests, tokens or tool calls.

    Checked before each model call, after each response, and before a turn's tool
    calls run. It keeps the conversation and the state: resume from `state` with a
    higher limit to go on (a response that went over is kept, not asked for again).
    """

    def __init__(self, limit: str, value: int, used: int) -> None:
        self.limit = limit
        """The `UsageLimits` field that was reached, e.g. `"total_tokens_limit"`."""
        self.value = value
        """Its value."""
        self.used = used
        """What the run used, or would have used had it gone on."""
        super().__init__(
            f"The run reached UsageLimits({limit}={value}): it used, or was about to use, "
            f"{used}; raise the limit in RunConfig(usage_limits=UsageLimits(...)) and resume "
            "from this error's state to go on",
            [],
            [],
        )


class ContextWindowExceeded(RunStopped):
    """A request cannot fit `ContextPolicy.max_input_tokens`, even trimmed and compacted.

    Raised before the request is sent: one item (a tool output, a long message) or the
    turns the policy keeps whole are larger than the budget. It keeps the conversation
    and the state: resume from `state` with a larger budget, or a policy that keeps fewer
    turns, to go on.
    """

    def __init__(
        self,
        tokens: int,
        budget: int,
        largest: str,
        items: list[Item],
        new_items: list[Item],
    ) -> None:
        self.tokens = tokens
        """The request's estimated input tokens, after what the policy could do."""
        self.budget = budget
        """`ContextPolicy.max_input_tokens`."""
        self.largest = largest
        """The largest item of the request, as the message names it."""
        super().__init__(
            f"The next request would hold about {tokens} input tokens, over "
            f"ContextPolicy(max_input_tokens={budget}) even after trimming and compaction; "
            f"the largest item is {largest}. Raise max_input_tokens, lower keep_recent_turns "
            "or trim_tool_outputs_to, set a compaction_model, or have the tool return less; "
            "then resume from this error's state",
            items,
            new_items,
        )


class RunTimeoutError(RunStopped):
    """The whole run took longer than `RunConfig(run_timeout=...)`; the run stops.

    Running tools were cancelled (sync tools see `ctx.cancelled` set), and the
    conversation and state are kept: a model call cut short is not in them, and a
    turn cut short while its tools ran resumes with those calls.
    """

    def __init__(self, timeout_seconds: float) -> None:
        self.timeout_seconds = timeout_seconds
        """The limit, in seconds."""
        super().__init__(
            f"The run took longer than run_timeout={timeout_seconds:g} s and was stopped; "
            "raise RunConfig(run_timeout=...), or resume from this error's state",
            [],
            [],
        )


class GuardrailTripwireTriggered(RunStopped):
    """A guardrail tripped: the run stops. Base of the four guardrail errors.

    The conversation and state are kept (filled in by the runner).
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, [], [])


class InputGuardrailTripwireTriggered(GuardrailTripwireTriggered):
    """An input guardrail tripped: the run stops, and no tool has run."""

    def __init__(self, guardrail_result: Any) -> None:
        self.guardrail_result = guardrail_result
        """The `InputGuardrailResult`: the guardrail, and its `GuardrailFunctionOutput`."""
        super().__init__(
            f"Input guardrail {_guardrail_name(guardrail_result)} tripped: its details are in "
            "error.guardrail_result.output.output_info"
        )


class OutputGuardrailTripwireTriggered(GuardrailTripwireTriggered):
    """An output guardrail tripped on the final output: the run stops."""

    def __init__(self, guardrail_result: Any) -> None:
        self.guardrail_result = guardrail_result
        """The `OutputGuardrailResult`: the guardrail, the output, the agent and its verdict."""
        super().__init__(
            f"Output guardrail {_guardrail_name(guardrail_result)} tripped: its details are in "
            "error.guardrail_result.output.output_info"
        )


class _ToolGuardrailTripped(GuardrailTripwireTriggered):
    """What the two tool guardrail errors share."""

    _checks: ClassVar[str]

    def __init__(
        self,
        guardrail: Any,
        output: Any,
        *,
        tool_name: str | None = None,
        tool_call_id: str | None = None,
    ) -> None:
        self.guardrail = guardrail
        """The `ToolInputGuardrail` or `ToolOutputGuardrail`."""
        self.output = output
        """Its `ToolGuardrailFunctionOutput`."""
        self.tool_name = tool_name
        """The tool whose call it checked (None if not given)."""
        self.tool_call_id = tool_call_id
        """The id of the call it checked (None if not given)."""
        super().__init__(_tool_trip_message(self._checks, guardrail, tool_name, tool_call_id))


class ToolInputGuardrailTripwireTriggered(_ToolGuardrailTripped):
    """A tool input guardrail tripped before the tool ran: the run stops."""

    _checks = "input"


class ToolOutputGuardrailTripwireTriggered(_ToolGuardrailTripped):
    """A tool output guardrail tripped after the tool ran: the run stops."""

    _checks = "output"


def _guardrail_name(result: Any) -> str:
    return _name_of(getattr(result, "guardrail", None))


def _name_of(guardrail: Any) -> str:
    get_name = getattr(guardrail, "get_name", None)
    return repr(get_name() if callable(get_name) else type(guardrail).__name__)


def _tool_trip_message(
    side: str, guardrail: Any, tool_name: str | None, tool_call_id: str | None
) -> str:
    on_tool = f" on tool {tool_name!r}" if tool_name is not None else ""
    on_call = f" (call {tool_call_id})" if tool_call_id is not None else ""
    return (
        f"Tool {side} guardrail {_name_of(guardrail)} tripped{on_tool}{on_call}: "
        "its details are in error.output.output_info"
    )


class SessionBusyError(RunError):
    """Another run holds the session: two runs on one session are refused, never interleaved.

    Raised when a run starts on a session id that a live run (in this process, or in
    another one using the same database) has claimed. Nothing was run or stored.
    """

    def __init__(self, session_id: str, detail: str = "") -> None:
        """Say which session is busy.

        Args:
            session_id: The session.
            detail: Why, when there is more to say (say, a claim that lapsed).
        """
        self.session_id = session_id
        """The session that is busy."""
        more = f" ({detail})" if detail else ""
        super().__init__(
            f"Session {session_id!r} is in use by another run{more}. Wait for that run to "
            "finish, or use another session id for a separate conversation"
        )


class ModelBehaviorError(RunError):
    """The model produced something tooluse cannot use."""


class ToolArgumentsError(ModelBehaviorError):
    """The arguments a model sent for a tool call are not valid.

    The message names the tool and each problem (a JSON syntax error with its
    position, or each invalid field's path and what was expected). It never
    repeats the argument values, which may hold data the model was given.
    """

    def __init__(self, tool_name: str, problems: list[str]) -> None:
        self.tool_name = tool_name
        """The name of the tool whose arguments were rejected."""
        self.problems = problems
        """One line per problem, safe to show to the model."""
        # openai-agents' opening words, so that code matching on them keeps working; one
        # problem stays on the line, several are listed under it.
        head = f"Invalid JSON input for tool {tool_name}:"
        if len(problems) == 1:
            super().__init__(f"{head} {problems[0]}")
        else:
            super().__init__(head + "".join(f"\n- {problem}" for problem in problems))


class ToolDefinitionWarning(UserWarning):
    """A tool's definition has a mistake that does not stop it from working.

    For example a docstring entry for a parameter that does not exist, or a name
    the API refuses on a tool that is not strict. Findings that only make a tool
    less clear (a parameter without a description) are left to `tooluse check`;
    run tests with `-W error::tooluse.exceptions.ToolDefinitionWarning` to fail on these.
    """


class ModelRetry(Exception):
    """Raised by a tool to send `message` to the model, verbatim, as the tool's output.

    Use it when the model can fix the problem, for example
    `raise ModelRetry("No city named 'Pariss'; check the spelling.")`.
    Everything else a tool raises reaches the model only as the tool's name
    and the exception's type, because exception messages may hold secrets.
    """

    def __init__(self, message: str) -> None:
        self.message = message
        """The text sent to the model."""
        super().__init__(message)
