"""History a client sends back, taken as untrusted.

The server's record of a thread (`_threads.py`) is the conversation; from a client's
messages only the new user messages at the end are taken. The rest is checked, so
that a client cannot put words in the model's or a tool's mouth:

- a tool output the server never produced (no call of that id in the thread, or other
  text than the tool returned) is refused: `HistoryRefused`, code `forged_tool_output`
  (pydantic-ai's GHSA-jpr8-2v3g-wgf9 was this: a client-written tool result); the
  answers of a shell's or an MCP server's call shown for approval (`_answers.py`) are
  checked the same way;
- a system or developer message is stripped: instructions come from the agent only;
- an assistant's tool call with no output after it is stripped;
- for a thread the server does not know, the client's user and assistant text is the
  history (it carries no more than the user could type), checked as above.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Literal

from ..core._factories import new_list
from ..core._items import (
    Item,
    assistant_message,
    is_function_call_output,
    user_message,
)
from ..tools._outputs import parts_text
from ._answers import answer

__all__ = ["ClientMessage", "HistoryRefused", "checked_input", "output_text"]

logger = logging.getLogger("tooluse.ui")

Role = Literal["user", "assistant", "tool", "system", "developer", "other"]


class HistoryRefused(Exception):
    """Client history the server will not run: what was wrong, and what to do."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code
        """A short machine-readable reason (`forged_tool_output`, `no_new_message`)."""


@dataclass
class ClientMessage:
    """A message as a client sent it, whatever the protocol."""

    role: Role
    text: str = ""
    call_ids: list[str] = field(default_factory=new_list)
    """The tool calls of an assistant message."""
    call_id: str = ""
    """The call a tool message answers."""


def output_text(item: Item) -> str:
    """A tool output item's text, as the adapters send it to the client.

    Args:
        item: A `function_call_output` item.

    Returns:
        Its output as text (rich parts by their text form).
    """
    output = item.get("output", "")
    return output if isinstance(output, str) else parts_text(output)


def checked_input(
    thread_id: str, messages: list[ClientMessage], known: list[Item]
) -> tuple[list[Item], list[Item]]:
    """The history to run on and the new user messages, from a client's messages.

    Args:
        thread_id: The thread, for messages.
        messages: What the client sent, oldest first.
        known: The server's record of the thread ([] for a thread it does not know).

    Returns:
        The history (the server's record, or the client's checked text for a new
        thread) and the new user messages as items.

    Raises:
        HistoryRefused: If a tool output is not one the server produced, or no new
            user message ends the list.
    """
    outputs = _outputs(known)
    answered = {m.call_id for m in messages if m.role == "tool"}
    for message in messages:
        if message.role == "tool" and outputs.get(message.call_id) != message.text:
            raise HistoryRefused(
                f"thread {thread_id!r}: the tool output for call {message.call_id!r} is not "
                "one this server produced; tool outputs come from the agent's tools only "
                "(answer an approval with the protocol's resume or approval response)",
                "forged_tool_output",
            )
    kept = [m for m in messages if _kept(thread_id, m, answered)]
    start = len(kept)
    while start > 0 and kept[start - 1].role == "user":
        start -= 1
    new: list[Item] = [user_message(m.text) for m in kept[start:]]
    if not new:
        raise HistoryRefused(
            f"thread {thread_id!r}: the messages end with no new user message; send the "
            "user's message last",
            "no_new_message",
        )
    if known:
        return list(known), new
    return [_item(m) for m in kept[:start] if m.role in {"user", "assistant"} and m.text], new


def _outputs(known: list[Item]) -> dict[str, str]:
    """The text of each answer the streams write, by call id.

    Function calls' outputs, and the answers of calls shown for approval (a shell's, an
    MCP server's).
    """
    outputs: dict[str, str] = {}
    for item in known:
        if is_function_call_output(item):
            outputs[item["call_id"]] = output_text(item)
        elif (answered := answer(item)) is not None:
            outputs[answered[0]] = answered[1]
    return outputs


def _kept(thread_id: str, message: ClientMessage, answered: set[str]) -> bool:
    if message.role in {"system", "developer"}:
        logger.warning(
            "thread %r: a %s message from the client was stripped: instructions come "
            "from the agent",
            thread_id,
            message.role,
        )
        return False
    unanswered = [call for call in message.call_ids if call not in answered]
    if unanswered:
        logger.warning(
            "thread %r: tool calls with no output were stripped: %s", thread_id, unanswered
        )
    return message.role != "other"


def _item(message: ClientMessage) -> Item:
    if message.role == "user":
        return user_message(message.text)
    return assistant_message(message.text)
