"""The docs run as written: every Python block of README.md and of every page under docs/.

Each Python block is a script: it is compiled as a file would be (top-level `await` is a
`SyntaxError`, as it is in a script: use `Runner.run_sync` or `asyncio.run(main())`) and
runs in a fresh namespace as `__main__`, so it imports and defines what it uses.

A block whose first line is the comment

    # (continues the example above)

goes on from the page's previous Python block instead: it runs in that block's namespace
(and so in the namespace of every block that one continues), as if pasted below it. The
comment is what the reader sees too, so no block silently depends on an earlier one.

A comment after a `print(...)` on its line, or comment lines right below a line with a
`print(...)` (for what a loop prints), are lines the block promises to print: each must
equal a whole line of what the block printed, in order; a promise ending in `...` means a
line starting with what comes before it. Snippets (pymdownx.snippets, as the example pages
use to show a script) are included, as the site does. No block may reach OpenAI: the key
is unset, so a block that needs a model uses a scripted one; the pages on Claude and Gemini
call the SDKs' default clients, which reach local servers that speak their APIs
(`ANTHROPIC_BASE_URL`, `GOOGLE_GEMINI_BASE_URL`).

Every script runs a second time on Claude: each model its runs call (scripted or not) is
wrapped in a `ClaudeRelay` (tests/claude_relay.py), which sends the model's replies to the
run through `AnthropicModel`, the official client and a local Messages API server, and the
script must print the same. A script that cannot, for a reason of the provider's, is listed
in `NOT_ON_CLAUDE` with the reason and what it fails with there (checked on each run).

docs/tracing.md sends spans over OTLP: the tests run a collector on 127.0.0.1 and point
`OTEL_EXPORTER_OTLP_ENDPOINT` at it, and put back OpenTelemetry's global tracer provider
after each test (a block sets it, and the API lets a process set it only once).

Blocks that are not Python name their language (`text`, `bash`, `pycon`), so that no
Python block escapes this test by being untagged or spelled `py`. A shell command runs the
virtual environment's own programs (`.venv/bin/tooluse`, `.venv/bin/python`), as the
README's first commands set it up.
"""

from __future__ import annotations

import contextlib
import faulthandler
import io
import os
import pkgutil
import re
import sys
import tempfile
import threading
import types
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

import tooluse

from .claude_relay import AroundClaude, RelayServer, on_claude
from .temporal_server import TemporalDevServer

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*)$")
SNIPPET = re.compile(r'^--8<-- "(?P<path>[^"]+)"$')
DIRECTIVE = re.compile(r"^::: (?P<name>[\w.]+)$", re.MULTILINE)
CONTINUES = "# (continues the example above)"
# tsx: the front ends docs/ui.md shows
NOT_PYTHON = {"text", "bash", "console", "pycon", "json", "toml", "yaml", "tsx"}


@dataclass(frozen=True)
class Block:
    """A fenced code block of a page."""

    language: str
    source: str
    line: int
    """The page's line number of the block's first line of code."""


def fenced_blocks(text: str) -> list[Block]:
    """The page's fenced code blocks, as a Markdown renderer finds them."""
    lines = text.splitlines()
    found: list[Block] = []
    start = 0
    while start < len(lines):
        opening = FENCE.match(lines[start])
        if opening is None:
            start += 1
            continue
        indent, fence = len(opening["indent"]), opening["fence"]
        closing = re.compile(rf"^ *{re.escape(fence[0])}{{{len(fence)},}} *$")
        end = next((i for i in range(start + 1, len(lines)) if closing.match(lines[i])), len(lines))
        code = [
            line[indent:] if line[:indent].isspace() else line for line in lines[start + 1 : end]
        ]
        language = (opening["info"].split() or [""])[0]
        found.append(Block(language, "\n".join(code) + "\n", start + 2))
        start = end + 1
    return found


def python_blocks(page: Path) -> list[Block]:
    return [block for block in fenced_blocks(page.read_text()) if block.language == "python"]


def with_snippets(source: str) -> str:
    """The source with each snippet included, as pymdownx.snippets does (paths from the root).

    Both forms: `--8<-- "path"` on one line, and paths between two `--8<--` lines (the form
    the example pages use: ruff's formatter leaves it alone).
    """
    out: list[str] = []
    lines = iter(source.splitlines(keepends=True))
    for line in lines:
        if line.strip() == "--8<--":
            paths = iter(lambda: next(lines).strip(), "--8<--")
            out.extend((ROOT / path).read_text() for path in paths if path)
        elif included := SNIPPET.match(line.strip()):
            out.append((ROOT / included["path"]).read_text())
        else:
            out.append(line)
    return "".join(out)


def compiled(block: Block, page: Path) -> types.CodeType:
    """The block as a script: no top-level `await`, as in a file run by `python`."""
    # Blank lines first, so that a traceback's line number is the page's.
    source = "\n" * (block.line - 1) + with_snippets(block.source)
    return compile(source, str(page), "exec", dont_inherit=True)


def test_a_block_is_compiled_as_a_script() -> None:
    page = ROOT / "README.md"
    assert isinstance(compiled(Block("python", "x = 1\n", 3), page), types.CodeType)
    with pytest.raises(SyntaxError, match="outside"):
        compiled(Block("python", "import asyncio\nawait asyncio.sleep(0)\n", 3), page)


def continues(block: Block) -> bool:
    """Whether the block is marked as a continuation of the page's previous Python block."""
    return block.source.startswith(f"{CONTINUES}\n")


def scripts(blocks: list[Block]) -> list[list[Block]]:
    """The blocks grouped into scripts: a block, then the blocks that continue it."""
    found: list[list[Block]] = []
    for block in blocks:
        if continues(block) and found:
            found[-1].append(block)
        else:
            found.append([block])
    return found


def test_a_marked_block_continues_the_previous_one() -> None:
    a, b, c, d = (
        Block("python", "a = 1\n", 2),
        Block("python", f"{CONTINUES}\nb = a\n", 6),
        Block("python", f"{CONTINUES}\nc = b\n", 10),
        Block("python", "# (continues nothing: not the first line)\nd = 1\n", 14),
    )
    assert scripts([a, b, c, d]) == [[a, b, c], [d]]


def promised(source: str) -> list[str]:
    """What a block says it prints: the comment after a `print(...)` on its line, or the
    comment lines right below a line with a `print(...)` (for what a loop prints)."""
    texts: list[str] = []
    after_print = False
    for line in source.splitlines():
        if after_print and line.startswith("# "):
            texts.append(line.removeprefix("# "))
            continue
        after_print = "print(" in line
        if after_print and "  # " in line:
            texts.append(line.split("  # ", 1)[1])
    return texts


def test_what_a_block_promises_to_print() -> None:
    source = (
        "print(1)  # 1\n"
        "for x in 'ab':\n"
        "    print(x)\n"
        "# a\n"
        "# b\n"
        "\n"
        "# a comment, not output\n"
        "y = 2  # nor this\n"
    )
    assert promised(source) == ["1", "a", "b"]


def unkept(promises: list[str], printed: str) -> list[str]:
    """The promises not kept: each must be a whole printed line (a promise ending in `...`,
    the start of one), in the order printed."""
    lines = [line.rstrip() for line in printed.splitlines()]
    broken: list[str] = []
    at = 0  # the first line a promise may match: the one after the previous promise's
    for text in promises:
        kept = (
            i
            for i in range(at, len(lines))
            if (lines[i].startswith(text[:-3]) if text.endswith("...") else lines[i] == text)
        )
        found = next(kept, None)
        if found is None:
            broken.append(text)
        else:
            at = found + 1
    return broken


def test_a_promise_is_a_whole_printed_line() -> None:
    printed = "Booked 2 night(s) in Lisbon.\nTool 'x' failed: RuntimeError\n"
    assert unkept(["Booked 2 night(s) in Lisbon.", "Tool 'x' failed..."], printed) == []
    assert unkept(["Booked"], printed) == ["Booked"]  # a part of a line is not enough
    assert unkept(["Lisbon..."], printed) == ["Lisbon..."]  # `...` is a start, not a part
    assert unkept(["Tool 'x' failed...", "Booked..."], printed) == ["Booked..."]  # in order
    assert unkept(["nothing", "Booked..."], printed) == ["nothing"]  # one broken promise


def page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


def run(script: list[Block], page: Path) -> None:
    """Run the blocks of one script in one fresh `__main__`, checking what each prints."""
    main = types.ModuleType("__main__")  # as runpy runs a script
    sys.modules["__main__"] = main
    # The script as a file, as `__main__.__file__`: Temporal's sandbox imports a workflow
    # defined in `__main__` again from that file (as `__temporal_main__`).
    handle, path = tempfile.mkstemp(suffix=".py", prefix="docs-script-")
    with os.fdopen(handle, "w") as file:
        file.write("\n".join(with_snippets(block.source) for block in script))
    main.__file__ = path
    try:
        for block in script:
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(compiled(block, page), main.__dict__)
            broken = unkept(promised(block.source), printed.getvalue())
            assert not broken, f"{page_id(page)}:{block.line} does not print {broken}"
    finally:
        os.remove(path)


@dataclass
class Collector:
    """An OTLP/HTTP trace collector on 127.0.0.1 that keeps what it is sent."""

    url: str
    bodies: list[bytes] = field(default_factory=list[bytes])


@pytest.fixture(scope="module")
def otlp_collector() -> Iterator[Collector]:
    received: list[bytes] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            if self.path == "/v1/traces":
                received.append(self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(200 if self.path == "/v1/traces" else 404)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")  # an empty ExportTraceServiceResponse
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            del format, args

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield Collector(f"http://127.0.0.1:{server.server_address[1]}", received)
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(autouse=True)
def otel_sandbox(otlp_collector: Collector, monkeypatch: pytest.MonkeyPatch) -> None:
    """Spans go to the local collector; the global tracer provider is put back afterwards."""
    from opentelemetry import trace

    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", otlp_collector.url)
    # Private: the API offers no way to unset the provider (its own test utilities do this).
    once = trace._TRACER_PROVIDER_SET_ONCE  # pyright: ignore[reportPrivateUsage]
    monkeypatch.setattr(trace, "_TRACER_PROVIDER_SET_ONCE", type(once)())
    monkeypatch.setattr(trace, "_TRACER_PROVIDER", None)


def test_the_tracing_page_sends_its_spans_to_the_collector(otlp_collector: Collector) -> None:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    page = DOCS / "tracing.md"
    otlp_collector.bodies.clear()
    for script in scripts(python_blocks(page)):
        run(script, page)
    names: set[str] = set()
    for body in otlp_collector.bodies:
        request = ExportTraceServiceRequest.FromString(body)
        for resource in request.resource_spans:
            names.update(span.name for scope in resource.scope_spans for span in scope.spans)
    assert names == {"invoke_workflow Agent workflow", "invoke_agent greeter", "chat test"}


@pytest.fixture(scope="module")
def provider_servers() -> Iterator[tuple[str, str]]:
    """Local Messages and generateContent servers, for the pages on Claude and Gemini."""
    from .anthropic_server import AnthropicServer
    from .anthropic_server import tool_user as claude_tool_user
    from .gemini_server import GeminiServer
    from .gemini_server import tool_user as gemini_tool_user

    claude, gemini = AnthropicServer(claude_tool_user), GeminiServer(gemini_tool_user)
    claude.start()
    gemini.start()
    try:
        yield claude.base_url, gemini.base_url
    finally:
        claude.stop()
        gemini.stop()


def sandboxed(
    page: Path, monkeypatch: pytest.MonkeyPatch, provider_servers: tuple[str, str]
) -> list[list[Block]]:
    """The page's scripts, with the environment set for them to run offline."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    # The SDKs' default clients (AnthropicModel or GeminiModel without a client) reach the
    # local servers, as they would reach the APIs with a key set.
    claude_url, gemini_url = provider_servers
    monkeypatch.setenv("ANTHROPIC_API_KEY", "docs-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", claude_url)
    monkeypatch.setenv("GEMINI_API_KEY", "docs-key")
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", gemini_url)
    monkeypatch.setitem(sys.modules, "__main__", sys.modules["__main__"])  # restored after
    blocks = python_blocks(page)
    if blocks and continues(blocks[0]):
        pytest.fail(f"{page_id(page)}:{blocks[0].line} continues no block above it")
    return scripts(blocks)


TEMPORAL_PAGE = DOCS / "temporal.md"
"""Its workflows run on the session's Temporal dev server, in their own test."""


@pytest.mark.parametrize("page", [p for p in PAGES if p != TEMPORAL_PAGE], ids=page_id)
def test_every_python_block_of_the_page_runs(
    page: Path, monkeypatch: pytest.MonkeyPatch, provider_servers: tuple[str, str]
) -> None:
    for script in sandboxed(page, monkeypatch, provider_servers):
        run(script, page)


@pytest.mark.xdist_group("temporal")
def test_the_temporal_page_runs_its_workflows_on_a_dev_server(
    monkeypatch: pytest.MonkeyPatch,
    provider_servers: tuple[str, str],
    temporal_server: TemporalDevServer,
) -> None:
    monkeypatch.setenv("TEMPORAL_ADDRESS", temporal_server.target)  # as the `temporal` CLI reads it
    with stops_a_hang(TEMPORAL_LIMIT):
        for script in sandboxed(TEMPORAL_PAGE, monkeypatch, provider_servers):
            run(script, TEMPORAL_PAGE)


TEMPORAL_LIMIT = 180.0
"""Seconds the Temporal page's workflows may take: a workflow whose task fails is retried
by the server forever, and a test would wait for it without end."""


@contextlib.contextmanager
def stops_a_hang(seconds: float) -> Generator[None]:
    """Past `seconds`, print every thread's stack and end the process: a failure, not a hang."""
    faulthandler.dump_traceback_later(seconds, exit=True)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_code_block_names_its_language(page: Path) -> None:
    for block in fenced_blocks(page.read_text()):
        where = f"{page_id(page)}:{block.line}"
        assert block.language in {"python", *NOT_PYTHON}, f"{where}: `{block.language}`"


def test_the_blocks_are_found_as_a_renderer_finds_them() -> None:
    text = (
        "a\n```python\nx = 1\n```\n\n1. step\n\n    ```bash\n    ls\n    ```\n````text\n```\n````\n"
    )
    assert fenced_blocks(text) == [
        Block("python", "x = 1\n", 3),
        Block("bash", "ls\n", 9),
        Block("text", "```\n", 12),
    ]
    # A fence followed by text does not close the block (CommonMark).
    assert fenced_blocks("```python\nx = 1\n``` more\ny = 2\n```\n")[0].source == (
        "x = 1\n``` more\ny = 2\n"
    )


def test_snippets_are_included_in_either_form() -> None:
    single = with_snippets('a = 1\n--8<-- "examples/weather.py"\n')
    block = with_snippets("a = 1\n--8<--\nexamples/weather.py\n--8<--\n")
    assert single == block == "a = 1\n" + (ROOT / "examples" / "weather.py").read_text()


@pytest.mark.parametrize(
    "example", sorted((ROOT / "examples").glob("*.py")), ids=lambda path: path.name
)
def test_every_example_has_a_page_that_includes_it_and_says_how_to_run_it(example: Path) -> None:
    page = DOCS / "examples" / f"{example.stem}.md"
    code = [with_snippets(block.source) for block in fenced_blocks(page.read_text())]
    assert example.read_text() in code
    run_with = example.read_text().split("Run with:\n", 1)[1].splitlines()[0].strip()
    assert f".venv/bin/{run_with}\n" in code  # `python ...` or `tooluse ...`, in the venv


# A command in a shell block runs what the README's first command installs.
BARE_COMMAND = re.compile(r"^(?:\$ )?(?:python|tooluse|mkdocs|pytest)\b", re.MULTILINE)


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_shell_commands_run_the_virtual_environments_programs(page: Path) -> None:
    for block in fenced_blocks(page.read_text()):
        if block.language == "bash":
            bare = BARE_COMMAND.search(block.source)
            where = f"{page_id(page)}:{block.line}"
            assert bare is None, f"{where}: write `.venv/bin/{bare[0]}`, not `{bare[0]}`"


def documented() -> set[str]:
    """What the API reference renders: the `::: name` directives of docs/reference/."""
    return {
        match["name"]
        for page in (DOCS / "reference").glob("*.md")
        for match in DIRECTIVE.finditer(page.read_text())
    }


def test_the_reference_covers_every_public_name() -> None:
    names = documented()
    resolved = {name: pkgutil.resolve_name(name) for name in names}  # each directive resolves
    modules = [value for value in resolved.values() if isinstance(value, types.ModuleType)]
    assert {"tooluse.testing", "tooluse.exceptions"} <= names
    for name in tooluse.__all__:
        value = getattr(tooluse, name)
        assert f"tooluse.{name}" in names or any(
            getattr(module, name, None) is value and name in getattr(module, "__all__", [])
            for module in modules
        ), name


def test_the_run_loop_pages_show_their_capabilities() -> None:
    running = "".join(block.source for block in python_blocks(DOCS / "running.md"))
    for shown in (
        "RunHooks",
        "RunState.from_json",
        "PrefixedToolset",
        "FilteredToolset",
        "aclosing",
    ):
        assert shown in running


def test_the_architecture_page_lists_every_module() -> None:
    table = re.findall(
        r"^\| `([\w/]+\.py)` \| .+ \|$", (DOCS / "architecture.md").read_text(), re.M
    )
    package = ROOT / "src" / "tooluse"
    modules = [path.relative_to(package).as_posix() for path in package.rglob("*.py")]
    assert sorted(table) == sorted(modules)  # each once, none missing, none gone


# Every example again on Claude: each model the run calls is wrapped in a `ClaudeRelay`
# (tests/claude_relay.py), which sends the model's reply through `AnthropicModel` and a
# local Messages API server; the example must print the same.


@dataclass(frozen=True)
class NotOnClaude:
    """Why a script cannot run on Claude, and what it fails with there (which shows it)."""

    why: str
    fails_with: str
    """A part of the error (or of the broken promise) the script ends with on Claude."""


NOT_ON_CLAUDE: dict[tuple[str, str], NotOnClaude] = {
    ("docs/agents.md", "class Truncating(Model):"): NotOnClaude(
        "the example's own model is the provider, and its reason `max_output_tokens` is "
        "OpenAI's: Claude's answer cut short says `max_tokens`",
        "does not print ['max_output_tokens']",
    ),
    ("docs/tracing.md", "class CountingExporter(OTLPSpanExporter):"): NotOnClaude(
        "the anthropic SDK records a span of its own for each request "
        "(`anthropic.messages.create`): the collector takes 4 spans, not the page's 3",
        "does not print ['spans the collector took: 3']",
    ),
    ("docs/hosted-tools.md", "class DeepWikiStandIn(Model):"): NotOnClaude(
        "a hosted MCP server's approval request is an item of OpenAI's Responses API, which "
        "Claude's Messages API has no form for (hosted tools are OpenAI's)",
        "a 'mcp_approval_request' item has no Messages API form",
    ),
    ("docs/errors.md", "def clumsy(items, tools):"): NotOnClaude(
        "the model sends arguments that are not JSON, and Claude's `tool_use` input is "
        "always a JSON object",
        "'get_weather' is called with arguments that are not a JSON object",
    ),
}
"""The scripts that cannot run on Claude, by page and a line of their first block."""


def not_on_claude(page: Path, script: list[Block]) -> NotOnClaude | None:
    """Why the script cannot run on Claude, if `NOT_ON_CLAUDE` lists it."""
    lines = script[0].source.splitlines()
    return next(
        (
            excluded
            for (where, line), excluded in NOT_ON_CLAUDE.items()
            if where == page_id(page) and line in lines
        ),
        None,
    )


@pytest.mark.parametrize("page", [p for p in PAGES if p != TEMPORAL_PAGE], ids=page_id)
def test_every_python_block_of_the_page_runs_on_claude(
    page: Path,
    monkeypatch: pytest.MonkeyPatch,
    provider_servers: tuple[str, str],
    claude_relay: RelayServer,
) -> None:
    run_on_claude(page, monkeypatch, provider_servers, claude_relay)


@pytest.mark.xdist_group("temporal")
def test_the_temporal_page_runs_on_claude_on_a_dev_server(
    monkeypatch: pytest.MonkeyPatch,
    provider_servers: tuple[str, str],
    claude_relay: RelayServer,
    temporal_server: TemporalDevServer,
) -> None:
    # The workers start inside the relay's context: their model activities see it too.
    monkeypatch.setenv("TEMPORAL_ADDRESS", temporal_server.target)
    with stops_a_hang(TEMPORAL_LIMIT):
        run_on_claude(TEMPORAL_PAGE, monkeypatch, provider_servers, claude_relay)


def run_on_claude(
    page: Path,
    monkeypatch: pytest.MonkeyPatch,
    provider_servers: tuple[str, str],
    claude_relay: RelayServer,
) -> None:
    """Run the page's scripts with every model call made through `AnthropicModel`."""
    around = AroundClaude()
    around.watch(monkeypatch)
    for script in sandboxed(page, monkeypatch, provider_servers):
        where = f"{page_id(page)}:{script[0].line}"
        around.calls.clear()
        excluded = not_on_claude(page, script)
        if excluded is None:
            with on_claude(claude_relay):
                run(script, page)
            assert not around.calls, f"{where}: models called around Claude: {around.calls}"
            continue
        with pytest.raises(Exception) as failed, on_claude(claude_relay):  # noqa: PT011
            run(script, page)
        # Still failing, and for the reason listed: else the list is out of date.
        assert excluded.fails_with in str(failed.value), f"{where}: {excluded.why}"


def test_every_script_not_on_claude_is_one_script_of_its_page() -> None:
    for where, line in NOT_ON_CLAUDE:
        page = ROOT / where
        found = [s for s in scripts(python_blocks(page)) if line in s[0].source.splitlines()]
        assert len(found) == 1, f"NOT_ON_CLAUDE[{where!r}, {line!r}] matches {len(found)} scripts"
