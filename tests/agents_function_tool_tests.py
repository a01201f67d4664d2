"""openai-agents' own function-tool tests, run against tooluse with only their imports changed.

The three test files (`test_function_schema.py`, `test_function_tool.py`,
`test_function_tool_decorator.py`) come from openai-agents 0.24's sdist (downloaded
by `tests.agents_examples.sdist`, never copied into the repository), are ported by
`tests.agents_examples.port` (`from agents... import` -> `from tooluse import`;
`import agents.X as Y` -> `import tooluse.X as Y`, which fails for openai-agents'
internals), and run with pytest in a directory of their own.

Run with: `python -m tests.agents_function_tool_tests` (prints the count and each
failing test).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.agents_examples import port, sdist

FILES = ("test_function_schema.py", "test_function_tool.py", "test_function_tool_decorator.py")
_INTERNAL = re.compile(r"^(\s*)import agents\.([\w.]+) as (\w+)", re.MULTILINE)
_RESULT = re.compile(r"^(PASSED|FAILED|ERROR) (\S+)", re.MULTILINE)


def ported(source: str) -> str:
    """A test file with its imports of openai-agents made imports of tooluse."""
    return port(_INTERNAL.sub(r"\1import tooluse.\2 as \3", source))


def main() -> int:
    tests = sdist() / "tests"
    with tempfile.TemporaryDirectory() as work:
        for name in FILES:
            (Path(work) / name).write_text(ported((tests / name).read_text()))
        (Path(work) / "pytest.ini").write_text("[pytest]\nasyncio_mode = auto\n")
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "."],
            cwd=work,
            capture_output=True,
            text=True,
            check=False,
        )
    results = _RESULT.findall(done.stdout)
    passed = [test for verdict, test in results if verdict == "PASSED"]
    failed = [test for verdict, test in results if verdict != "PASSED"]
    for test in failed:
        print(f"FAILED {test}")
    errors = [line for line in done.stdout.splitlines() if line.startswith("ERROR ")]
    for line in errors:
        print(line)
    print(f"{len(passed)} of {len(passed) + len(failed)} openai-agents function-tool tests pass")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
