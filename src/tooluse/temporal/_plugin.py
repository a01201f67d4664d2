"""`TooluseTemporalPlugin`: one object that sets up a worker (and client) for tooluse runs."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from temporalio.plugin import SimplePlugin
from temporalio.worker import WorkflowRunner
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from ..agents._agent import Agent, as_agent
from ..agents._agent_tool import tool_agent
from ..agents._handoffs import Handoff
from ..exceptions import TooluseError, UserError
from ..tools._function_tool import FunctionTool
from ._activities import ModelSource, model_activity, tool_activity
from ._retries import activity_retries
from ._workflow import ActivityOptions, TooluseInterceptor

__all__ = ["PASSTHROUGH_MODULES", "TooluseTemporalPlugin", "check_model_retries", "collect_tools"]

PASSTHROUGH_MODULES = ("tooluse", "openai", "pydantic", "pydantic_core", "griffe", "httpx")
"""Imported once, outside the workflow sandbox: tooluse's loop and what it imports.
They are not re-imported for each workflow run (slow, and pydantic's caches break)."""


class TooluseTemporalPlugin(SimplePlugin):
    """Registers the model activity, the tools' activities and the interceptor on a worker.

    Example:
        `Worker(client, task_queue="q", workflows=[MyWorkflow],
        plugins=[TooluseTemporalPlugin(agents=[triage])])`
    """

    def __init__(
        self,
        tools: Sequence[FunctionTool] = (),
        *,
        agents: Sequence[Agent[Any]] = (),
        model_provider: ModelSource | None = None,
        activity_options: ActivityOptions | None = None,
    ) -> None:
        """Set up workers for workflows that run tooluse agents.

        Args:
            tools: Function tools the workflows' agents use: each becomes an activity named
                `tooluse.tool.<name>`.
            agents: Agents whose function tools to register too, with those of the agents
                they hand off to and use as tools (an agent tool itself runs in the
                workflow). Tools a toolset lists are not collected: pass them in `tools`.
            model_provider: Gives the worker's model for the name an agent asks for: a
                `ModelProvider` (the object a `RunConfig` takes), or a function of the
                name; None uses `MultiProvider()`.
            activity_options: Timeouts and retries of the model and tool activities.

        Raises:
            UserError: If two different tools have one name, or an agent's
                `ModelSettings.retry` sets what cannot be honoured (a `policy` function
                of one's own, a delay of 0).
        """
        registered = collect_tools(tools, agents)
        check_model_retries(agents, activity_options)
        activities: list[Callable[..., object]] = [model_activity(model_provider)]
        activities += [tool_activity(tool) for tool in registered]
        interceptor = TooluseInterceptor(activity_options)
        super().__init__(  # pyright: ignore[reportUnknownMemberType]  # temporalio types activities as Callable[..., Unknown]
            "tooluse.TooluseTemporalPlugin",
            activities=activities,
            interceptors=[interceptor],
            workflow_runner=_with_passthrough,
            # A run that stops (MaxTurnsExceeded, a tripped guardrail, a mistake in the
            # code) fails its workflow, with the error; otherwise Temporal would retry
            # the workflow task, and so the same stop, forever.
            workflow_failure_exception_types=[TooluseError],
        )


def collect_tools(
    tools: Sequence[FunctionTool], agents: Sequence[Agent[Any]]
) -> list[FunctionTool]:
    """The tools given, then the agents' function tools, each name once.

    Args:
        tools: Tools given one by one.
        agents: Agents, followed through handoffs and agents used as tools.

    Returns:
        The tools to register, in the order met.

    Raises:
        UserError: If two different tools have one name (naming each clash).
    """
    found: dict[str, FunctionTool] = {}
    clashes: list[str] = []
    for tool in [*tools, *_agents_tools(agents)]:
        held = found.setdefault(tool.name, tool)
        if held is not tool and held.on_invoke_tool is not tool.on_invoke_tool:
            clashes.append(tool.name)
    if clashes:
        named = ", ".join(sorted(set(clashes)))
        raise UserError(
            f"TooluseTemporalPlugin: more than one tool is named {named}: "
            "a worker runs each tool by name, so rename one (function_tool(name_override=...))"
        )
    return list(found.values())


def _agents_tools(agents: Sequence[Agent[Any]]) -> list[FunctionTool]:
    """Every function tool of the agents and those they reach, agent tools left out."""
    return [
        entry
        for agent in _reached(agents)
        for entry in agent.tools
        if isinstance(entry, FunctionTool) and tool_agent(entry) is None
    ]


def _reached(agents: Sequence[Agent[Any]]) -> list[Agent[Any]]:
    """The agents, then those they hand off to and use as tools, each once, in the order met."""
    found: list[Agent[Any]] = []
    seen: set[int] = set()
    waiting = list(agents)
    while waiting:
        agent = waiting.pop(0)
        if id(agent) in seen:
            continue
        seen.add(id(agent))
        found.append(agent)
        for entry in agent.tools:
            nested = as_agent(tool_agent(entry)) if isinstance(entry, FunctionTool) else None
            if nested is not None:
                waiting.append(nested)
        waiting += [h.agent if isinstance(h, Handoff) else h for h in agent.handoffs]
    return found


def check_model_retries(agents: Sequence[Agent[Any]], options: ActivityOptions | None) -> None:
    """Refuse, when the worker is set up, an agent's `ModelSettings.retry` Temporal cannot honour.

    The run checks again at each model call, with `RunConfig.model_settings` merged in.

    Args:
        agents: Agents, followed through handoffs and agents used as tools.
        options: The plugin's activity options; None for the defaults.

    Raises:
        UserError: If an agent's retry settings cannot be honoured, naming it and each field.
    """
    base = (options or ActivityOptions()).retry_policy
    for agent in _reached(agents):
        retry = agent.model_settings.retry
        if retry is not None:
            activity_retries(base, retry, f"Agent '{agent.name}'")


def _with_passthrough(runner: WorkflowRunner | None) -> WorkflowRunner:
    if runner is None:
        return SandboxedWorkflowRunner(
            restrictions=SandboxRestrictions.default.with_passthrough_modules(*PASSTHROUGH_MODULES)
        )
    if isinstance(runner, SandboxedWorkflowRunner):
        restrictions = runner.restrictions.with_passthrough_modules(*PASSTHROUGH_MODULES)
        return dataclasses.replace(runner, restrictions=restrictions)
    return runner
