"""The pytest plugin's three modes, run in a pytester sandbox: none, once, rewrite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

TEST_FILE = """
import pytest
from tooluse import Agent, Runner
from tooluse.testing import FunctionModel

ANSWER = {answer!r}
CALLS = []


def reply(items, tools):
    CALLS.append(1)
    return ANSWER


def test_weather(tooluse_cassette):
    result = Runner.run_sync(Agent("a", instructions={instructions!r}, model=FunctionModel(reply)), "hi")
    print("calls", len(CALLS), "answer", result.final_output)
    assert result.final_output == ANSWER or CALLS == []


@pytest.mark.tooluse_cassette("custom/marked.jsonl", redact=["secret-42"])
async def test_marked():
    result = await Runner.run(Agent("b", model=FunctionModel(lambda items, tools: "secret-42 ok")), "hi")
    assert result.final_output.endswith("ok")
"""


def write(pytester: pytest.Pytester, answer: str, instructions: str = "Be brief.") -> None:
    pytester.makepyfile(test_weather=TEST_FILE.format(answer=answer, instructions=instructions))
    pytester.makeini(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
    )


def cassette(pytester: pytest.Pytester) -> Path:
    return pytester.path / "cassettes" / "test_weather" / "test_weather.jsonl"


def answers(path: Path) -> list[str]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return [line["response"]["output"][0]["content"][0]["text"] for line in lines]


def test_none_fails_a_test_with_no_cassette_and_says_how_to_record(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "sunny")
    result = pytester.runpytest("-p", "no:cacheprovider", "--tooluse-record=none")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*does not exist: record it with pytest --tooluse-record=once*"])
    assert not cassette(pytester).exists()


def test_once_records_what_is_missing_then_replays_it(pytester: pytest.Pytester) -> None:
    write(pytester, "sunny")
    pytester.runpytest("-p", "no:cacheprovider", "--tooluse-record=once").assert_outcomes(passed=2)
    assert answers(cassette(pytester)) == ["sunny"]
    marked = (pytester.path / "custom" / "marked.jsonl").read_text()
    assert "secret-42" not in marked
    assert "<redacted> ok" in marked

    write(pytester, "rainy")  # the model would answer differently now: the cassette answers
    result = pytester.runpytest("-p", "no:cacheprovider", "-s", "--tooluse-record=once")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*calls 0 answer sunny"])
    assert answers(cassette(pytester)) == ["sunny"]

    result = pytester.runpytest("-p", "no:cacheprovider", "-s")  # none, the default
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*calls 0 answer sunny"])


def test_a_stale_cassette_fails_naming_the_path_and_the_rewrite_flag(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "sunny")
    pytester.runpytest("-p", "no:cacheprovider", "--tooluse-record=once").assert_outcomes(passed=2)
    write(pytester, "sunny", instructions="Be chatty.")
    result = pytester.runpytest("-p", "no:cacheprovider", "--tooluse-record=once")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*CassetteMismatch*differs from the one recorded on line 1 at instructions*",
            '*recorded: "Be brief."*',
            '*new:      "Be chatty."*',
            "*record it again with pytest --tooluse-record=rewrite*",
        ]
    )


def test_rewrite_records_every_cassette_again(pytester: pytest.Pytester) -> None:
    write(pytester, "sunny")
    pytester.runpytest("-p", "no:cacheprovider", "--tooluse-record=once").assert_outcomes(passed=2)
    write(pytester, "rainy", instructions="Be chatty.")
    result = pytester.runpytest("-p", "no:cacheprovider", "-s", "--tooluse-record=rewrite")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*calls 1 answer rainy"])
    assert answers(cassette(pytester)) == ["rainy"]
    assert json.loads(cassette(pytester).read_text())["request"]["instructions"] == "Be chatty."


def test_an_unknown_mode_is_refused(pytester: pytest.Pytester) -> None:
    write(pytester, "sunny")
    result = pytester.runpytest("-p", "no:cacheprovider", "--tooluse-record=always")
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*--tooluse-record: invalid choice: 'always'*"])
