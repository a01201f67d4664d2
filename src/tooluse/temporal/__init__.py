"""Durable runs on Temporal: `Runner.run` inside a workflow, model and tool calls as activities.

Install with `pip install 'tooluse[temporal]'`. Give the worker a
`TooluseTemporalPlugin` with the agents' function tools; in the workflow,
`await Runner.run(agent, input)` as anywhere else.
"""

from ._activities import MODEL_ACTIVITY, ModelProvider, model_activity, tool_activity
from ._plugin import PASSTHROUGH_MODULES, TooluseTemporalPlugin
from ._workflow import ActivityModel, ActivityOptions, TemporalBackend, TooluseInterceptor

__all__ = [
    "MODEL_ACTIVITY",
    "PASSTHROUGH_MODULES",
    "ActivityModel",
    "ActivityOptions",
    "ModelProvider",
    "TemporalBackend",
    "TooluseInterceptor",
    "TooluseTemporalPlugin",
    "model_activity",
    "tool_activity",
]
