"""A plain signature's arguments validator, made without the pydantic model it stands for.

A tool's first call validates its arguments; building the arguments model for that
(`pydantic.create_model`) cost most of decorating a function and calling it once. For a
plain signature (`str`, `int`, `float`, `bool`, `None`, lists, unions and literals of
those, `Annotated` with text; scalar defaults, or `list` as a default factory: what
`_function_schema._all_plain` accepts) the model's fields validator is written here
directly, as the same core schema pydantic makes of those fields: the same values and
the same errors (`tests/test_plain_validator.py` compares the two), at a tenth of the cost.
The model is still built when something asks for it.
"""

from __future__ import annotations

from types import NoneType, UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic.fields import FieldInfo
from pydantic_core import CoreConfig, SchemaValidator, core_schema

__all__ = ["plain_fields_validator"]

_SCALARS: dict[object, core_schema.CoreSchema] = {
    str: core_schema.str_schema(),
    int: core_schema.int_schema(),
    float: core_schema.float_schema(),
    bool: core_schema.bool_schema(),
    NoneType: core_schema.none_schema(),
    None: core_schema.none_schema(),
}


def plain_fields_validator(
    title: str, fields: dict[str, tuple[object, FieldInfo]], *, closed: bool
) -> SchemaValidator | None:
    """The validator of a plain signature's fields, returning them as a dict; None if not plain.

    Args:
        title: The arguments model's name.
        fields: Each field's annotation and `FieldInfo`, by attribute name.
        closed: Refuse unknown arguments (the model's `extra="forbid"`).

    Returns:
        The validator, as the model's fields validator would be; None for a type this
        does not write (the model's own validator is used then).
    """
    model_fields: dict[str, core_schema.ModelField] = {}
    for name, (annotation, info) in fields.items():
        schema = _schema(annotation)
        if schema is None:
            return None
        if info.default_factory is list:
            schema = core_schema.with_default_schema(schema, default_factory=list)
        elif info.default_factory is not None:
            return None
        elif not info.is_required():
            schema = core_schema.with_default_schema(schema, default=info.default)
        model_fields[name] = core_schema.model_field(schema, validation_alias=info.alias)
    config = CoreConfig(title=title)
    if closed:
        config["extra_fields_behavior"] = "forbid"
    return SchemaValidator(core_schema.model_fields_schema(model_fields, model_name=title), config)


def _schema(annotation: object) -> core_schema.CoreSchema | None:
    """The core schema pydantic makes of a plain annotation; None for any other."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is None:
        return _SCALARS.get(annotation) if isinstance(annotation, type) else None
    if origin is Annotated:
        return _schema(args[0]) if all(type(meta) is str for meta in args[1:]) else None
    if origin is list:
        item = _schema(args[0]) if len(args) == 1 else None
        return None if item is None else core_schema.list_schema(item)
    if origin is Literal:
        return core_schema.literal_schema(list(args))
    if origin is Union or origin is UnionType:
        return _union(args)
    return None


def _union(args: tuple[Any, ...]) -> core_schema.CoreSchema | None:
    """As pydantic writes a union: `None` as nullable around the rest, one choice unwrapped."""
    choices: list[core_schema.CoreSchema] = []
    for arg in args:
        if arg is NoneType:
            continue
        schema = _schema(arg)
        if schema is None:
            return None
        choices.append(schema)
    if not choices:
        return None
    options: list[core_schema.CoreSchema | tuple[core_schema.CoreSchema, str]] = [*choices]
    union = choices[0] if len(choices) == 1 else core_schema.union_schema(options)
    return core_schema.nullable_schema(union) if NoneType in args else union
