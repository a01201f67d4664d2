"""Shared helpers for the tests."""

from __future__ import annotations

import gc
import os
import sys
import tempfile
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import pytest
from hypothesis import settings
from jsonschema import Draft202012Validator

from tooluse import FunctionTool, ToolContext, function_tool
from tooluse.tools._calls import invoke_within
from tooluse.tools._invocation import NO_SETTINGS

from .openai_server import ScriptedServer

if TYPE_CHECKING:
    from .anthropic_server import AnthropicServer
    from .claude_relay import RelayServer
    from .gemini_server import GeminiServer
    from .temporal_server import TemporalDevServer

# Where PYTHONDONTWRITEBYTECODE is set (some CI images set it), every test process and
# every Python a test starts would compile tooluse and the tests from source again: a
# second or more of CPU each, hundreds of times a run. Their bytecode goes to a cache
# outside the tree instead, which keeps the tree as clean as the variable asks, for
# this run's workers and subprocesses and the next run's.
if sys.dont_write_bytecode:
    sys.dont_write_bytecode = False
    sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"] = os.path.join(
        tempfile.gettempdir(), "tooluse-tests-pycache"
    )
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# CI explores the same examples every time, so a red build always points at a change;
# runs on a developer's machine keep exploring new ones, fewer of them (see `examples`).
# TOOLUSE_EXAMPLES=all or =tenth says how many, whatever CI says.
EVERY_EXAMPLE = os.environ.get("TOOLUSE_EXAMPLES", "all" if os.environ.get("CI") else "") == "all"
"""Whether property tests try all their examples (and a few loops run their longest)."""
_QUICK_SHARE = 10  # a quick run tries a tenth: most of the suite's time went on examples
settings.register_profile(
    "tooluse",
    derandomize=bool(os.environ.get("CI")),
    max_examples=100 if EVERY_EXAMPLE else 100 // _QUICK_SHARE,
)
settings.load_profile("tooluse")


def examples(count: int) -> int:
    """How many examples a property test tries: `count` in CI, a tenth (at least 10) elsewhere.

    The README's `pytest` finishes in minutes this way; CI tries every example (on the
    highest Python), and a developer's runs, exploring new ones each time, add up to
    more over a week.

    Args:
        count: The examples CI tries (and `TOOLUSE_EXAMPLES=all`).

    Returns:
        `count`, or a tenth of it (at least 10) for a quick run.
    """
    return count if EVERY_EXAMPLE else max(10, count // _QUICK_SHARE)


class _Server(Protocol):
    def start(self) -> None: ...
    def stop(self) -> None: ...


S = TypeVar("S", bound=_Server)


def _serving(server: S) -> Iterator[S]:
    """`server`, started for a test and stopped after it, however the test ends."""
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def openai_server() -> Iterator[ScriptedServer]:
    """An OpenAI-compatible server on 127.0.0.1 playing the turns a test scripts."""
    yield from _serving(ScriptedServer())


@pytest.fixture
def anthropic_server() -> Iterator[AnthropicServer]:
    """A server speaking Anthropic's Messages API on 127.0.0.1, playing scripted turns."""
    from .anthropic_server import AnthropicServer  # imports `anthropic`: only where used

    yield from _serving(AnthropicServer())


@pytest.fixture
def gemini_server() -> Iterator[GeminiServer]:
    """A server speaking Gemini's generateContent API on 127.0.0.1, playing scripted turns."""
    from .gemini_server import GeminiServer  # imports `google.genai`: only where used

    yield from _serving(GeminiServer())


@pytest.fixture(scope="module")
def claude_relay() -> Iterator[RelayServer]:
    """A relay server answering through Claude (`tests/claude_relay.py`), one per module."""
    # Imported here, not at the top: `anthropic` costs every pytest process 2 s of CPU,
    # the xdist controller too, which runs no test.
    from .claude_relay import RelayServer

    yield from _serving(RelayServer())


@pytest.fixture(scope="session")
def temporal_server() -> Iterator[TemporalDevServer]:
    """One Temporal dev server (`tests/temporal_server.py`) for the whole test session."""
    from .temporal_server import TemporalDevServer  # imports `temporalio`: only where used

    yield from _serving(TemporalDevServer())


@pytest.fixture(autouse=True)
def _no_collection_in_workflow_threads(request: pytest.FixtureRequest) -> Iterator[None]:
    """No cyclic garbage collection while a Temporal worker runs workflows in its threads.

    An `AsyncOpenAI` client left unclosed by an earlier test, if collected in a workflow's
    thread, schedules its `aclose()` on the workflow's event loop, where it dies pending
    when the worker evicts the workflow (an unraisable warning that fails the test).
    Collected beforehand, on the test's own loop, it closes quietly.
    """
    if "temporal_server" not in request.fixturenames:
        yield
        return
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze what collection made: the cyclic collector never scans it again.

    The modules, tests and fixtures collected (some 770,000 objects) live to the end of
    the run, yet every full collection scanned them all: 0.4 s of CPU each time, before
    each Temporal test (`_no_collection_in_workflow_threads`), in the tests that count
    garbage, and whenever Python collects its oldest generation. Objects the tests make
    are collected as before (`gc.freeze` moves only what exists now).
    """
    gc.collect()
    gc.freeze()


def pytest_configure(config: pytest.Config) -> None:
    # Most test tools are deliberately undocumented; test_lints checks these warnings.
    # Added here, not in pyproject.toml: naming the category there would import tooluse
    # before coverage starts.
    config.addinivalue_line("filterwarnings", "ignore::tooluse.exceptions.ToolDefinitionWarning")
    config.addinivalue_line(
        "markers",
        "slow: a test that takes many seconds of CPU or waits on timeouts; the README's "
        "`pytest` leaves it out, CI runs it (`pytest --slow`)",
    )


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--slow",
        action="store_true",
        help="run the tests marked slow too, as CI does (a run naming files runs them anyway)",
    )


def runs_slow_tests(config: pytest.Config) -> bool:
    """Whether this run includes the `slow` tests: with --slow, or when it names what to run."""
    named: list[str] = config.option.file_or_dir
    return bool(config.getoption("--slow") or named)


def pytest_report_header(config: pytest.Config) -> str:
    if runs_slow_tests(config):
        return "slow tests: included"
    return "slow tests: left out (CI runs them; `pytest --slow` runs them here)"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if runs_slow_tests(config):
        return
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item.get_closest_marker("slow") is None]


def tool_context(name: str = "tool", arguments: str = "", context: Any = None) -> ToolContext[Any]:
    """A ToolContext for calling `on_invoke_tool` directly."""
    return ToolContext(
        context=context, tool_name=name, tool_call_id="call_1", tool_arguments=arguments
    )


async def model_text(tool: FunctionTool, arguments: str, context: Any = None) -> str:
    """What a run tells the model of one call: the tool's output written as text.

    A direct `on_invoke_tool` call returns the function's own value, as in openai-agents;
    a run renders it (JSON for anything but a str), as this does.
    """
    ctx = tool_context(tool.name, arguments, context)
    return (await invoke_within(tool, ctx, arguments, NO_SETTINGS)).output


def tool_taking(annotation: Any, strict: bool = True) -> tuple[FunctionTool, list[Any]]:
    """A tool `take(value: annotation)` that records what it receives."""
    received: list[Any] = []

    def take(value: Any) -> str:
        received.append(value)
        return "ok"

    take.__annotations__ = {"value": annotation, "return": str}
    return function_tool(strict_mode=strict)(take), received


def assert_admits(schema: dict[str, Any], instance: Any) -> None:
    """Fail unless the JSON schema admits the instance (as strict decoding would)."""
    validator: Any = Draft202012Validator(schema)  # the stubs' deprecated overload is untyped
    errors = [error.message for error in validator.iter_errors(instance)]
    assert errors == []
