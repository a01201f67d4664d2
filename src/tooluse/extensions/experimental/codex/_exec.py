"""Running `codex exec --experimental-json` as a subprocess, and reading its lines.

The prompt goes to the CLI's stdin (`-` as the prompt argument); each line of its stdout
is one JSON event. Its stderr is kept for the error when it exits with a failure. The
process never outlives the read: a failure, an idle timeout, an abort signal or a
cancelled call terminates it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass
from typing import Literal

from ....exceptions import UserError
from ._options import CodexOptions, ThreadOptions, TurnOptions

__all__ = ["CodexCLIError", "CodexNotFoundError", "ExecRequest", "command_arguments", "exec_lines"]

_DEFAULT_LINE_LIMIT = 8 * 1024 * 1024
_LINE_LIMITS = (64 * 1024, 64 * 1024 * 1024)
_INSTALL = (
    "install the Codex CLI (`npm install -g @openai/codex`) and put `codex` on PATH, set "
    "the CODEX_PATH variable, or pass codex_tool(codex_options={'codex_path_override': "
    "'/path/to/codex'})"
)


class CodexNotFoundError(UserError):
    """The Codex CLI's executable is not there; the message says how to install or name it."""


class CodexCLIError(RuntimeError):
    """The Codex CLI failed: it exited with a failure, went idle, was aborted, or its turn failed.

    The message is tooluse's and the CLI's own words (never shown to the model).
    """

    def __init__(self, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.stderr = stderr
        """What the CLI wrote to stderr, when it exited with a failure."""


@dataclass(frozen=True)
class ExecRequest:
    """One turn for the CLI: the prompt, the images, and the thread to resume."""

    prompt: str
    """The turn's text, sent on stdin."""
    images: Sequence[str] = ()
    """Paths of local images (`--image`)."""
    thread_id: str | None = None
    """The thread to resume (`resume <thread_id>`), or None for a new one."""


def find_executable(options: CodexOptions) -> str:
    """The `codex` executable: the option, else `CODEX_PATH`, else `codex` on PATH.

    Args:
        options: The process options.

    Returns:
        The executable's path.

    Raises:
        CodexNotFoundError: None of them names one.
    """
    path = options.codex_path_override or os.environ.get("CODEX_PATH") or shutil.which("codex")
    if path is None:
        raise CodexNotFoundError(f"the Codex CLI (`codex`) is not on PATH: {_INSTALL}")
    return path


def command_arguments(thread: ThreadOptions, request: ExecRequest) -> list[str]:
    """The CLI's arguments after the executable, for one turn.

    Args:
        thread: The thread's settings.
        request: The turn.

    Returns:
        `exec --experimental-json`, the settings as flags and `--config` values,
        `resume` and the thread id when resuming, and `-` (the prompt is on stdin).
    """
    args = ["exec", "--experimental-json"]
    flags = (
        ("--model", thread.model),
        ("--sandbox", thread.sandbox_mode),
        ("--cd", thread.working_directory),
    )
    args += [part for flag, value in flags if value for part in (flag, value)]
    for directory in thread.additional_directories or ():
        args += ["--add-dir", directory]
    if thread.skip_git_repo_check:
        args.append("--skip-git-repo-check")
    args += [part for setting in _config_settings(thread) for part in ("--config", setting)]
    if request.thread_id:
        args.append("resume")
    for image in request.images:
        args += ["--image", image]
    if request.thread_id:
        args += ["--", request.thread_id]
    args.append("-")
    return args


def _config_settings(thread: ThreadOptions) -> list[str]:
    """The `--config key=value` settings (values in TOML)."""
    settings: list[str] = []
    if thread.model_reasoning_effort:
        settings.append(f'model_reasoning_effort="{thread.model_reasoning_effort}"')
    if thread.network_access_enabled is not None:
        enabled = "true" if thread.network_access_enabled else "false"
        settings.append(f"sandbox_workspace_write.network_access={enabled}")
    search = thread.web_search_mode
    if search is None and thread.web_search_enabled is not None:
        search = "live" if thread.web_search_enabled else "disabled"
    if search:
        settings.append(f'web_search="{search}"')
    if thread.approval_policy:
        settings.append(f'approval_policy="{thread.approval_policy}"')
    return settings


def _environment(options: CodexOptions) -> dict[str, str]:
    env = dict(options.env) if options.env is not None else dict(os.environ)
    if options.base_url:
        env["OPENAI_BASE_URL"] = options.base_url
    key = options.api_key or env.get("CODEX_API_KEY") or env.get("OPENAI_API_KEY")
    if key:
        env["CODEX_API_KEY"] = key
    return env


def _line_limit(options: CodexOptions) -> int:
    limit = options.codex_subprocess_stream_limit_bytes
    if limit is None:
        return _DEFAULT_LINE_LIMIT
    low, high = _LINE_LIMITS
    if isinstance(limit, bool) or not low <= limit <= high:
        raise UserError(
            f"CodexOptions(codex_subprocess_stream_limit_bytes={limit!r}): give a number of "
            f"bytes from {low} to {high}"
        )
    return limit


async def exec_lines(
    options: CodexOptions, thread: ThreadOptions, turn: TurnOptions, request: ExecRequest
) -> AsyncGenerator[str, None]:
    """Run the CLI for one turn and yield each line it writes to stdout.

    Args:
        options: How to start the CLI.
        thread: The thread's settings.
        turn: The turn's idle timeout and abort signal.
        request: The prompt, images and thread id.

    Yields:
        Each line of stdout, without its line break.

    Raises:
        CodexNotFoundError: The executable is not there.
        CodexCLIError: The CLI exited with a failure, went idle, or was aborted.
    """
    executable = find_executable(options)
    try:
        process = await asyncio.create_subprocess_exec(
            executable,
            *command_arguments(thread, request),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=_environment(options),
            limit=_line_limit(options),
        )
    except (FileNotFoundError, PermissionError, NotADirectoryError):
        raise CodexNotFoundError(
            f"the Codex CLI at {executable!r} is not an executable file: {_INSTALL}"
        ) from None
    try:
        async for line in _stdout_lines(process, turn, request.prompt):
            yield line
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()


async def _stdout_lines(
    process: asyncio.subprocess.Process, turn: TurnOptions, prompt: str
) -> AsyncGenerator[str, None]:
    assert process.stdin and process.stdout and process.stderr  # noqa: PT018 - all piped
    stderr = asyncio.ensure_future(process.stderr.read())  # drained, or the CLI may block
    aborted = asyncio.ensure_future(turn.signal.wait()) if turn.signal else None
    try:
        process.stdin.write(prompt.encode())
        with contextlib.suppress(ConnectionError):  # the CLI may exit without reading it
            await process.stdin.drain()
        process.stdin.close()
        while line := await _next_line(process.stdout, turn, aborted):
            yield line.decode("utf-8", errors="replace").rstrip("\r\n")
        status = await process.wait()
        if status != 0:
            text = (await stderr).decode("utf-8", errors="replace")
            raise CodexCLIError(_exit_message(status, text), text)
    finally:
        for task in (stderr, aborted):
            if task is not None and not task.done():
                task.cancel()


_STDERR_TAIL = 1000
"""How many of stderr's last characters the exit error quotes."""


def _exit_message(status: int, stderr: str) -> str:
    """The exit error, with the end of stderr: for the developer (the model never reads it)."""
    tail = stderr.strip()
    if len(tail) > _STDERR_TAIL:
        tail = "..." + tail[-_STDERR_TAIL:]
    said = f"its stderr ends: {tail}" if tail else "it wrote nothing to stderr"
    return (
        f"the Codex CLI exited with status {status}; {said}. Run `codex exec` by hand "
        "(same directory and environment) to see why"
    )


async def _next_line(
    stdout: asyncio.StreamReader, turn: TurnOptions, aborted: asyncio.Future[Literal[True]] | None
) -> bytes:
    """The next line, or b"" at the end; raises at the idle timeout or the abort signal."""
    reading = asyncio.ensure_future(stdout.readline())
    waiting = {reading} if aborted is None else {reading, aborted}
    try:
        done, _ = await asyncio.wait(
            waiting, timeout=turn.idle_timeout_seconds, return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        if not reading.done():
            reading.cancel()
    if reading in done:
        try:
            return reading.result()
        except ValueError:  # asyncio's LimitOverrunError, and the line it could not hold
            raise CodexCLIError(
                "the Codex CLI wrote an event longer than CodexOptions."
                "codex_subprocess_stream_limit_bytes"
            ) from None
    if aborted is not None and aborted in done:
        raise CodexCLIError("the Codex turn was aborted: TurnOptions.signal was set")
    raise CodexCLIError(f"the Codex CLI wrote no event for {turn.idle_timeout_seconds:g} s")
