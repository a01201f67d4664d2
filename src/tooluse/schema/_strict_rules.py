"""The strict-mode rules: which JSON schemas OpenAI's strict mode accepts, and a checker.

The rules follow the Structured Outputs guide: the root is an object; every
object is closed and lists all its properties as required; only a subset of
keywords is allowed, by type; and the schema stays within size limits.
`check_strict_schema` reports every violation with its JSON path, the rule it
breaks and how to fix it, so that nothing fails later as a 400 at run time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TypeAlias

__all__ = [
    "SUPPORTED_FORMATS",
    "SUPPORTED_KEYWORDS",
    "JsonSchema",
    "JsonValue",
    "StrictViolation",
    "all_subschemas",
    "check_strict_schema",
    "check_tool_name",
    "is_plain_leaf",
    "subschemas",
]

JsonValue: TypeAlias = "str | int | float | bool | list[JsonValue] | dict[str, JsonValue] | None"
"""A value `json.loads` returns: what walking a schema or the model's arguments meets."""
JsonSchema: TypeAlias = dict[str, Any]
"""A JSON schema object, as pydantic's `JsonSchemaValue`: each keyword's value read for
what that keyword holds (a type name, a list of subschemas, a bound)."""

SUPPORTED_KEYWORDS = frozenset(
    # any type; objects; strings; numbers; arrays
    [
        "type",
        "enum",
        "const",
        "anyOf",
        "$ref",
        "$defs",
        "description",
        "title",
        "properties",
        "required",
        "additionalProperties",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "items",
        "minItems",
        "maxItems",
    ]
)
"""Keywords strict mode accepts."""
SUPPORTED_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
"""Values of `format` strict mode accepts."""
SUPPORTED_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})

MAX_PROPERTIES = 5_000
MAX_NESTING = 10
MAX_ENUM_VALUES = 1_000
MAX_STRING_SIZE = 120_000
LARGE_ENUM = 250
MAX_LARGE_ENUM_SIZE = 15_000
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

_TYPED_KEYS = ("type", "anyOf", "$ref", "enum", "const")
_SCALAR_TYPES = SUPPORTED_TYPES - {"object", "array"}
Path = tuple[str | int, ...]


@dataclass(frozen=True)
class StrictViolation:
    """One way a schema breaks OpenAI's strict-mode rules."""

    path: str
    """Where, as dotted JSON keys from the root (`properties.tags.items`); empty for the root."""
    rule: str
    """The rule broken, e.g. `additionalProperties`, `unsupported-keyword`, `max-nesting`."""
    message: str
    """What is wrong."""
    fix: str
    """How to fix it."""

    def __str__(self) -> str:
        where = self.path or "(root)"
        return f"{where}: {self.message} [{self.rule}]; fix: {self.fix}"


def check_strict_schema(schema: JsonSchema, *, name: str | None = None) -> list[StrictViolation]:
    """Check a tool's parameters schema (and name) against OpenAI's strict-mode rules.

    Args:
        schema: The JSON schema of the tool's arguments.
        name: The tool's name, to check too; None skips it.

    Returns:
        Every violation found, in document order; empty when the schema is fine.
    """
    violations: list[StrictViolation] = []
    if name is not None:
        violations.extend(check_tool_name(name))
    if schema.get("type") != "object" or "anyOf" in schema:
        violations.append(
            StrictViolation(
                "",
                "root-object",
                "the root of a strict JSON schema must be an object (not anyOf)",
                "wrap the arguments in an object with named properties",
            )
        )
    nodes: list[tuple[Path, JsonSchema]] = []
    depth = _collect(schema, (), 0, nodes)
    for path, node in nodes:
        violations.extend(_check_node(path, node))
    violations.extend(_check_limits(schema, [node for _, node in nodes], depth))
    return violations


def check_tool_name(name: str) -> list[StrictViolation]:
    """Check a tool name against the APIs' pattern `^[a-zA-Z0-9_-]{1,64}$`.

    Args:
        name: The tool's name.

    Returns:
        One violation if the name does not match, else none.
    """
    if TOOL_NAME.match(name):
        return []
    return [
        StrictViolation(
            "name",
            "tool-name",
            f"the tool name {name!r} does not match ^[a-zA-Z0-9_-]{{1,64}}$",
            "use 1 to 64 letters, digits, '_' or '-' (name_override='...')",
        )
    ]


def _check_node(at: Path, node: JsonSchema) -> Iterator[StrictViolation]:
    if is_plain_leaf(node):
        return
    path = _dotted(at)
    for key in node:
        if key not in SUPPORTED_KEYWORDS:
            yield StrictViolation(
                path,
                "unsupported-keyword",
                f"the keyword {key!r} is not supported",
                "remove it (tooluse states such constraints in the description)",
            )
    if "$ref" in node and len(node) > 1:
        yield StrictViolation(
            path,
            "ref-siblings",
            f"a $ref cannot have sibling keywords ({', '.join(k for k in node if k != '$ref')})",
            "move them into the definition it refers to, or inline the definition",
        )
    fmt = node.get("format")
    if fmt is not None and fmt not in SUPPORTED_FORMATS:
        yield StrictViolation(
            path,
            "unsupported-format",
            f"format {fmt!r} is not supported",
            f"use one of {', '.join(sorted(SUPPORTED_FORMATS))}, or remove it",
        )
    yield from _check_type(path, node)
    if node.get("type") == "object" or "properties" in node:
        yield from _check_object(path, node)


def is_plain_leaf(node: JsonSchema) -> bool:
    """Whether `node` is the common case: a scalar with supported keywords only.

    Args:
        node: A subschema.

    Returns:
        True when there is nothing inside to check or rewrite.
    """
    kind = node.get("type")
    return (
        isinstance(kind, str)
        and kind in _SCALAR_TYPES
        and "format" not in node
        and "$ref" not in node
        and node.keys() <= SUPPORTED_KEYWORDS
    )


def _check_type(path: str, node: JsonSchema) -> Iterator[StrictViolation]:
    if not any(key in node for key in _TYPED_KEYS):
        yield StrictViolation(
            path,
            "untyped",
            "the schema accepts any value (no type, anyOf, enum or const)",
            "give it a concrete type",
        )
    declared: JsonValue = node.get("type", [])
    types = declared if isinstance(declared, list) else [declared]
    for kind in types:
        if kind not in SUPPORTED_TYPES:
            yield StrictViolation(
                path,
                "type",
                f"type {kind!r} is not a JSON schema type",
                f"use one of {', '.join(sorted(SUPPORTED_TYPES))}",
            )


def _check_object(path: str, node: JsonSchema) -> Iterator[StrictViolation]:
    if node.get("additionalProperties") is not False:
        yield StrictViolation(
            path,
            "additionalProperties",
            "the object is not closed",
            'set "additionalProperties": false',
        )
    properties: JsonSchema = node.get("properties", {})
    missing = [key for key in properties if key not in node.get("required", [])]
    if missing:
        yield StrictViolation(
            path,
            "required",
            f"properties {missing} are not in required",
            "list every property in required (make optional ones nullable instead)",
        )


def _check_limits(
    schema: JsonSchema, nodes: list[JsonSchema], depth: int
) -> Iterator[StrictViolation]:
    properties = sum(len(node.get("properties", {})) for node in nodes)
    if properties > MAX_PROPERTIES:
        yield _limit("max-properties", f"{properties} object properties", MAX_PROPERTIES)
    if depth > MAX_NESTING:
        yield _limit("max-nesting", f"{depth} levels of nesting", MAX_NESTING)
    enums: list[list[JsonValue]] = [
        node["enum"] for node in nodes if isinstance(node.get("enum"), list)
    ]
    values = sum(len(enum) for enum in enums)
    if values > MAX_ENUM_VALUES:
        yield _limit("max-enum-values", f"{values} enum values", MAX_ENUM_VALUES)
    size = _string_size(schema, nodes, enums)
    if size > MAX_STRING_SIZE:
        yield _limit("max-string-size", f"{size} characters of names and values", MAX_STRING_SIZE)
    for enum in enums:
        enum_size = sum(len(_text(value)) for value in enum)
        if len(enum) > LARGE_ENUM and enum_size > MAX_LARGE_ENUM_SIZE:
            yield _limit(
                "max-large-enum-size",
                f"an enum of {len(enum)} values with {enum_size} characters",
                MAX_LARGE_ENUM_SIZE,
            )


def _limit(rule: str, found: str, limit: int) -> StrictViolation:
    return StrictViolation(
        "",
        rule,
        f"the schema has {found}; the limit is {limit:,}",
        "split the tool, or move large lists of values out of the schema",
    )


def _string_size(schema: JsonSchema, nodes: list[JsonSchema], enums: list[list[JsonValue]]) -> int:
    names = sum(len(key) for node in nodes for key in node.get("properties", {}))
    definitions = sum(len(key) for key in schema.get("$defs", {}))
    values = sum(len(_text(value)) for enum in enums for value in enum)
    consts = sum(len(_text(node["const"])) for node in nodes if "const" in node)
    return names + definitions + values + consts


def _text(value: JsonValue) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _collect(node: JsonSchema, path: Path, depth: int, found: list[tuple[Path, JsonSchema]]) -> int:
    """Gather every subschema with its path, the root first, into `found`.

    Returns:
        How many objects deep the schema goes (each definition counted on its own).
    """
    found.append((path, node))
    here = depth + 1 if "properties" in node else depth
    deepest = here
    for steps, child in subschemas(node):
        child_depth = 0 if steps[0] == "$defs" else here
        deepest = max(deepest, _collect(child, (*path, *steps), child_depth, found))
    return deepest


def all_subschemas(schema: JsonSchema) -> list[JsonSchema]:
    """Every subschema of `schema`, itself first, definitions included.

    Args:
        schema: A JSON schema.

    Returns:
        The nodes, in document order.
    """
    found: list[tuple[Path, JsonSchema]] = []
    _collect(schema, (), 0, found)
    return [node for _, node in found]


def subschemas(node: JsonSchema) -> Iterator[tuple[Path, JsonSchema]]:
    """The subschemas directly under `node`, with the keys that lead to each.

    Args:
        node: A JSON schema.

    Yields:
        The keys from `node` to each child, and the child.
    """
    child: JsonValue
    for key in ("properties", "$defs"):
        children: dict[str, JsonValue] = node.get(key, {})
        for name, child in children.items():
            if isinstance(child, dict):
                yield (key, name), child
    for key in ("items", "additionalProperties"):
        child = node.get(key)
        if isinstance(child, dict):
            yield (key,), child
    branches: list[JsonValue] = node.get("anyOf", [])
    for index, child in enumerate(branches):
        if isinstance(child, dict):
            yield ("anyOf", index), child


def _dotted(path: Path) -> str:
    return ".".join(str(part) for part in path)
