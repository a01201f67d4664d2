"""Whether a JSON value fits a JSON schema: a small checker for the values `TestModel` makes.

It covers the keywords tool schemas use (types, `enum`/`const`, numeric bounds
and `multipleOf`, lengths, `pattern`, `contentMediaType` JSON text, arrays,
objects, `anyOf`/`oneOf`/`allOf`/`not`, `if`/`then`/`else`, `$ref`) and reads the
constraints a strict schema keeps in words (`_schema_hints`). It does not check
`format` (values for a format come from a table) nor `unevaluated*` keywords.
Numbers are judged as the tool's pydantic model judges them: a float `multipleOf`
allows pydantic's tolerance, where jsonschema wants an exact quotient.
"""

from __future__ import annotations

import json
import math
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..schema._guards import resolve
from ..schema._strict_rules import JsonSchema, JsonValue
from ._schema_hints import UNIQUE_KEYS, with_hints

__all__ = ["admits", "is_multiple", "json_equal", "resolve", "type_of"]


def type_of(value: object) -> str:
    """The JSON type of a Python value from `json.loads`.

    Args:
        value: The value.

    Returns:
        One of the JSON schema type names; `integer` for whole numbers.
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    kinds: dict[type[object], str] = {
        float: "number",
        str: "string",
        list: "array",
        dict: "object",
    }
    return kinds.get(type(value), "unknown")


def json_equal(left: JsonValue, right: JsonValue) -> bool:
    """JSON equality: `1 == 1.0`, but `true != 1`.

    Args:
        left: A value.
        right: Another value.

    Returns:
        Whether they are the same JSON value.
    """
    return _canonical(left) == _canonical(right)


def _canonical(value: JsonValue) -> str:
    def numbers(item: JsonValue) -> JsonValue:
        if isinstance(item, float) and item.is_integer() and abs(item) < 2**63:
            return int(item)
        return item

    def walk(item: JsonValue) -> JsonValue:
        if isinstance(item, dict):
            return {key: walk(inner) for key, inner in item.items()}
        if isinstance(item, list):
            return [walk(inner) for inner in item]
        return numbers(item)

    return json.dumps(walk(value), sort_keys=True)


def admits(node: JsonValue, value: JsonValue, root: JsonSchema, *, hints: bool = True) -> bool:
    """Whether `node` (a part of `root`) admits `value`.

    Args:
        node: A schema node, or a boolean schema.
        value: A JSON value.
        root: The whole schema, for `$ref`.
        hints: Whether descriptions state constraints (`_schema_hints`): true of a schema
            tooluse's strict transform wrote.

    Returns:
        Whether the value fits. A `$ref` that leads back to itself for the same value
        (`{"anyOf": [{"$ref": "#"}]}`) admits nothing.
    """
    return _Context(root, hints).admits(node, value)


@dataclass
class _Context:
    """The whole schema, and the references being followed (to stop at a cycle)."""

    root: JsonSchema
    hints: bool = True
    following: set[tuple[int, int]] = field(default_factory=set[tuple[int, int]])

    def admits(self, node: JsonValue, value: JsonValue) -> bool:
        if isinstance(node, bool):
            return node
        if not isinstance(node, dict):
            return True
        schema = with_hints(node) if self.hints else node
        return all(check(schema, value, self) for check in _CHECKS)


def _check_ref(schema: JsonSchema, value: JsonValue, ctx: _Context) -> bool:
    ref = schema.get("$ref")
    if not isinstance(ref, str):
        return True
    target = resolve(ctx.root, ref)
    step = (id(target), id(value))
    if target is None or step in ctx.following:
        return False
    ctx.following.add(step)
    try:
        return ctx.admits(target, value)
    finally:
        ctx.following.discard(step)


def _check_type(schema: JsonSchema, value: JsonValue, ctx: _Context) -> bool:
    del ctx
    wanted = schema.get("type")
    if wanted is None:
        return True
    kinds: list[str] = [wanted] if isinstance(wanted, str) else list(wanted)
    actual = type_of(value)
    return actual in kinds or (actual == "integer" and "number" in kinds)


def _check_values(schema: JsonSchema, value: JsonValue, ctx: _Context) -> bool:
    del ctx
    if "const" in schema and not json_equal(schema["const"], value):
        return False
    choices: list[JsonValue] = schema.get("enum", [])
    return "enum" not in schema or any(json_equal(choice, value) for choice in choices)


def _check_number(schema: JsonSchema, value: JsonValue, ctx: _Context) -> bool:
    del ctx
    number = _number(value)
    if number is None:
        return True
    for key, test in _NUMBER_CHECKS.items():
        limit = _number(schema.get(key))
        if limit is not None and not test(number, limit):
            return False
    return True


def is_multiple(value: float, step: float) -> bool:
    """Whether `value` is a whole multiple of `step`, as pydantic decides it.

    Two integers must divide exactly. Where either is a float, pydantic allows the
    float error: `value` may be within `_TOLERANCE` of the nearest multiple, so 0.3 is a
    multiple of 0.1 (jsonschema, which wants `value / step` to be whole, disagrees).

    Args:
        value: The number.
        step: The `multipleOf`.

    Returns:
        Whether it is.
    """
    if step <= 0:
        return True
    if isinstance(step, int) and isinstance(value, int):
        return value % step == 0
    try:
        quotient = value / step
    except OverflowError:  # an integer too large for a float: pydantic's floats cannot hold it
        return False
    if not math.isfinite(quotient):
        return False
    nearest = math.copysign(math.floor(abs(quotient) + 0.5), quotient)  # half away from zero
    return abs(value - nearest * step) <= _TOLERANCE


_TOLERANCE = 1e-9
"""How far a float may be from a multiple of `multipleOf`: pydantic-core's float validator."""

_NUMBER_CHECKS: dict[str, Callable[[float, float], bool]] = {
    "minimum": operator.ge,
    "maximum": operator.le,
    "exclusiveMinimum": operator.gt,
    "exclusiveMaximum": operator.lt,
    "multipleOf": is_multiple,
}


def _number(value: JsonValue) -> float | None:
    return None if isinstance(value, bool) or not isinstance(value, (int, float)) else value


def _counts(schema: JsonSchema, least: str, most: str, count: int) -> bool:
    """Whether `count` is within `schema[least]` and `schema[most]`, where given."""
    low, high = _number(schema.get(least)), _number(schema.get(most))
    return (low is None or count >= low) and (high is None or count <= high)


def _check_string(schema: JsonSchema, value: JsonValue, ctx: _Context) -> bool:
    if not isinstance(value, str):
        return True
    if not _counts(schema, "minLength", "maxLength", len(value)):
        return False
    return _matches(schema.get("pattern"), value) and _json_text_fits(schema, value, ctx)


def _matches(pattern: JsonValue, value: str) -> bool:
    if not isinstance(pattern, str):
        return True
    try:
        return re.search(pattern, value) is not None
    except re.error:  # syntax `re` lacks (\p{L}, ...): taken as a match
        return True


def _json_text_fits(schema: JsonSchema, value: str, ctx: _Context) -> bool:
    if schema.get("contentMediaType") != "application/json":
        return True
    try:
        decoded = json.loads(value)
    except ValueError:
        return False
    return ctx.admits(schema.get("contentSchema", True), decoded)


def _check_array(schema: JsonSchema, value: JsonValue, ctx: _Context) -> bool:
    if not isinstance(value, list):
        return True
    items = value
    if not _counts(schema, "minItems", "maxItems", len(items)):
        return False
    prefix: list[JsonValue] = schema.get("prefixItems", [])
    rest = schema.get("items", True)
    fits = all(
        ctx.admits(prefix[index] if index < len(prefix) else rest, item)
        for index, item in enumerate(items)
    )
    return fits and _distinct_enough(schema, items)


def _distinct_enough(schema: JsonSchema, items: list[JsonValue]) -> bool:
    if schema.get("uniqueItems") is True and len({_canonical(i) for i in items}) < len(items):
        return False
    key = schema.get(UNIQUE_KEYS)
    if not isinstance(key, str):
        return True
    keys = [_canonical(item.get(key)) for item in items if isinstance(item, dict)]
    return len(set(keys)) == len(keys)


def _check_object(schema: JsonSchema, value: JsonValue, ctx: _Context) -> bool:
    if not isinstance(value, dict):
        return True
    mapping = value
    required: list[str] = schema.get("required", [])
    if any(key not in mapping for key in required):
        return False
    if not _counts(schema, "minProperties", "maxProperties", len(mapping)):
        return False
    names = schema.get("propertyNames", True)
    if not all(ctx.admits(names, key) for key in mapping):
        return False
    return all(_property_fits(schema, key, item, ctx) for key, item in mapping.items())


def _property_fits(schema: JsonSchema, key: str, item: JsonValue, ctx: _Context) -> bool:
    properties: JsonSchema = schema.get("properties", {})
    patterns: JsonSchema = schema.get("patternProperties", {})
    matched = [sub for pattern, sub in patterns.items() if _matches(pattern, key)]
    if key not in properties and not matched:
        return ctx.admits(schema.get("additionalProperties", True), item)
    own = [properties[key]] if key in properties else []
    return all(ctx.admits(sub, item) for sub in [*own, *matched])


def _check_dependents(schema: JsonSchema, value: JsonValue, ctx: _Context) -> bool:
    if not isinstance(value, dict):
        return True
    mapping = value
    needed: dict[str, list[str]] = schema.get("dependentRequired", {})
    for key, others in needed.items():
        if key in mapping and any(other not in mapping for other in others):
            return False
    dependents: JsonSchema = schema.get("dependentSchemas", {})
    return all(ctx.admits(sub, value) for key, sub in dependents.items() if key in mapping)


def _check_combinators(schema: JsonSchema, value: JsonValue, ctx: _Context) -> bool:
    if not all(ctx.admits(sub, value) for sub in schema.get("allOf", [])):
        return False
    any_of: list[JsonValue] = schema.get("anyOf", [])
    if any_of and not any(ctx.admits(sub, value) for sub in any_of):
        return False
    one_of: list[JsonValue] = schema.get("oneOf", [])
    if one_of and sum(ctx.admits(sub, value) for sub in one_of) != 1:
        return False
    return "not" not in schema or not ctx.admits(schema["not"], value)


def _check_conditional(schema: JsonSchema, value: JsonValue, ctx: _Context) -> bool:
    if "if" not in schema:
        return True
    branch = "then" if ctx.admits(schema["if"], value) else "else"
    return ctx.admits(schema.get(branch, True), value)


_CHECKS = (
    _check_type,
    _check_values,
    _check_number,
    _check_string,
    _check_array,
    _check_object,
    _check_dependents,
    _check_combinators,
    _check_conditional,
    _check_ref,
)
