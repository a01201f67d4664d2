"""What a cassette never writes: API keys, `Authorization` headers, the values you name.

Three rules, applied to every request and response before a line is written (and to
each new request before it is compared, so that a redacted recording still matches):

- a value under a key that names a secret (`authorization`, `api_key`, `x-api-key`, ...)
  is replaced whole;
- text that looks like an API key (`sk-...`, `AIza...`, `Bearer ...`), or equals the
  value of an environment variable named `*_API_KEY`, is replaced where it appears;
- the strings and regular expressions you give are replaced where they appear.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from ..schema._strict_rules import JsonValue

__all__ = ["REDACTED", "Redactor"]

REDACTED = "<redacted>"
"""What a secret is written as."""

_SECRET_KEYS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "api_key",
        "api-key",
        "apikey",
        "x-api-key",
        "x-goog-api-key",
        "openai-api-key",
    }
)
_KEY_SHAPES = (
    r"sk-[A-Za-z0-9_\-]{16,}",  # OpenAI, Anthropic (sk-ant-...)
    r"AIza[0-9A-Za-z_\-]{30,}",  # Google
    r"(?i:bearer)\s+[A-Za-z0-9._~+/\-]{8,}=*",  # a token as an Authorization header sends it
)


class Redactor:
    """Replaces secrets in JSON values with `REDACTED`."""

    def __init__(self, redact: Iterable[str | re.Pattern[str]] = ()) -> None:
        """The built-in rules, and the values and patterns given.

        Args:
            redact: More to hide: literal strings, or compiled regular expressions.
        """
        sources: list[str] = list(_KEY_SHAPES)
        keys = (value for name, value in os.environ.items() if name.endswith("_API_KEY"))
        literals = [*(v for v in keys if len(v) >= 8)]
        for item in redact:
            if isinstance(item, re.Pattern):
                sources.append(item.pattern)
            elif item:
                literals.append(item)
        # Longest first, so that a value holding another is replaced whole.
        sources += [re.escape(value) for value in sorted(set(literals), key=len, reverse=True)]
        self._pattern = re.compile("|".join(f"(?:{source})" for source in sources))

    def text(self, value: str) -> str:
        """The text with every secret in it replaced."""
        return self._pattern.sub(REDACTED, value)

    def json(self, value: JsonValue) -> JsonValue:
        """A copy of a JSON value with every secret in it replaced."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.json(item) for item in value]
        if isinstance(value, dict):
            return {
                key: REDACTED if key.lower() in _SECRET_KEYS and inner else self.json(inner)
                for key, inner in value.items()
            }
        return value
