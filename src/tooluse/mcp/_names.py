"""The names an MCP server's tools are offered under: names the model APIs accept.

MCP allows tool names the OpenAI API refuses (`files.read`, `github/search`, names
past 64 characters). A tool is offered as `model_name(name)`: each character
outside `[a-zA-Z0-9_-]` becomes `_`, and a name still longer than 64 characters is
cut, ending in `_` and 8 hex digits of a hash of the whole name, so that two long
names stay apart and each keeps its name from run to run. The server is always
called with its own name; filters and approval settings match that name too.
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["MAX_NAME_LENGTH", "model_name"]

MAX_NAME_LENGTH = 64
"""Characters a function name may have in the model APIs."""

_REFUSED = re.compile(r"[^a-zA-Z0-9_-]")
_HASH_LENGTH = 8


def model_name(full: str) -> str:
    """The name the model is offered a server's tool under.

    Args:
        full: The tool's name on the server, after the server's prefix (`<prefix>_<name>`).

    Returns:
        A name matching `^[a-zA-Z0-9_-]{1,64}$`: the same name when it already does.
    """
    cleaned = _REFUSED.sub("_", full) or "_"
    if len(cleaned) <= MAX_NAME_LENGTH:
        return cleaned
    digest = hashlib.sha256(full.encode()).hexdigest()[:_HASH_LENGTH]
    return f"{cleaned[: MAX_NAME_LENGTH - _HASH_LENGTH - 1]}_{digest}"
