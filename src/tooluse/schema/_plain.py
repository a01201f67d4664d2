"""The JSON schema pydantic writes for a plain signature, written without pydantic.

Decorating a tool and reading its schema used to cost a pydantic model
(`create_model`) and its JSON schema (`model_json_schema`): two thirds of the
time. For a signature of plain types (`str`, `int`, `float`, `bool`, `None`,
lists, unions and literals of them, scalar defaults; see `_function_schema`'s
`_all_plain`) the schema pydantic would write is simple enough to write here
directly, key for key, so the model waits until a call needs it.

The output must equal `model.model_json_schema()` exactly (keys sorted as
pydantic sorts them, titles, defaults, `required`, `anyOf` order and
deduplication); `tests/test_plain_schema.py` compares both on generated
signatures. Whatever this module is not sure of, it declines (returns None)
and the caller asks pydantic.
"""

from __future__ import annotations

import math
from types import NoneType, UnionType
from typing import Annotated, Literal, TypeVar, Union, get_args, get_origin

from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from ._strict import note_default
from ._strict_rules import JsonSchema

__all__ = ["plain_json_schema", "strict_plain_schema"]

_T = TypeVar("_T")
_SCALARS: dict[object, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    NoneType: "null",
}
# pydantic's `literal_schema`: one JSON type named when every value has that type.
_LITERAL_TYPES: dict[type[object], str] = {str: "string", int: "integer", bool: "boolean"}
_NULL: JsonSchema = {"type": "null"}


class _Declined(Exception):
    """Something pydantic might write differently: let pydantic write it."""


def plain_json_schema(
    title: str, fields: dict[str, tuple[object, FieldInfo]], *, closed: bool
) -> JsonSchema | None:
    """The JSON schema pydantic writes for a model of plain `fields`, or None if unsure.

    Args:
        title: The model's name (its schema's `title`).
        fields: Each field's attribute name to its annotation and `FieldInfo`, as given
            to `create_model`; every annotation plain.
        closed: Whether the model forbids extra keys (`additionalProperties: false`).

    Returns:
        The schema `model_json_schema()` would return, keys in the same order; None when
        a field falls outside what this writes.
    """
    properties: JsonSchema = {}
    required: list[str] = []
    try:
        for attr, (annotation, info) in fields.items():
            name = info.alias or attr
            properties[name] = _property(name, annotation, info)
            if info.default is PydanticUndefined and info.default_factory is None:
                required.append(name)
    except _Declined:
        return None
    schema: JsonSchema = {"additionalProperties": False} if closed else {}
    schema["properties"] = properties
    if required:
        schema["required"] = required
    schema["title"] = title
    schema["type"] = "object"
    return schema


def strict_plain_schema(loose: JsonSchema) -> JsonSchema:
    """The strict form `to_strict_schema` gives a closed schema `plain_json_schema` wrote.

    A plain schema needs only three of the strict rewrites: defaults move into the
    descriptions, every property is required, the object is closed. No adapter applies
    (no dicts, tuples or free values), and `_all_plain`'s limits keep it far inside the
    strict rules, so neither the general transform nor the checker is needed for it.

    Args:
        loose: What `plain_json_schema(..., closed=True)` returned.

    Returns:
        A new schema equal, keys in the same order, to `to_strict_schema(loose).schema`.
    """
    properties = {name: _strict_property(prop) for name, prop in loose["properties"].items()}
    strict = {**loose, "properties": properties}
    # Set in place when present, else added last in this order, as to_strict_schema does.
    strict["additionalProperties"] = False
    strict["required"] = list(properties)
    return strict


def _strict_property(prop: JsonSchema) -> JsonSchema:
    strict = {key: value for key, value in prop.items() if key != "default"}
    if prop.get("default") is not None:  # a null default goes unsaid
        strict["description"] = note_default(strict.get("description"), prop["default"])
    return strict


def _property(name: str, annotation: object, info: FieldInfo) -> JsonSchema:
    """One field's schema: its type's, with default, description and title, keys sorted."""
    extra: JsonSchema = {}
    if info.default is not PydanticUndefined:
        extra["default"] = _default(info.default)
    if info.description is not None:
        extra["description"] = info.description
    if info.title is not None or info.examples is not None or info.deprecated is not None:
        raise _Declined  # never set on a plain field; pydantic's handling is not copied here
    # Every plain type's schema has no title of its own: the field's name gives one.
    extra["title"] = name.title().replace("_", " ").strip()
    merged = {**_type_schema(annotation), **extra}
    return {key: merged[key] for key in sorted(merged)}


def _default(value: _T) -> _T:
    """A scalar default as pydantic encodes it in JSON mode (None when unsure)."""
    if type(value) is float and not math.isfinite(value):
        raise _Declined  # pydantic writes inf/nan by its `ser_json_inf_nan` setting
    if type(value) is str:
        try:
            value.encode()
        except UnicodeEncodeError:  # a lone surrogate: pydantic leaves the default out
            raise _Declined from None
    return value


def _type_schema(annotation: object) -> JsonSchema:
    """The schema of a plain type, keys sorted (as pydantic's `sort` leaves them)."""
    origin = get_origin(annotation)
    if origin is None:
        kind = _SCALARS.get(annotation)
        if kind is None or not isinstance(annotation, type):
            raise _Declined
        return {"type": kind}
    args = get_args(annotation)
    if origin is Annotated:  # text metadata (a description) means nothing to pydantic
        return _type_schema(args[0])
    if origin is list:
        return {"items": _type_schema(args[0]), "type": "array"}
    if origin is Literal:
        return _literal_schema(args)
    if origin is Union or origin is UnionType:
        return _union_schema(args)
    raise _Declined


def _literal_schema(values: tuple[object, ...]) -> JsonSchema:
    kinds = {type(value) for value in values}
    if not kinds <= set(_LITERAL_TYPES):
        raise _Declined
    schema: JsonSchema = {"const": values[0]} if len(values) == 1 else {"enum": list(values)}
    if len(kinds) == 1:
        schema["type"] = _LITERAL_TYPES[kinds.pop()]
    return schema


def _union_schema(args: tuple[object, ...]) -> JsonSchema:
    """Pydantic's union: the choices other than None, then None last (as `nullable`)."""
    choices = [_type_schema(arg) for arg in args if arg is not NoneType]
    nullable = len(choices) < len(args)
    if not choices:
        return dict(_NULL)
    inner = choices[0] if len(choices) == 1 else _flattened_any_of(choices)
    if not nullable:
        return inner
    return dict(_NULL) if inner == _NULL else _flattened_any_of([inner, dict(_NULL)])


def _flattened_any_of(schemas: list[JsonSchema]) -> JsonSchema:
    """One `anyOf` of the schemas, nested `anyOf`s spliced in, repeats dropped."""
    members: list[JsonSchema] = []
    for schema in schemas:
        if len(schema) == 1 and "anyOf" in schema:
            members.extend(schema["anyOf"])
        else:
            members.append(schema)
    unique: list[JsonSchema] = []
    for member in members:
        # Equal as Python values (so 1 == True): the last one, in the first one's place.
        index = next((i for i, seen in enumerate(unique) if seen == member), None)
        if index is None:
            unique.append(member)
        else:
            unique[index] = member
    return unique[0] if len(unique) == 1 else {"anyOf": unique}
