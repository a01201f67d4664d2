"""`tooluse chat`: try an agent in a terminal.

One conversation, read line by line with `input()` (readline editing when the
platform has it) and written to stdout as it happens: the agent's text as it
streams, `[tool] name(args)` when the model calls a tool, `[tool] name -> output`
when it answers, `[handoff] a -> b` when another agent takes over. A call that
needs approval is asked about at the prompt, and the run resumes with the answers.

The history is kept in memory (each run gets `result.to_input_list()` of the last),
or, with `--session ID`, in a `SQLiteSession` in `--db FILE`, where the next
`tooluse chat` finds it; a run left paused there is offered for approval first.

Without `OPENAI_API_KEY`, an agent whose model is given by name (or left to the
default) runs on `tooluse.testing.TestModel`, as the README's first example does;
an agent with a `Model` object of its own keeps it, and so does one named for another
provider (`"anthropic/..."`, `"gemini/..."`), whose SDK reads its own key: the first
line names that key (`ANTHROPIC_API_KEY`, `GEMINI_API_KEY`), not OpenAI's.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Coroutine, Generator, Sequence
from types import FrameType, ModuleType
from typing import Any, TextIO, TypeVar, cast

from ..agents._agent import Agent
from ..agents._agent_tool import tool_agent
from ..agents._handoffs import Handoff
from ..core._context_record import CONTEXT_MARK
from ..core._items import Item, is_function_call, message_text
from ..core._state import RunState, ToolApproval
from ..exceptions import UserError
from ..run._config import RunConfig
from ..run._result import RunResult, RunResultStreaming
from ..run._runner import Runner
from ..run._stream_events import RunStreamEvent
from ..sessions import SQLiteSession
from ..testing._scripted import TestModel
from ..tools._function_tool import FunctionTool
from ..tools._shell import shell_output_text
from ._loading import CliError, import_failed, import_location, module_tools, split_target

__all__ = [
    "DEFAULT_DB",
    "find_agent",
    "history_line",
    "offline_run_config",
    "run_chat",
]

DEFAULT_DB = "tooluse_sessions.db"
"""The database `--session` uses without `--db`, in the current directory."""

_TRIM = 200
_HELP = "/history shows the conversation, /reset starts it over, /exit (or Ctrl-D) quits"
_T = TypeVar("_T")


def find_agent(module: ModuleType, location: str, name: str) -> Agent[object]:
    """The agent a target names: by agent or attribute name, else the module's only one.

    Without a name, agents that another agent of the module hands off to or uses
    as a tool are left out: a module with a triage agent and its specialists gives
    the triage agent, a manager and its agents as tools the manager. A module of
    tools and no agent gives an agent named after the module, holding its tools.

    Args:
        module: The imported module.
        location: How the user named the module, for messages.
        name: An agent's name or the attribute holding it, or "" to pick.

    Returns:
        The agent.

    Raises:
        CliError: If the module has neither agent nor tool, no agent by that name, or
            several to pick from.
    """
    agents = _module_agents(module)
    found = ", ".join(repr(agent.name) for agent in agents) or "none"
    if name:
        named = [agent for agent in agents if agent.name == name] or [
            agent for attr, agent in vars(module).items() if attr == name and agent in agents
        ]
        if not named:
            raise CliError(
                f"{location}: no agent named '{name}'; agents found: {found}; "
                f"name one as {location}:NAME"
            )
        return named[0]
    if not agents:
        return _agent_of_tools(module, location)
    targets = {id(target) for agent in agents for target in _agents_led_by(agent)}
    entries = [agent for agent in agents if id(agent) not in targets] or agents
    if len(entries) > 1:
        raise CliError(
            f"{location}: holds several agents ({found}); say which to chat with as "
            f"{location}:{_attribute_of(module, entries[0])}"
        )
    return entries[0]


def _agent_of_tools(module: ModuleType, location: str) -> Agent[object]:
    """For a module of tools and no agent: an agent holding its tools, to try them."""
    tools = module_tools(module)
    if not tools:
        raise CliError(
            f"{location}: defines no Agent and no tool at module level; assign an agent to a "
            "module variable (agent = Agent(...)), or name the module that holds it"
        )
    name = module.__name__.rpartition(".")[2]
    return Agent(name, instructions="Answer with the tools.", tools=list(tools))


def _module_agents(module: ModuleType) -> list[Agent[object]]:
    agents: dict[int, Agent[object]] = {}
    for value in vars(module).values():
        if isinstance(value, Agent):
            agents.setdefault(id(value), value)  # pyright: ignore[reportUnknownArgumentType]
    return list(agents.values())


def _attribute_of(module: ModuleType, agent: Agent[object]) -> str:
    return next(attr for attr, value in vars(module).items() if value is agent)


def _handoff_agents(agent: Agent[object]) -> list[Agent[object]]:
    return [target.agent if isinstance(target, Handoff) else target for target in agent.handoffs]


def _agents_led_by(agent: Agent[object]) -> list[object]:
    """The agents `agent` hands off to or asks as tools: none of them is where a chat starts."""
    as_tools = [tool_agent(tool) for tool in agent.tools if isinstance(tool, FunctionTool)]
    return [*_handoff_agents(agent), *(each for each in as_tools if each is not None)]


def offline_run_config(agent: Agent[object], environ: dict[str, str] | None = None) -> RunConfig:
    """The run settings for a chat: `TestModel` for models by name when there is no key.

    Args:
        agent: The starting agent; the agents it hands off to count too.
        environ: The environment to look for `OPENAI_API_KEY` in; `os.environ` by default.

    Returns:
        A `RunConfig` whose `model` is a `TestModel` when `OPENAI_API_KEY` is unset and
        an agent of the chat names its model (or uses the default one), else an empty one.
    """
    if (os.environ if environ is None else environ).get("OPENAI_API_KEY"):
        return RunConfig()
    if any(_needs_openai_key(each) for each in _reachable(agent)):
        return RunConfig(model=TestModel())
    return RunConfig()


def _needs_openai_key(agent: Agent[object]) -> bool:
    """Whether the agent's model is OpenAI's by name: the default, a bare name, `openai/`."""
    model = agent.model
    if isinstance(model, str):
        return "/" not in model or model.startswith("openai/")
    return model is None


def _reachable(agent: Agent[object]) -> list[Agent[object]]:
    seen: dict[int, Agent[object]] = {}
    waiting = [agent]
    while waiting:
        current = waiting.pop()
        if id(current) not in seen:
            seen[id(current)] = current
            waiting.extend(_handoff_agents(current))
    return list(seen.values())


_PROVIDER_KEYS = {
    "anthropic": ("ANTHROPIC_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "gcp.gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),  # GeminiModel's provider_name
}
"""The environment variables the SDK of a provider other than OpenAI reads its key from, by
a model name's prefix or a model's `provider_name`."""


def _model_line(agent: Agent[object], config: RunConfig) -> str:
    if isinstance(config.model or agent.model, TestModel):
        return "No OPENAI_API_KEY: using tooluse.testing.TestModel, which calls each tool once."
    keys = _PROVIDER_KEYS.get(_provider(agent.model) or "openai", ("OPENAI_API_KEY",))
    name = _model_name(agent)
    found = next((key for key in keys if os.environ.get(key)), None)
    if found is not None:
        return f"Using the agent's model: {name} ({found} is set)."
    if keys[0] == "OPENAI_API_KEY":
        return f"No OPENAI_API_KEY: using the agent's own model, {name}."
    return (
        f"No {' or '.join(keys)}: the agent's model, {name}, is refused without a key "
        f"(export {keys[0]}=..., or give the model a client with its key)."
    )


def _provider(model: object) -> str | None:
    """The provider a model or model name belongs to: a name's prefix, a model's own."""
    if isinstance(model, str):
        return model.split("/", 1)[0] if "/" in model else None
    return getattr(type(model), "provider_name", None)


def _model_name(agent: Agent[object]) -> str:
    model = agent.model
    if model is None:
        return "the default"
    return model if isinstance(model, str) else type(model).__name__


def run_chat(
    target: str,
    *,
    session_id: str | None = None,
    db: str | None = None,
    read: Callable[[str], str] = input,
    out: TextIO | None = None,
) -> int:
    """Chat with the agent a target names until `/exit` or end of input.

    Args:
        target: A `.py` file or module, optionally `:NAME` of one agent.
        session_id: Keep the conversation in this session of `db`; None keeps it in memory.
        db: The SQLite file of the session; `DEFAULT_DB` when None.
        read: Reads a line after showing a prompt (`input`, or a test's script).
        out: Where the conversation is written; `sys.stdout` when None.

    Returns:
        0 once the user quits.

    Raises:
        CliError: If the target cannot be imported or names no single agent.
    """
    location, name = split_target(target)
    try:
        agent = find_agent(import_location(location), location, name)
    except UserError as error:
        raise import_failed(location, error) from None
    session = SQLiteSession(session_id, db or DEFAULT_DB) if session_id is not None else None
    chat = _Chat(agent, session, read, out or sys.stdout)
    try:
        chat.loop()
    finally:
        chat.close()
    return 0


class _Chat:
    """One terminal conversation: the loop, the runs, and what is shown of them."""

    def __init__(
        self,
        agent: Agent[object],
        session: SQLiteSession | None,
        read: Callable[[str], str],
        out: TextIO,
    ) -> None:
        self.starting_agent = self.agent = agent
        self.session = session
        self.history: list[Item] = []
        self.read = read
        self.out = out
        self.config = offline_run_config(agent)
        self.loop_ = asyncio.new_event_loop()
        self.names: dict[str, str] = {}  # call id -> tool name, for outputs
        self.streamed = False  # whether the message being shown came as deltas

    # -- the loop ---------------------------------------------------------------------

    def loop(self) -> None:
        """Read lines and answer them until `/exit` or end of input."""
        self.say(_model_line(self.agent, self.config))
        where = ""
        if self.session is not None:
            where = f" (session {self.session.session_id!r} in {self.session.db_path})"
        self.say(f"Chatting with {self.agent.name!r}{where}. {_HELP}.")
        if self.session is not None:
            self._offer_paused()
        while True:
            try:
                line = self.read("you> ").strip()
            except EOFError:
                self.say("")
                return
            except KeyboardInterrupt:
                self.say("\n(Ctrl-D or /exit quits)")
                continue
            if line == "/exit":
                return
            self._answer(line)

    def _answer(self, line: str) -> None:
        if not line:
            return
        if line == "/history":
            self._show_history()
        elif line == "/reset":
            self._reset()
        elif line.startswith("/"):
            self.say(f"unknown command {line.split(maxsplit=1)[0]}: {_HELP}")
        elif self.session is None or self._offer_paused():
            self._exchange(line)

    def _exchange(self, line: str) -> None:
        """Send a message; ask about calls waiting for approval until the run answers."""
        if self.session is not None:
            result = self._run(line)
        else:
            result = self._run([*self.history, {"role": "user", "content": line}])
        self._settle(result)

    def _settle(self, result: RunResult | None) -> None:
        while result is not None and result.interruptions:
            state = self._decide(result.to_state(), result.interruptions)
            result = self._run(state) if state is not None else None
        if result is not None:
            self.agent = result.last_agent
            if self.session is None:
                self.history = result.to_input_list()

    def _offer_paused(self) -> bool:
        """Resume a run the session holds paused; whether the session is free now."""
        assert self.session is not None
        state = self._call(self.session.get_paused_run())
        if state is None:
            return True
        self.say(f"Session {self.session.session_id!r} holds a run waiting for approval.")
        self.names.update(_call_names(state.conversation()))
        decided = self._decide(state, state.interruptions)
        if decided is None:
            return False
        self._settle(self._run(decided))
        return True

    def _decide(self, state: RunState, calls: Sequence[ToolApproval]) -> RunState | None:
        """Ask about each waiting call; None if the user left the prompt."""
        for call in calls:
            try:
                answer = self.read(f"approve {call.tool_name}({call.arguments})? [y/N] ")
            except (EOFError, KeyboardInterrupt):
                kept = " (it stays paused in the session)" if self.session else ""
                self.say(f"\n[cancelled] the run waits for approval no more{kept}")
                return None
            if answer.strip().lower() in {"y", "yes"}:
                state.approve(call)
            else:
                state.reject(call)
        return state

    def _reset(self) -> None:
        self.history = []
        self.agent = self.starting_agent
        if self.session is not None:
            self._call(self.session.clear_session())
        self.say("[reset] the conversation starts over")

    def _show_history(self) -> None:
        items = self.history if self.session is None else self._call(self.session.get_items())
        names = _call_names(items)
        lines = [line for item in items if (line := history_line(item, names))]
        for line in lines or ["(no messages yet)"]:
            self.say(line)

    # -- one run ----------------------------------------------------------------------

    def _run(self, run_input: str | list[Item] | RunState) -> RunResult | None:
        """Run the agent, showing its events; None if it failed or Ctrl-C cancelled it."""
        try:
            return self._interruptible(self._stream(run_input))
        except KeyboardInterrupt:
            self._end_line()
            self.say("[cancelled]")
        except Exception as error:  # a chat shows a failed run, and goes on
            self._end_line()
            detail = " ".join(str(error).split())
            self.say(f"[error] {type(error).__name__}: {detail}")
        return None

    async def _stream(self, run_input: str | list[Item] | RunState) -> RunResult:
        result = Runner.run_streamed(
            self.agent, run_input, session=self.session, run_config=self.config
        )
        try:
            async for event in result.stream_events():
                self._show(event)
        except asyncio.CancelledError:
            result.cancel()
            await _drain(result)
            raise
        self._end_line()
        return result

    def _show(self, event: RunStreamEvent) -> None:
        if event.type == "text_delta_event":
            self._text(event.delta)
        elif event.type == "agent_updated_stream_event":
            if event.new_agent is not self.agent:
                self._end_line()
                self.say(f"[handoff] {self.agent.name} -> {event.new_agent.name}")
                self.agent = event.new_agent
        elif event.type == "run_item_stream_event":
            self._show_item(event.name, event.item)

    def _show_item(self, name: str, item: Item) -> None:
        if name == "message_output_created":
            if not self.streamed:
                self._text(message_text(item) or "")
            self._end_line()
        elif name == "tool_called" and is_function_call(item):
            self._end_line()
            self.names[item["call_id"]] = item["name"]
            self.say(f"[tool] {item['name']}({_trim(item['arguments'])})")
        elif name == "tool_called" and "call_id" in item:  # a computer's or a shell's call
            self.names[item["call_id"]] = _call_name(item) or "?"
        elif name == "tool_output":
            # a local shell's output names its call as `id`
            call_id = item.get("call_id", item.get("id"))
            self.say(f"[tool] {self.names.get(call_id, '?')} -> {_output(item)}")
        elif (line := _hosted_mcp_line(name, item)) is not None:
            self._end_line()
            self.say(line)

    def _text(self, text: str) -> None:
        if not text:
            return
        if not self.streamed:
            self.out.write(f"{self.agent.name}> ")
            self.streamed = True
        self.out.write(text)
        self.out.flush()

    def _end_line(self) -> None:
        if self.streamed:
            self.say("")
            self.streamed = False

    # -- plumbing ---------------------------------------------------------------------

    def say(self, line: str) -> None:
        """Write a line and flush it, so that the terminal shows it at once.

        Args:
            line: The line, without its newline.
        """
        self.out.write(f"{line}\n")
        self.out.flush()

    def _call(self, coroutine: Coroutine[Any, Any, _T]) -> _T:
        return self.loop_.run_until_complete(coroutine)

    def _interruptible(self, coroutine: Coroutine[Any, Any, _T]) -> _T:
        """Run a coroutine; Ctrl-C cancels it and raises KeyboardInterrupt once it stops."""
        task = self.loop_.create_task(coroutine)
        interrupted: list[bool] = []

        def interrupt(signum: int, frame: FrameType | None) -> None:
            interrupted.append(True)
            self.loop_.call_soon_threadsafe(task.cancel)

        with _sigint(interrupt):
            try:
                return self.loop_.run_until_complete(task)
            except asyncio.CancelledError:
                if interrupted:
                    raise KeyboardInterrupt from None
                raise

    def close(self) -> None:
        """Close the session and the event loop."""
        if self.session is not None:
            self.session.close()
        self.loop_.run_until_complete(self.loop_.shutdown_default_executor())
        self.loop_.close()


@contextlib.contextmanager
def _sigint(handler: Callable[[int, FrameType | None], None]) -> Generator[None]:
    """Handle Ctrl-C with `handler` inside the block (in the main thread; elsewhere, not)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


async def _drain(result: RunResultStreaming) -> None:
    """Wait for a cancelled run to stop: its events end once it has."""
    with contextlib.suppress(Exception):
        async for _ in result.stream_events():
            pass


def _trim(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _TRIM else f"{text[: _TRIM - 1]}…"


def _hosted_mcp_line(name: str, item: Item) -> str | None:
    """What a hosted MCP server's item says in the chat (None for any other item)."""
    server = item.get("server_label", "?")
    kind = item.get("type")
    if name == "mcp_list_tools":
        return f"[mcp] {server} lists {len(item.get('tools') or [])} tools"
    if name == "mcp_approval_requested" or kind == "mcp_call":
        call = f"{server}.{item.get('name')}({_trim(str(item.get('arguments') or ''))})"
        if kind == "mcp_call":
            error = item.get("error")
            return f"[mcp] {call} -> {_trim(str(error or item.get('output') or ''))}"
        return f"[mcp] {server} asks to run {call}"
    if name == "mcp_approval_response":
        return f"[mcp] {'approved' if item.get('approve') else 'rejected'}"
    return None


def _output(item: Item) -> str:
    output: Any = item.get("output")
    kind = item.get("type")
    if kind == "shell_call_output":  # entries of stdout, stderr and outcome
        return _trim(shell_output_text(output))
    if kind == "computer_call_output":  # a screenshot, as a data URL
        return "[screenshot]"
    if isinstance(output, str):
        return _trim(output)
    parts = cast(list[Any], output) if isinstance(output, list) else []
    text = " ".join(str(part.get("text", f"[{part.get('type')}]")) for part in parts)
    return _trim(text)


_PROVIDER_CALLS = frozenset({"computer_call", "local_shell_call", "shell_call"})
_OUTPUTS = frozenset(
    {"function_call_output", "computer_call_output", "local_shell_call_output", "shell_call_output"}
)


def _call_name(item: Item) -> str | None:
    """What the chat calls a call's tool: a function's name, or `shell`, `computer`, ..."""
    kind = item.get("type")
    if kind == "function_call":
        return str(item["name"])
    return str(kind).removesuffix("_call") if kind in _PROVIDER_CALLS else None


def _call_names(items: list[Item]) -> dict[str, str]:
    return {
        item["call_id"]: name
        for item in items
        if "call_id" in item and (name := _call_name(item)) is not None
    }


def history_line(item: Item, names: dict[str, str]) -> str:
    """One item of the conversation as one line, as `/history` shows it.

    Args:
        item: A conversation item.
        names: The tool name of each call id, to say whose output an output is.

    Returns:
        The line, trimmed; "" for what is not shown (reasoning).
    """
    kind = item.get("type", "message")
    if kind == CONTEXT_MARK:
        return _mark_line(item, names)
    if kind == "function_call":
        return f"[tool] {item['name']}({_trim(item['arguments'])})"
    if kind in _OUTPUTS:  # a local shell's output names its call as `id`
        return f"[tool] {names.get(item.get('call_id', item.get('id')), '?')} -> {_output(item)}"
    if item.get("role") == "user":
        return f"you: {_trim(_user_text(item.get('content')))}"
    text = message_text(item)
    if text is not None:
        return f"assistant: {_trim(text)}"
    return f"[{kind}]" if kind != "reasoning" else ""


def _mark_line(mark: Item, names: dict[str, str]) -> str:
    """Where the context policy changed what the model was sent of the lines above."""
    summary = mark.get("summary")
    if isinstance(summary, str):
        return f"[context] the model was sent a summary of the lines above: {_trim(summary)}"
    if "compacted" in mark:
        return "[context] the model was sent its provider's compaction of the lines above"
    trimmed = cast(dict[str, int], mark.get("trimmed") or {})
    tools = ", ".join(names.get(call_id, "?") for call_id in trimmed)
    return f"[context] the model was sent these outputs above trimmed: {tools}"


def _user_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = cast(list[Any], content) if isinstance(content, list) else []
    return " ".join(str(part.get("text", f"[{part.get('type')}]")) for part in parts)
