"""Helpers of the UI tests: post to an endpoint and read its server-sent events; run the JS clients."""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
import urllib.error
import urllib.request
from dataclasses import dataclass
from email.message import Message
from pathlib import Path
from typing import Any

JS = Path(__file__).parent / "js"


@dataclass
class Reply:
    """An HTTP answer, read whole."""

    status_code: int
    headers: Message
    text: str

    def json(self) -> Any:
        return json.loads(self.text)


def http(url: str, body: Any = None, headers: dict[str, str] | None = None) -> Reply:
    """GET `url`, or POST `body` as JSON; 4xx and 5xx answers are returned, not raised."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=dict(headers or {}))
    if data is not None:
        request.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return Reply(answer.status, answer.headers, answer.read().decode())
    except urllib.error.HTTPError as error:
        with error:
            return Reply(error.code, error.headers, error.read().decode())


def post_events(url: str, body: dict[str, Any]) -> tuple[Reply, list[Any]]:
    """POST `body` and read every `data:` line of the answer as JSON (`[DONE]` kept as text)."""
    response = http(url, body)
    events: list[Any] = []
    for line in response.text.splitlines():
        if line.startswith("data: "):
            data = line[len("data: ") :]
            events.append(data if data == "[DONE]" else json.loads(data))
    return response, events


def _has_clients() -> bool:
    return (JS / "node_modules" / "@ag-ui" / "client").exists() and (
        JS / "node_modules" / "ai"
    ).exists()


def installed() -> None:
    """Install tests/js's clients from its lock file once (under a lock: xdist's workers
    share the folder), as `.ci/run` does; fail saying why when npm cannot.

    Every worker looks under the lock, shared: while one installs (holding it alone),
    the folders are there but half written, so the others wait for it to finish.
    """
    with (JS / ".install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_SH)  # released when the file closes
        if _has_clients():
            return
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError(f"npm is not on PATH: install Node.js 20+ and run `npm ci` in {JS}")
        fcntl.flock(lock, fcntl.LOCK_EX)  # not atomic: another worker may have installed
        if _has_clients():
            return
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"],
            cwd=JS, capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
    if done.returncode != 0 or not _has_clients():
        raise RuntimeError(
            f"`npm ci` in {JS} failed ({done.returncode}), so @ag-ui/client and ai are "
            f"missing:\n{done.stderr[-2000:]}"
        )


def node_script(script: str, *args: str) -> Any:
    """Run a script of tests/js with Node; its stdout's JSON. Fails clearly without npm install."""
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("node is not on PATH: install Node.js 20+ to run the JS client tests")
    installed()
    done = subprocess.run(
        [node, str(JS / script), *args], capture_output=True, text=True, timeout=60, check=False
    )
    if done.returncode != 0:
        raise AssertionError(f"{script} failed ({done.returncode}):\n{done.stderr}\n{done.stdout}")
    return json.loads(done.stdout.strip().splitlines()[-1])
