"""The callables a tool can be made from, and what each one means for its schema.

A plain or async function is the common case. Three other shapes need care:

- `functools.partial`: arguments bound in the partial are the developer's,
  not the model's: they are left out of the schema, so the model can neither
  see nor override them, and the tool is named after the wrapped function.
- A callable object: named after its class, as openai-agents names it.
- A function decorated inside its class body: its `self` would become an
  argument the model fills, so it is refused with the fix (decorate the
  bound method, or a function outside the class).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

from ..exceptions import UserError

__all__ = [
    "bound_parameters",
    "default_name",
    "describe_callable",
    "refuse_unbound_method",
    "unwrapped",
    "without_bound_keywords",
]


def unwrapped(func: Callable[..., object]) -> Callable[..., object]:
    """The function under any `functools.partial` layers.

    Args:
        func: A callable.

    Returns:
        The innermost callable.
    """
    while isinstance(func, functools.partial):
        func = func.func  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    return func


def default_name(func: Callable[..., object]) -> str:
    """The tool name a callable gets without `name_override`.

    Its own name; the wrapped function's for a partial; its class's for a callable object.

    Args:
        func: A callable.

    Returns:
        The name, or "" when it has none.
    """
    target = unwrapped(func)
    name = getattr(target, "__name__", None)
    if isinstance(name, str):
        return name
    return type(target).__name__ if callable(target) else ""


def describe_callable(func: Callable[..., object]) -> str:
    """How error messages name a callable: `'module.qualname'`, saying what kind it is.

    Args:
        func: A callable.

    Returns:
        The description, quoted.
    """
    target = unwrapped(func)
    module = getattr(target, "__module__", None) or "?"
    qualname = getattr(target, "__qualname__", None)
    if qualname is None:
        named = f"'{module}.{type(target).__qualname__}' object"
    else:
        named = f"'{module}.{qualname}'"
    return f"{named} (through functools.partial)" if target is not func else named


def without_bound_keywords(
    signature: inspect.Signature, func: Callable[..., object]
) -> inspect.Signature:
    """The signature left for the model: a partial's keyword-bound parameters removed.

    `inspect.signature` already drops positionally bound parameters, but keeps
    keyword-bound ones as parameters with a default, which the model could override.

    Args:
        signature: The callable's signature.
        func: The callable.

    Returns:
        The signature without the parameters the partial binds.
    """
    bound: set[str] = set()
    while isinstance(func, functools.partial):
        bound.update(func.keywords)  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
        func = func.func  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if not bound:
        return signature
    kept = [param for name, param in signature.parameters.items() if name not in bound]
    return signature.replace(parameters=kept)


def bound_parameters(func: Callable[..., object], signature: inspect.Signature) -> set[str]:
    """The parameters a partial binds: in the wrapped function's signature, not the tool's.

    Args:
        func: The callable.
        signature: The signature left for the model (`without_bound_keywords`).

    Returns:
        Their names; empty for anything but a partial.
    """
    target = unwrapped(func)
    if target is func:
        return set()
    try:
        full = inspect.signature(target)
    except (TypeError, ValueError):
        return set()
    return set(full.parameters) - set(signature.parameters)


def refuse_unbound_method(signature: inspect.Signature, func: Callable[..., object]) -> None:
    """Refuse a function defined in a class body whose first parameter is `self` or `cls`.

    Args:
        signature: The function's signature.
        func: The function.

    Raises:
        UserError: It is such a method: the model would be asked for `self`.
    """
    first = next(iter(signature.parameters), None)
    qualname: str = getattr(func, "__qualname__", "")
    owner = qualname.split(".")[-2] if "." in qualname else "<locals>"
    if not inspect.isfunction(func) or first not in ("self", "cls") or owner == "<locals>":
        return
    name = qualname.rsplit(".", maxsplit=1)[-1]
    raise UserError(
        f"Cannot make a tool from function {describe_callable(func)}: it is a method decorated "
        f"in the body of class {owner}, so '{first}' would be an argument the model fills. "
        f"Make the tool from the bound method instead (function_tool({owner}(...).{name}) "
        "after creating the object), or from a function outside the class"
    )
