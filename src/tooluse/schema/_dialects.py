"""Each provider's schema dialect: a tool's strict JSON schema rewritten into what it accepts.

The strict transform makes a schema OpenAI's strict mode accepts, and records how
to undo each rewrite on the arguments (`_adapters.py`). The other providers start
from that strict schema, so the arguments their models send have its shape and the
same adapters undo them; a dialect only rewrites how the schema is spelled, and
says what it rewrote (`tooluse check --provider`):

- Anthropic (`input_schema`) takes JSON Schema, strict tools included: the schema
  goes as it is, the root must be an object. Its strict tool use rejects a few
  constraints (numeric bounds, string lengths) that strict mode already keeps in
  words, so there is nothing to rewrite.
- Gemini (`parameters`) takes a subset of OpenAPI 3.0's schema object: `$ref`s are
  inlined (a recursive schema cannot be, and is cut where it recurses), types are
  spelled in capitals, a `null` branch of an `anyOf` (or a type list) becomes
  `nullable`, `const` becomes a one-value `enum`, an `enum` of anything but strings
  is kept in the description instead (the values are still checked when the tool
  is called), and keywords outside the subset (`additionalProperties`, `title`,
  `$defs`, formats it does not know) are left out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeAlias, cast

from ..core._factories import new_list
from ._lints import Finding

__all__ = [
    "PROVIDERS",
    "DialectSchema",
    "Provider",
    "anthropic_schema",
    "gemini_schema",
    "provider_findings",
]

Provider: TypeAlias = Literal["openai", "anthropic", "gemini"]
"""A provider whose schema dialect tooluse knows."""
PROVIDERS: tuple[Provider, ...] = ("openai", "anthropic", "gemini")

JsonObject: TypeAlias = Mapping[str, object]

_KEPT = {
    "description": "description",
    "format": "format",
    "minimum": "minimum",
    "maximum": "maximum",
    "minItems": "minItems",
    "maxItems": "maxItems",
    "minLength": "minLength",
    "maxLength": "maxLength",
    "pattern": "pattern",
    "minProperties": "minProperties",
    "maxProperties": "maxProperties",
    "default": "default",
    "example": "example",
}
"""The keywords Gemini's schema has, as JSON Schema spells them."""
_FORMATS = {"enum", "date-time", "int32", "int64", "float", "double"}
_TYPES = {"string", "number", "integer", "boolean", "array", "object", "null"}
_DROPPED_QUIETLY = {"title", "$schema", "$defs", "definitions", "strict"}
_MAX_DEPTH = 32


@dataclass
class DialectSchema:
    """A tool's schema in a provider's dialect, and what became of the strict one."""

    schema: dict[str, object]
    """The schema to send."""
    rewrites: list[str] = field(default_factory=new_list)
    """What was rewritten, each with where (`properties.when.anyOf`)."""
    refused: list[str] = field(default_factory=new_list)
    """What the provider would refuse that no rewrite can carry (a recursive schema)."""


def anthropic_schema(schema: JsonObject) -> DialectSchema:
    """The schema as Anthropic's `input_schema`: JSON Schema as it is, an object at the root.

    Args:
        schema: The tool's `params_json_schema`.

    Returns:
        The schema, and a refusal if its root is not an object.
    """
    found = DialectSchema(dict(schema))
    if schema.get("type") != "object":
        found.refused.append("the root is not an object schema (input_schema needs one)")
    return found


def gemini_schema(schema: JsonObject) -> DialectSchema:
    """The schema in Gemini's OpenAPI subset.

    Args:
        schema: The tool's `params_json_schema` (or an output type's strict schema).

    Returns:
        The rewritten schema, what was rewritten, and what Gemini would still refuse.
    """
    found = DialectSchema({})
    defs = {**_mapping(schema.get("definitions")), **_mapping(schema.get("$defs"))}
    found.schema = _Gemini(defs, found).node(schema, "", ())
    return found


def _mapping(value: object) -> dict[str, JsonObject]:
    """The object's members that are objects themselves (a schema's `properties`, `$defs`)."""
    if not isinstance(value, dict):
        return {}
    members = cast("dict[str, object]", value)  # JSON: its keys are strings
    return {key: cast(JsonObject, sub) for key, sub in members.items() if isinstance(sub, dict)}


class _Gemini:
    def __init__(self, defs: dict[str, JsonObject], found: DialectSchema) -> None:
        self.defs = defs
        self.found = found

    def note(self, where: str, what: str) -> None:
        self.found.rewrites.append(f"{where or 'the root'}: {what}")

    def node(self, node: JsonObject, where: str, seen: tuple[str, ...]) -> dict[str, object]:
        ref = node.get("$ref")
        if isinstance(ref, str):
            return self._inlined(node, ref, where, seen)
        out: dict[str, object] = {}
        self._type(node, out, where)
        for key, value in node.items():
            self._keyword(key, value, node, out, where, seen)
        return out

    def _inlined(
        self, node: JsonObject, ref: str, where: str, seen: tuple[str, ...]
    ) -> dict[str, object]:
        name = ref.rsplit("/", 1)[-1]
        target = self.defs.get(name)
        if target is None or name in seen or len(seen) >= _MAX_DEPTH:
            why = "recursive" if name in seen else "unresolved"
            self.found.refused.append(
                f"{where or 'the root'}: a {why} $ref {ref!r} cannot be inlined"
            )
            return {"type": "OBJECT", "description": f"(a {why} reference to {name})"}
        self.note(where, f"$ref {ref!r} inlined")
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return self.node(merged, where, (*seen, name))

    def _type(self, node: JsonObject, out: dict[str, object], where: str) -> None:
        kind = node.get("type")
        if isinstance(kind, list):
            names = [str(each) for each in kind]  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
            if "null" in names:
                out["nullable"] = True
                self.note(where, "'null' in the type list became nullable")
                names = [each for each in names if each != "null"]
            kind = names[0] if len(names) == 1 else None
            if len(names) > 1:
                self.found.refused.append(f"{where or 'the root'}: a type list {names}")
        if isinstance(kind, str) and kind in _TYPES:
            out["type"] = kind.upper()

    def _keyword(
        self,
        key: str,
        value: object,
        node: JsonObject,
        out: dict[str, object],
        where: str,
        seen: tuple[str, ...],
    ) -> None:
        here = f"{where}.{key}" if where else key
        if key == "type" or key in _DROPPED_QUIETLY:
            return
        if key in _KEPT:
            if key == "format" and value not in _FORMATS:
                self.note(here, f"format {value!r} left out (Gemini knows {sorted(_FORMATS)})")
                return
            out.setdefault(_KEPT[key], value)  # a description an enum extended stays
        elif key == "properties":
            props: dict[str, object] = {}
            for name, sub in _mapping(value).items():
                props[name] = self.node(sub, f"{here}.{name}", seen)
            out["properties"] = props
        elif key == "required" and isinstance(value, list):
            out["required"] = list(value)  # pyright: ignore[reportUnknownArgumentType]
        elif key == "items" and isinstance(value, dict):
            out["items"] = self.node(cast(JsonObject, value), here, seen)
        elif key in ("anyOf", "oneOf") and isinstance(value, list):
            self._any_of([v for v in value if isinstance(v, Mapping)], out, here, seen)  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
        elif key == "enum" and isinstance(value, list):
            self._enum(list(value), node, out, here)  # pyright: ignore[reportUnknownArgumentType]
        elif key == "const":
            self._enum([value], node, out, here)
            self.note(here, "const became a one-value enum")
        elif key == "additionalProperties":
            self.note(here, "left out (Gemini's schema has no additionalProperties)")
        else:
            self.note(here, "left out (not in Gemini's schema subset)")

    def _any_of(
        self,
        branches: list[JsonObject],
        out: dict[str, object],
        where: str,
        seen: tuple[str, ...],
    ) -> None:
        kept = [branch for branch in branches if branch.get("type") != "null"]
        converted = [self.node(branch, f"{where}[{i}]", seen) for i, branch in enumerate(kept)]
        if len(converted) == 1:
            for key, value in converted[0].items():
                out.setdefault(key, value)
        elif converted:
            out["anyOf"] = converted
        if len(kept) < len(branches):
            out["nullable"] = True
            self.note(where, "a null branch became nullable")

    def _enum(
        self, values: list[object], node: JsonObject, out: dict[str, object], where: str
    ) -> None:
        if all(isinstance(value, str) for value in values):
            out["enum"] = values
            out.setdefault("type", "STRING")
            return
        listed = ", ".join(json.dumps(value) for value in values)
        described = node.get("description")
        out["description"] = f"{described} One of: {listed}." if described else f"One of: {listed}."
        self.note(where, "an enum of values that are not strings kept in the description")


def provider_findings(
    tool: str, schema: JsonObject, strict: bool, provider: Provider
) -> list[Finding]:
    """What `tooluse check --provider` says of a tool: each rewrite, and each refusal.

    Args:
        tool: The tool's name.
        schema: Its `params_json_schema`.
        strict: Whether the schema is strict (`strict_json_schema`).
        provider: The provider it would be sent to.

    Returns:
        `provider-rewrite` findings (info) for what the dialect rewrote, `provider-refused`
        (error) for what the provider would refuse, and one `provider-strict` (info) saying
        how the tool is sent.
    """
    if provider == "openai":
        how = "strict" if strict else "non-strict (strict_mode=False)"
        return [Finding("provider-strict", "info", tool, f"sent to OpenAI {how}, as it is")]
    found = gemini_schema(schema) if provider == "gemini" else anthropic_schema(schema)
    name = "Gemini" if provider == "gemini" else "Anthropic"
    findings = [
        Finding("provider-refused", "error", tool, f"{name} would refuse it: {what}")
        for what in found.refused
    ]
    findings.extend(
        Finding("provider-rewrite", "info", tool, f"for {name}: {what}") for what in found.rewrites
    )
    if provider == "anthropic":
        how = "with strict: true" if strict else "without strict"
        findings.append(
            Finding("provider-strict", "info", tool, f"sent to Anthropic as input_schema, {how}")
        )
    else:
        findings.append(
            Finding("provider-strict", "info", tool, "sent to Gemini in its OpenAPI subset")
        )
    return findings
