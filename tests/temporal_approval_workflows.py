"""Workflows for tests/test_temporal_approvals.py, in a module of their own.

Temporal's sandbox imports a workflow's module afresh for each run: this one
imports only the workflow API and tooluse (passed through by the plugin).
"""

from __future__ import annotations

from temporalio import workflow

from tooluse import Agent, function_tool
from tooluse.temporal import AgentWorkflow

DELETED: list[str] = []
"""Each path `delete_file` deleted, as the worker ran it (outside the sandbox)."""


@function_tool(needs_approval=True)
def delete_file(path: str) -> str:
    """Delete a file.

    Args:
        path: The file.
    """
    DELETED.append(path)
    return f"deleted {path}"


admin = Agent(name="admin", instructions="Clean up with the tool.", tools=[delete_file])


@workflow.defn
class CleanupWorkflow(AgentWorkflow):
    """Runs the admin agent on a request; deletions wait for a human."""

    @workflow.run
    async def run(self, request: str) -> str:
        result = await self.run_agent(admin, request)
        return str(result.final_output)
