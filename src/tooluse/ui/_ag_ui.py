"""The AG-UI endpoint: `RunAgentInput` in, AG-UI events out as server-sent events.

A request runs the agent on its thread (`_threads.py`) and streams what the run does
(`_ag_ui_events.py`). A call that needs approval ends the run with AG-UI 1.0's
interrupt outcome; the client's next request answers it in `resume`, one entry per
interrupt: `status="resolved"` with `payload={"approved": true}` (or false, with an
optional `"message"` for the model), or `status="cancelled"` to reject.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator
from typing import Any, cast

from ag_ui.core import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    ResumeEntry,
    RunAgentInput,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..agents._agent import Agent
from ..run._config import RunConfig
from ._ag_ui_events import AGUIEvents
from ._decisions import Decision, DecisionRefused
from ._history import ClientMessage, HistoryRefused
from ._runs import RunRequest, start_run
from ._sse import run_events, sse_response, utf8_string
from ._threads import SessionFactory, ThreadBusy, Threads

__all__ = ["ag_ui_app", "ag_ui_stream", "run_request"]


def ag_ui_app(
    agent: Agent[Any],
    *,
    sessions: SessionFactory | None = None,
    run_config: RunConfig | None = None,
    state_snapshots: bool = False,
    path: str = "/",
) -> Starlette:
    """An ASGI app that runs `agent` for AG-UI clients (CopilotKit, `@ag-ui/client`).

    Args:
        agent: The agent to run.
        sessions: Makes the session of a thread id, to keep threads in a database;
            None keeps them in memory (the last 1,000 threads).
        run_config: Settings for every run.
        state_snapshots: Send a `STATE_SNAPSHOT` at the end of each run: the agent
            answering, the usage, the calls waiting for approval.
        path: Where the endpoint takes `POST` requests.

    Returns:
        The Starlette app.
    """
    threads = Threads(sessions)

    async def endpoint(request: Request) -> Response:
        try:
            run_input = RunAgentInput.model_validate_json(await request.body())
        except ValidationError as error:
            return JSONResponse(
                {"error": f"the body is not an AG-UI RunAgentInput: {error.errors()[:3]}"},
                status_code=422,
            )
        return sse_response(
            ag_ui_stream(
                agent, threads, run_input, run_config=run_config, state_snapshots=state_snapshots
            )
        )

    return Starlette(routes=[Route(path, endpoint, methods=["POST"])])


async def ag_ui_stream(
    agent: Agent[Any],
    threads: Threads,
    run_input: RunAgentInput,
    *,
    run_config: RunConfig | None = None,
    state_snapshots: bool = False,
) -> AsyncGenerator[str]:
    """The AG-UI events of one request, as SSE text: the run's, or a run error saying why not.

    Args:
        agent: The agent to run.
        threads: The app's threads.
        run_input: The client's request.
        run_config: Settings for the run.
        state_snapshots: Send a `STATE_SNAPSHOT` at the end.

    Yields:
        The events' text, one piece per run event that makes any: `RUN_STARTED`
        first, `RUN_FINISHED` or `RUN_ERROR` last.
    """
    translate = AGUIEvents(run_input.thread_id, run_input.run_id, state_snapshots=state_snapshots)
    yield translate.started()
    try:
        with threads.hold(run_input.thread_id) as thread:
            result, shown = await start_run(agent, thread, run_request(run_input), run_config)
            translate.shown.update(shown)
            async with contextlib.aclosing(run_events(result)) as stream_events:
                events_of = translate.translate  # looked up once: it runs per event
                async for stream_event in stream_events:
                    # most events are a piece of the open text message: written without a call
                    if (
                        stream_event.type == "text_delta_event"
                        and (prefix := translate.open_text) is not None
                    ):
                        yield f"{prefix}{utf8_string(stream_event.delta)}}}\n\n"
                    elif events := events_of(stream_event):
                        yield events
            thread.keep(result)
        yield translate.finished(result)
    except (HistoryRefused, DecisionRefused) as refused:
        yield translate.failed(str(refused), refused.code)
    except ThreadBusy:
        message = f"thread {run_input.thread_id!r} has a run going on: wait for it to end"
        yield translate.failed(message, "thread_busy")
    except Exception as error:  # the client is told; the run's error names what to fix
        yield translate.failed(f"{type(error).__name__}: {error}", type(error).__name__)


def run_request(run_input: RunAgentInput) -> RunRequest:
    """What an AG-UI request asks for.

    Args:
        run_input: The client's request.

    Returns:
        Its messages, and its decisions when it carries `resume` entries.
    """
    messages = [_client_message(message) for message in run_input.messages]
    if not run_input.resume:
        return RunRequest(messages)
    return RunRequest(messages, [_decision(entry) for entry in run_input.resume])


def _client_message(message: Message) -> ClientMessage:
    if isinstance(message, UserMessage):
        return ClientMessage("user", _text(message.content))
    if isinstance(message, AssistantMessage):
        calls = [call.id for call in message.tool_calls or []]
        return ClientMessage("assistant", _text(message.content), call_ids=calls)
    if isinstance(message, ToolMessage):
        return ClientMessage("tool", _text(message.content), call_id=message.tool_call_id)
    if isinstance(message, SystemMessage):
        return ClientMessage("system", _text(message.content))
    if isinstance(message, DeveloperMessage):
        return ClientMessage("developer", _text(message.content))
    return ClientMessage("other")


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts: list[Any] = list(content)
    return "".join(str(getattr(part, "text", "")) for part in parts)


def _decision(entry: ResumeEntry) -> Decision:
    raw: Any = entry.payload
    payload = cast(dict[str, Any], raw) if isinstance(raw, dict) else {}
    approved = entry.status == "resolved" and payload.get("approved") is True
    message = payload.get("message")
    return Decision(entry.interrupt_id, approved, message if isinstance(message, str) else None)
