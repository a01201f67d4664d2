#!/usr/bin/env python3
"""A stand-in for the Codex CLI (`codex exec --experimental-json ... -`), for the tests.

It records what it was given (its arguments, stdin and the API's variables, a JSON line
appended to the file `CODEX_RECORD` names), then plays the scenario `CODEX_SCENARIO`
names: the JSONL events of a scripted thread on stdout, and an exit status.

- `ok`: a thread (`thread-1`, or the one resumed) with a turn that reasons, runs a
  command, keeps a to-do list and answers `Codex read: <stdin>`; exit 0.
- `slow`: `ok` after half a second (the record says when each process started).
- `exit`: a secret on stderr, exit 3.
- `turn_failed`: the thread starts, the turn fails; exit 0.
- `error_event`: an error event; exit 0.
- `not_json`: a line that is not JSON; exit 0.
- `idle`: the thread starts, then nothing for 30 s.
"""

from __future__ import annotations

import json
import os
import sys
import time

SECRET = "sk-secret-in-stderr"
SLOW_SECONDS = 0.5


def emit(event: dict[str, object]) -> None:
    print(json.dumps(event), flush=True)


def ok(thread_id: str, prompt: str) -> None:
    emit({"type": "thread.started", "thread_id": thread_id})
    emit({"type": "turn.started"})
    emit({"type": "item.completed", "item": {"id": "r1", "type": "reasoning", "text": "Look."}})
    command = {"id": "c1", "type": "command_execution", "command": "cat README.md"}
    emit({"type": "item.started", "item": {**command, "status": "in_progress"}})
    done = {**command, "status": "completed", "aggregated_output": "# Title\n", "exit_code": 0}
    emit({"type": "item.completed", "item": done})
    todo = {"id": "t1", "type": "todo_list", "items": [{"text": "read", "completed": True}]}
    emit({"type": "item.updated", "item": todo})
    emit({"type": "item.completed", "item": {"id": "x1", "type": "new_kind", "extra": 1}})
    answer = {"id": "m1", "type": "agent_message", "text": f"Codex read: {prompt}"}
    emit({"type": "item.completed", "item": answer})
    usage = {"input_tokens": 12, "cached_input_tokens": 2, "output_tokens": 7}
    emit({"type": "turn.completed", "usage": usage})


def main() -> int:
    args = sys.argv[1:]
    prompt = sys.stdin.read()
    with open(os.environ["CODEX_RECORD"], "a") as record:
        env = {key: os.environ.get(key) for key in ("CODEX_API_KEY", "OPENAI_BASE_URL")}
        entry = {"args": args, "stdin": prompt, "env": env, "at": time.monotonic()}
        record.write(json.dumps(entry) + "\n")
    scenario = os.environ.get("CODEX_SCENARIO", "ok")
    resumed = args[args.index("--") + 1] if "--" in args else None
    if scenario in ("ok", "slow"):
        time.sleep(SLOW_SECONDS if scenario == "slow" else 0)
        ok(resumed or "thread-1", prompt)
    elif scenario == "exit":
        print(f"fatal: {SECRET}", file=sys.stderr)
        return 3
    elif scenario == "turn_failed":
        emit({"type": "thread.started", "thread_id": "thread-9"})
        emit({"type": "turn.failed", "error": {"message": f"quota ({SECRET})"}})
    elif scenario == "error_event":
        emit({"type": "error", "message": f"stream broke ({SECRET})"})
    elif scenario == "not_json":
        print(f"panic: {SECRET}", flush=True)
    elif scenario == "idle":
        emit({"type": "thread.started", "thread_id": "thread-idle"})
        time.sleep(30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
