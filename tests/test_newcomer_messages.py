"""What a newcomer sees without an extra installed, and from `tooluse serve` in a terminal.

Each case runs a fresh interpreter: an extra is made missing there by putting None
in `sys.modules` before anything imports it, as an environment without it behaves.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WEATHER = "examples/weather.py"

pexpect = pytest.importorskip("pexpect")


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def test_serve_without_mcp_says_which_extra_and_prints_no_traceback() -> None:
    done = _python(
        "import sys; sys.modules['mcp'] = None\n"
        "from tooluse.cli._main import main\n"
        f"sys.exit(main(['serve', {WEATHER!r}]))"
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "tooluse: error: serve needs the 'mcp' package, which is not installed; "
        "pip install 'tooluse[mcp]'\n"
    )


def test_importing_tooluse_temporal_without_temporalio_says_which_extra() -> None:
    done = _python(
        "import sys; sys.modules['temporalio'] = None\n"
        "try:\n"
        "    import tooluse.temporal\n"
        "except ImportError as error:\n"
        "    print(type(error).__name__, error.name, error, sep=' | ')\n"
    )
    assert done.stderr == ""
    assert done.stdout == (
        "ImportError | temporalio | tooluse.temporal needs the temporalio package: "
        "pip install 'tooluse[temporal]'\n"
    )


def test_serve_over_stdio_in_a_terminal_says_it_waits_for_a_client() -> None:
    env = {key: value for key, value in os.environ.items() if key != "OPENAI_API_KEY"}
    child = pexpect.spawn(
        sys.executable,
        ["-m", "tooluse", "serve", WEATHER],
        cwd=str(ROOT),
        env=env,
        timeout=30,
        encoding="utf-8",
        dimensions=(24, 200),
    )
    child.expect_exact(
        "tooluse serve: 2 tools over MCP on stdio, waiting for an MCP client to speak on "
        "stdin (Ctrl-C stops; --transport http serves over HTTP)"
    )
    child.sendeof()  # the client leaves: the server ends
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_serve_over_stdio_from_a_client_says_nothing_on_stderr() -> None:
    # An MCP client gives a pipe, not a terminal: stderr stays quiet, stdout is MCP's alone.
    done = subprocess.run(
        [sys.executable, "-m", "tooluse", "serve", WEATHER],
        check=False,
        input="",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
