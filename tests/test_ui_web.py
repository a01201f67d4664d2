"""`tooluse web`: the command, the page's files in the wheel, who may reach it, and the page
itself in a real headless Chromium (send, stream, approve, open a call, the timeline)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import ui_agents
from tests.cdp import chromium_page
from tests.ui_clients import http, post_events
from tests.ui_server import serving
from tooluse.cli._main import main
from tooluse.ui._web import web_app

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOT = ROOT / "docs" / "images" / "tooluse-web.png"
"""Written again with TOOLUSE_UPDATE_SCREENSHOT=1; every run writes its own to a tmp folder."""


def test_import_tooluse_imports_no_ui_package() -> None:
    code = (
        "import sys, tooluse\n"
        "loaded = [m for m in ('tooluse.ui', 'starlette', 'ag_ui', 'uvicorn') if m in sys.modules]\n"
        "print(loaded)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_wheel_ships_the_page(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    [wheel] = tmp_path.glob("tooluse-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for shipped in ("index.html", "app.js", "app.css"):
        assert f"tooluse/ui/static/{shipped}" in names
    page = zipfile.ZipFile(wheel).read("tooluse/ui/static/index.html").decode()
    assert "http" not in page.replace("http-equiv", "")  # no CDN: every file is local


@pytest.fixture
def web() -> Iterator[subprocess.Popen[str]]:
    """`tooluse web examples/web_assistant.py --port 0`, without an API key."""
    environ = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    process = subprocess.Popen(
        [sys.executable, "-m", "tooluse", "web", "examples/web_assistant.py", "--port", "0"],
        cwd=ROOT,
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    with process:
        try:
            yield process
        finally:
            process.terminate()
            process.wait(10)


def address(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert "tooluse web: chatting with 'Assistant' at http://127.0.0.1:" in line, line + (
        process.stderr.read() if process.poll() is not None and process.stderr else ""
    )
    return line.rsplit(" at ", 1)[1].strip()


def test_tooluse_web_serves_the_page_and_the_agent_on_test_model(
    web: subprocess.Popen[str],
) -> None:
    url = address(web)
    page = http(url)
    assert page.status_code == 200
    assert "<title>tooluse web</title>" in page.text
    script = http(url + "static/app.js")
    assert script.status_code == 200
    assert "api/ag-ui" in script.text
    info = http(url + "api/info").json()
    assert info == {"agent": "Assistant", "model": "model: TestModel (no OPENAI_API_KEY)"}
    body: dict[str, Any] = {
        "threadId": "t1",
        "runId": "r1",
        "messages": [{"id": "u1", "role": "user", "content": "plan my evening"}],
        "state": {},
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }
    _, events = post_events(url + "api/ag-ui", body)
    assert events[-1]["type"] == "RUN_FINISHED"
    assert events[-1]["outcome"]["type"] == "interrupt"  # TestModel called book_table too
    assert [i["metadata"]["toolName"] for i in events[-1]["outcome"]["interrupts"]] == [
        "book_table"
    ]


def test_off_loopback_needs_a_token(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("TOOLUSE_SERVE_TOKEN", raising=False)
    monkeypatch.chdir(ROOT)
    status = main(["web", "examples/web_assistant.py", "--host", "0.0.0.0"])
    error = capsys.readouterr().err
    assert status == 2
    assert "--host 0.0.0.0 is reachable from other machines" in error
    assert "TOOLUSE_SERVE_TOKEN" in error


def test_a_port_in_use_is_said_with_what_to_do(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.chdir(ROOT)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        status = main(["web", "examples/web_assistant.py", "--port", port, "--db", "x.db"])
    error = capsys.readouterr().err
    assert status == 2
    assert f"cannot listen on 127.0.0.1:{port}" in error
    assert "choose another --port" in error


def test_host_origin_and_token_are_checked() -> None:
    app = web_app(ui_agents.agent, token="s3cret", hosts={"127.0.0.1", "localhost"})
    with serving(app) as base:
        assert http(base + "/").status_code == 200  # the page holds no data
        assert http(base + "/api/info").status_code == 401
        signed = {"Authorization": "Bearer s3cret"}
        assert http(base + "/api/info", headers=signed).json()["agent"] == "Assistant"
        assert http(base + "/api/info", headers={"Authorization": "Bearer nope"}).status_code == 401
        evil_host = {**signed, "Host": "evil.example"}
        assert http(base + "/api/info", headers=evil_host).status_code == 421
        evil_origin = {**signed, "Origin": "http://evil.example"}
        assert http(base + "/api/info", headers=evil_origin).status_code == 403
        own_origin = {**signed, "Origin": base}
        assert http(base + "/api/info", headers=own_origin).status_code == 200


async def test_the_page_in_headless_chromium(web: subprocess.Popen[str]) -> None:
    url = address(web)
    shots = Path(tempfile.mkdtemp(prefix="tooluse-web-shots-"))
    async with chromium_page(url) as page:
        await page.wait_for("document.getElementById('agent').textContent === 'agent: Assistant'")
        await page.evaluate(
            "document.getElementById('input').value = 'What is the weather in Paris?';"
            "document.getElementById('send').requestSubmit(); true"
        )
        # the call that needs approval shows its buttons; the turn's calls wait for it
        await page.wait_for("document.querySelectorAll('.approval button.approve').length === 1")
        await page.screenshot(shots / "1-waiting-for-approval.png")
        await page.evaluate("document.querySelector('.approval button.approve').click(); true")
        results = await page.wait_for(
            "[...document.querySelectorAll('details.tool .result')].every(r => r.textContent !== '…') && "
            "[...document.querySelectorAll('details.tool .result')].map(r => r.textContent)"
        )
        assert sorted(r.split(" ")[0] for r in results) == ["Booked", "Sunny"], (
            results
        )  # TestModel's arguments
        # the streamed answer, after the tools
        answer = await page.wait_for(
            "[...document.querySelectorAll('.msg.assistant')].map(m => m.textContent).join('\\n')"
        )
        assert "Booked a table" in answer
        # a tool call's details open
        opened = await page.evaluate(
            "const d = [...document.querySelectorAll('details.tool')].find(d => d.textContent.includes('get_weather'));"
            "d.open = false; d.querySelector('summary').click(); [d.open, d.querySelector('.args').textContent]"
        )
        assert opened[0] is True
        assert json.loads(opened[1]).get("city")
        # the timeline: two runs, their turns and calls with durations and tokens
        runs = await page.wait_for(
            "document.querySelectorAll('#timeline .run').length === 2 && "
            "[...document.querySelectorAll('#timeline .run')].map(r => r.innerText)"
        )
        resumed, first = runs
        assert "waiting for approval" in first
        assert "turn 1" in first
        assert "tok" in first
        assert "call book_table" in resumed
        assert "turn" in resumed
        await page.screenshot(shots / "2-approved.png")
        if os.environ.get("TOOLUSE_UPDATE_SCREENSHOT"):  # the one docs/ui.md shows
            await page.screenshot(SCREENSHOT)
    assert (shots / "2-approved.png").stat().st_size > 10_000
    print(f"screenshots in {shots}")


async def test_the_page_shows_an_error_with_what_to_do() -> None:
    ui_agents.RAN.clear()
    with serving(web_app(ui_agents.agent)) as base:
        async with chromium_page(base + "/") as page:
            await page.evaluate(
                "document.getElementById('input').value = 'boom';"
                "document.getElementById('send').requestSubmit(); true"
            )
            shown = await page.wait_for("document.querySelector('.error')?.innerText")
    assert "the model service is down" in shown
    assert "See the server's terminal" in shown
