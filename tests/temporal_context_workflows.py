"""A workflow for tests/test_temporal_context.py: a long run under a context policy.

Temporal's sandbox imports a workflow's module afresh for each run: this one
imports only the workflow API and tooluse (passed through by the plugin).
"""

from __future__ import annotations

from typing import Any

from temporalio import workflow

from tooluse import Agent, ContextPolicy, RunConfig, Runner, function_tool

PAGE = 3_000
"""Characters of a page: about 750 tokens."""

SUMMARISE = "Summarise the pages read so far."
"""The compaction instructions, by which the test's server knows a summary call."""


@function_tool
def read_page(n: int) -> str:
    """A page of the log.

    Args:
        n: The page.
    """
    return f"page {n}: " + "p" * PAGE


reader = Agent(name="reader", instructions="Read every page.", tools=[read_page])

POLICY = ContextPolicy(
    max_input_tokens=2_000,
    keep_recent_turns=1,
    trim_tool_outputs_to=1_000,
    compaction_model="summariser",  # by name: called as an activity, like the agent's model
    compaction_instructions=SUMMARISE,
)
"""Trims the older pages, then, once trimmed pages alone are too many, summarises them."""


@workflow.defn(failure_exception_types=[Exception])  # a mistake fails the test, not hangs
class ContextWorkflow:
    """Reads the pages under `POLICY`; reports what the policy did."""

    @workflow.run
    async def run(self, question: str) -> dict[str, Any]:
        result = await Runner.run(
            reader, question, max_turns=20, run_config=RunConfig(context=POLICY)
        )
        entries = result.usage.request_usage_entries
        outputs = [i for i in result.new_items if i.get("type") == "function_call_output"]
        return {
            "output": str(result.final_output),
            "compactions": sum(1 for entry in entries if entry.compaction),
            "requests": result.usage.requests,
            "pages": [str(item["output"])[:7] for item in outputs],
        }
