"""Property test: any signature over the supported types is usable in strict mode.

For each generated signature (primitives, Optional, Literal, Enum, lists, dicts,
TypedDicts, dataclasses and models, nested to depth 3, with and without
defaults) the strict schema must pass the checker; arguments generated from
the schema must be accepted and arrive as the right Python values; and JSON
the schema rejects must be rejected with an argument error, unless pydantic's
lax coercion turns it into a value the schema accepts (which is checked too).
"""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Optional, cast

import pydantic
import typing_extensions
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tooluse import FunctionTool, check_strict_schema, function_tool

from .conftest import examples, tool_context
from .types_for_tests import Color

_names = itertools.count()
ARGUMENT_ERROR = "was called with invalid arguments"


@dataclass(frozen=True)
class Spec:
    """A generated type: its annotation, its values, and how the model writes them."""

    annotation: Any
    values: st.SearchStrategy[Any]
    to_wire: Callable[[Any], Any]
    defaultable: bool = True


def same(value: Any) -> Any:
    return value


TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=8)
LEAVES = [
    Spec(str, TEXT, same),
    Spec(int, st.integers(-(2**53), 2**53), same),
    Spec(float, st.floats(allow_nan=False, allow_infinity=False), same),
    Spec(bool, st.booleans(), same),
    Spec(Literal["a", "b"], st.sampled_from(["a", "b"]), same),
    Spec(Color, st.sampled_from(Color), lambda member: member.value),
]


def optional(spec: Spec) -> Spec:
    return Spec(
        Optional[spec.annotation],  # noqa: UP045 - built at run time from a type object
        st.none() | spec.values,
        lambda value: None if value is None else spec.to_wire(value),
    )


def list_of(spec: Spec) -> Spec:
    return Spec(
        list[spec.annotation],
        st.lists(spec.values, max_size=3),
        lambda values: [spec.to_wire(v) for v in values],
    )


# pydantic reads a default's "$ref"/"$defs" keys as schema keywords and crashes while
# writing the JSON schema: keys here avoid "$" (tooluse reports that crash as a UserError).
KEYS = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="$"), max_size=8)


def dict_of(spec: Spec) -> Spec:
    return Spec(
        dict[str, spec.annotation],
        st.dictionaries(KEYS, spec.values, max_size=3),
        lambda mapping: [{"key": k, "value": spec.to_wire(v)} for k, v in mapping.items()],
    )


def fields_of(specs: list[Spec]) -> dict[str, Spec]:
    return {f"f{index}": spec for index, spec in enumerate(specs)}


def typeddict_of(specs: list[Spec]) -> Spec:
    fields = fields_of(specs)
    annotations = {name: spec.annotation for name, spec in fields.items()}
    make_typeddict: Any = typing_extensions.TypedDict  # the functional form, with a dynamic dict
    cls = make_typeddict(f"TD{next(_names)}", annotations)
    return Spec(
        cls,
        st.fixed_dictionaries({name: spec.values for name, spec in fields.items()}),
        lambda value: {name: spec.to_wire(value[name]) for name, spec in fields.items()},
    )


def dataclass_of(specs: list[Spec]) -> Spec:
    fields = fields_of(specs)
    cls = dataclasses.make_dataclass(
        f"DC{next(_names)}", [(name, spec.annotation) for name, spec in fields.items()]
    )
    values = st.builds(cls, **{name: spec.values for name, spec in fields.items()})
    return Spec(cls, values, _attribute_wire(fields), defaultable=False)


def model_of(specs: list[Spec]) -> Spec:
    fields = fields_of(specs)
    definitions: dict[str, Any] = {name: (spec.annotation, ...) for name, spec in fields.items()}
    cls: type[pydantic.BaseModel] = pydantic.create_model(f"M{next(_names)}", **definitions)
    values = st.builds(cls, **{name: spec.values for name, spec in fields.items()})
    return Spec(cls, values, _attribute_wire(fields), defaultable=False)


def _attribute_wire(fields: dict[str, Spec]) -> Callable[[Any], Any]:
    return lambda value: {name: spec.to_wire(getattr(value, name)) for name, spec in fields.items()}


def extend(children: st.SearchStrategy[Spec]) -> st.SearchStrategy[Spec]:
    several = st.lists(children, min_size=1, max_size=3)
    return st.one_of(
        children.map(optional),
        children.map(list_of),
        children.map(dict_of),
        several.map(typeddict_of),
        several.map(dataclass_of),
        several.map(model_of),
    )


SPECS = st.recursive(st.sampled_from(LEAVES), extend, max_leaves=6)


@dataclass
class Signature:
    specs: dict[str, Spec]
    tool: FunctionTool
    received: list[dict[str, Any]]

    def wire(self, values: dict[str, Any]) -> dict[str, Any]:
        return {name: spec.to_wire(values[name]) for name, spec in self.specs.items()}


@st.composite
def signatures(draw: st.DrawFn) -> Signature:
    specs = {f"p{i}": draw(SPECS) for i in range(draw(st.integers(1, 3)))}
    parameters: list[inspect.Parameter] = []
    for name, spec in specs.items():
        default = inspect.Parameter.empty
        if spec.defaultable and draw(st.booleans()):
            default = draw(spec.values)
        parameters.append(
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=spec.annotation
            )
        )
    received: list[dict[str, Any]] = []

    def call(**kwargs: Any) -> str:
        received.append(kwargs)
        return "ok"

    call.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    call.__annotations__ = {name: spec.annotation for name, spec in specs.items()}
    return Signature(specs, function_tool(call), received)


def from_schema(node: dict[str, Any], defs: dict[str, Any] | None = None) -> st.SearchStrategy[Any]:
    """Values a strict schema admits (the subset tooluse emits), as strict decoding would send."""
    known: dict[str, Any] = node.get("$defs", {}) if defs is None else defs
    if "$ref" in node:
        return from_schema(known[str(node["$ref"]).rsplit("/", 1)[-1]], known)
    if "const" in node:
        return st.just(node["const"])
    if "enum" in node:
        return st.sampled_from(node["enum"])
    if "anyOf" in node:
        return st.one_of([from_schema(branch, known) for branch in node["anyOf"]])
    kind = node["type"]
    if kind == "object":
        return st.fixed_dictionaries(
            {k: from_schema(v, known) for k, v in node["properties"].items()}
        )
    if kind == "array":
        return st.lists(from_schema(node["items"], known), max_size=min(3, node.get("maxItems", 3)))
    return {
        "string": TEXT,
        "integer": st.integers(-(2**53), 2**53),
        "number": st.floats(allow_nan=False, allow_infinity=False) | st.integers(-100, 100),
        "boolean": st.booleans(),
        "null": st.none(),
    }[kind]


async def invoke(tool: FunctionTool, arguments: Any) -> str:
    text = json.dumps(arguments)
    return await tool.on_invoke_tool(tool_context(tool.name, text), text)


def admitted(schema: dict[str, Any], instance: Any) -> bool:
    validator: Any = Draft202012Validator(schema)
    return bool(validator.is_valid(instance))


PROPERTY_SETTINGS = settings(
    max_examples=examples(500),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@PROPERTY_SETTINGS
@given(signatures(), st.data())
async def test_strict_schemas_pass_and_round_trip(sig: Signature, data: st.DataObject) -> None:
    schema = sig.tool.params_json_schema
    assert check_strict_schema(schema) == []

    values = data.draw(st.fixed_dictionaries({n: s.values for n, s in sig.specs.items()}))
    wire = sig.wire(values)
    assert admitted(schema, wire)
    assert await invoke(sig.tool, wire) == "ok"
    assert sig.received[-1] == values

    from_the_schema = data.draw(from_schema(schema))
    result = await invoke(sig.tool, from_the_schema)
    assert result == "ok", result
    assert admitted(schema, sig.wire(sig.received[-1]))


JUNK = st.sampled_from(["5", 5, 2.5, True, None, [], {}, "x", [{"key": 1}], {"item_0": 1}])


def leaf_paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        mapping = cast(dict[str, Any], value)
        return [path] + [p for k, v in mapping.items() for p in leaf_paths(v, (*path, k))]
    if isinstance(value, list):
        items = cast(list[Any], value)
        return [path] + [p for i, v in enumerate(items) for p in leaf_paths(v, (*path, i))]
    return [path]


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = json.loads(json.dumps(value))
    target = copy
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = new
    return copy


@PROPERTY_SETTINGS
@given(signatures(), st.data())
async def test_json_the_schema_rejects_is_rejected(sig: Signature, data: st.DataObject) -> None:
    schema = sig.tool.params_json_schema
    values = data.draw(st.fixed_dictionaries({n: s.values for n, s in sig.specs.items()}))
    wire = sig.wire(values)
    paths = [p for p in leaf_paths(wire) if p]
    mutated = replaced(wire, data.draw(st.sampled_from(paths)), data.draw(JUNK))
    if admitted(schema, mutated):
        event("the junk fits the schema")
        return
    before = len(sig.received)
    result = await invoke(sig.tool, mutated)
    if len(sig.received) == before:
        event("rejected with an argument error")
        assert ARGUMENT_ERROR in result, result
    else:  # lax coercion ("5" -> 5): what arrived must be something the schema admits
        event("coerced into what the schema admits")
        assert result == "ok"
        assert admitted(schema, sig.wire(sig.received[-1]))
