"""The Vercel AI SDK endpoint: `useChat`'s request in, the UI message stream out.

`useChat` posts `{"id": <chat id>, "messages": [UIMessage, ...]}`; the chat id is the
thread. A call that needs approval ends the stream with a `tool-approval-request`
part; the client answers with `addToolApprovalResponse`, which sends the messages
again with the tool part in state `approval-responded`: those answers resume the
paused run the server keeps.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncGenerator
from typing import Any, cast

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..agents._agent import Agent
from ..run._config import RunConfig
from ._decisions import Decision, DecisionRefused
from ._history import ClientMessage, HistoryRefused
from ._runs import RunRequest, start_run
from ._sse import run_events, sse_response
from ._threads import SessionFactory, ThreadBusy, Threads
from ._vercel_events import DONE, HEADERS, VercelParts

__all__ = ["vercel_ai_app", "vercel_request", "vercel_stream"]


def vercel_ai_app(
    agent: Agent[Any],
    *,
    sessions: SessionFactory | None = None,
    run_config: RunConfig | None = None,
    path: str = "/",
) -> Starlette:
    """An ASGI app that runs `agent` for the Vercel AI SDK's `useChat`.

    Args:
        agent: The agent to run.
        sessions: Makes the session of a chat id, to keep chats in a database; None
            keeps them in memory (the last 1,000 chats).
        run_config: Settings for every run.
        path: Where the endpoint takes `POST` requests.

    Returns:
        The Starlette app.
    """
    threads = Threads(sessions)

    async def endpoint(request: Request) -> Response:
        try:
            body: Any = json.loads(await request.body())
            chat_id, run_request, continued = vercel_request(body)
        except (ValueError, TypeError, KeyError) as error:
            return JSONResponse(
                {"error": f"the body is not a useChat request ({{'id', 'messages'}}): {error}"},
                status_code=422,
            )
        parts = vercel_stream(agent, threads, chat_id, run_request, run_config, continued)
        return sse_response(parts, HEADERS)

    return Starlette(routes=[Route(path, endpoint, methods=["POST"])])


async def vercel_stream(
    agent: Agent[Any],
    threads: Threads,
    chat_id: str,
    request: RunRequest,
    run_config: RunConfig | None,
    continued: str | None,
) -> AsyncGenerator[str]:
    """The UI message stream of one request, as SSE text: the run's parts, or an error.

    Args:
        agent: The agent to run.
        threads: The app's threads.
        chat_id: The chat (the thread).
        request: What the client asked for.
        run_config: Settings for the run.
        continued: The assistant message the stream goes on in, if any.

    Yields:
        The parts' text, one piece per run event that makes any: `start` first,
        `finish` and `[DONE]` last.
    """
    rejected = {d.approval_id for d in request.decisions or [] if not d.approved}
    translate = VercelParts(rejected, continued)
    yield translate.started()
    try:
        with threads.hold(chat_id) as thread:
            result, shown = await start_run(agent, thread, request, run_config)
            translate.shown.update(shown)
            async with contextlib.aclosing(run_events(result)) as events:
                parts_of = translate.translate  # looked up once: it runs per event
                async for event in events:
                    if parts := parts_of(event):
                        yield parts
            thread.keep(result)
        yield translate.finished(result)
    except (HistoryRefused, DecisionRefused) as refused:
        yield translate.failed(f"{refused} ({refused.code})")
    except ThreadBusy:
        yield translate.failed(f"chat {chat_id!r} has a run going on: wait for it to end")
    except Exception as error:  # the client is told; the run's error names what to fix
        yield translate.failed(f"{type(error).__name__}: {error}")
    yield DONE


def vercel_request(body: Any) -> tuple[str, RunRequest, str | None]:
    """The chat id and what a `useChat` request asks for.

    Args:
        body: The request's JSON.

    Returns:
        The chat id (the thread), the request (its messages, and its decisions when its
        last message answers approval requests), and the id of that last message when
        it does (the stream goes on in it).

    Raises:
        ValueError: If the body has no chat id or messages list.
    """
    if not isinstance(body, dict):
        raise ValueError("the body is not a JSON object")
    fields = cast(dict[str, Any], body)
    if not isinstance(fields.get("messages"), list):
        raise ValueError("no 'messages' list")
    chat_id = fields.get("id")
    if not isinstance(chat_id, str) or not chat_id:
        raise ValueError("no chat 'id'")
    raw = cast(list[Any], fields["messages"])
    messages = [
        m
        for each in raw
        if isinstance(each, dict)
        for m in _client_messages(cast(dict[str, Any], each))
    ]
    last = cast(dict[str, Any], raw[-1]) if raw and isinstance(raw[-1], dict) else {}
    decisions = _decisions(last)
    if not decisions:
        return chat_id, RunRequest(messages), None
    continued = last.get("id")
    return (
        chat_id,
        RunRequest(messages, decisions),
        continued if isinstance(continued, str) else None,
    )


def _parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    parts = message.get("parts")
    if not isinstance(parts, list):
        return []
    return [cast(dict[str, Any], p) for p in cast(list[Any], parts) if isinstance(p, dict)]


def _is_tool(part: dict[str, Any]) -> bool:
    kind = str(part.get("type", ""))
    return kind.startswith("tool-") or kind == "dynamic-tool"


def _client_messages(message: dict[str, Any]) -> list[ClientMessage]:
    role = message.get("role")
    parts = _parts(message)
    text = "".join(str(p.get("text", "")) for p in parts if p.get("type") == "text")
    if role == "user":
        return [ClientMessage("user", text)]
    if role == "system":
        return [ClientMessage("system", text)]
    if role != "assistant":
        return [ClientMessage("other")]
    tools = [p for p in parts if _is_tool(p)]
    calls = [str(p.get("toolCallId", "")) for p in tools]
    outputs = [
        ClientMessage("tool", _output(p.get("output")), call_id=str(p.get("toolCallId", "")))
        for p in tools
        if p.get("state") == "output-available"
    ]
    return [ClientMessage("assistant", text, call_ids=calls), *outputs]


def _output(output: Any) -> str:
    return output if isinstance(output, str) else json.dumps(output)


def _decisions(message: dict[str, Any]) -> list[Decision]:
    if message.get("role") != "assistant":
        return []
    decisions: list[Decision] = []
    for part in _parts(message):
        approval = part.get("approval")
        if (
            _is_tool(part)
            and part.get("state") == "approval-responded"
            and isinstance(approval, dict)
        ):
            answer = cast(dict[str, Any], approval)
            reason = answer.get("reason")
            decisions.append(
                Decision(
                    str(answer.get("id", "")),
                    answer.get("approved") is True,
                    reason if isinstance(reason, str) else None,
                )
            )
    return decisions
