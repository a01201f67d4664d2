"""Let `typing.TypedDict` classes through pydantic on Python < 3.12.

pydantic refuses `typing.TypedDict` before Python 3.12 (it needs
`typing_extensions.TypedDict`), yet users write the former. `fix_typeddicts`
rebuilds each such class as an equivalent `typing_extensions.TypedDict` (same
name, docstring, keys and required keys), inside unions, `Annotated`, generic
containers and other TypedDicts. TypedDicts nested in dataclasses or models are
not rewritten: pydantic reports those when the containing class is built.
"""

from __future__ import annotations

import sys
import typing
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints

import typing_extensions
from typing_extensions import is_typeddict

__all__ = ["fix_typeddicts"]

_NEEDS_FIX = sys.version_info < (3, 12)
_REQUIREDNESS = {
    typing_extensions.Required,
    typing_extensions.NotRequired,
    getattr(typing, "Required", None),
    getattr(typing, "NotRequired", None),
} - {None}


def fix_typeddicts(annotation: object) -> object:
    """Return `annotation` with every `typing.TypedDict` replaced by a pydantic-friendly twin.

    Args:
        annotation: A resolved type annotation.

    Returns:
        The same annotation where nothing needed fixing (always on Python >= 3.12).
    """
    if not _NEEDS_FIX:
        return annotation
    return _fix(annotation, {})


def _fix(tp: object, memo: dict[object, object]) -> object:
    if is_typeddict(tp):
        return memo[tp] if tp in memo else _fix_typeddict(tp, memo)
    args = get_args(tp)
    origin = get_origin(tp)
    if not args or origin is typing.Literal:
        return tp
    fixed = [_fix(arg, memo) for arg in args]
    if all(new is old for new, old in zip(fixed, args, strict=True)):
        return tp
    rebuild: Any = origin
    if origin is Annotated:
        return Annotated[(fixed[0], *args[1:])]  # type: ignore[valid-type]
    if origin is Union or type(tp).__name__ == "UnionType":
        rebuild = Union  # X | Y rebuilt as Union[X, Y]: the same type to pydantic
    return rebuild[tuple(fixed) if len(fixed) > 1 else fixed[0]]


def _fix_typeddict(td: Any, memo: dict[object, object]) -> object:
    """Rebuild `td` if it is a `typing.TypedDict` or holds one; else return it as is."""
    raw = get_type_hints(td, include_extras=True)
    hints = {key: _strip_requiredness(hint) for key, hint in raw.items()}
    if type(td).__module__ != "typing":
        memo[td] = td  # provisional, so that a recursive TypedDict ends the walk
        fixed = {key: _fix(hint, memo) for key, hint in hints.items()}
        if all(fixed[key] is hint for key, hint in hints.items()):
            return td
    twin = _twin_of(td, {key: _is_required(td, key, hint) for key, hint in raw.items()})
    memo[td] = twin  # before the fields, so a recursive TypedDict refers to its twin
    for key, hint in hints.items():
        twin.__annotations__[key] = _fix(hint, memo)
    return twin


def _is_required(td: Any, key: str, hint: object) -> bool:
    """`Required[...]`/`NotRequired[...]` decide; else the class's totality does.

    Read from the resolved hint: with string annotations (PEP 563) a `typing.TypedDict`
    before 3.12 cannot see `NotRequired` and lists every key in `__required_keys__`.
    """
    origin = get_origin(hint)
    if origin in _REQUIREDNESS:
        return origin in (typing_extensions.Required, getattr(typing, "Required", None))
    return key in td.__required_keys__


def _twin_of(td: Any, required: dict[str, bool]) -> type:
    """A `typing_extensions.TypedDict` with `td`'s name, docstring and required keys."""
    placeholder = {  # each key's type is set by the caller
        key: typing_extensions.Required[object]
        if is_required
        else typing_extensions.NotRequired[object]
        for key, is_required in required.items()
    }
    twin: Any = typing_extensions.TypedDict(td.__name__, placeholder)  # type: ignore[operator]
    twin.__doc__ = td.__doc__
    twin.__module__ = td.__module__
    twin.__qualname__ = td.__qualname__
    if hasattr(td, "__pydantic_config__"):
        twin.__pydantic_config__ = td.__pydantic_config__
    return twin


def _strip_requiredness(hint: object) -> object:
    while get_origin(hint) in _REQUIREDNESS:
        hint = get_args(hint)[0]
    return hint
