"""The Messages API's server-side compaction, as `tests/anthropic_server.py` speaks it.

A request with the beta `context_management` edit `compact_20260112` (and the
beta header `compact-2026-01-12`) is compacted when its input, counted by the
server from the last compaction block on, reaches the edit's trigger (150,000
input tokens unless given; at least 50,000): the answer starts with a
`compaction` block whose `content` summarises the messages, and whose
`signature` the server checks when the block comes back. With
`pause_after_compaction` the answer is that block alone (`stop_reason:
"compaction"`), and no scripted turn is used. The compaction's tokens are in
`usage.iterations`. A later request that sends the block back needs the beta
header too, and the server reads it from the block on, as the API drops what
came before.

Refused as the API refuses (400): `context_management` without its beta header,
an edit of an unknown type, a trigger that is not `input_tokens` or is under
50,000, a compaction block without the beta header, outside an assistant
message, with empty `content`, or changed since it was sent.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, cast

COMPACT_BETA = "compact-2026-01-12"
EDITS = {
    "compact_20260112": COMPACT_BETA,
    "clear_tool_uses_20250919": "context-management-2025-06-27",
    "clear_thinking_20251015": "context-management-2025-06-27",
}
MIN_TRIGGER = 50_000
DEFAULT_TRIGGER = 150_000


def block_signature(content: str) -> str:
    """The signature the server gives a compaction block (and expects back with it)."""
    return "cmp-" + hashlib.sha256(content.encode()).hexdigest()[:16]


def counted_tokens(body: dict[str, Any]) -> int:
    """The request's input tokens by the server's count: from the last compaction block on.

    About four characters a token of the JSON text of the system prompt, the tools and
    the messages the API reads (a compaction block stands for everything before it).
    """
    read = json.dumps(
        [body.get("system"), body.get("tools"), read_messages(body.get("messages") or [])]
    )
    return len(read) // 4


def read_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages as the model reads them: from the last compaction block on."""
    for index in range(len(messages) - 1, -1, -1):
        content: Any = messages[index]["content"]
        blocks: list[Any] = [] if isinstance(content, str) else content
        for number in range(len(blocks) - 1, -1, -1):
            if blocks[number].get("type") == "compaction":
                rest = {**messages[index], "content": blocks[number:]}
                return [rest, *messages[index + 1 :]]
    return messages


def _fields(value: Any) -> dict[str, Any]:
    """A JSON object's fields; none for anything else."""
    return cast("dict[str, Any]", value) if isinstance(value, dict) else {}


def _betas(headers: dict[str, str]) -> set[str]:
    return {b.strip() for b in headers.get("anthropic-beta", "").split(",") if b.strip()}


def compaction_refusal(body: dict[str, Any], headers: dict[str, str]) -> str | None:
    """What the real API refuses about compaction in this request; None if nothing."""
    betas = _betas(headers)
    managed: Any = body.get("context_management")
    if managed is not None:
        edits: Any = _fields(managed).get("edits")
        if not isinstance(edits, list):
            return "context_management.edits: Input should be a valid list"
        for index, edit in enumerate(cast("list[Any]", edits)):
            problem = _edit_problem(f"context_management.edits.{index}", edit, betas)
            if problem is not None:
                return problem
    for index, message in enumerate(body.get("messages") or []):
        content = message["content"]
        for number, block in enumerate([] if isinstance(content, str) else content):
            if block.get("type") != "compaction":
                continue
            where = f"messages.{index}.content.{number}"
            if COMPACT_BETA not in betas:
                return f"{where}: compaction blocks need the {COMPACT_BETA} beta header"
            if message["role"] != "assistant":
                return f"{where}: compaction blocks belong to assistant messages"
            text = block.get("content")
            if text is not None and (not isinstance(text, str) or not text):
                return f"{where}.content: String should have at least 1 character"
            if text is not None and block.get("signature") != block_signature(text):
                return f"{where}: Invalid `signature` in `compaction` block"
    return None


def _edit_problem(where: str, edit: Any, betas: set[str]) -> str | None:
    fields = _fields(edit)
    kind = fields.get("type")
    if kind not in EDITS:
        return f"{where}.type: Input tag {kind!r} does not match any of the expected tags"
    if EDITS[kind] not in betas:
        return "context_management: Extra inputs are not permitted"
    if kind != "compact_20260112":
        return None
    trigger: Any = fields.get("trigger")
    if trigger is not None:
        if _fields(trigger).get("type") != "input_tokens":
            return f"{where}.trigger.type: Input should be 'input_tokens'"
        value: Any = _fields(trigger).get("value")
        if not isinstance(value, int) or value < MIN_TRIGGER:
            return f"{where}.trigger.value: Input should be greater than or equal to {MIN_TRIGGER}"
    instructions: Any = fields.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        return f"{where}.instructions: Input should be a valid string"
    return None


def compaction(body: dict[str, Any]) -> tuple[dict[str, Any], bool] | None:
    """The compaction block this request gets, and whether the answer pauses after it.

    None if the request has no compaction edit, or its input is under the trigger.
    """
    managed: Any = body.get("context_management") or {}
    edits: list[Any] = managed.get("edits", [])
    edit: Any = next((e for e in edits if e["type"] == "compact_20260112"), None)
    if edit is None:
        return None
    trigger: Any = _fields(edit.get("trigger")).get("value", DEFAULT_TRIGGER)
    if counted_tokens(body) < trigger:
        return None
    messages = read_messages(body["messages"])
    summary = f"Summary of {len(messages)} messages"
    if edit.get("instructions"):
        summary += f", as instructed ({len(edit['instructions'])} characters of instructions)"
    block = {"type": "compaction", "content": summary, "signature": block_signature(summary)}
    return block, bool(edit.get("pause_after_compaction"))


def compaction_usage(body: dict[str, Any], block: dict[str, Any]) -> dict[str, Any]:
    """The usage of a compaction: its own iteration, apart from the top-level counts."""
    iteration = {
        "type": "compaction",
        "input_tokens": counted_tokens(body),
        "output_tokens": len(block["content"]) // 4 + 1,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0,
    }
    return {"iterations": [iteration]}
