"""Run example modules each in a process of its own, forked from one that imported the world.

`tests/agents_examples.py` runs some sixty examples, each once: a fresh interpreter per
example spent most of its CPU importing `openai` and `tooluse` (or `agents`) again. Here
one server process imports them once and forks a child per example; the child sets the
example's environment, directory, standard streams and path, then runs the module as
`python -m` would (`runpy`), and exits through the interpreter's own shutdown (threads
joined, `atexit` handlers run, streams flushed). What is read from the environment is
read in the child: the server imports modules only, and checks it started no thread.

The server (`python tests/example_forks.py MODULE ...`, imported modules named) reads one
request a line on its standard input, a JSON object (`module`, `cwd`, `env`, `path`, and
the files for `stdin`, `stdout` and `stderr`), and answers on its standard output with the
child's pid (`pid N`) and then its exit status as `subprocess` gives it (`status N`).
`Forks` is the client. POSIX only (`os.fork`).
"""

from __future__ import annotations

import importlib
import json
import os
import random
import runpy
import select
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

SEED = 30
"""What `random` is seeded with in each child, as `agents_examples.seeded_path` seeds it."""


@dataclass(frozen=True)
class Request:
    """One module to run in a child, and where its streams go."""

    module: str
    cwd: str
    env: dict[str, str]
    path: list[str]
    stdin: str
    stdout: str
    stderr: str


def _enter(request: Request, base_path: list[str]) -> None:
    """In the child: the example's directory, environment, streams and path."""
    os.chdir(request.cwd)
    os.environ.clear()
    os.environ.update(request.env)
    for fd, name, flags in (
        (0, request.stdin, os.O_RDONLY),
        (1, request.stdout, os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
        (2, request.stderr, os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
    ):
        opened = os.open(name, flags)
        os.dup2(opened, fd)
        os.close(opened)
    # New stream objects: the server's read ahead of its requests on fd 0.
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 - the process's stdin
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
    sys.path[:] = [request.cwd, *request.path, *base_path]  # as `python -m` with PYTHONPATH
    sys.argv = [request.module]
    random.seed(SEED)


def serve(modules: list[str]) -> None:
    """Import `modules`, then fork a child per request until standard input ends.

    Returns in the child, which then runs its module: the caller returns from the
    interpreter's main, so the child ends as a script does.
    """
    base_path = sys.path[1:]  # without this file's directory
    for name in modules:
        importlib.import_module(name)
    if threading.active_count() != 1:  # a thread would not survive the fork
        raise SystemExit(f"importing {modules} started threads: {threading.enumerate()}")
    out = sys.stdout
    for line in sys.stdin.buffer:
        request = Request(**json.loads(line))
        out.flush()
        pid = os.fork()
        if pid == 0:
            _enter(request, base_path)
            runpy.run_module(request.module, run_name="__main__", alter_sys=True)
            return
        print(f"pid {pid}", file=out, flush=True)
        _, status = os.waitpid(pid, 0)
        print(f"status {os.waitstatus_to_exitcode(status)}", file=out, flush=True)


class Forks:
    """A server of forked children, started on first use; one request at a time.

    Args:
        modules: What the server imports before it forks.
        env: The server's environment (`PYTHONHASHSEED` among it holds in the children).
    """

    def __init__(self, modules: list[str], env: dict[str, str]) -> None:
        self._modules = modules
        self._env = env
        self._server: subprocess.Popen[bytes] | None = None

    def _started(self) -> subprocess.Popen[bytes]:
        if self._server is None or self._server.poll() is not None:
            self._server = subprocess.Popen(
                [sys.executable, __file__, *self._modules],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=self._env,
                bufsize=0,  # unbuffered: `select` sees every answer not yet read
            )
        return self._server

    def run(self, request: Request, timeout: float) -> int:
        """Run `request`'s module in a child; its exit status, or -9 if killed at `timeout`."""
        server = self._started()
        assert server.stdin is not None
        server.stdin.write((json.dumps(request.__dict__) + "\n").encode())
        pid = int(_answer(server, "pid", None))
        try:
            return int(_answer(server, "status", timeout))
        except TimeoutError:
            os.kill(pid, signal.SIGKILL)  # not reaped yet: the server waits for it
            return int(_answer(server, "status", None))

    def close(self) -> None:
        """End the server (it ends at the end of its input)."""
        if self._server is not None:
            assert self._server.stdin is not None
            self._server.stdin.close()
            self._server.wait(timeout=30)
            self._server = None


def _answer(server: subprocess.Popen[bytes], key: str, timeout: float | None) -> str:
    """The server's next line, which starts with `key`, read a byte at a time (lines are short)."""
    assert server.stdout is not None
    fd = server.stdout.fileno()
    line = b""
    while not line.endswith(b"\n"):
        if timeout is not None and not line and not select.select([fd], [], [], timeout)[0]:
            raise TimeoutError
        byte = os.read(fd, 1)
        if not byte:
            break
        line += byte
    text = line.decode()
    if not text.startswith(f"{key} "):
        raise RuntimeError(f"the fork server ({Path(__file__).name}) answered {text!r}, not {key}")
    return text.removeprefix(f"{key} ").strip()


if __name__ == "__main__":
    serve(sys.argv[1:])
