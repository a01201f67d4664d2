"""openai-agents 0.24's own examples, ported by their imports, behave as the originals.

`tests/agents_examples.py` does the work (download, port, run both against the local
server, compare); docs/migrating.md's table says which examples behave the same, and
why each other one differs. This file holds the table to the script and runs the
examples it marks the same.
"""

from __future__ import annotations

import functools
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from .agents_examples import (
    EXAMPLES,
    check_ported,
    new_type_errors,
    ported_tree,
    recorded,
    sdist,
    summary,
)

TABLE_ROW = re.compile(r"^\| `([\w/]+\.py)` \| (same|differs) \|(.*)\|$", re.MULTILINE)
MIGRATING = Path(__file__).parent.parent / "docs" / "migrating.md"


def table() -> dict[str, tuple[str, str]]:
    """docs/migrating.md's examples table: each example's verdict and reason."""
    rows = TABLE_ROW.findall(MIGRATING.read_text())
    return {example: (verdict, reason.strip()) for example, verdict, reason in rows}


def test_the_migrating_page_lists_every_example_and_why_each_difference() -> None:
    rows = table()
    assert sorted(rows) == sorted(EXAMPLES)
    for example, (verdict, reason) in rows.items():
        assert (verdict == "same") == (not reason), example


def test_every_example_has_a_record_of_its_original_run() -> None:
    assert sorted(recorded()) == sorted(EXAMPLES), (
        "record them: python -m tests.agents_examples --record"
    )


@pytest.mark.slow  # a fresh interpreter per example, and the sdist downloaded once
def test_the_examples_marked_same_behave_the_same() -> None:
    same = [example for example, (verdict, _) in table().items() if verdict == "same"]
    root = sdist()
    ported = ported_tree(root)
    with ThreadPoolExecutor(max_workers=2) as pool:
        checked = list(pool.map(functools.partial(check_ported, root=root, ported=ported), same))
    differing = {v.example: list(v.differences()) for v in checked if v is not None}
    stale = [
        v.example for v in checked if v is not None and summary(v.original) != recorded()[v.example]
    ]
    assert not stale, f"the record is stale for {stale}: python -m tests.agents_examples --record"
    assert not differing, differing
    assert len(same) >= 60


UNBUILT = {"sandbox/memory.py": "openai-agents' sandbox memory and snapshots are not built"}
"""Examples whose ports name what tooluse does not have (their errors say so)."""


@pytest.mark.slow  # pyright over every port, and over the originals of those with errors
def test_the_ported_examples_type_check_with_no_errors_the_originals_do_not_have() -> None:
    checked = [example for example in EXAMPLES if example not in UNBUILT]
    assert new_type_errors(checked) == []
    assert all(table()[example][0] == "differs" for example in UNBUILT)
