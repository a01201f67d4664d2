"""`list` and `dict` typed for the default factories of dataclass fields.

`field(default_factory=list[Item])` tells the type checker what the field holds, but
calling a parametrised alias costs about five times `list()` (150 ns against 26), and a
run makes a dozen such fields. These are the builtins themselves, typed with `Any`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["new_dict", "new_list"]

new_list: Callable[[], list[Any]] = list
new_dict: Callable[[], dict[Any, Any]] = dict
