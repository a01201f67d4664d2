"""`tooluse schema`: output for files and modules, and one-line errors with exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tooluse._cli import main

ROOT = Path(__file__).resolve().parent.parent
WEATHER = str(ROOT / "examples" / "weather.py")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_prints_every_tool_of_a_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "schema", WEATHER)
    assert (code, err) == (0, "")
    params = json.loads(out)
    assert [p["name"] for p in params] == ["fetch_weather", "fetch_data"]
    assert all(p["type"] == "function" and p["strict"] is True for p in params)


def test_one_tool_by_name_for_chat_completions(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "schema", f"{WEATHER}:fetch_data", "--api", "chat")
    assert code == 0
    [param] = json.loads(out)
    assert param["function"]["name"] == "fetch_data"
    assert param["function"]["parameters"]["required"] == ["path", "directory"]


def test_by_attribute_name_too(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "schema", f"{WEATHER}:read_file")
    assert code == 0
    assert json.loads(out)[0]["name"] == "fetch_data"


def test_no_strict(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "schema", f"{WEATHER}:fetch_data", "--no-strict")
    assert code == 0
    [param] = json.loads(out)
    assert param["strict"] is False
    assert param["parameters"]["required"] == ["path"]
    assert param["parameters"]["properties"]["directory"]["default"] is None


def test_module_path(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "schema", "tests.test_tool_params")
    assert code == 0
    assert [p["name"] for p in json.loads(out)] == ["add"]


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("missing.py", "tooluse: error: no such file: missing.py\n"),
        (
            "no_such_module_xyz",
            "tooluse: error: no module named 'no_such_module_xyz' (importing no_such_module_xyz)\n",
        ),
        (
            f"{WEATHER}:Location",
            f"tooluse: error: {WEATHER} has no tool named 'Location' (tools: fetch_weather, fetch_data)\n",
        ),
        (
            "tests.types_for_tests",
            "tooluse: error: tests.types_for_tests defines no FunctionTool\n",
        ),
    ],
)
def test_errors_are_one_line_with_status_2(
    capsys: pytest.CaptureFixture[str], target: str, message: str
) -> None:
    code, out, err = run(capsys, "schema", target)
    assert (code, out, err) == (2, "", message)


def test_module_that_fails_to_import(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('bad module')\n")
    code, out, err = run(capsys, "schema", str(broken))
    assert (code, out) == (2, "")
    assert err == f"tooluse: error: importing {broken} failed: RuntimeError: bad module\n"
    assert "broken" not in sys.modules


def test_tool_definition_error_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad_tool.py"
    bad.write_text(
        "from typing import Any\nfrom tooluse import function_tool\n\n"
        "@function_tool(name_override='bad name')\ndef f(x: Any) -> str:\n    return ''\n"
    )
    code, _, err = run(capsys, "schema", str(bad))
    assert code == 2
    assert err.count("\n") == 1
    assert "UserError" in err
    assert "the tool name 'bad name' does not match" in err


def test_python_dash_m_entry_point() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tooluse", "schema", "missing.py"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "tooluse: error: no such file: missing.py\n"
