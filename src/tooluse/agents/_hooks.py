"""Hooks: your code called at each step of a run.

`RunHooks` (for a whole run: `Runner.run(..., hooks=...)`) and `AgentHooks`
(for one agent: `Agent(hooks=...)`) have openai-agents' names and signatures.
Their methods are defined here, on bases generic in the agent's type, which
`Agent`'s module binds to `Agent` (so an override may annotate `agent: Agent`).
The run loop (`RunEvents`) calls them at each step, in this order:

1. `on_agent_start` / `on_start` when a run (or a resumed run) begins, and
   after each handoff for the agent taking over;
2. `on_llm_start` before each model call, `on_llm_end` after its response
   (a call that fails and is tried again gets `on_llm_retry`, then
   `on_llm_start` again for the next attempt);
3. `on_tool_start` / `on_tool_end` around each local tool call (function
   tools, computer actions, shell commands, MCP approvals); calls of one turn
   run concurrently, so their pairs may interleave;
4. `on_handoff` when the conversation passes to another agent (run hooks get
   `(context, from_agent, to_agent)`, the new agent's hooks
   `(context, agent, source)`), then step 1 for that agent;
5. `on_agent_end` / `on_end` with the final output.

At each step the run's hooks are awaited, then the agent's. A streamed run's
events come from the same seam: `AgentUpdatedStreamEvent` just before
`on_agent_start`, and item events as items join the conversation (tool
outputs when a turn's calls are all answered). A hook that raises stops the
run with its exception. A run that pauses for approval, or returns tool calls
unexecuted, ends without `on_agent_end`.

Mistakes in a subclass are refused where the hooks are given (`check_hooks`,
from `Agent(hooks=...)` and as a run starts), not at the step that calls them:
an overriding method that is not async, or cannot take the arguments the run
passes, and an `on_` method named like a hook that the run never calls.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import weakref
from collections.abc import Callable
from typing import Any, Generic

from ..core._agent_base import TAgent
from ..core._context import AgentHookContext, RunContextWrapper, TContext
from ..core._items import Item
from ..exceptions import UserError
from ..models import ModelResponse
from ..tools._toolsets import Tool

__all__ = ["AgentHooksBase", "RunHooksBase", "check_hooks"]


class RunHooksBase(Generic[TContext, TAgent]):
    """The methods of `RunHooks`, for any agent type; subclass `RunHooks`.

    Every method is async and does nothing by default. See the module docs
    (or docs/running.md) for the order they are called in.
    """

    async def on_agent_start(self, context: AgentHookContext[TContext], agent: TAgent) -> None:
        """An agent starts answering: at the start of a run, and after each handoff.

        Args:
            context: The run context, with the input the agent is given (`turn_input`).
            agent: The agent.
        """

    async def on_agent_end(
        self, context: RunContextWrapper[TContext], agent: TAgent, output: Any
    ) -> None:
        """The run ends with a final output.

        Args:
            context: The run context.
            agent: The agent that answered.
            output: The final output.
        """

    async def on_handoff(
        self, context: RunContextWrapper[TContext], from_agent: TAgent, to_agent: TAgent
    ) -> None:
        """The conversation passes from one agent to another.

        Args:
            context: The run context.
            from_agent: The agent handing off.
            to_agent: The agent taking over.
        """

    async def on_tool_start(
        self, context: RunContextWrapper[TContext], agent: TAgent, tool: Tool
    ) -> None:
        """A local tool call starts.

        Args:
            context: A `ToolContext` for function tools (the call's name, id and
                arguments); the run context for computer, shell and MCP approval items.
            agent: The agent whose tool it is.
            tool: The tool.
        """

    async def on_tool_end(
        self, context: RunContextWrapper[TContext], agent: TAgent, tool: Tool, result: str
    ) -> None:
        """A local tool call ended.

        Args:
            context: As for `on_tool_start`.
            agent: The agent whose tool it is.
            tool: The tool.
            result: The text the model receives (for an image or a file a tool returned,
                a line saying what it is; for computer, shell and MCP items, the
                answering item as JSON text).
        """

    async def on_llm_start(
        self,
        context: RunContextWrapper[TContext],
        agent: TAgent,
        system_prompt: str | None,
        input_items: list[Item],
    ) -> None:
        """The model is about to be called.

        Args:
            context: The run context.
            agent: The agent calling it.
            system_prompt: The instructions sent.
            input_items: The conversation sent.
        """

    async def on_llm_retry(
        self,
        context: RunContextWrapper[TContext],
        agent: TAgent,
        error: Exception,
        attempt: int,
        delay: float,
    ) -> None:
        """A model call failed, and will be tried again (`RetryPolicy`).

        Args:
            context: The run context.
            agent: The agent calling the model.
            error: What the failed attempt raised (e.g. `openai.RateLimitError`).
            attempt: The attempt that failed: 1 for the first.
            delay: Seconds until the next attempt (`on_llm_start` comes again then).
        """

    async def on_llm_end(
        self, context: RunContextWrapper[TContext], agent: TAgent, response: ModelResponse
    ) -> None:
        """The model's response arrived.

        Args:
            context: The run context.
            agent: The agent that called it.
            response: The response.
        """


class AgentHooksBase(Generic[TContext, TAgent]):
    """The methods of `AgentHooks`, for any agent type; subclass `AgentHooks`.

    Every method is async and does nothing by default.
    """

    async def on_start(self, context: AgentHookContext[TContext], agent: TAgent) -> None:
        """This agent starts answering.

        Args:
            context: The run context, with the input the agent is given (`turn_input`).
            agent: This agent.
        """

    async def on_end(
        self, context: RunContextWrapper[TContext], agent: TAgent, output: Any
    ) -> None:
        """This agent produced the run's final output.

        Args:
            context: The run context.
            agent: This agent.
            output: The final output.
        """

    async def on_handoff(
        self, context: RunContextWrapper[TContext], agent: TAgent, source: TAgent
    ) -> None:
        """The conversation is handed to this agent.

        Args:
            context: The run context.
            agent: This agent.
            source: The agent handing off.
        """

    async def on_tool_start(
        self, context: RunContextWrapper[TContext], agent: TAgent, tool: Tool
    ) -> None:
        """One of this agent's local tool calls starts.

        Args:
            context: As for `RunHooks.on_tool_start`.
            agent: This agent.
            tool: The tool.
        """

    async def on_tool_end(
        self, context: RunContextWrapper[TContext], agent: TAgent, tool: Tool, result: str
    ) -> None:
        """One of this agent's local tool calls ended.

        Args:
            context: As for `RunHooks.on_tool_start`.
            agent: This agent.
            tool: The tool.
            result: The text the model receives.
        """

    async def on_llm_start(
        self,
        context: RunContextWrapper[TContext],
        agent: TAgent,
        system_prompt: str | None,
        input_items: list[Item],
    ) -> None:
        """This agent is about to call the model.

        Args:
            context: The run context.
            agent: This agent.
            system_prompt: The instructions sent.
            input_items: The conversation sent.
        """

    async def on_llm_retry(
        self,
        context: RunContextWrapper[TContext],
        agent: TAgent,
        error: Exception,
        attempt: int,
        delay: float,
    ) -> None:
        """This agent's model call failed, and will be tried again (`RetryPolicy`).

        Args:
            context: The run context.
            agent: This agent.
            error: What the failed attempt raised (e.g. `openai.RateLimitError`).
            attempt: The attempt that failed: 1 for the first.
            delay: Seconds until the next attempt (`on_llm_start` comes again then).
        """

    async def on_llm_end(
        self, context: RunContextWrapper[TContext], agent: TAgent, response: ModelResponse
    ) -> None:
        """This agent's model call returned.

        Args:
            context: The run context.
            agent: This agent.
            response: The response.
        """


_OTHER: dict[type, type] = {RunHooksBase: AgentHooksBase, AgentHooksBase: RunHooksBase}
_SHOWN = {RunHooksBase: "RunHooks", AgentHooksBase: "AgentHooks"}
"""The names users subclass (`RunHooks` and `AgentHooks` bind these bases to `Agent`)."""
_NAMED = {RunHooksBase: "a RunHooks", AgentHooksBase: "an AgentHooks"}
_GIVEN_AS = {RunHooksBase: "Runner.run(..., hooks=...)", AgentHooksBase: "Agent(hooks=...)"}
_COUNTERPARTS = {
    "on_start": "on_agent_start",
    "on_end": "on_agent_end",
    "on_agent_start": "on_start",
    "on_agent_end": "on_end",
}
_SYNONYMS = {
    "begin": "start", "began": "start", "started": "start", "starting": "start", "starts": "start",
    "finish": "end", "finished": "end", "ended": "end", "ends": "end", "done": "end",
    "retried": "retry", "retries": "retry", "retrying": "retry", "handoffs": "handoff",
    "tools": "tool", "agents": "agent",
}  # fmt: skip
_verdicts: dict[type, weakref.WeakKeyDictionary[type, str]] = {
    RunHooksBase: weakref.WeakKeyDictionary(),
    AgentHooksBase: weakref.WeakKeyDictionary(),
}


def check_hooks(hooks: object, kind: type, where: str) -> None:
    """Refuse hooks the run could not call, before the step that would call them.

    Each method of `kind` that the class overrides must be async and take the
    arguments the run passes (positionally, as `RunEvents` does); an `on_` method
    named like a hook, that the run never calls, is a misspelling. The verdict is
    kept per class: checking another object of a checked class is a lookup.

    Args:
        hooks: The hooks given.
        kind: `RunHooks` or `AgentHooks` (or their bases).
        where: Where they were given, for the message (`Agent 'triage' hooks`).

    Raises:
        UserError: Naming the class, each mistake, and the signature to write.
    """
    kind = RunHooksBase if issubclass(kind, RunHooksBase) else AgentHooksBase  # or a subclass
    verdicts = _verdicts[kind]
    cls = type(hooks)
    verdict = verdicts.get(cls)
    if verdict is None:
        verdict = verdicts[cls] = _verdict(hooks, kind)
    if verdict:
        raise UserError(f"{where}: {verdict}")


@functools.cache
def _hook_params(kind: type) -> dict[str, tuple[str, ...]]:
    """Each hook of `kind`, and the names of the arguments the run passes it."""
    return {
        name: tuple(inspect.signature(method).parameters)[1:]
        for name, method in vars(kind).items()
        if name.startswith("on_")
    }


def _verdict(hooks: object, kind: type) -> str:
    """What is wrong with the class of `hooks` as `kind`, or "" if nothing is."""
    cls = type(hooks)
    shown = _class_name(cls)
    if isinstance(hooks, kind):
        title = f"{_SHOWN[kind]} subclass {shown}"
    elif refused := _not_hooks(hooks, kind):
        return refused
    else:
        title = f"{shown} (not a {_SHOWN[kind]} subclass)"
    problems = [
        problem
        for name, params in _hook_params(kind).items()
        for problem in _method_problems(hooks, kind, name, params)
    ]
    problems += _misspellings(cls, kind)
    if len(problems) <= 1:
        return f"{title}: {problems[0]}" if problems else ""
    lines = "\n".join(f"  - {problem}" for problem in problems)
    return f"{title} has {len(problems)} mistakes:\n{lines}"


def _class_name(cls: type) -> str:
    """`Outer.Inner` for a nested class, without `<locals>` for one made in a function."""
    return cls.__qualname__.rsplit("<locals>.", 1)[-1]


def _not_hooks(hooks: object, kind: type) -> str:
    """Why an object that does not subclass `kind` cannot stand in for one, or ""."""
    given = _NAMED[kind]
    other = _OTHER[kind]
    if isinstance(hooks, other):
        return f"must be {given}, not {_NAMED[other]} (for {_GIVEN_AS[other]})"
    missing = [name for name in _hook_params(kind) if not hasattr(hooks, name)]
    if len(missing) == len(_hook_params(kind)):
        return f"must be {given}, not {type(hooks).__name__}"
    if missing:
        return (
            f"{_class_name(type(hooks))} is not {given} and has no {', '.join(missing)}, "
            f"which the run calls: subclass {_SHOWN[kind]} (its methods do nothing by default)"
        )
    return ""


def _method_problems(hooks: object, kind: type, name: str, params: tuple[str, ...]) -> list[str]:
    """What is wrong with the class's `name`, if it overrides `kind`'s."""
    try:
        found = inspect.getattr_static(type(hooks), name)
    except AttributeError:  # answered by __getattr__: nothing to inspect
        return []
    if found is vars(kind)[name]:
        return []
    wanted = f"async def {name}(self, {', '.join(params)})"
    try:
        method = _as_looked_up(found, hooks)
    except Exception:  # a descriptor that fails here fails in the run too, with its own error
        return []
    if not callable(method):
        return [f"{name} is {type(method).__name__}, not a method: write `{wanted}`"]
    problems: list[str] = []
    if inspect.isasyncgenfunction(method):
        problems.append(f"{name} is an async generator, which the run cannot await: drop `yield`")
    elif not _is_async(method):
        problems.append(f"{name} is not async: write `async def`")
    if (shown := _cannot_take(name, found, method, params)) is not None:
        problems.append(
            f"{shown} cannot take the {len(params)} arguments the run passes: "
            f"({', '.join(params)}); write `{wanted}`"
        )
    return problems


def _cannot_take(
    name: str, found: object, method: Callable[..., object], params: tuple[str, ...]
) -> str | None:
    """`method`'s signature, shown, if it cannot be called with `params` by position."""
    try:
        signature = inspect.signature(method)
    except (TypeError, ValueError):  # no signature to read (a builtin): nothing to check
        return None
    try:
        signature.bind(*params)
    except TypeError:
        return _render(name, inspect.signature(found) if inspect.isfunction(found) else signature)
    return None


def _as_looked_up(found: object, hooks: object) -> object:
    """A class attribute as `hooks.name` gives it: bound if it is a descriptor."""
    get = getattr(type(found), "__get__", None)
    return found if get is None else get(found, hooks, type(hooks))


def _is_async(method: Callable[..., object]) -> bool:
    """Whether calling `method` gives an awaitable: an async function, bound, wrapped or not."""
    function = method
    if not inspect.isroutine(method) and not isinstance(method, functools.partial):
        function = type(method).__call__  # a callable object
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(
        inspect.unwrap(function)
    )


def _render(name: str, signature: inspect.Signature) -> str:
    """`name(self, context, *, flag=...)`: a signature without annotations or defaults' values."""
    shown: list[str] = []
    for param in signature.parameters.values():
        if param.kind is param.KEYWORD_ONLY and not any(s.startswith("*") for s in shown):
            shown.append("*")
        prefix = {param.VAR_POSITIONAL: "*", param.VAR_KEYWORD: "**"}.get(param.kind, "")
        default = "" if param.default is param.empty else "=..."
        shown.append(f"{prefix}{param.name}{default}")
    return f"{name}({', '.join(shown)})"


def _misspellings(cls: type, kind: type) -> list[str]:
    """`on_` methods of the class that look like a hook of `kind` but are none."""
    hooks = _hook_params(kind)
    names = sorted({
        name
        for klass in cls.__mro__
        if klass not in kind.__mro__
        for name, value in vars(klass).items()
        if name.startswith("on_") and name not in hooks and _is_method(value)
    })  # fmt: skip
    other = _OTHER[kind]
    problems: list[str] = []
    for name in names:
        if name in _hook_params(other) and _COUNTERPARTS.get(name) in hooks:
            problems.append(
                f"{name} is {_NAMED[other]} method, which the run never calls on "
                f"{_NAMED[kind]}: did you mean {_COUNTERPARTS[name]}?"
            )
        elif guess := _guess(name, hooks):
            problems.append(
                f"{name} is not a hook, so the run never calls it: did you mean {guess}? "
                "(rename it if it is a helper of yours)"
            )
    return problems


def _is_method(value: object) -> bool:
    """Whether a class attribute is something the run could have called."""
    return callable(value) or isinstance(value, staticmethod | classmethod)


def _guess(name: str, hooks: dict[str, tuple[str, ...]]) -> str | None:
    """The hook `name` is likely a misspelling of, if any."""
    if any(name.startswith(f"{hook}_") for hook in hooks):
        return None  # a helper named after the hook it serves (`on_tool_start_impl`)
    normal = "_".join(_SYNONYMS.get(word, word) for word in name.split("_"))
    if normal in hooks:
        return normal
    close = difflib.get_close_matches(normal, hooks, n=1, cutoff=0.7)
    return close[0] if close else None
