"""Durable runs on Temporal: `Runner.run` inside a workflow, model and tool calls as activities.

Install with `pip install 'tooluse[temporal]'`. Give the worker a
`TooluseTemporalPlugin(agents=[...])` (or `tools=[...]`); in the workflow,
`await Runner.run(agent, input)` as anywhere else. `ActivityOptions` sets the
activities' timeouts and retries (Temporal's `RetryPolicy`: the run's own
model-call retries are off inside a workflow; an agent's `ModelSettings.retry` sets
its model calls' policy, or is refused where Temporal cannot honour it).

Imports: any layer up to the run loop (`run`); it is an integration on top of it.
"""

import importlib.util

if importlib.util.find_spec("temporalio") is None:  # pragma: no cover - tests have the extra
    raise ImportError(
        "tooluse.temporal needs the temporalio package: pip install 'tooluse[temporal]'",
        name="temporalio",
    )

from ..models import ModelProvider
from ._activities import MODEL_ACTIVITY, ModelSource, model_activity, tool_activity
from ._approvals import UNKNOWN_APPROVAL, AgentWorkflow, ApproveCall, PendingApproval, RejectCall
from ._plugin import PASSTHROUGH_MODULES, TooluseTemporalPlugin
from ._workflow import (
    ActivityModel,
    ActivityOptions,
    TemporalBackend,
    ToolActivityError,
    ToolFailed,
    TooluseInterceptor,
)

__all__ = [
    "MODEL_ACTIVITY",
    "PASSTHROUGH_MODULES",
    "UNKNOWN_APPROVAL",
    "ActivityModel",
    "ActivityOptions",
    "AgentWorkflow",
    "ApproveCall",
    "ModelProvider",
    "ModelSource",
    "PendingApproval",
    "RejectCall",
    "TemporalBackend",
    "ToolActivityError",
    "ToolFailed",
    "TooluseInterceptor",
    "TooluseTemporalPlugin",
    "model_activity",
    "tool_activity",
]
