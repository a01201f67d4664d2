"""`Codex` and its threads: a conversation with the Codex CLI, one turn per prompt.

A `Thread` runs a turn as one CLI process and yields its typed events; the
`thread.started` event gives it its id, so that the next turn resumes the same thread.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, TypedDict

from ._events import (
    AgentMessageItem,
    ItemCompletedEvent,
    ThreadErrorEvent,
    ThreadEvent,
    ThreadItem,
    ThreadStartedEvent,
    TurnCompletedEvent,
    TurnFailedEvent,
    Usage,
    parse_event,
)
from ._exec import CodexCLIError, ExecRequest, exec_lines
from ._options import CodexOptions, ThreadOptions, TurnOptions, options_of

__all__ = ["Codex", "Input", "LocalImageInput", "TextInput", "Thread", "Turn", "UserInput"]


class TextInput(TypedDict):
    """Text of a prompt."""

    type: Literal["text"]
    text: str


class LocalImageInput(TypedDict):
    """A local image sent with a prompt."""

    type: Literal["local_image"]
    path: str


UserInput: TypeAlias = TextInput | LocalImageInput
"""One part of a prompt."""
Input: TypeAlias = str | Sequence[UserInput]
"""A prompt: text, or parts (the texts joined by blank lines, the images attached)."""


@dataclass(frozen=True)
class Turn:
    """What a turn came to."""

    items: list[ThreadItem]
    """Every item completed in the turn."""
    final_response: str
    """The last agent message's text ("" when there was none)."""
    usage: Usage | None
    """The tokens it used, when the CLI says."""


class Codex:
    """The Codex CLI, started for each turn with the same options."""

    def __init__(self, options: CodexOptions | Mapping[str, Any] | None = None) -> None:
        """Keep the CLI's options; nothing starts until a thread runs a turn.

        Args:
            options: Which executable, with which environment (`CodexOptions` or a dict
                of its fields).

        Raises:
            UserError: A dict with a key that is no field of `CodexOptions`.
        """
        self.options = options_of(CodexOptions, options, "Codex(options=...)") or CodexOptions()
        """How the CLI is started."""

    def start_thread(self, options: ThreadOptions | Mapping[str, Any] | None = None) -> Thread:
        """A new thread: its id is known once its first turn starts.

        Args:
            options: How Codex works on it.

        Returns:
            The thread.
        """
        return Thread(self.options, options_of(ThreadOptions, options, "start_thread(options=...)"))

    def resume_thread(
        self, thread_id: str, options: ThreadOptions | Mapping[str, Any] | None = None
    ) -> Thread:
        """A thread started before (in this process or any other, `codex resume <id>` too).

        Args:
            thread_id: Its id.
            options: How Codex works on it.

        Returns:
            The thread.
        """
        settings = options_of(ThreadOptions, options, "resume_thread(options=...)")
        return Thread(self.options, settings, thread_id)


class Thread:
    """A Codex conversation; each turn runs the CLI once, resuming the thread by its id."""

    def __init__(
        self, options: CodexOptions, settings: ThreadOptions | None, thread_id: str | None = None
    ) -> None:
        """A thread; made by `Codex.start_thread` and `Codex.resume_thread`.

        Args:
            options: How the CLI is started.
            settings: How Codex works on the thread.
            thread_id: The thread to resume, or None for a new one.
        """
        self._options = options
        self._settings = settings or ThreadOptions()
        self._id = thread_id

    @property
    def id(self) -> str | None:
        """The thread's id, once its first turn has started."""
        return self._id

    async def run_streamed(
        self, input: Input, turn_options: TurnOptions | None = None
    ) -> AsyncGenerator[ThreadEvent, None]:
        """Run one turn, yielding each event as the CLI writes it.

        Args:
            input: The prompt.
            turn_options: The turn's idle timeout and abort signal.

        Yields:
            The events, typed.

        Raises:
            CodexNotFoundError: The executable is not there.
            CodexCLIError: The CLI exited with a failure, went idle, or was aborted.
            CodexProtocolError: The CLI wrote a line that is not a JSON event.
        """
        prompt, images = _prompt(input)
        request = ExecRequest(prompt, images, self._id)
        lines = exec_lines(self._options, self._settings, turn_options or TurnOptions(), request)
        async with contextlib.aclosing(lines):
            async for line in lines:
                if not line.strip():
                    continue
                event = parse_event(line)
                if isinstance(event, ThreadStartedEvent):
                    self._id = event.thread_id
                yield event

    async def run(self, input: Input, turn_options: TurnOptions | None = None) -> Turn:
        """Run one turn to its end.

        Args:
            input: The prompt.
            turn_options: The turn's idle timeout and abort signal.

        Returns:
            The completed items, the final response and the usage.

        Raises:
            CodexCLIError: The CLI failed, or the turn failed (its message says why).
        """
        items: list[ThreadItem] = []
        usage: Usage | None = None
        events = self.run_streamed(input, turn_options)
        async with contextlib.aclosing(events):
            async for event in events:
                check_event(event)
                if isinstance(event, ItemCompletedEvent):
                    items.append(event.item)
                elif isinstance(event, TurnCompletedEvent):
                    usage = event.usage
        return Turn(items, final_response(items), usage)


def check_event(event: ThreadEvent) -> None:
    """Raise for an event that ends the turn in failure.

    Args:
        event: An event of the stream.

    Raises:
        CodexCLIError: A failed turn, or an error of the stream, with the CLI's words.
    """
    if isinstance(event, TurnFailedEvent):
        raise CodexCLIError(f"the Codex turn failed: {event.error.message}")
    if isinstance(event, ThreadErrorEvent):
        raise CodexCLIError(f"the Codex stream reported an error: {event.message}")


def final_response(items: Sequence[ThreadItem]) -> str:
    """The text of the last agent message among `items`, or "".

    Args:
        items: Completed items, in order.

    Returns:
        The final response.
    """
    messages = [item.text for item in items if isinstance(item, AgentMessageItem)]
    return messages[-1] if messages else ""


def _prompt(input: Input) -> tuple[str, list[str]]:
    if isinstance(input, str):
        return input, []
    texts = [part["text"] for part in input if part["type"] == "text"]
    images = [part["path"] for part in input if part["type"] == "local_image"]
    return "\n\n".join(texts), images
