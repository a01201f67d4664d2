"""The strict transform: rewriting a JSON schema into the subset OpenAI's strict mode accepts.

Strict mode (constrained decoding) needs every object closed
(`additionalProperties: false`) with all its properties required, no
`default`, `anyOf` rather than `oneOf`, no `$ref` with sibling keywords, and
only the keywords listed in `_strict_rules`. `to_strict_schema` makes those
rewrites on a copy:

- defaults move into the description (`Defaults to 3.`);
- keywords outside the subset (`minLength`, `uniqueItems`, an unknown
  `format`, ...) move into the description in plain words; pydantic still
  enforces them on the arguments;
- where a Python type has no strict form, an *adapter* rewrites it and is
  recorded so that its inverse can be applied to the model's arguments
  (`_adapters`): a dict becomes a list of key/value pairs, a fixed-length
  tuple an object of `item_0`, `item_1`, ..., and a value of any type a
  string of JSON.

What no rewrite can express is reported as `StrictProblem`s, which callers
turn into one `UserError`. Without adapters the transform is idempotent.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Literal, cast

from ..core._factories import new_dict, new_list
from ..exceptions import UserError
from ._guards import (
    INLINED,
    MAX_JSON_DEPTH,
    RefNotUtf8Error,
    StrictProblem,
    dangling_refs,
    def_name,
    defs_renamed,
    inlined_too_large,
    nested_resource_refs,
    nesting_beyond,
    ref_chain_beyond,
    refs_hoisted,
    with_object_root,
)
from ._strict_rules import (
    SUPPORTED_FORMATS,
    SUPPORTED_KEYWORDS,
    JsonSchema,
    JsonValue,
    StrictViolation,
    all_subschemas,
    check_strict_schema,
    is_plain_leaf,
)

__all__ = [
    "JSON_NOTE",
    "PAIRS_NOTE",
    "PLAIN_WORDS",
    "Adapter",
    "JsonSchema",
    "JsonValue",
    "StrictProblem",
    "StrictSchema",
    "def_name",
    "describe_problems",
    "describe_violations",
    "ensure_strict_json_schema",
    "note_default",
    "parameters_at",
    "strict_or_error",
    "to_strict_schema",
]

Path = tuple[str | int, ...]

_TYPED_KEYS = ("type", "anyOf", "$ref", "enum", "const")
_SUBSCHEMA_MAPS = ("properties", "$defs")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMAS = ("items", "additionalProperties", "propertyNames")
# Annotations that mean nothing to the model: dropped without a word.
_DROPPED = frozenset(
    {"default", "discriminator", "readOnly", "writeOnly", "$comment", "$schema", "$id"}
)
# Structure no rewrite can express in strict mode.
_INEXPRESSIBLE = frozenset(
    [
        "allOf",
        "not",
        "if",
        "then",
        "else",
        "dependentRequired",
        "dependentSchemas",
        "patternProperties",
        "contains",
        "minContains",
        "maxContains",
        "unevaluatedProperties",
        "unevaluatedItems",
    ]
)
PLAIN_WORDS = {
    "minLength": "At least {} characters long.",
    "maxLength": "At most {} characters long.",
    "minProperties": "At least {} entries.",
    "maxProperties": "At most {} entries.",
    "format": "Format: {}.",
}
"""The sentence a keyword strict mode refuses becomes, its value in place of `{}`."""
_ANNOTATIONS = frozenset({"description", "title", "default", "examples", "deprecated", "$comment"})
_NO_ONE_ANY_OF = "which strict mode cannot express as one anyOf; keep one, or turn strict mode off"
PAIRS_NOTE = (
    'Given as a list of {"key": ..., "value": ...} pairs; a repeated key keeps its last value.'
)
"""The sentence added to the description of a dict rewritten as key/value pairs."""
JSON_NOTE = 'Any JSON value, written as a string of JSON (for example "[1, 2]").'
"""The sentence added to the description of a value of any type rewritten as JSON text."""


@dataclass(frozen=True)
class Adapter:
    """A rewrite of one schema node whose inverse applies to the model's arguments."""

    kind: Literal["pairs", "tuple", "json", "omit"]
    """`pairs`: a dict as key/value pairs; `tuple`: a tuple as an `item_i` object;
    `json`: a value of any type as a string of JSON; `omit`: optional keys made
    nullable, left out when null."""
    size: int = 0
    """The tuple's length, for `tuple`."""
    keys: frozenset[str] = frozenset()
    """The nullable optional keys, for `omit`."""


@dataclass
class StrictSchema:
    """What the strict transform produced."""

    schema: JsonSchema
    """The strict schema."""
    problems: list[StrictProblem] = field(default_factory=new_list)
    """What could not be made strict."""
    adapters: dict[int, Adapter] = field(default_factory=new_dict)
    """The adapted nodes of `schema`, by `id()`; empty when nothing was adapted."""


def to_strict_schema(
    schema: JsonSchema, *, adapters: bool = False, hand_written: bool = False
) -> StrictSchema:
    """Return a strict-mode copy of `schema`, what could not be made strict, and the adapters.

    Args:
        schema: A JSON schema whose root is an object, e.g. from pydantic.
        adapters: Whether to rewrite types with no strict form (dicts, tuples, any
            value); only for callers that undo the rewrites on the arguments.
        hand_written: Whether a person (or a server) wrote the schema: then a `$ref`
            that a nested `$id` resource reads differently is refused. pydantic's
            `$ref`s always mean the document's root, whatever `$id` a model declares.

    Returns:
        The rewritten schema (the input is not modified), the problems left, and
        the adapters applied.
    """
    too_deep = nesting_beyond(schema, MAX_JSON_DEPTH) or ref_chain_beyond(schema, MAX_JSON_DEPTH)
    if too_deep:
        return StrictSchema(schema, [too_deep])
    schema = defs_renamed(schema)
    refused = nested_resource_refs(schema) if hand_written else []
    if refused:
        return StrictSchema(schema, refused)
    schema = with_object_root(refs_hoisted(schema))
    walker = _Strictifier(schema.get("$defs", {}), allow_adapters=adapters)
    strict = walker.schema(schema, ())
    too_large = inlined_too_large(strict)
    if too_large:
        return StrictSchema(strict, [*walker.problems, too_large])
    dropped = _drop_unreferenced_defs(strict)
    problems = [p for p in walker.problems if not _inside_defs(p.path, dropped)]
    problems.extend(dangling_refs(strict))
    if not walker.adapters:
        return StrictSchema(strict, problems)
    live = {id(node) for node in all_subschemas(strict)}
    kept = {key: adapter for key, (_, adapter) in walker.adapters.items() if key in live}
    return StrictSchema(strict, problems, kept)


def _single_all_of_ref(node: JsonSchema) -> JsonSchema:
    """`{"allOf": [{"$ref": R}], "type": ...}` as `{"$ref": R, "type": ...}`, to be inlined.

    Merged only after its entry was rewritten (to the bare `$ref`), the `$ref` would
    stand beside `"type": "object"` as if the object had no keys.
    """
    all_of: JsonValue = node.get("allOf")
    if "$ref" in node or not isinstance(all_of, list) or len(all_of) != 1:
        return node
    only = all_of[0]
    rest = {k: v for k, v in node.items() if k != "allOf"}
    if not (isinstance(only, dict) and set(only) == {"$ref"}) or set(rest) <= _ANNOTATIONS:
        return node  # a described `$ref` stays one: strict mode takes it as it is
    return {**rest, "$ref": only["$ref"]}


def strict_or_error(
    schema: JsonSchema, owner: str, off_switch: str, *, name: str | None = None
) -> JsonSchema:
    """The strict form of a hand-written schema, or one error naming every part that is not.

    Args:
        schema: A JSON schema whose root is an object (or says nothing of its type).
        owner: What the schema belongs to, for the message (e.g. "FunctionTool 'add'").
        off_switch: How the reader turns strict mode off, e.g. `strict_json_schema=False`.
        name: The tool's name, to check too.

    Returns:
        The rewritten schema; the input is not modified.

    Raises:
        UserError: The schema cannot be made strict: each node, why, and the fix.
    """
    result = to_strict_schema(schema, hand_written=True)
    problems = describe_problems(schema, result.problems, off_switch)
    if not problems:
        violations = check_strict_schema(result.schema, name=name)
        problems = describe_violations(result.schema, violations)
    if problems:
        lines = "\n".join(f"  - {line}" for line in problems)
        message = f"Cannot make {owner} strict:\n{lines}"
        not_utf8 = next((p.not_utf8 for p in result.problems if p.not_utf8), None)
        if not_utf8 is not None:
            raise RefNotUtf8Error(message, not_utf8)
        raise UserError(message)
    return result.schema


def ensure_strict_json_schema(schema: JsonSchema) -> JsonSchema:
    """The strict-mode form of a JSON schema, as openai-agents' function of that name gives it.

    Objects are closed with every property required, defaults and unsupported keywords move
    into descriptions, `{}` becomes an object without properties, draft-07 `definitions`
    become `$defs`. Unlike openai-agents, the input is left as it is.

    Args:
        schema: A JSON schema whose root is an object (or says nothing of its type).

    Returns:
        The strict schema.

    Raises:
        UserError: Some part cannot be made strict; the message names each node and why.
    """
    return strict_or_error(schema, "the schema", '"strict": false in the tool')


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


def describe_violations(schema: JsonSchema, violations: list[StrictViolation]) -> list[str]:
    """One line per rule violation and parameter it concerns, for a `UserError`.

    Args:
        schema: The strict schema that was checked.
        violations: What `check_strict_schema` found.

    Returns:
        Lines like `parameter 'x' (at properties.x) ... [rule]; fix: ...`.
    """
    lines: list[str] = []
    for violation in violations:
        path = tuple(violation.path.split(".")) if violation.path else ()
        names = parameters_at(schema, path)
        where = violation.path or "(root)"
        text = f"{violation.message} [{violation.rule}]; fix: {violation.fix}"
        if violation.rule == "tool-name" or not names:
            lines.append(f"{'the tool' if violation.rule == 'tool-name' else where}: {text}")
        else:
            lines.extend(f"parameter '{name}' (at {where}): {text}" for name in names)
    return lines


class _Strictifier:
    """One walk over a schema, collecting problems and adapters as it goes."""

    def __init__(self, defs: JsonSchema, *, allow_adapters: bool) -> None:
        self.defs = defs
        self.allow_adapters = allow_adapters
        self.problems: list[StrictProblem] = []
        # Keyed by id(); each node is held so that no id is reused during the walk.
        self.adapters: dict[int, tuple[JsonSchema, Adapter]] = {}
        # Each input node rewritten once: a definition inlined at many places shares its
        # rewritten parts instead of growing the walk exponentially.
        self.done: dict[int, tuple[JsonSchema, JsonSchema]] = {}
        self.inlining: set[str] = set()  # the definitions being inlined, outermost first
        self.depth = 0

    def node(self, node: JsonValue, path: Path) -> JsonValue:
        """A child of a schema node: a subschema rewritten, anything else as it is."""
        return self.schema(node, path) if isinstance(node, dict) else node

    def schema(self, schema: JsonSchema, path: Path) -> JsonSchema:
        """The strict form of a subschema, rewritten once however often it is met."""
        if is_plain_leaf(schema):
            return dict(schema)  # the common case: already strict
        done = self.done.get(id(schema))
        if done is not None:  # a definition's part, met again through an inlined $ref
            return done[1]
        if self.depth == MAX_JSON_DEPTH:  # only inlining nests this deep: the input was checked
            self._problem(
                path[:2], f"is too deeply nested: more than {MAX_JSON_DEPTH} levels {INLINED}"
            )
            return schema
        self.depth += 1
        out = self._rewrite(schema, path)
        self.depth -= 1
        self.done[id(schema)] = (schema, out)
        return out

    def _rewrite(self, node: JsonSchema, path: Path) -> JsonSchema:
        """Rewrite one node, inlining the definition a `$ref` with sibling keywords names."""
        ref = node.get("$ref")
        target = def_name(ref) if isinstance(ref, str) and len(node) > 1 else None
        if target is None or target not in self.defs:
            return self._rewritten(node, path)
        if target in self.inlining:  # a definition that inlines itself: refer to it instead
            return {"$ref": ref}
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if self._widens(self.defs[target], siblings, path, "`$ref`"):
            return {"$ref": ref}
        merged = self._merged(self.defs[target], siblings, path, "beside its $ref")
        if merged is None:
            return {"$ref": ref}
        self.inlining.add(target)
        try:
            return self._rewrite(merged, path)  # a definition that is itself a $ref: on
        finally:
            self.inlining.discard(target)

    def _merged(
        self, base: JsonSchema, over: JsonSchema, path: Path, where: str
    ) -> JsonSchema | None:
        """`base` and `over` as one schema (both must hold), or None if they disagree."""
        merged = dict(base)
        clashes: list[str] = []
        for key, value in over.items():
            if key not in base or key in _ANNOTATIONS or base[key] == value:
                merged[key] = value
            elif key == "properties" and not set(base[key]) & set(value):
                merged[key] = {**base[key], **value}
            elif key == "required":
                merged[key] = [*base[key], *(name for name in value if name not in base[key])]
            else:
                clashes.append(key)
        if not clashes:
            return merged
        keys = ", ".join(repr(key) for key in clashes)
        self._problem(
            path,
            f"has {keys} {where} that differ from what it refers to; strict mode needs one "
            "schema: make them agree, or turn strict mode off",
        )
        return None

    def _widens(self, entry: JsonSchema, parent: JsonSchema, path: Path, what: str) -> bool:
        """Whether merging `entry` into `parent` would accept keys one of them refuses.

        `additionalProperties` sees only the properties in its own object, so a closed
        object wrapping another's properties (through a `$ref` or a one-entry `allOf`)
        accepts none of them; merged into one object, it would accept them all.
        """
        outside = _undeclared_in_closed(parent, entry)
        inside = _undeclared_in_closed(entry, parent)
        merged = "as it sees only the properties in its own object, and merged for strict mode"
        if outside:
            self._problem(
                path,
                f"has a {what} whose properties ({outside}) the additionalProperties beside it "
                f"refuses, {merged} they would be accepted; declare them beside that "
                "additionalProperties, or turn strict mode off",
            )
        if inside:
            self._problem(
                path,
                f"has properties ({inside}) that the additionalProperties of its {what}'s "
                f"{'definition' if what == '`$ref`' else 'entry'} "
                f"refuses, {merged} they would be accepted; declare them in that object "
                "too, or turn strict mode off",
            )
        return bool(outside or inside)

    def _single_all_of_entry(self, node: JsonSchema) -> JsonSchema | None:
        """The one entry of `node`'s `allOf`, a bare `$ref` read as its definition."""
        all_of: JsonValue = node.get("allOf")
        if not (isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict)):
            return None
        entry = cast(JsonSchema, all_of[0])
        seen: set[str] = set()
        while set(entry) == {"$ref"} and isinstance(entry["$ref"], str):
            name = def_name(entry["$ref"])
            if name in seen or not isinstance(self.defs.get(name), dict):
                break
            seen.add(name)
            entry = self.defs[name]
        return entry

    def _rewritten(self, node: JsonSchema, path: Path) -> JsonSchema:
        entry = self._single_all_of_entry(node)
        parent = {k: v for k, v in node.items() if k != "allOf"}
        if entry is not None and self._widens(entry, parent, path, "singleton `allOf`"):
            return self._copy_children(node, path)  # a copy: the input stays as it was
        as_ref = _single_all_of_ref(node)
        if as_ref is not node:  # inlined as a `$ref` with siblings, or kept as a bare one
            return self._rewrite(as_ref, path)
        out = self._copy_children(node, path)
        if node.get("default") is not None:
            out["description"] = note_default(out.get("description"), node["default"])
        out = self._unwrap_single_all_of(out, path)
        if "type" not in out and ("properties" in out or "additionalProperties" in out):
            out["type"] = "object"  # object keywords: an object, as APIs read it
        out = self._adapt(out, path)
        if out.get("type") == "object" or "properties" in out:
            # Named keys declared by the user (not made by an adapter), below the root,
            # whose optional fields all have defaults (a default_factory shows none).
            if "properties" in node and path:
                self._nullable_optional_keys(node, out)
            open_keys = out.get("additionalProperties", False) is not False
            if not self.allow_adapters and open_keys and "properties" in node:
                # Hand-written: it says more keys may come, which a closed object would refuse.
                message = "allows keys beyond its properties (additionalProperties), which"
                self._problem(path, f"{message} strict mode cannot express; name them all")
            _close_object(out, path)
        self._relocate_unsupported(out, path)
        return out

    def _copy_children(self, node: JsonSchema, path: Path) -> JsonSchema:
        out: JsonSchema = {}
        for key, value in node.items():
            if key in _DROPPED:
                continue
            new_key = "anyOf" if key == "oneOf" else key
            if key == "oneOf" and "anyOf" in node:
                self._problem(path, f"uses both anyOf and oneOf, {_NO_ONE_ANY_OF}")
                continue
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

    def _unwrap_single_all_of(self, out: JsonSchema, path: Path) -> JsonSchema:
        all_of: JsonValue = out.get("allOf")
        if not (isinstance(all_of, list) and len(all_of) == 1):
            return out
        only = cast(JsonSchema, all_of[0])
        rest = {k: v for k, v in out.items() if k != "allOf"}
        return self._merged(only, rest, path, "beside its one allOf entry") or out

    def _adapt(self, out: JsonSchema, path: Path) -> JsonSchema:
        """Rewrite a type strict mode has no form for, if the caller can undo it."""
        if _is_free_form_object(out):
            if path:
                return self._adapt_dict(out, path)
            if "additionalProperties" in out:  # `{"type": "object"}` alone: no arguments
                message = "is a dict with free-form keys, which strict mode cannot express"
                fix = "name the arguments, or turn strict mode off"
                self._problem(path, f"{message} at the root; {fix}")
            return out
        if "prefixItems" in out:
            if "items" in out or out.get("minItems") != out.get("maxItems"):
                message = "is a tuple of varying length, which strict mode cannot express"
                self._problem(path, f"{message}; use list[T] or a fixed tuple")
                return out
            adapter = Adapter("tuple", len(out["prefixItems"]))
            return self._with_adapter(out, path, _tuple_schema, adapter, "a fixed-length tuple")
        if not any(key in out for key in _TYPED_KEYS):
            what = "a value of any type (Any, or a bare list/dict)"
            return self._with_adapter(out, path, _json_text_schema, Adapter("json"), what)
        return out

    def _adapt_dict(self, out: JsonSchema, path: Path) -> JsonSchema:
        if self.allow_adapters and not isinstance(out.get("additionalProperties"), dict):
            out["additionalProperties"] = self._adapt({}, (*path, "additionalProperties"))
        what = "a dict (an object whose keys come from additionalProperties)"
        return self._with_adapter(out, path, _pairs_schema, Adapter("pairs"), what)

    def _nullable_optional_keys(self, original: JsonSchema, out: JsonSchema) -> None:
        """Let the model leave out an optional key that has no default by sending null.

        Strict mode requires every key, so a `NotRequired` TypedDict key becomes
        nullable, and an `omit` adapter drops it again when the model sends null.
        """
        required = set(original.get("required", []))
        originals: JsonSchema = original.get("properties", {})
        properties: JsonSchema = out.get("properties", {})
        keys = [
            key
            for key, prop in properties.items()
            if key not in required
            and "default" not in originals.get(key, {})
            and not self._admits_null(prop)
        ]
        if not keys or not self.allow_adapters:
            return
        for key in keys:
            properties[key] = _nullable(properties[key])
        self.adapters[id(out)] = (out, Adapter("omit", keys=frozenset(keys)))

    def _admits_null(self, node: JsonSchema) -> bool:
        ref = node.get("$ref")
        if isinstance(ref, str):
            node = self.defs.get(def_name(ref), {})
        declared: JsonValue = node.get("type")
        types = declared if isinstance(declared, list) else [declared]
        return (
            "null" in types
            or None in node.get("enum", [1])
            or ("const" in node and node["const"] is None)
            or any(self._admits_null(branch) for branch in node.get("anyOf", []))
        )

    def _with_adapter(
        self,
        out: JsonSchema,
        path: Path,
        rewrite: Callable[[JsonSchema], JsonSchema],
        adapter: Adapter,
        what: str,
    ) -> JsonSchema:
        if not self.allow_adapters:
            self._problem(
                path,
                f"is {what}, which strict mode can express only through a rewrite that "
                "tooluse undoes for tools made by @function_tool; use @function_tool, "
                "or turn strict mode off",
            )
            return out
        adapted = rewrite(out)
        self.adapters[id(adapted)] = (adapted, adapter)
        return adapted

    def _relocate_unsupported(self, out: JsonSchema, path: Path) -> None:
        """Move keywords strict mode refuses into the description, in plain words."""
        for key in [k for k in out if k not in SUPPORTED_KEYWORDS or k == "format"]:
            if key == "format" and out[key] in SUPPORTED_FORMATS:
                continue
            if key in _INEXPRESSIBLE:
                message = f"uses {key!r}, which strict mode cannot express"
                self._problem(path, f"{message}; simplify the type, or turn strict mode off")
                continue
            sentence = _plain_words(key, out.pop(key))
            if sentence:
                out["description"] = _add_sentence(out.get("description"), sentence)

    def _problem(self, path: Path, message: str) -> None:
        self.problems.append(StrictProblem(path, message))


def _undeclared_in_closed(closed: JsonSchema, other: JsonSchema) -> str:
    """The properties `other` declares that `closed`'s additionalProperties refuses, quoted."""
    if closed.get("additionalProperties", True) in (True, {}):
        return ""
    declared: JsonSchema = closed.get("properties", {})
    properties: JsonSchema = other.get("properties", {})
    return ", ".join(repr(key) for key in properties if key not in declared)


def _is_free_form_object(out: JsonSchema) -> bool:
    """A dict: an object whose keys are not named in advance."""
    if "properties" in out or out.get("type") != "object":
        return False
    return out.get("additionalProperties", True) is not False


def _pairs_schema(out: JsonSchema) -> JsonSchema:
    """`{"type": "object", "additionalProperties": V}` as an array of key/value pairs."""
    value = out["additionalProperties"]
    key = out.get("propertyNames", {"type": "string"})
    pair = {
        "type": "object",
        "properties": {"key": key, "value": value},
        "required": ["key", "value"],
        "additionalProperties": False,
    }
    dict_keywords = {"additionalProperties", "propertyNames", "minProperties", "maxProperties"}
    adapted = _carry_over(out, drop={"type", *dict_keywords})
    adapted.update(type="array", items=pair)
    if "minProperties" in out:
        adapted["minItems"] = out["minProperties"]
    if "maxProperties" in out:
        adapted["maxItems"] = out["maxProperties"]
    adapted["description"] = _add_sentence(out.get("description"), PAIRS_NOTE)
    return adapted


def _tuple_schema(out: JsonSchema) -> JsonSchema:
    """A `prefixItems` tuple as an object of `item_0`, `item_1`, ..."""
    items: list[JsonSchema] = out["prefixItems"]
    names = [f"item_{index}" for index in range(len(items))]
    adapted = _carry_over(out, drop={"type", "prefixItems", "minItems", "maxItems"})
    adapted.update(
        type="object",
        properties=dict(zip(names, items, strict=True)),
        required=names,
        additionalProperties=False,
    )
    note = f"The tuple's {len(items)} items in order, as {', '.join(names)}."
    adapted["description"] = _add_sentence(out.get("description"), note)
    return adapted


def _json_text_schema(out: JsonSchema) -> JsonSchema:
    """A value of any type as a string of JSON."""
    adapted = _carry_over(out, drop=set())
    adapted["type"] = "string"
    adapted["description"] = _add_sentence(out.get("description"), JSON_NOTE)
    return adapted


def _nullable(prop: JsonSchema) -> JsonSchema:
    """`prop` or null. `prop` itself stays in the tree: it may be an adapted node."""
    title = prop.pop("title", None)
    description = prop.pop("description", None)
    branches = prop["anyOf"] if list(prop) == ["anyOf"] else [prop]
    outer: JsonSchema = {"anyOf": [*branches, {"type": "null"}]}
    if title is not None:
        outer["title"] = title
    outer["description"] = _add_sentence(description, "Null leaves it out.")
    return outer


def _carry_over(out: JsonSchema, drop: set[str]) -> JsonSchema:
    return {key: value for key, value in out.items() if key not in drop}


def _close_object(out: JsonSchema, path: Path) -> None:
    if not path:
        out.setdefault("properties", {})  # `{"type": "object"}`: a tool without arguments
    out["additionalProperties"] = False
    out["required"] = list(out.get("properties", {}))


def _plain_words(key: str, value: JsonValue) -> str | None:
    if key == "uniqueItems":
        return "Items must be unique." if value else None
    if key == "deprecated":
        return "Deprecated." if value else None
    if key == "examples":
        return f"Examples: {_json(value)}."
    if key in PLAIN_WORDS:
        return PLAIN_WORDS[key].format(value)
    return f"Must satisfy {key}: {_json(value)}."


def note_default(description: str | None, default: JsonValue) -> str:
    """The description with the default stated, as strict mode moves it there.

    Args:
        description: The node's description, if any.
        default: The default, as JSON (not None: a null default goes unsaid).

    Returns:
        The description ending in `Defaults to <default as JSON>.`
    """
    return _add_sentence(description, f"Defaults to {_json(default)}.")


def _json(value: JsonValue) -> str:
    return json.dumps(value, ensure_ascii=False)


def _add_sentence(description: str | None, sentence: str) -> str:
    """Append a sentence to a description, punctuating between them."""
    if not description:
        return sentence
    text = description.rstrip()
    separator = " " if text.endswith((".", "!", "?", ":")) else ". "
    return f"{text}{separator}{sentence}"


def _refs_in(node: JsonValue) -> Iterator[str]:
    """Every definition name referenced under `node` (not following the references)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield def_name(value)
            else:
                yield from _refs_in(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs_in(item)


def _reachable_defs(node: JsonValue, defs: JsonSchema) -> set[str]:
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
