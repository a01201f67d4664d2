"""An MCP tool's `inputSchema`, sent strict when tooluse's rewrites make it fit, else as it is.

A server's schema goes through the same strict transform and checker as a
`@function_tool`'s. When nothing is left that strict mode cannot express, the
tool is offered strict, and the rewrites that change the arguments' shape
(optional keys made nullable, dicts as key/value pairs, tuples as `item_i`
objects, values of any type as JSON text) are undone on the model's
arguments before they reach the server. Otherwise the tool is offered
non-strict with the server's schema, and a debug log on the `tooluse` logger
says which tool and why (`ToolSchema.why`, which `tooluse check` reports for
every tool). No schema, however odd, raises here.
"""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass
from typing import Any, cast

from ..schema._adapters import ArgumentAdapters, compile_adapters
from ..schema._strict import Adapter, describe_problems, describe_violations, to_strict_schema
from ..schema._strict_rules import check_strict_schema

__all__ = ["ToolSchema", "tool_schema"]

logger = logging.getLogger("tooluse")

JsonSchema = dict[str, Any]
_OFF = "sent non-strict"


@dataclass(frozen=True)
class ToolSchema:
    """What the model is offered for one server tool, and how its arguments come back."""

    params_json_schema: JsonSchema
    """The schema sent to the model."""
    strict: bool
    """Whether it is sent in strict mode."""
    adapters: ArgumentAdapters | None = None
    """The rewrites to undo on the arguments, for a strict schema that has any."""
    reasons: tuple[str, ...] = ()
    """Why the schema is sent non-strict, one line per problem."""
    rewrites: tuple[str, ...] = ()
    """For a strict schema, what its arguments needed rewriting for (undone before the
    server sees them), one line per kind: `optional keys made nullable ...`."""

    @property
    def why(self) -> str:
        """Why the schema is sent as it is: strict, strict after rewrites, or non-strict."""
        if not self.strict:
            return "sent non-strict: " + "; ".join(self.reasons)
        if not self.rewrites:
            return "sent strict: its schema fits strict mode"
        return (
            "sent strict after rewrites undone on the arguments before they reach the server: "
            + "; ".join(self.rewrites)
        )


def tool_schema(tool_name: str, input_schema: object) -> ToolSchema:
    """The schema to offer for a server tool, strict when it can be.

    Args:
        tool_name: The tool's name, for the log.
        input_schema: The tool's `inputSchema`, as the server sent it.

    Returns:
        The strict schema with its adapters, or the server's schema (its root an object).
    """
    try:
        result = _strict(input_schema)
    except Exception as error:  # a schema no rule foresaw: offered as it is
        result = ToolSchema(_loose(input_schema), False, None, (f"it could not be read ({error})",))
    if not result.strict:
        logger.debug("MCP tool %r is offered non-strict: %s", tool_name, "; ".join(result.reasons))
    return result


def _strict(input_schema: object) -> ToolSchema:
    if not isinstance(input_schema, dict):
        return ToolSchema(_loose(input_schema), False, None, ("its inputSchema is not an object",))
    schema = cast(JsonSchema, input_schema)
    if schema.get("type", "object") != "object":
        reason = "its inputSchema's root is not an object"
        return ToolSchema(_loose(schema), False, None, (reason,))
    result = to_strict_schema(schema, adapters=True, hand_written=True)
    reasons = describe_problems(schema, result.problems, _OFF)
    if not reasons:
        reasons = describe_violations(result.schema, check_strict_schema(result.schema))
    if reasons:
        return ToolSchema(_loose(schema), False, None, tuple(reasons))
    adapters = dict(result.adapters)
    _optional_root_keys(schema, result.schema, adapters)
    kinds = {adapter.kind for adapter in adapters.values()}
    rewrites = tuple(text for kind, text in _REWRITES.items() if kind in kinds)
    return ToolSchema(
        result.schema, True, compile_adapters(result.schema, adapters), rewrites=rewrites
    )


_REWRITES = {
    "omit": "optional keys made nullable, and left out when null",
    "pairs": "free-form objects sent as key/value pairs",
    "tuple": "tuples sent as item_0, item_1, ... objects",
    "json": "values of any type sent as JSON text",
}


def _optional_root_keys(
    original: JsonSchema, strict: JsonSchema, adapters: dict[int, Adapter]
) -> None:
    """Let the model leave out an optional argument by sending null, as it cannot omit it.

    Strict mode requires every key; a key the server does not require (and gives no
    default) becomes nullable, and an `omit` adapter drops it again when null.
    """
    required: set[str] = set(original.get("required") or ())
    declared: JsonSchema = original.get("properties") or {}
    properties: JsonSchema = strict.get("properties", {})
    keys = [
        key
        for key, prop in properties.items()
        if key not in required
        and "default" not in (declared.get(key) or {})
        and not _admits_null(prop)
    ]
    if not keys:
        return
    for key in keys:
        prop: JsonSchema = properties[key]
        outer: JsonSchema = {"anyOf": [prop, {"type": "null"}]}
        if "description" in prop:
            outer["description"] = prop.pop("description")
        properties[key] = outer
    adapters[id(strict)] = Adapter("omit", keys=frozenset(keys))


def _admits_null(prop: JsonSchema) -> bool:
    declared: object = prop.get("type")
    types = cast("list[object]", declared) if isinstance(declared, list) else [declared]
    branches: list[object] = prop.get("anyOf", [])
    return "null" in types or any(
        isinstance(branch, dict) and _admits_null(cast(JsonSchema, branch)) for branch in branches
    )


def _loose(input_schema: object) -> JsonSchema:
    """The server's schema as the model gets it non-strict: a copy, its root an object."""
    if not isinstance(input_schema, dict):
        return {"type": "object", "properties": {}}
    schema = copy.deepcopy(cast(JsonSchema, input_schema))
    if schema.setdefault("type", "object") != "object":
        return {"type": "object", "properties": {}}
    schema.setdefault("properties", {})
    return schema
