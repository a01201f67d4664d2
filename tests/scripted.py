"""A scripted model that plays whole output items (local shell calls, wrappers, ...) and
records every request it receives as plain JSON, for tests that compare runs."""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator
from typing import Any

from tooluse import FunctionTool, TResponseInputItem, Usage
from tooluse.models import (
    Model,
    ModelRequest,
    ModelResponse,
    ResponseDone,
    StreamDelta,
    StreamEvent,
)

Item = TResponseInputItem


def text(content: str) -> Item:
    return {
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": content, "annotations": []}],
    }


def call(call_id: str, name: str, arguments: dict[str, Any] | str | None = None) -> Item:
    args = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": args}


def parallel(call_id: str, *uses: tuple[str, dict[str, Any]]) -> Item:
    payload = {"tool_uses": [{"recipient_name": n, "parameters": p} for n, p in uses]}
    return call(call_id, "multi_tool_use.parallel", payload)


def shell(call_id: str, command: str) -> Item:
    return {
        "type": "local_shell_call",
        "id": f"ls_{call_id}",
        "call_id": call_id,
        "status": "completed",
        "action": {"type": "exec", "command": [command], "env": {}},
    }


def outputs(request: dict[str, Any]) -> dict[str, str]:
    """The function call outputs a recorded request carried, by call id."""
    return {
        item["call_id"]: item["output"]
        for item in request["input"]
        if item.get("type") == "function_call_output"
    }


class ScriptModel(Model):
    """Answers each request with the next scripted output; records the requests."""

    def __init__(self, *turns: list[Item]) -> None:
        self.turns = [copy.deepcopy(turn) for turn in turns]
        self.requests: list[dict[str, Any]] = []

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(
            json.loads(
                json.dumps(
                    {
                        "instructions": request.instructions,
                        "input": request.input,
                        "tools": [
                            t.name if isinstance(t, FunctionTool) else type(t).__name__
                            for t in request.tools
                        ],
                        "tool_choice": request.settings.tool_choice,
                    }
                )
            )
        )
        output = self.turns.pop(0) if self.turns else [text("(no more turns scripted)")]
        number = len(self.requests)
        return ModelResponse(output, Usage(requests=1, input_tokens=number), f"resp_{number}")

    async def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        response = await self.get_response(request)
        yield StreamDelta(response)
        yield ResponseDone(response)
