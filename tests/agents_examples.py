"""openai-agents' own examples, ported to tooluse by changing only their imports.

Each example of openai-agents 0.24's sdist (its `examples/` directory) is run twice
against the same local OpenAI-compatible server (`tests/openai_server.py`), once as
it is and once ported, and the two runs are compared: the exit status, the number
of model requests, and the printed output once call ids and trace ids are masked.
The server answers every request by the same rule, from the request alone: a
request that offers function tools and ends with the user's message calls the first
of them with arguments made from its schema; any other request is answered with
text naming what it answered (or, when a JSON schema is asked for, a value made
from it); a request offering a hosted MCP server that requires approval is answered with
the server's `mcp_approval_request`, and its answer with text saying whether it was
approved; a request the real API refuses is refused (`refused`). The examples' code is never copied into the repository: the sdist is
downloaded from the package index (`pip download`) into a cache outside it.

Run with: `python -m tests.agents_examples [EXAMPLE ...]` (prints each example's
verdict and the count; `-v` shows the outputs that differ).

The suite runs only the ported side: what each original did is recorded in
`agents_examples_expected.json` (its exit status, its model requests and a digest of
its masked output: never the output, which is openai-agents' text), and an example
whose ported run differs is run as it is then, for the difference. After a change to
the server's rule or the examples measured, record again:
`python -m tests.agents_examples --record`.
"""

from __future__ import annotations

import atexit
import contextlib
import difflib
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
from collections.abc import Generator, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from tests.example_forks import Forks, Request
from tests.openai_server import Call, ScriptedServer, Turn, responses_output
from tooluse.testing import value_for_schema

VERSION = "0.24.0"
EXPECTED = Path(__file__).with_name("agents_examples_expected.json")
"""What each original example did (`--record` writes it)."""
CACHE = Path(tempfile.gettempdir()) / "tooluse-agents-examples"
RESPONSE_ID = "resp_1"
"""The id of every response the server gives (`tests.openai_server.responses_body`)."""
TIMEOUT = 120.0

EXAMPLES: tuple[str, ...] = (
    "basic/hello_world.py",
    "basic/hello_world_gpt_5.py",
    "basic/stream_text.py",
    "basic/stream_items.py",
    "basic/stream_function_call_args.py",
    "basic/tools.py",
    "basic/usage_tracking.py",
    "basic/dynamic_system_prompt.py",
    "basic/lifecycle_example.py",
    "basic/agent_lifecycle_example.py",
    "basic/non_strict_output_type.py",
    "basic/tool_guardrails.py",
    "basic/image_tool_output.py",
    "agent_patterns/agents_as_tools.py",
    "agent_patterns/agents_as_tools_conditional.py",
    "agent_patterns/agents_as_tools_streaming.py",
    "agent_patterns/agents_as_tools_structured.py",
    "agent_patterns/deterministic.py",
    "agent_patterns/forcing_tool_use.py",
    "agent_patterns/human_in_the_loop.py",
    "agent_patterns/human_in_the_loop_stream.py",
    "agent_patterns/human_in_the_loop_custom_rejection.py",
    "agent_patterns/input_guardrails.py",
    "agent_patterns/output_guardrails.py",
    "agent_patterns/llm_as_a_judge.py",
    "agent_patterns/parallelization.py",
    "agent_patterns/routing.py",
    "agent_patterns/streaming_guardrails.py",
    "handoffs/message_filter.py",
    "handoffs/message_filter_streaming.py",
    "customer_service/main.py",
    "memory/sqlite_session_example.py",
    "basic/local_file.py",
    "basic/local_image.py",
    "basic/retry.py",
    "basic/trace_redaction.py",
    "memory/file_session.py",
    "memory/file_hitl_example.py",
    "memory/memory_session_hitl_example.py",
    "memory/advanced_sqlite_session_example.py",
    "memory/sqlalchemy_session_example.py",
    "memory/encrypted_session_example.py",
    "memory/compaction_session_example.py",
    "tools/shell_human_in_the_loop.py",
    "agent_patterns/human_in_the_loop_server.py",
    "basic/previous_response_id.py",
    "basic/prompt_template.py",
    "basic/remote_image.py",
    "basic/remote_pdf.py",
    "hosted_mcp/human_in_the_loop.py",
    "hosted_mcp/on_approval.py",
    "hosted_mcp/simple.py",
    "memory/compaction_session_stateless_example.py",
    "research_bot/main.py",
    "tools/codex.py",
    "tools/codex_same_thread.py",
    "tools/local_shell_skill.py",
    "tools/shell.py",
    "tools/web_search.py",
    "sandbox/handoffs.py",
    "sandbox/memory.py",
    "sandbox/sandbox_agent_with_tools.py",
    "sandbox/sandbox_agents_as_tools.py",
    "sandbox/unix_local_runner.py",
)
"""The examples measured: every one of openai-agents' `examples/` whose original runs to its
end (exit status 0, at least one model request) against the local server alone, found by
running each of them but voice and realtime. Hosted tools count (the server answers a
request offering them with text, as it answers any other, but a hosted MCP server that
requires approval asks for it first), and so do the local sandbox,
shell and Codex examples.
Left out because the original fails or hangs against the local server: voice and
realtime (audio and websockets), `live/`, model providers other than OpenAI (LiteLLM,
any-llm, gpt-oss, custom clients whose settings are not given), `hosted_mcp/connectors.py`
and `agent_patterns/hosted_multi_agent_beta.py` (credentials, a beta API), remote files and services
(Redis, MongoDB, Dapr, OpenAI's conversations, file search, containers, computer use,
sandbox clouds and Docker), MCP examples (their servers start with `uv` or `npx`, which
fetch packages), `decisions/` (which need answers the server does not make up),
`financial_research_agent/`, `reasoning_content/`, `tools/apply_patch.py`,
`tools/tool_search.py`, `tools/programmatic_tool_calling.py`, `tools/image_generator.py`,
`tools/code_interpreter.py`, `memory/hitl_session_scenario.py`,
`basic/stream_ws.py` and the sandbox examples that need a remote snapshot, a PTY or
more than the server's answers. Helpers that make no model request (servers, setup
scripts) are not examples."""

STDIN = "What is the weather in Tokyo?\nyes\ny\nquit\n" + "y\n" * 20
"""What an example reading its terminal is given (answers, approvals, then quit)."""

# A module of openai-agents whose names tooluse keeps in a module of its own (the first
# prefix that fits); every other `agents.X` import takes its names from `tooluse`.
_MODULES = {
    "agents.extensions.memory.sqlalchemy_session": "tooluse.sessions.sqlalchemy",
    "agents.mcp": "tooluse.mcp",
    "agents.models": "tooluse.models",
    "agents.tracing.processor_interface": "tooluse.tracing.processor_interface",
    "agents.tracing.processors": "tooluse.tracing.processors",
    "agents.tracing": "tooluse.tracing",
    "agents.extensions.memory": "tooluse.sessions",
    "agents.extensions.experimental.codex": "tooluse.extensions.experimental.codex",
    "agents.sandbox": "tooluse.sandbox",
}
_FROM = re.compile(r"^(\s*)from (agents(?:\.[\w.]+)?) import ", re.MULTILINE)
_IMPORT = re.compile(r"^(\s*)import agents(\s|$)", re.MULTILINE)
_MASKS = (
    (re.compile(r"\bcall_[A-Za-z0-9_-]+"), "call_*"),
    (re.compile(r"\b(?:trace_)?[0-9a-f]{32}\b"), "trace_*"),
    (re.compile(r"\b(?:span_)?[0-9a-f]{16,24}\b"), "span_*"),
    (re.compile(r"\b0x[0-9a-f]{6,}\b"), "0x*"),
    (re.compile(r"\b\d{14}-[0-9a-f]{12}\b"), "session_*"),  # FileSession's ids: time, random
    (re.compile(r"/tmp/\S*"), "/tmp/*"),  # temporary folders: random names
    (re.compile(r"\b(branch_from_turn_\d+)_\d{9,}\b"), r"\1_*"),  # branch ids: unix time
    (re.compile(r"\b\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\b"), "<time>"),  # the Codex examples' log
)


def port(source: str) -> str:
    """The example's source with its imports of openai-agents made imports of tooluse."""

    def from_(match: re.Match[str]) -> str:
        module = match.group(2)
        target = next((new for old, new in _MODULES.items() if module.startswith(old)), "tooluse")
        return f"{match.group(1)}from {target} import "

    return _IMPORT.sub(r"\1import tooluse as agents\2", _FROM.sub(from_, source))


def sdist() -> Path:
    """openai-agents' unpacked sdist, downloaded from the package index when not cached."""
    root = CACHE / f"openai_agents-{VERSION}"
    if (root / "examples").is_dir():
        return root
    CACHE.mkdir(parents=True, exist_ok=True)
    archive = CACHE / f"openai_agents-{VERSION}.tar.gz"
    if not archive.exists():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--no-binary",
                ":all:",
                "-q",
                "-d",
                str(CACHE),
                f"openai-agents=={VERSION}",
            ],
            check=True,
            capture_output=True,
        )
    with tarfile.open(archive) as tar:
        tar.extractall(CACHE, filter="data")
    return root


_SEED = "import random\n\nrandom.seed(30)  # both runs of an example draw the same numbers\n"


def seeded_path() -> Path:
    """A directory with a `sitecustomize` that seeds `random`, put on both runs' path."""
    path = CACHE / "seeded"
    path.mkdir(parents=True, exist_ok=True)
    (path / "sitecustomize.py").write_text(_SEED)
    return path


def ported_tree(root: Path) -> Path:
    """A copy of the sdist's `examples/` with every file ported, beside the original."""
    digest = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]
    target = CACHE / f"ported-{digest}"
    if (target / "examples").is_dir():
        return target
    work = Path(tempfile.mkdtemp(dir=CACHE))
    shutil.copytree(root / "examples", work / "examples")
    for path in (work / "examples").rglob("*.py"):
        path.write_text(port(path.read_text()))
    try:
        work.rename(target)
    except OSError:  # another process made it first
        shutil.rmtree(work)
    return target


# --- the server's rule ----------------------------------------------------------------


def _text_of(item: dict[str, Any]) -> str:
    if item.get("type") == "function_call_output":
        output = item.get("output")
        return output if isinstance(output, str) else json.dumps(output)
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = cast(list[dict[str, Any]], content)
        return " ".join(str(part.get("text", "")) for part in parts)
    return ""


def _input_items(body: dict[str, Any]) -> list[dict[str, Any]]:
    if "messages" in body:  # Chat Completions
        messages: list[dict[str, Any]] = body["messages"]
        return [
            {"type": "function_call_output", "output": m.get("content")}
            if m.get("role") == "tool"
            else m
            for m in messages
        ]
    given = body.get("input", [])
    if isinstance(given, str):
        return [{"role": "user", "content": given}]
    return list(given)


def _function_tools(body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    tools = cast(list[dict[str, Any]], body.get("tools") or [])
    for tool in tools:
        if tool.get("type") != "function":
            continue
        spec = cast(dict[str, Any], tool.get("function", tool))
        found.append((str(spec["name"]), cast(dict[str, Any], spec.get("parameters") or {})))
    return found


def _answer_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    text = cast(dict[str, Any], body.get("text") or {})
    text_format = cast(dict[str, Any], text.get("format") or {})
    if text_format.get("type") == "json_schema":
        return cast(dict[str, Any], text_format.get("schema"))
    response_format = cast(dict[str, Any], body.get("response_format") or {})
    if response_format.get("type") == "json_schema":
        return cast(dict[str, Any], response_format["json_schema"].get("schema"))
    return None


def refused(body: dict[str, Any]) -> bool:
    """Whether the real API answers the request with 400, for what the server checks.

    A `prompt` (a stored prompt template) must name its `id`, and only the Responses API
    takes one, or a `previous_response_id` (`CountingServer` checks which it knows); a
    `tool_choice` of a hosted MCP server's tool must name a server the request offers.
    """
    if "messages" in body and "previous_response_id" in body:
        return True
    if not _mcp_choice_offered(body):
        return True
    if "prompt" not in body:
        return False
    prompt: object = body["prompt"]
    if "messages" in body or not isinstance(prompt, dict):
        return True
    return not cast(dict[str, Any], prompt).get("id")


def _mcp_choice_offered(body: dict[str, Any]) -> bool:
    """Whether a `tool_choice` naming a hosted MCP server's tool names one the request offers."""
    choice: object = body.get("tool_choice")
    if not isinstance(choice, dict) or cast(dict[str, Any], choice).get("type") != "mcp":
        return True
    if "messages" in body:
        return False
    label = cast(dict[str, Any], choice).get("server_label")
    tools = cast(list[dict[str, Any]], body.get("tools") or [])
    return any(tool.get("type") == "mcp" and tool.get("server_label") == label for tool in tools)


def _mcp_approval(body: dict[str, Any], last: dict[str, Any]) -> Turn | None:
    """The turn of a hosted MCP server that requires approval (`"require_approval": "always"`).

    To the user's message, the server asks to run the tool the `tool_choice` names (else
    `ask_question`); to the answer, the model says whether it was approved (the tool's run,
    an `mcp_call`, is left out: neither SDK does anything with it).
    """
    tools = cast(list[dict[str, Any]], body.get("tools") or [])
    servers = [t for t in tools if t.get("type") == "mcp" and t.get("require_approval") == "always"]
    if not servers:
        return None
    if last.get("type") == "mcp_approval_response":
        verdict = "approved" if last.get("approve") is True else "refused"
        return Turn(text=f"The MCP call was {verdict} ({last.get('reason') or 'no reason'}).")
    if last.get("role") != "user":
        return None
    choice: object = body.get("tool_choice")
    named = cast(dict[str, Any], choice).get("name") if isinstance(choice, dict) else None
    request = {
        "type": "mcp_approval_request",
        "id": "mcpr_1",
        "server_label": servers[0].get("server_label"),
        "name": named or "ask_question",
        "arguments": json.dumps({"question": _text_of(last)[:80]}),
    }
    return Turn(items=[request])


def reply(body: dict[str, Any]) -> Turn:
    """The server's answer to one request, chosen from the request alone."""
    if refused(body):
        return Turn(status=400)
    items = _input_items(body)
    last = items[-1] if items else {}
    approval = _mcp_approval(body, last)
    if approval is not None:
        return approval
    tools = _function_tools(body)
    if tools and last.get("type") != "function_call_output" and last.get("role") == "user":
        name, schema = tools[0]
        return Turn(calls=[Call(name, json.dumps(value_for_schema(schema)))])
    schema = _answer_schema(body)
    if schema is not None:
        return Turn(text=json.dumps(value_for_schema(schema)))
    return Turn(text=f"Answer to: {_text_of(last)[:80]}")


class CountingServer(ScriptedServer):
    """The server answering by `reply`, counting the requests.

    As the Responses API, it keeps the conversations it answered: a request continuing
    one (`previous_response_id`) must name a response it gave, and must not send again
    an item the server holds (the API refuses both with 400).
    """

    def __init__(self) -> None:
        self.count = 0
        self._count_lock = threading.Lock()
        self._responses: set[str] = set()
        self._held: set[str] = set()  # the ids of the items of the conversations kept
        super().__init__(self._counted)

    def _counted(self, body: dict[str, Any]) -> Turn:
        with self._count_lock:
            self.count += 1
            if not self._continues_what_it_holds(body):
                return Turn(status=400)
            turn = reply(body)
            if "input" in body and turn.status == 200:
                self._responses.add(RESPONSE_ID)
                output = responses_output(turn)
                self._held.update(
                    str(item["id"]) for item in [*_input_items(body), *output] if "id" in item
                )
            return turn

    def _continues_what_it_holds(self, body: dict[str, Any]) -> bool:
        previous = body.get("previous_response_id")
        if previous is None:
            return True
        resent = [item for item in _input_items(body) if item.get("id") in self._held]
        return previous in self._responses and not resent


# --- running and comparing ----------------------------------------------------------------


@dataclass
class Run:
    """One run of an example."""

    status: int
    requests: int
    output: str
    errors: str


@dataclass
class Verdict:
    """An example's two runs, compared."""

    example: str
    original: Run
    ported: Run

    @property
    def same(self) -> bool:
        return (
            self.original.status == self.ported.status
            and self.original.requests == self.ported.requests
            and self.original.output == self.ported.output
        )

    def differences(self) -> Iterator[str]:
        original, ported = self.original, self.ported
        if original.status != ported.status:
            yield f"exit status {original.status} -> {ported.status}"
        if original.requests != ported.requests:
            yield f"model requests {original.requests} -> {ported.requests}"
        if original.output != ported.output:
            diff = difflib.unified_diff(
                original.output.splitlines(), ported.output.splitlines(), lineterm="", n=1
            )
            yield "output:\n" + "\n".join(list(diff)[2:40])
        if ported.status and ported.errors:
            yield "ported stderr:\n" + "\n".join(ported.errors.splitlines()[-12:])


def mask(text: str) -> str:
    """The text with the ids that differ from run to run masked."""
    for pattern, replacement in _MASKS:
        text = pattern.sub(replacement, text)
    return text


_BASE_ENV = {
    "OPENAI_API_KEY": "sk-local-test",
    "OPENAI_AGENTS_DISABLE_TRACING": "1",
    "EXAMPLES_INTERACTIVE_MODE": "auto",
    "PYTHONHASHSEED": "0",
    "NO_COLOR": "1",
    "COLUMNS": "400",  # rich wraps at the width, splitting ids the masks look for
}
"""Every run's environment, besides its home, path and server."""

_RUN_IMPORTS = ("openai.resources.responses", "openai.resources.chat", "griffe")
"""What most examples import lazily as they run: 0.1 to 0.2 s of CPU each, imported once."""

_idle_forks: dict[str, list[Forks]] = {}
_forks_lock = threading.Lock()


@contextlib.contextmanager
def _forks(root: Path) -> Generator[Forks]:
    """A fork server that imported what `root`'s examples import, kept for the next run.

    The originals import openai-agents, the ports tooluse; both import `openai`, and once
    they run, its Responses and Chat Completions resources (and tooluse, griffe).
    """
    package = "tooluse" if root.name.startswith("ported-") else "agents"
    with _forks_lock:
        idle = _idle_forks.setdefault(package, [])
        forks = idle.pop() if idle else None
    if forks is None:
        env = {"PATH": os.environ.get("PATH", ""), "HOME": tempfile.gettempdir(), **_BASE_ENV}
        forks = Forks(["openai", package, *_RUN_IMPORTS], env)
        atexit.register(forks.close)
    try:
        yield forks
    finally:
        with _forks_lock:
            _idle_forks[package].append(forks)


def run_example(root: Path, example: str) -> Run:
    """Run one example (a path under `root/examples`) against a fresh server.

    Each runs in a process of its own, forked from one that imported `openai` and the
    package the examples import (`tests/example_forks.py`): the same as `python -m`
    in a fresh interpreter with `seeded_path()` on the path, for a fraction of the CPU.
    """
    server = CountingServer()
    server.start()
    module = "examples." + example.removesuffix(".py").replace("/", ".")
    with (
        tempfile.TemporaryDirectory() as home,
        tempfile.TemporaryDirectory() as streams_dir,
        _forks(root) as forks,
    ):
        streams = Path(streams_dir)
        (streams / "stdin").write_text(STDIN)
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": home,
            "PYTHONPATH": os.pathsep.join([str(root), str(seeded_path())]),
            "OPENAI_BASE_URL": server.base_url,
            **_BASE_ENV,
        }
        request = Request(
            module=module,
            cwd=home,
            env=env,
            path=[str(root), str(seeded_path())],
            **{name: str(streams / name) for name in ("stdin", "stdout", "stderr")},
        )
        try:
            status = forks.run(request, TIMEOUT)
        finally:
            server.stop()
        out = (streams / "stdout").read_text(errors="backslashreplace")
        err = (streams / "stderr").read_text(errors="backslashreplace")
        if status == -9:
            err = "timed out"
    return Run(status, server.count, mask(out), err)


def compare(example: str, root: Path | None = None, ported: Path | None = None) -> Verdict:
    """Run an example as it is and ported, and compare the runs."""
    root = root or sdist()
    ported = ported or ported_tree(root)
    return Verdict(example, run_example(root, example), run_example(ported, example))


def summary(run: Run) -> dict[str, int | str]:
    """What the record keeps of a run: its exit status, its requests, its output's digest."""
    digest = hashlib.sha256(run.output.encode()).hexdigest()
    return {"status": run.status, "requests": run.requests, "output_sha256": digest}


def recorded() -> dict[str, dict[str, int | str]]:
    """The record of the original examples' runs, by example."""
    return json.loads(EXPECTED.read_text())


def record(examples: Sequence[str]) -> None:
    """Run the original examples and write what they did to `EXPECTED`."""
    root = sdist()
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(functools.partial(run_example, root), examples))
    found = {example: summary(run) for example, run in zip(examples, runs, strict=True)}
    if EXPECTED.exists():  # recording some examples keeps the others' records
        kept = {e: r for e, r in recorded().items() if e in EXAMPLES and e not in found}
        found = {**kept, **found}
    EXPECTED.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")


def check_ported(example: str, root: Path, ported: Path) -> Verdict | None:
    """None if the ported example does what the original's record says; else both runs."""
    run = run_example(ported, example)
    if summary(run) == recorded()[example]:
        return None
    return Verdict(example, run_example(root, example), run)


# --- type checking ----------------------------------------------------------------------


def type_errors(tree: Path, examples: Sequence[str]) -> dict[tuple[str, int, str], str]:
    """pyright's errors (standard mode) in `examples` of `tree` (the sdist, or its port).

    Keyed by example, line and rule (a port changes only import lines, so an error the
    original has keeps its line), each with its message.
    """
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "pyrightconfig.json"
        version = f"{sys.version_info.major}.{sys.version_info.minor}"
        settings = {"typeCheckingMode": "standard", "pythonVersion": version}
        config.write_text(json.dumps({**settings, "extraPaths": [str(tree)]}))
        files = [str(tree / "examples" / example) for example in examples]
        command = [sys.executable, "-m", "pyright", "--pythonpath", sys.executable]
        done = subprocess.run(
            [*command, "-p", str(config), "--outputjson", *files],
            cwd=tree,
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"pyright printed no report:\n{done.stdout}\n{done.stderr}") from None
    prefix = str(tree / "examples") + os.sep
    return {
        (
            diagnostic["file"].removeprefix(prefix),
            diagnostic["range"]["start"]["line"] + 1,
            diagnostic.get("rule", ""),
        ): diagnostic["message"]
        for diagnostic in report["generalDiagnostics"]
        if diagnostic["severity"] == "error"
    }


def new_type_errors(examples: Sequence[str]) -> list[str]:
    """The errors pyright finds in the ported examples that it does not find in the originals.

    Only the originals of ports with errors are checked: pyright does not finish
    `memory/advanced_sqlite_session_example.py` against openai-agents (whose port has none).
    """
    root = sdist()
    after = type_errors(ported_tree(root), examples)
    suspects = sorted({example for example, _, _ in after})
    before = type_errors(root, suspects) if suspects else {}
    return [
        f"{example}:{line} [{rule}] {message}"
        for (example, line, rule), message in sorted(after.items())
        if (example, line, rule) not in before
    ]


def main(argv: Sequence[str]) -> int:
    verbose = "-v" in argv
    chosen = [a for a in argv if a not in ("-v", "--record", "--typecheck")] or list(EXAMPLES)
    if "--typecheck" in argv:
        errors = new_type_errors(chosen)
        print("\n".join(errors))
        print(f"{len(errors)} pyright errors (standard mode) in the ported examples only")
        return 1 if errors else 0
    if "--record" in argv:
        record(chosen)
        print(f"recorded {len(chosen)} examples' runs in {EXPECTED.name}")
        return 0
    root = sdist()
    ported = ported_tree(root)
    with ThreadPoolExecutor(max_workers=2) as pool:
        verdicts = list(pool.map(functools.partial(compare, root=root, ported=ported), chosen))
    for verdict in verdicts:
        print(f"{'same' if verdict.same else 'DIFF'}  {verdict.example}")
        if verbose and not verdict.same:
            for difference in verdict.differences():
                print("    " + difference.replace("\n", "\n    "))
    same = sum(verdict.same for verdict in verdicts)
    print(f"{same} of {len(verdicts)} examples behave the same after an import-only port")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
