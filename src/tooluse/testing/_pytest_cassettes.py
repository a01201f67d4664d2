"""What the pytest plugin decides for a test: its cassette's path, and record or replay.

The plugin's hooks live outside the package (`_tooluse_pytest`), so that pytest loading
its entry point imports no tooluse module before coverage starts; they call these.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from ._cassette import Cassette

__all__ = ["MODES", "RecordMode", "cassette_for_test", "cassette_path"]

RecordMode = Literal["none", "once", "rewrite"]
MODES: tuple[RecordMode, ...] = ("none", "once", "rewrite")
"""`--tooluse-record`'s values: replay only; record what has no cassette yet; record all."""

_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-]+")


def cassette_path(test_file: Path, test_name: str, given: str | None = None) -> Path:
    """A test's cassette: `cassettes/<module>/<test>.jsonl` beside its file, or the one given.

    Args:
        test_file: The test's module file.
        test_name: The test's name (with its parameters, if any).
        given: A path the test's marker gives, relative to the test's folder.

    Returns:
        The cassette's path.
    """
    if given is not None:
        return test_file.parent / given
    name = _UNSAFE.sub("_", test_name).strip("_") or "test"
    return test_file.parent / "cassettes" / test_file.stem / f"{name}.jsonl"


def cassette_for_test(
    path: Path, mode: RecordMode, redact: Iterable[str | re.Pattern[str]] = ()
) -> tuple[Cassette, bool]:
    """The cassette of a test, and whether the test records it.

    Args:
        path: The cassette's path.
        mode: `--tooluse-record`'s value.
        redact: Values and patterns never to write.

    Returns:
        The cassette, and True to record (call the real models), False to replay.
    """
    record = mode == "rewrite" or (mode == "once" and not path.exists())
    if path.exists():
        hint = "record it again with pytest --tooluse-record=rewrite"
    else:
        hint = "record it with pytest --tooluse-record=once"
    return Cassette(path, redact=redact, hint=hint), record
