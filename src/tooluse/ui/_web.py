"""`tooluse web`'s app: the page (shipped in `static/`), its AG-UI endpoint, the agent's name.

Routes: `/` the page, `/static/*` its script and style, `POST /api/ag-ui` the agent
over AG-UI (the same endpoint as `ag_ui_app`, with usage events the timeline draws),
`GET /api/info` the agent's name and what model answers. All behind `AccessGuard`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ag_ui.core import RunAgentInput
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

from ..agents._agent import Agent
from ..core._http_access import LOOPBACK, AccessGuard, bare_host
from ..run._config import RunConfig
from ._ag_ui import ag_ui_stream
from ._sse import sse_response
from ._threads import SessionFactory, Threads

__all__ = ["STATIC", "web_app"]

STATIC = Path(__file__).parent / "static"
"""The page's files: `index.html`, `app.js`, `app.css`."""


def web_app(
    agent: Agent[Any],
    *,
    run_config: RunConfig | None = None,
    sessions: SessionFactory | None = None,
    model_line: str = "",
    hosts: Iterable[str] = LOOPBACK,
    token: str | None = None,
) -> ASGIApp:
    """The app `tooluse web` serves: the page and the agent behind it.

    Args:
        agent: The agent to chat with.
        run_config: Settings for every run.
        sessions: Makes the session of a thread id; None keeps threads in memory.
        model_line: What the page says of the model answering.
        hosts: The host names allowed in `Host` and `Origin`.
        token: The bearer token API requests must carry; None for none.

    Returns:
        The ASGI app.
    """
    threads = Threads(sessions)

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def info(request: Request) -> Response:
        return JSONResponse({"agent": agent.name, "model": model_line})

    async def ag_ui(request: Request) -> Response:
        try:
            run_input = RunAgentInput.model_validate_json(await request.body())
        except ValidationError as error:
            return JSONResponse(
                {"error": f"the body is not an AG-UI RunAgentInput: {error.errors()[:3]}"},
                status_code=422,
            )
        return sse_response(ag_ui_stream(agent, threads, run_input, run_config=run_config))

    app = Starlette(
        routes=[
            Route("/", page),
            Route("/api/info", info),
            Route("/api/ag-ui", ag_ui, methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]
    )
    return AccessGuard(
        app,
        hosts=frozenset(bare_host(host) for host in hosts),
        token=token,
        open_paths=["/", "/static/app.js", "/static/app.css"],
        token_hint=": open the address with #token=TOKEN",
    )
