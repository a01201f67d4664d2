"""Helpers of the UI tests: post to an endpoint and read its server-sent events; run the JS clients."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx2

JS = Path(__file__).parent / "js"


def post_events(url: str, body: dict[str, Any]) -> tuple[httpx2.Response, list[Any]]:
    """POST `body` and read every `data:` line of the answer as JSON (`[DONE]` kept as text)."""
    with httpx2.Client(timeout=30) as client:
        response = client.post(url, json=body)
    events: list[Any] = []
    for line in response.text.splitlines():
        if line.startswith("data: "):
            data = line[len("data: ") :]
            events.append(data if data == "[DONE]" else json.loads(data))
    return response, events


def node_script(script: str, *args: str) -> Any:
    """Run a script of tests/js with Node; its stdout's JSON. Fails clearly without npm install."""
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("node is not on PATH: install Node.js 20+ to run the JS client tests")
    if not (JS / "node_modules" / "@ag-ui" / "client").exists() or not (JS / "node_modules" / "ai").exists():
        raise RuntimeError(
            f"{JS / 'node_modules'} is missing: run `npm install` in {JS} (.ci/run does) "
            "to get @ag-ui/client and ai"
        )
    done = subprocess.run(
        [node, str(JS / script), *args], capture_output=True, text=True, timeout=60, check=False
    )
    if done.returncode != 0:
        raise AssertionError(f"{script} failed ({done.returncode}):\n{done.stderr}\n{done.stdout}")
    return json.loads(done.stdout.strip().splitlines()[-1])
