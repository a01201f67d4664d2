"""Headless Chromium (Debian's /usr/bin/chromium) driven over its DevTools protocol.

Only what the page tests need: open a page, evaluate JavaScript in it, wait for a
condition, take a screenshot. The browser gets a new profile in a temporary folder
and never a network beyond 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import re
import shutil
import subprocess
import tempfile
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

import websockets

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-port=0",
    "--window-size=1280,800",
]


class Page:
    """One tab, attached with a flat session."""

    def __init__(self, socket: Any, session_id: str) -> None:
        self.socket = socket
        self.session_id = session_id
        self.ids = itertools.count(1)
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        async for raw in self.socket:
            message = json.loads(raw)
            future = self.pending.pop(message.get("id", -1), None)
            if future is not None and not future.done():
                future.set_result(message)

    async def send(
        self, method: str, params: dict[str, Any] | None = None, *, session: bool = True
    ) -> Any:
        number = next(self.ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[number] = future
        message: dict[str, Any] = {"id": number, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session_id
        await self.socket.send(json.dumps(message))
        answer = await asyncio.wait_for(future, 30)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer["result"]

    async def evaluate(self, expression: str) -> Any:
        result = await self.send(
            "Runtime.evaluate",
            {"expression": expression, "awaitPromise": True, "returnByValue": True},
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def wait_for(self, expression: str, timeout: float = 20) -> Any:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            value = await self.evaluate(expression)
            if value:
                return value
            if asyncio.get_running_loop().time() > deadline:
                text = await self.evaluate("document.body.innerText")
                raise AssertionError(
                    f"timed out waiting for {expression!r}; the page shows:\n{text}"
                )
            await asyncio.sleep(0.1)

    async def screenshot(self, path: Path) -> None:
        shot = await self.send("Page.captureScreenshot", {"format": "png"})
        path.write_bytes(base64.b64decode(shot["data"]))


@contextlib.asynccontextmanager
async def chromium_page(url: str) -> AsyncGenerator[Page]:
    """A headless Chromium showing `url`; fails saying what to install when it is missing."""
    if shutil.which(CHROMIUM) is None:
        raise RuntimeError(
            f"{CHROMIUM} is missing: apt-get install -y chromium (.ci/run installs it)"
        )
    profile = tempfile.mkdtemp(prefix="tooluse-chromium-")
    log = Path(profile) / "stderr.log"  # a file, not a pipe: a chatty browser never blocks
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        endpoint = await _devtools_address(process, log)
        async with websockets.connect(endpoint, max_size=64 * 1024 * 1024) as socket:
            page = Page(socket, "")
            target = await page.send("Target.createTarget", {"url": "about:blank"}, session=False)
            attached = await page.send(
                "Target.attachToTarget",
                {"targetId": target["targetId"], "flatten": True},
                session=False,
            )
            page.session_id = attached["sessionId"]
            await page.send("Page.enable")
            await page.send("Runtime.enable")
            await page.send(
                "Emulation.setDeviceMetricsOverride",
                {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False},
            )
            await page.send("Page.navigate", {"url": url})
            await page.wait_for("document.readyState === 'complete'")
            try:
                yield page
            finally:
                page.reader.cancel()
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(profile, ignore_errors=True)


async def _devtools_address(process: subprocess.Popen[bytes], log: Path) -> str:
    for _ in range(300):
        match = re.search(r"DevTools listening on (ws://\S+)", log.read_text(errors="replace"))
        if match:
            return match[1]
        if process.poll() is not None:
            break
        await asyncio.sleep(0.1)
    raise RuntimeError("chromium showed no DevTools address:\n" + log.read_text(errors="replace"))
