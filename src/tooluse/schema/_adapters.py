"""Undoing the strict transform's adapters on the arguments a model sends.

For a schema with adapters (see `_strict`), `compile_adapters` builds, once, a
small plan that mirrors only the parts of the schema leading to an adapted
node. `ArgumentAdapters.apply` walks the parsed arguments along that plan and
turns key/value pairs back into dicts, `item_i` objects back into tuples and
JSON text back into values, before pydantic validates them. Tools without
adapters never get here: they keep pydantic's one-pass JSON validation.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, cast

from ._strict import Adapter, def_name
from ._strict_rules import JsonSchema, JsonValue, all_subschemas, subschemas

__all__ = ["AdapterMismatch", "ArgumentAdapters", "compile_adapters"]

Location = tuple[str | int, ...]


class AdapterMismatch(Exception):
    """The arguments do not have the adapted shape the schema asked for."""

    def __init__(self, location: Location, message: str) -> None:
        self.location = location
        self.message = message
        super().__init__(message)


@dataclass(frozen=True)
class _Shape:
    """Enough of a subschema to tell which `anyOf` branch a value belongs to."""

    types: frozenset[str] | None
    values: tuple[JsonValue, ...] | None
    item: _Shape | None
    keys: frozenset[str] | None

    def matches(self, value: JsonValue) -> bool:
        if self.values is not None:
            return value in self.values
        if self.types is not None and not _json_type(value) & self.types:
            return False
        if self.item is not None and isinstance(value, list) and value:
            return self.item.matches(value[0])
        if self.keys is not None and isinstance(value, dict):
            return set(value) <= self.keys
        return True


@dataclass
class _Plan:
    """What to do at one node: undo an adapter, or go down into some children."""

    adapter: Adapter | None = None
    properties: dict[str, _Plan] | None = None
    items: _Plan | None = None
    value: _Plan | None = None  # a dict adapter's values
    omit: frozenset[str] = frozenset()  # keys to leave out when null
    branches: list[tuple[_Shape, _Plan | None]] | None = None
    ref: str | None = None


class ArgumentAdapters:
    """Applies the inverse of every adapter in a tool's schema to its arguments."""

    def __init__(self, root: _Plan, definitions: dict[str, _Plan]) -> None:
        self._root = root
        self._definitions = definitions

    def apply(self, arguments: dict[str, JsonValue]) -> dict[str, Any]:
        """Return the arguments with every adapted value turned back into its Python form.

        Args:
            arguments: The parsed JSON object the model sent.

        Returns:
            The same object, with adapted values replaced: the values the tool receives.

        Raises:
            AdapterMismatch: If an adapted value does not have the shape the schema asked for.
        """
        # Walked in place, the root comes back as `arguments` itself: the strict rules make
        # it an object with named properties.
        return cast("dict[str, Any]", self._walk(self._root, arguments, ()))

    def _walk(self, plan: _Plan, value: JsonValue, where: Location) -> object:
        """`value` as the model sent it, in its Python form (the walk goes down first)."""
        if plan.ref is not None:
            plan = self._definitions[plan.ref]
        if plan.adapter is not None:
            return self._undo(plan, value, where)
        if plan.branches is not None:
            branch = next((p for shape, p in plan.branches if shape.matches(value)), None)
            return value if branch is None else self._walk(branch, value, where)
        if isinstance(value, dict):
            return self._walk_object(plan, value, where)
        if plan.items is not None and isinstance(value, list):
            return [self._walk(plan.items, item, (*where, i)) for i, item in enumerate(value)]
        return value

    def _walk_object(
        self, plan: _Plan, mapping: dict[str, Any], where: Location
    ) -> dict[str, object]:
        """`mapping` changed in place: its values go from JSON to their Python form."""
        for key in plan.omit:
            if key in mapping and mapping[key] is None:
                del mapping[key]
        for key, child in (plan.properties or {}).items():
            if key in mapping:
                mapping[key] = self._walk(child, mapping[key], (*where, key))
        return mapping

    def _undo(self, plan: _Plan, value: JsonValue, where: Location) -> object:
        kind = cast(Adapter, plan.adapter).kind
        if kind == "pairs":
            return self._undo_pairs(plan, value, where)
        if kind == "tuple":
            return self._undo_tuple(plan, value, where)
        return _undo_json(value, where)

    def _undo_pairs(self, plan: _Plan, value: JsonValue, where: Location) -> dict[object, object]:
        if not isinstance(value, list):
            raise AdapterMismatch(where, 'expected an array of {"key": ..., "value": ...} objects')
        result: dict[object, object] = {}
        for index, pair in enumerate(value):
            if not (isinstance(pair, dict) and set(pair) == {"key", "value"}):
                raise AdapterMismatch((*where, index), 'expected an object with "key" and "value"')
            key = pair["key"]
            if isinstance(key, list | dict):  # unhashable: it cannot be a dict key
                raise AdapterMismatch((*where, index, "key"), "expected a string")
            child = plan.value
            result[key] = (
                pair["value"]
                if child is None
                else self._walk(child, pair["value"], (*where, index, "value"))
            )
        return result

    def _undo_tuple(self, plan: _Plan, value: JsonValue, where: Location) -> list[object]:
        size = cast(Adapter, plan.adapter).size
        names = [f"item_{index}" for index in range(size)]
        if not (isinstance(value, dict) and set(value) == set(names)):
            raise AdapterMismatch(where, f"expected an object with {', '.join(names)}")
        children = plan.properties or {}
        return [
            self._walk(children[name], value[name], (*where, name))
            if name in children
            else value[name]
            for name in names
        ]


def _undo_json(value: JsonValue, where: Location) -> JsonValue:
    if not isinstance(value, str):
        raise AdapterMismatch(where, "expected a string of JSON")
    try:
        return json.loads(value)
    except json.JSONDecodeError as error:
        raise AdapterMismatch(
            where, f"expected a string of JSON: {error.msg} at column {error.colno}"
        ) from None


def compile_adapters(schema: JsonSchema, adapters: dict[int, Adapter]) -> ArgumentAdapters | None:
    """Build the plan that undoes `adapters`, or None when there is nothing to undo.

    Args:
        schema: The strict schema the adapters were recorded in (by node `id()`).
        adapters: The adapted nodes.

    Returns:
        The compiled adapters, or None if `adapters` is empty.
    """
    if not adapters:
        return None
    return _Compiler(schema, adapters).compile()


class _Compiler:
    def __init__(self, schema: JsonSchema, adapters: dict[int, Adapter]) -> None:
        self.defs: dict[str, JsonSchema] = schema.get("$defs", {})
        self.schema = schema
        self.adapters = adapters
        self.relevant = _leading_to_adapters(schema, self.defs, adapters)

    def compile(self) -> ArgumentAdapters:
        root = self.plan(self.schema) or _Plan()
        definitions = {
            name: self.plan(node) or _Plan()
            for name, node in self.defs.items()
            if id(node) in self.relevant
        }
        return ArgumentAdapters(root, definitions)

    def plan(self, node: JsonSchema) -> _Plan | None:
        if "$ref" in node:
            name = def_name(node["$ref"])
            return _Plan(ref=name) if id(self.defs.get(name)) in self.relevant else None
        if id(node) not in self.relevant:
            return None
        adapter = self.adapters.get(id(node))
        if adapter is not None:
            return self._adapter_plan(node, adapter)
        if "anyOf" in node:
            branches = [(self.shape(b), self.plan(b)) for b in node["anyOf"]]
            return _Plan(branches=branches)
        if "properties" in node:
            return _Plan(properties=self._children(node["properties"]))
        return _Plan(items=self.plan(node["items"])) if "items" in node else None

    def _adapter_plan(self, node: JsonSchema, adapter: Adapter) -> _Plan:
        if adapter.kind == "omit":  # an ordinary object, but for the keys it drops when null
            return _Plan(properties=self._children(node["properties"]), omit=adapter.keys)
        if adapter.kind == "pairs":
            return _Plan(adapter=adapter, value=self.plan(node["items"]["properties"]["value"]))
        if adapter.kind == "tuple":
            return _Plan(adapter=adapter, properties=self._children(node["properties"]))
        return _Plan(adapter=adapter)

    def _children(self, properties: dict[str, JsonSchema]) -> dict[str, _Plan]:
        plans = {key: self.plan(child) for key, child in properties.items()}
        return {key: plan for key, plan in plans.items() if plan is not None}

    def shape(self, node: JsonSchema, depth: int = 2) -> _Shape:
        while "$ref" in node:
            node = self.defs[def_name(node["$ref"])]
        values = (node["const"],) if "const" in node else node.get("enum")
        declared = node.get("type")
        types = {declared} if isinstance(declared, str) else set(declared or ())
        if "anyOf" in node:
            return _Shape(None, None, None, None)  # nested unions: any branch may fit
        item = self.shape(node["items"], depth - 1) if "items" in node and depth else None
        keys = frozenset(node["properties"]) if "properties" in node else None
        return _Shape(
            frozenset(types) or None, tuple(values) if values is not None else None, item, keys
        )


def _leading_to_adapters(
    schema: JsonSchema, defs: dict[str, JsonSchema], adapters: dict[int, Adapter]
) -> set[int]:
    """The ids of nodes with an adapter at or below them, following `$ref`s (to a fixpoint)."""
    nodes = all_subschemas(schema)
    relevant = set(adapters)
    changed = True
    while changed:
        changed = False
        for node in nodes:
            if id(node) in relevant:
                continue
            children = list(_direct_children(node, defs))
            if any(id(child) in relevant for child in children):
                relevant.add(id(node))
                changed = True
    return relevant


def _direct_children(node: JsonSchema, defs: dict[str, JsonSchema]) -> list[JsonSchema]:
    children = [child for _, child in subschemas(node)]
    if "$ref" in node and def_name(node["$ref"]) in defs:
        children.append(defs[def_name(node["$ref"])])
    return children


def _json_type(value: JsonValue) -> set[str]:
    """The JSON schema types a parsed JSON value has (an integer is also a number)."""
    if value is None:
        return {"null"}
    if isinstance(value, bool):
        return {"boolean"}
    if isinstance(value, int):
        return {"integer", "number"}
    if isinstance(value, float):
        return {"number"}
    if isinstance(value, str):
        return {"string"}
    return {"array"} if isinstance(value, list) else {"object"}
