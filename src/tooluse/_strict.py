"""The strict transform: rewriting a JSON schema into the subset OpenAI's strict mode accepts.

Strict mode (constrained decoding) needs every object closed
(`additionalProperties: false`) with all its properties required, no
`default`, `anyOf` rather than `oneOf`, and no `$ref` with sibling keywords.
`to_strict_schema` makes those rewrites on a copy and reports, as
`StrictProblem`s, what it cannot rewrite (an open dict, a value of any type, a
fixed-length tuple); callers turn those into one `UserError`. The transform is
idempotent, so a schema may safely go through it twice.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

__all__ = ["StrictProblem", "describe_problems", "parameters_at", "to_strict_schema"]

JsonSchema = dict[str, Any]
Path = tuple[str | int, ...]

_TYPED_KEYS = ("type", "anyOf", "$ref", "enum", "const")
_SUBSCHEMA_MAPS = ("properties", "$defs")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMAS = ("items", "additionalProperties")


@dataclass(frozen=True)
class StrictProblem:
    """A part of a schema that strict mode cannot express."""

    path: Path
    """Where it is, as JSON keys from the root."""
    message: str
    """What is wrong and how to fix it."""


def to_strict_schema(schema: JsonSchema) -> tuple[JsonSchema, list[StrictProblem]]:
    """Return a strict-mode copy of `schema`, and what could not be made strict.

    Args:
        schema: A JSON schema whose root is an object, e.g. from pydantic.

    Returns:
        The rewritten schema (the input is not modified) and the problems left.
    """
    walker = _Strictifier(schema.get("$defs", {}))
    strict = walker.node(schema, ())
    dropped = _drop_unreferenced_defs(strict)
    problems = [p for p in walker.problems if not _inside_defs(p.path, dropped)]
    return strict, problems


def parameters_at(schema: JsonSchema, path: Path) -> list[str]:
    """Name the top-level properties (the tool's parameters) a problem at `path` belongs to.

    Args:
        schema: The root schema the path points into.
        path: Where the problem is.

    Returns:
        The parameter at `path`, or every parameter whose type uses the definition there.
    """
    if len(path) >= 2 and path[0] == "properties":
        return [str(path[1])]
    if len(path) >= 2 and path[0] == "$defs":
        defs: JsonSchema = schema.get("$defs", {})
        properties: JsonSchema = schema.get("properties", {})
        return [name for name, prop in properties.items() if path[1] in _reachable_defs(prop, defs)]
    return []


def describe_problems(
    schema: JsonSchema, problems: list[StrictProblem], off_switch: str
) -> list[str]:
    """One line per problem and parameter it concerns, for a `UserError`.

    Args:
        schema: The schema the problems were found in.
        problems: What `to_strict_schema` reported.
        off_switch: How the reader turns strict mode off, e.g. `strict_mode=False`.

    Returns:
        Lines like `parameter 'x' (at properties.x) is a dict ... (strict_mode=False)`.
    """
    lines: list[str] = []
    for problem in problems:
        where = ".".join(map(str, problem.path))
        names = parameters_at(schema, problem.path)
        subjects = [f"parameter '{name}' (at {where})" for name in names] or [
            f"the schema at '{where}'" if where else "the arguments object"
        ]
        lines.extend(f"{subject} {problem.message} ({off_switch})" for subject in subjects)
    return lines


class _Strictifier:
    """One walk over a schema, collecting problems as it goes."""

    def __init__(self, defs: JsonSchema) -> None:
        self.defs = defs
        self.problems: list[StrictProblem] = []

    def node(self, node: Any, path: Path) -> Any:
        if not isinstance(node, dict):
            return node
        node = self._inline_ref_with_siblings(cast(JsonSchema, node))
        out = self._copy_children(node, path)
        if node.get("default") is not None:
            out["description"] = _describe_default(out.get("description"), node["default"])
        out = _unwrap_single_all_of(out)
        if out.get("type") == "object" or "properties" in out:
            self._close_object(out, path)
        self._check_expressible(out, path)
        return out

    def _copy_children(self, node: JsonSchema, path: Path) -> JsonSchema:
        out: JsonSchema = {}
        for key, value in node.items():
            if key in ("default", "discriminator"):
                continue
            new_key = "anyOf" if key == "oneOf" else key
            child_path = (*path, new_key)
            if key in _SUBSCHEMA_MAPS:
                out[key] = {k: self.node(v, (*child_path, k)) for k, v in value.items()}
            elif key in _SUBSCHEMA_LISTS:
                out[new_key] = [self.node(v, (*child_path, i)) for i, v in enumerate(value)]
            elif key in _SUBSCHEMAS:
                out[key] = self.node(value, child_path)
            else:
                out[key] = value
        return out

    def _inline_ref_with_siblings(self, node: JsonSchema) -> JsonSchema:
        ref = node.get("$ref")
        if ref is None or len(node) == 1:
            return node
        target = self.defs.get(_def_name(ref))
        if target is None:
            return node
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        return {**target, **siblings}

    def _close_object(self, out: JsonSchema, path: Path) -> None:
        extra = out.get("additionalProperties", False)
        if not path and extra is False:
            out.setdefault("properties", {})  # `{"type": "object"}`: a tool without arguments
        if extra is not False or "properties" not in out:
            self._problem(
                path,
                "is a dict with free-form keys, which strict mode cannot express; "
                "use a TypedDict, dataclass or model with named fields, "
                "or turn strict mode off",
            )
        out["additionalProperties"] = False
        out["required"] = list(out.get("properties", {}))

    def _check_expressible(self, out: JsonSchema, path: Path) -> None:
        if "prefixItems" in out:
            self._problem(
                path,
                "is a fixed-length tuple, which strict mode cannot express; "
                "use list[T] or a model with named fields, or turn strict mode off",
            )
        elif not any(key in out for key in _TYPED_KEYS):
            self._problem(
                path,
                "accepts a value of any type (Any, or a bare list/dict), which strict mode "
                "cannot express; give it a concrete type, or turn strict mode off",
            )

    def _problem(self, path: Path, message: str) -> None:
        self.problems.append(StrictProblem(path, message))


def _describe_default(description: str | None, default: Any) -> str:
    """State a removed default in the description, so the model still learns it."""
    sentence = f"Defaults to {json.dumps(default, ensure_ascii=False)}."
    if not description:
        return sentence
    text = description.rstrip()
    separator = " " if text.endswith((".", "!", "?", ":")) else ". "
    return f"{text}{separator}{sentence}"


def _unwrap_single_all_of(out: JsonSchema) -> JsonSchema:
    all_of: Any = out.get("allOf")
    if not (isinstance(all_of, list) and len(cast(list[Any], all_of)) == 1):
        return out
    rest = {k: v for k, v in out.items() if k != "allOf"}
    return {**all_of[0], **rest}


def _def_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _refs_in(node: Any) -> Iterator[str]:
    """Every definition name referenced under `node` (not following the references)."""
    if isinstance(node, dict):
        for key, value in cast(JsonSchema, node).items():
            if key == "$ref" and isinstance(value, str):
                yield _def_name(value)
            else:
                yield from _refs_in(value)
    elif isinstance(node, list):
        for item in cast(list[Any], node):
            yield from _refs_in(item)


def _reachable_defs(node: Any, defs: JsonSchema) -> set[str]:
    seen: set[str] = set()
    pending = list(_refs_in(node))
    while pending:
        name = pending.pop()
        if name not in seen and name in defs:
            seen.add(name)
            pending.extend(_refs_in(defs[name]))
    return seen


def _drop_unreferenced_defs(schema: JsonSchema) -> set[str]:
    """Remove definitions nothing outside `$defs` leads to; return their names."""
    defs: JsonSchema | None = schema.get("$defs")
    if not defs:
        return set()
    body = {k: v for k, v in schema.items() if k != "$defs"}
    used = _reachable_defs(body, defs)
    dropped = set(defs) - used
    for name in dropped:
        del defs[name]
    if not defs:
        del schema["$defs"]
    return dropped


def _inside_defs(path: Path, names: set[str]) -> bool:
    return len(path) >= 2 and path[0] == "$defs" and path[1] in names
