"""`TooluseTemporalPlugin`: one object that sets up a worker (and client) for tooluse runs."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from temporalio.plugin import SimplePlugin
from temporalio.worker import WorkflowRunner
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from .._function_tool import FunctionTool
from ..models import resolve_model
from ._activities import ModelProvider, model_activity, tool_activity
from ._workflow import ActivityOptions, TooluseInterceptor

__all__ = ["PASSTHROUGH_MODULES", "TooluseTemporalPlugin"]

PASSTHROUGH_MODULES = ("tooluse", "openai", "pydantic", "pydantic_core", "griffe", "httpx")
"""Imported once, outside the workflow sandbox: tooluse's loop and what it imports.
They are not re-imported for each workflow run (slow, and pydantic's caches break)."""


class TooluseTemporalPlugin(SimplePlugin):
    """Registers the model activity, the tools' activities and the interceptor on a worker.

    Example:
        `Worker(client, task_queue="q", workflows=[MyWorkflow],
        plugins=[TooluseTemporalPlugin(tools=[get_weather])])`
    """

    def __init__(
        self,
        tools: Sequence[FunctionTool] = (),
        *,
        model_provider: ModelProvider = resolve_model,
        activity_options: ActivityOptions | None = None,
    ) -> None:
        """Set up workers for workflows that run tooluse agents.

        Args:
            tools: The function tools the agents use: each becomes an activity named
                `tooluse.tool.<name>`.
            model_provider: Gives the worker's model for the name an agent asks for.
            activity_options: Timeouts and retries of the model and tool activities.
        """
        activities: list[Callable[..., Any]] = [model_activity(model_provider)]
        activities += [tool_activity(tool) for tool in tools]
        super().__init__(  # pyright: ignore[reportUnknownMemberType]  # temporalio types activities as Callable[..., Unknown]
            "tooluse.TooluseTemporalPlugin",
            activities=activities,
            interceptors=[TooluseInterceptor(activity_options)],
            workflow_runner=_with_passthrough,
        )


def _with_passthrough(runner: WorkflowRunner | None) -> WorkflowRunner:
    if runner is None:
        return SandboxedWorkflowRunner(
            restrictions=SandboxRestrictions.default.with_passthrough_modules(*PASSTHROUGH_MODULES)
        )
    if isinstance(runner, SandboxedWorkflowRunner):
        restrictions = runner.restrictions.with_passthrough_modules(*PASSTHROUGH_MODULES)
        return dataclasses.replace(runner, restrictions=restrictions)
    return runner
