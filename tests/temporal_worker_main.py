"""A Temporal worker in a process of its own, for the crash tests and the benchmark.

Run with: `python -m tests.temporal_worker_main TARGET MODEL_URL TASK_QUEUE STATE_DIR`
from the repository's root. It connects to the Temporal server at TARGET, runs
`ToolsWorkflow` (tests/temporal_crash_workflows.py) with tooluse's plugin, its
model being the OpenAI-compatible server at MODEL_URL (Chat Completions), and
prints `ready` once it polls TASK_QUEUE. The tools keep their log in STATE_DIR.
It runs until killed. With `--hold` it imports everything, then waits for a line
on stdin before it connects: a test can have a second worker loaded in advance
and let it go the moment the first one is killed.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

from openai import AsyncOpenAI
from temporalio.client import Client
from temporalio.common import RetryPolicy
from temporalio.worker import Worker

from tooluse import OpenAIChatCompletionsModel
from tooluse.models import Model
from tooluse.temporal import ActivityOptions, TooluseTemporalPlugin

from .temporal_crash_workflows import TOOLS, ToolsWorkflow, use_state_dir

LOADED = "loaded"
"""The line a worker started with `--hold` prints once it has imported everything."""
READY = "ready"
"""The line the worker prints once it polls its task queue."""
MODULE = "tests.temporal_worker_main"
ROOT = Path(__file__).resolve().parent.parent
"""The repository, where `python -m tests.temporal_worker_main` runs."""


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("target", help="the Temporal frontend, host:port")
    parser.add_argument("model_url", help="the OpenAI-compatible base URL, ending in /v1")
    parser.add_argument("task_queue")
    parser.add_argument("state_dir", type=Path, help="where the tools log what they do")
    parser.add_argument(
        "--activity-timeout",
        type=float,
        default=2.0,
        help="start_to_close_timeout of each activity attempt, in seconds: an attempt "
        "lost with a killed worker is retried this long after it started",
    )
    parser.add_argument(
        "--hold", action="store_true", help="wait for a line on stdin before connecting"
    )
    return parser.parse_args(argv)


async def connect(target: str, wait: float = 10.0) -> Client:
    """A client of the server at `target`, retried while a just-started server warms up.

    The dev server's port accepts connections a moment before its frontend is healthy
    (`Client.connect` fails with "Frontend is not healthy yet").
    """
    deadline = time.monotonic() + wait
    while True:
        try:
            return await Client.connect(target)
        except RuntimeError:  # noqa: PERF203  # a few retries at start-up, not a hot loop
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)


def plugin(model_url: str, activity_timeout: float) -> TooluseTemporalPlugin:
    """The plugin with the tools, a model at `model_url`, and quick retries."""
    client = AsyncOpenAI(base_url=model_url, api_key="test-key", max_retries=0)
    model = OpenAIChatCompletionsModel("test-model", client)

    def provider(name: str | None) -> Model:
        del name  # one model serves every agent
        return model

    options = ActivityOptions(
        start_to_close_timeout=timedelta(seconds=activity_timeout),
        retry_policy=RetryPolicy(initial_interval=timedelta(milliseconds=100), maximum_attempts=5),
    )
    return TooluseTemporalPlugin(TOOLS, model_provider=provider, activity_options=options)


async def serve(args: argparse.Namespace) -> None:
    """Run the worker until the process is killed."""
    use_state_dir(args.state_dir)
    client = await connect(args.target)
    worker = Worker(
        client,
        task_queue=args.task_queue,
        workflows=[ToolsWorkflow],
        plugins=[plugin(args.model_url, args.activity_timeout)],
        # A killed worker's sticky queue holds the run's next workflow task this long
        # before the server gives it to another worker (the default is 10 s).
        sticky_queue_schedule_to_start_timeout=timedelta(seconds=1),
    )
    async with worker:
        print(READY, flush=True)
        await asyncio.Event().wait()  # until killed


class WorkerProcess:
    """This module run in a process of its own, with these arguments; output to a file."""

    def __init__(self, args: Sequence[str], output: Path) -> None:
        self.output_path = output
        command = [sys.executable, "-m", MODULE, *args]
        with output.open("wb") as out:
            self.process = subprocess.Popen(
                command, cwd=ROOT, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT
            )
        self.pid = self.process.pid

    def output(self) -> str:
        """What the worker printed so far."""
        return self.output_path.read_text(errors="replace")

    def printed(self, line: str) -> bool:
        """Whether the worker printed `line`.

        Raises:
            RuntimeError: If the worker exited, with its output.
        """
        if self.process.poll() is not None:
            raise RuntimeError(
                f"worker {self.pid} exited with {self.process.returncode}:\n{self.output()}"
            )
        return line in self.output().splitlines()

    def release(self) -> None:
        """Let a worker started with `--hold` connect."""
        assert self.process.stdin is not None
        self.process.stdin.write(b"go\n")
        self.process.stdin.flush()

    def kill(self) -> None:
        """SIGKILL: no clean shutdown, as in a crash."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        if self.process.stdin is not None:
            self.process.stdin.close()


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    if args.hold:
        print(LOADED, flush=True)
        sys.stdin.readline()
    asyncio.run(serve(args))


if __name__ == "__main__":
    main()
