"""Python scripts run as real processes, forked from one that has imported their imports.

`tests/mcp_test_server.py` spends more than a second of CPU importing the `mcp` package
each time a test starts it, and the MCP tests start it dozens of times. Here a *zygote*
process imports what the script needs once; a test's command is a small *launcher*
(`python -I -S tests/preforked.py launch SOCKET SCRIPT ARGS...`, a few milliseconds),
which hands the zygote its standard input, output and error over a Unix socket. The
zygote forks; the child takes those three as its own and runs the script as
`__main__`. So the server is still a process of its own, speaking over the very pipes
the client made: its `os.getpid()` is the child's, killing it closes its output (the
launcher keeps no copy), and the launcher exits with the child's status (and ends the
child if it is ended first).

`command(script, *args)` gives the `MCPServerStdio` parameters; the zygote starts with
the first call, in each test process, and ends with it.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tooluse.mcp import MCPServerStdioParams

_PRELOAD = ("mcp.server.mcpserver", "mcp.server.stdio", "anyio")
_lock = threading.Lock()
_zygotes: list[tuple[subprocess.Popen[bytes], str]] = []  # this process's, the last alive


def command(script: str, *args: str) -> MCPServerStdioParams:
    """`MCPServerStdio` parameters running `script` with `args`, forked from the zygote."""
    launcher = ["-I", "-S", __file__, "launch", _socket_path(), script, *args]
    return {"command": sys.executable, "args": launcher}


def _socket_path() -> str:
    """The zygote's socket, starting the zygote first if this process has none alive."""
    with _lock:
        if not _zygotes or _zygotes[-1][0].poll() is not None:
            path = os.path.join(tempfile.mkdtemp(prefix="preforked-"), "zygote.sock")
            process = subprocess.Popen(
                [sys.executable, __file__, "zygote", path, *_PRELOAD],
                stdin=subprocess.PIPE,  # closed when this process ends: the zygote ends too
            )
            _wait_for(path, process)
            _zygotes.append((process, path))
            atexit.register(_stop, process, path)
        return _zygotes[-1][1]


def _wait_for(path: str, process: subprocess.Popen[bytes]) -> None:
    while not os.path.exists(path):
        if process.poll() is not None:
            raise RuntimeError(f"the zygote for MCP test servers exited ({process.returncode})")
        time.sleep(0.01)


def _stop(process: subprocess.Popen[bytes], path: str) -> None:
    if process.stdin is not None:
        process.stdin.close()
    process.wait(timeout=10)
    shutil.rmtree(os.path.dirname(path), ignore_errors=True)


# --- the launcher ------------------------------------------------------------------------


def _launch(path: str, argv: list[str]) -> int:
    conn = socket.socket(socket.AF_UNIX)
    conn.connect(path)
    request = {"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}
    socket.send_fds(conn, [json.dumps(request).encode()], [0, 1, 2])
    # Keep no copy of the pipes: the client sees the server's output end when the child's does.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    signal.signal(signal.SIGTERM, _ended)
    status = conn.recv(16)
    return int(status or b"1")


def _ended(signum: int, frame: object) -> None:
    """The client ended the launcher: go at once (the zygote then ends the child)."""
    os._exit(128 + signum)


# --- the zygote --------------------------------------------------------------------------


def _serve(path: str, preload: list[str]) -> None:
    import importlib
    import selectors

    for module in preload:
        importlib.import_module(module)
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(path + ".tmp")
    listener.listen(64)
    os.rename(path + ".tmp", path)  # the owner waits for this name
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    selector.register(sys.stdin, selectors.EVENT_READ)  # EOF: the owner is gone
    children: dict[int, socket.socket] = {}  # pid -> its launcher's connection
    while True:
        for key, _ in selector.select(timeout=0.02):
            if key.fileobj is listener:
                conn, _ = listener.accept()
                pid = _fork_child(conn, listener)
                children[pid] = conn
                selector.register(conn, selectors.EVENT_READ, pid)
            elif key.fileobj is sys.stdin:
                for pid in children:
                    _kill(pid)
                return
            else:  # the launcher ended (or was ended) first
                selector.unregister(key.fileobj)
                _kill(key.data)
        while children:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            conn = children.pop(pid)
            code = os.waitstatus_to_exitcode(status)
            with contextlib.suppress(OSError):
                conn.sendall(str(code if code >= 0 else 128 - code).encode())
            with contextlib.suppress(OSError):
                selector.unregister(conn)
            conn.close()


def _fork_child(conn: socket.socket, listener: socket.socket) -> int:
    message, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
    request = json.loads(message)
    pid = os.fork()
    if pid:
        for fd in fds:
            os.close(fd)
        return pid
    # The child: the launcher's stdio is its own; then the script runs as `__main__`.
    try:
        listener.close()
        conn.close()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.closerange(3, 65536)  # the zygote's sockets and other launchers' connections
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.stdin = open(0, closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        sys.argv = request["argv"]
        sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[0]))
        import runpy

        runpy.run_path(sys.argv[0], run_name="__main__")
        code = 0
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError):
            stream.flush()
    os._exit(code)


def _kill(pid: int) -> None:
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGTERM)


if __name__ == "__main__":
    if sys.argv[1] == "launch":
        sys.exit(_launch(sys.argv[2], sys.argv[3:]))
    _serve(sys.argv[2], sys.argv[3:])
