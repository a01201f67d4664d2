"""Reading a function's description and parameter descriptions from its docstring.

griffe does the parsing; this module picks the style when none is given, fixes
the one layout griffe skips (a Google section right under the summary), and
keeps griffe's warnings out of the user's logs. The commonest Google docstring
(prose, then one-line `Args:` entries) is read here directly, as griffe reads it.
"""

from __future__ import annotations

import inspect
import logging
import re
from collections.abc import Callable, Generator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, cast, get_args

from ..exceptions import UserError
from ._callables import default_name

if TYPE_CHECKING:
    from griffe import DocstringParameter

__all__ = [
    "DocstringStyle",
    "FuncDocumentation",
    "detect_docstring_style",
    "generate_func_documentation",
]

DocstringStyle = Literal["google", "numpy", "sphinx"]
"""The docstring styles tooluse reads."""
_STYLES: tuple[DocstringStyle, ...] = get_args(DocstringStyle)

_SPHINX_FIELD = re.compile(
    r"^\s*:(param|parameter|arg|argument|key|keyword|type|raises?|returns?|rtype)\b", re.M
)
_NUMPY_UNDERLINE = re.compile(r"^\s*[A-Za-z][A-Za-z ]*\n\s*-{3,}\s*$", re.M)
_GOOGLE_SECTION = re.compile(
    r"^(\s*)(Args|Arguments|Params|Parameters|Keyword Args|Keyword Arguments|Other Parameters"
    r"|Returns|Return|Yields|Raises|Examples?|Notes?|Warnings?|See Also|Attributes):\s*$"
)
_ARGS_HEADERS = frozenset({"Args:", "Arguments:", "Params:", "Parameters:"})
_ARG_ENTRY = re.compile(r"( +)\*{0,2}\w+:.*")
_PARAMETER_SECTIONS = frozenset({"parameters", "other parameters"})
"""The griffe section kinds (their values) that describe parameters."""


@dataclass(frozen=True)
class FuncDocumentation:
    """What a docstring says about a function."""

    name: str
    """The function's name."""
    description: str | None
    """The prose before the first section, or None."""
    param_descriptions: dict[str, str]
    """Parameter name (without stars) to its description."""


def detect_docstring_style(doc: str) -> DocstringStyle:
    """Guess the style of a docstring: sphinx fields, numpy underlines, else google.

    Args:
        doc: The cleaned docstring text.

    Returns:
        The style griffe should parse it with.
    """
    if _SPHINX_FIELD.search(doc):
        return "sphinx"
    if _NUMPY_UNDERLINE.search(doc):
        return "numpy"
    return "google"


def generate_func_documentation(
    func: Callable[..., object], style: DocstringStyle | None = None
) -> FuncDocumentation:
    """Read the description and parameter descriptions from `func`'s docstring.

    openai-agents has a function of this name; this one reads the same docstrings.

    Args:
        func: The function whose docstring to read.
        style: The docstring style, or None to detect it.

    Returns:
        The name, the description and the parameter descriptions (empty without a docstring).
    """
    if style is not None and style not in _STYLES:
        raise UserError(
            f"docstring_style={style!r} for function '{getattr(func, '__qualname__', func)}' "
            f"is not a docstring style; use one of {', '.join(map(repr, _STYLES))}, or None "
            "to detect it"
        )
    doc = inspect.getdoc(func)
    if not doc:
        return FuncDocumentation(name=default_name(func), description=None, param_descriptions={})
    style = style or detect_docstring_style(doc)
    if style == "google":
        doc = _separate_google_sections(doc)
        simple = _simple_google(doc)
        if simple is not None:
            description, params = simple
            return FuncDocumentation(default_name(func), description, params)
    # griffe is a fifth of `import tooluse`: loaded when the first docstring is read.
    from griffe import Docstring  # noqa: PLC0415

    with _griffe_silenced():
        # griffe cleans the text again; a first line to itself keeps a leading section whole.
        sections: list[Any] = Docstring("\n" + doc, parser=style).parse()
    description = None
    if sections and sections[0].kind.value == "text":
        description = str(sections[0].value).strip() or None
    params: dict[str, str] = {}
    for section in sections:
        if section.kind.value in _PARAMETER_SECTIONS:
            for param in cast("list[DocstringParameter]", section.value):
                params[param.name.lstrip("*")] = param.description.strip()
    return FuncDocumentation(
        name=default_name(func), description=description, param_descriptions=params
    )


def _simple_google(doc: str) -> tuple[str | None, dict[str, str]] | None:
    """What griffe reads from the commonest Google docstring, read without griffe.

    Only this shape: prose with no colon and no code fence, then, optionally, an
    `Args:` section (or `Arguments:`, `Params:`, `Parameters:`) of one-line
    `name: text` entries at one indent that ends the docstring. For it griffe's
    parse is a few string operations (a fifth of decorating, with griffe). Anything
    else returns None and goes to griffe; `tests/test_docstrings.py` compares both
    on generated docstrings.

    Args:
        doc: The cleaned docstring, with `_separate_google_sections` applied.

    Returns:
        The description and the parameter descriptions, or None.
    """
    lines = doc.split("\n")
    header = next((i for i, line in enumerate(lines) if line in _ARGS_HEADERS), len(lines))
    prose, entries = lines[:header], lines[header + 1 :]
    if any(":" in line or line.lstrip(" ").startswith("```") for line in prose):
        return None  # a section, an admonition or a code block may start there
    if header < len(lines) and not _args_entries(
        entries, blank_above=header == 0 or not prose[-1].strip()
    ):
        return None
    params: dict[str, str] = {}
    for line in entries:
        name, text = line.split(":", 1)
        params[name.strip().lstrip("*")] = text.strip()
    return "\n".join(prose).strip() or None, params


def _args_entries(entries: list[str], *, blank_above: bool) -> bool:
    """Whether these lines are one-line `name: text` entries, all at the first one's indent."""
    first = _ARG_ENTRY.fullmatch(entries[0]) if entries and blank_above else None
    if first is None:
        return False
    indent = first.group(1)
    return all(
        (match := _ARG_ENTRY.fullmatch(line)) is not None and match.group(1) == indent
        for line in entries
    )


def _separate_google_sections(doc: str) -> str:
    """Insert the blank line griffe needs above a section header that follows prose."""
    lines = doc.splitlines()
    out: list[str] = []
    for line in lines:
        if out and out[-1].strip() and _GOOGLE_SECTION.match(line):
            out.append("")
        out.append(line)
    return "\n".join(out)


@contextmanager
def _griffe_silenced() -> Generator[None]:
    """Keep griffe's parsing warnings (missing types, unknown names) out of the user's logs."""
    logger = logging.getLogger("griffe")
    was_disabled = logger.disabled
    logger.disabled = True
    try:
        yield
    finally:
        logger.disabled = was_disabled
