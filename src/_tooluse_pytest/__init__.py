"""tooluse's pytest plugin (the `pytest11` entry point): a cassette for each test.

```text
pytest --tooluse-record=none      # replay only; a missing or stale cassette fails the test
pytest --tooluse-record=once      # record the tests that have no cassette yet, replay the rest
pytest --tooluse-record=rewrite   # record every cassette again
```

A test that asks for the `tooluse_cassette` fixture, or is marked
`@pytest.mark.tooluse_cassette`, records or replays every model its runs call
(`tooluse.testing.use_cassette`) in `cassettes/<module>/<test>.jsonl` beside its file;
the marker may give another path (relative to the test's folder) and values to redact:
`@pytest.mark.tooluse_cassette("refund.jsonl", redact=["acct-1234"])`.

It lives outside the `tooluse` package and imports none of it until a test uses a
cassette: pytest loads entry points before coverage starts.

Imports: `tooluse.testing` (inside the fixture only).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tooluse.testing import Cassette

__all__ = ["pytest_addoption", "pytest_configure", "tooluse_cassette"]

_MODES = ("none", "once", "rewrite")


def pytest_addoption(parser: pytest.Parser) -> None:
    """The `--tooluse-record` option."""
    parser.getgroup("tooluse").addoption(
        "--tooluse-record",
        choices=_MODES,
        default="none",
        help="cassettes of model calls: none (replay only, the default), once (record "
        "missing cassettes), rewrite (record all again)",
    )


def pytest_configure(config: pytest.Config) -> None:
    """The `tooluse_cassette` marker."""
    config.addinivalue_line(
        "markers",
        "tooluse_cassette(path=None, *, redact=()): record or replay the test's model calls",
    )


@pytest.fixture
def tooluse_cassette(request: pytest.FixtureRequest) -> Iterator[Cassette]:
    """The test's cassette, recording or replaying every model its runs call."""
    # Imported here, not at the top: see the module's docstring.
    from tooluse.testing import use_cassette  # noqa: PLC0415
    from tooluse.testing._pytest_cassettes import (  # noqa: PLC0415
        MODES,
        cassette_for_test,
        cassette_path,
    )

    marker = request.node.get_closest_marker("tooluse_cassette")
    given = marker.kwargs.get("path", marker.args[0] if marker.args else None) if marker else None
    redact = marker.kwargs.get("redact", ()) if marker else ()
    path = cassette_path(Path(str(request.node.path)), request.node.name, given)
    mode = request.config.getoption("--tooluse-record")
    cassette, record = cassette_for_test(path, mode if mode in MODES else "none", redact)
    with use_cassette(cassette, record=record):
        yield cassette


@pytest.fixture(autouse=True)
def _tooluse_cassette_marked(request: pytest.FixtureRequest) -> None:
    """A test marked `tooluse_cassette` gets its cassette without asking for the fixture."""
    if request.node.get_closest_marker("tooluse_cassette") is not None:
        request.getfixturevalue("tooluse_cassette")
