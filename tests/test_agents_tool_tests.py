"""openai-agents' own function-tool tests, ported by their imports: what passes stays passing.

`tests/agents_tool_tests.py` does the work (port from the cached sdist, run, count);
docs/migrating.md says what the others check, and why they differ.
"""

from __future__ import annotations

import pytest

from .agents_examples import sdist
from .agents_tool_tests import ported_tests, run

PASSING_FLOOR = 142
"""Tests passing when this was last measured (of 223, parametrised cases counted); raise it
as more pass."""
PASSING_FUNCTIONS_FLOOR = 113
"""Test functions all of whose cases passed when this was last measured (of 164)."""


@pytest.mark.slow  # pytest in a fresh interpreter over 223 ported tests
def test_openai_agents_function_tool_tests_pass_at_least_as_many_as_measured() -> None:
    outcome = run(ported_tests(sdist()))
    assert outcome.total >= 220, outcome  # every file was collected
    assert outcome.passed >= PASSING_FLOOR, outcome.failing
    assert outcome.functions_passed >= PASSING_FUNCTIONS_FLOOR, outcome.failing
