"""Each example runs, as its "Run with:" line says."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tooluse import FunctionTool

from .conftest import tool_context

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_example_has_a_run_with_line(example: Path) -> None:
    assert "Run with:" in example.read_text()


def test_weather_schemas_print() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tooluse", "schema", "examples/weather.py"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert [p["name"] for p in json.loads(done.stdout)] == ["fetch_weather", "fetch_data"]


async def test_weather_tools_run() -> None:
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        weather = importlib.import_module("weather")
    finally:
        sys.path.pop(0)
    tool: FunctionTool = weather.fetch_weather
    text = await tool.on_invoke_tool(tool_context(), '{"location": {"lat": 48.85, "long": 2.35}}')
    assert text == "Sunny at 48.85, 2.35"


def test_quickstart_runs_offline() -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    done = subprocess.run(
        [sys.executable, "examples/quickstart.py"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env=env,
    )
    assert done.stdout.splitlines()[0].startswith(
        "No OPENAI_API_KEY: using tooluse.testing.TestModel"
    )
    assert "called fetch_weather(" in done.stdout
    assert "called convert_temperature(" in done.stdout
    assert done.stdout.splitlines()[-1].startswith("answer: ")


@pytest.mark.parametrize(
    ("example", "last_line"),
    [
        ("triage.py", "answer: I have refunded your last invoice."),
        ("manager.py", "answer: French: bonjour; Spanish: hola."),
        (
            "approval.py",
            "answer: Done: deleted /tmp/cache.db; The user refused: system files stay.",
        ),
        ("mcp_roundtrip.py", "answer: Sunny at 48.85, 2.35; 69.8"),
    ],
)
def test_multi_agent_examples_run_offline(example: str, last_line: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    done = subprocess.run(
        [sys.executable, f"examples/{example}"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env=env,
    )
    lines = done.stdout.splitlines()
    assert lines[0] == "No OPENAI_API_KEY: using a scripted FunctionModel."
    assert lines[-1] == last_line


def test_chat_session_runs_offline() -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    done = subprocess.run(
        [sys.executable, "examples/chat_session.py"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env=env,
    )
    assert done.stdout.splitlines() == [
        "No OPENAI_API_KEY: using tooluse.testing.TestModel, which calls each tool once.",
        'waiting for approval: delete_file({"path": "a"})',
        "the session holds a paused run: True",
        'run 1 answer: {"list_files": "a: notes.txt, old.log", "delete_file": "deleted a"}',
        'run 2 answer: {"list_files": "a: notes.txt, old.log", "delete_file": "Not twice."}',
        "the session holds 12 items",
    ]


@pytest.mark.slow  # starts a dev server of its own, and two workers
def test_temporal_approval_runs_offline_on_its_own_dev_server() -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    done = subprocess.run(
        [sys.executable, "examples/temporal_approval.py"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    assert done.stdout.splitlines() == [
        "No OPENAI_API_KEY: using a scripted FunctionModel.",
        'waiting: delete_file({"path": "/tmp/cache.db"})',
        'waiting: delete_file({"path": "/etc/passwd"})',
        "approved by an update; still waiting: 1",
        "the worker stopped; the run waits in Temporal",
        "rejected by a signal, with no worker running",
        "answer: Done: deleted /tmp/cache.db; The user refused: system files stay.",
    ]
