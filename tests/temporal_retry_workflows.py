"""A workflow and agents for tests/test_temporal_retries.py, in a module of their own.

Temporal's sandbox imports a workflow's module afresh for each run: this one
imports only the workflow API and tooluse (passed through by the plugin).
"""

from __future__ import annotations

from typing import Any

from temporalio import workflow

from tooluse import (
    Agent,
    ModelRetryBackoffSettings,
    ModelRetrySettings,
    ModelSettings,
    RunConfig,
    Runner,
    retry_policies,
)

QUICK = ModelRetryBackoffSettings(initial_delay=0.01, max_delay=0.05, multiplier=1.5, jitter=False)
"""Waits short enough for a test, each field one Temporal's `RetryPolicy` has."""


def _retrying(name: str, max_retries: int, policy: Any = None) -> Agent[Any]:
    retry = ModelRetrySettings(max_retries=max_retries, backoff=QUICK, policy=policy)
    return Agent(name, instructions="Answer.", model_settings=ModelSettings(retry=retry))


AGENTS: dict[str, Agent[Any]] = {
    "hasty": _retrying("hasty", 1),
    "patient": _retrying("patient", 2),
    "choosy": _retrying("choosy", 2, retry_policies.http_status([503])),  # decided on the worker
    "plain": Agent("plain", instructions="Answer."),
}
"""The agents `RetryWorkflow` runs, by name."""


@workflow.defn(failure_exception_types=[Exception])  # a mistake fails the test, not hangs
class RetryWorkflow:
    """Runs one of `AGENTS`, with `ModelSettings(retry=...)` and `max_retries` in the run
    config if given."""

    @workflow.run
    async def run(
        self, name: str, run_retry: dict[str, Any] | None = None, max_retries: int | None = None
    ) -> dict[str, Any]:
        settings = ModelSettings(retry=run_retry)  # pyright: ignore[reportArgumentType]  # a dict of its fields, as openai-agents allows
        config = RunConfig(model_settings=settings, max_retries=max_retries)
        try:
            result = await Runner.run(AGENTS[name], "hi", run_config=config)
        except Exception as error:
            return {
                "error": f"{type(error).__name__}: {error}",
                "status": getattr(error, "status_code", None),
            }
        return {"output": str(result.final_output)}
