"""Hand-written schemas, made safe to walk: references, depth and size, before and after.

The strict transform (`_strict`) walks a schema recursively and inlines each
`$ref` that has sibling keywords. A hand-written schema can make that walk
fail or explode, so these guards run around it:

- before: a schema nested past `MAX_JSON_DEPTH` levels is refused without
  recursion; draft-07 `definitions` become `$defs`, and what a `$ref` points at
  outside the keywords strict mode keeps (OpenAPI's `#/components/schemas/X`)
  is copied under `$defs`; a root that says nothing of its type is an object;
- after: inlining that grew the schema past strict mode's size limits is
  refused, counting shared parts once; a `$ref` that resolves to nothing is
  refused, with its place.

For a hand-written schema, a `$ref` inside a nested `$id` resource, or one whose
pointer passes into such a resource, is refused too (`nested_resource_refs`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import cast
from urllib.parse import unquote

from ..core._errors import UserValueError
from ._strict_rules import MAX_NESTING, MAX_PROPERTIES, JsonSchema, JsonValue, subschemas

__all__ = [
    "INLINED",
    "MAX_JSON_DEPTH",
    "RefNotUtf8Error",
    "StrictProblem",
    "dangling_refs",
    "def_name",
    "defs_renamed",
    "inlined_too_large",
    "nested_resource_refs",
    "nesting_beyond",
    "ref_chain_beyond",
    "refs_hoisted",
    "resolve",
    "with_object_root",
]

Path = tuple[str | int, ...]

MAX_JSON_DEPTH = 100
"""JSON levels past which a schema is refused before it is walked (strict mode allows
`MAX_NESTING` levels of objects, a few JSON levels each)."""
MAX_SUBSCHEMAS = 100_000
"""Subschemas past which a schema grown by inlining is refused (the walks stay cheap)."""
INLINED = (
    "once each $ref with sibling keywords (such as a field's description) is inlined, as "
    "strict mode needs; drop the keywords beside those $refs, or turn strict mode off"
)
"""The end of a message about a schema grown by inlining."""
_TYPED_KEYS = ("type", "anyOf", "$ref", "enum", "const", "properties")
_INSIDE_RESOURCE = (
    "refers to {ref!r} from inside a nested `$id` resource, which reads it against that "
    "$id rather than the root, and strict mode has no $id; drop the nested $id, or turn "
    "strict mode off"
)
_INTO_RESOURCE = (
    "refers to {ref!r}, which leads into a nested `$id` resource, and strict mode has no "
    "$id; move that definition under the root's $defs without its $id, or turn strict "
    "mode off"
)


@dataclass(frozen=True)
class StrictProblem:
    """A part of a schema that strict mode cannot express."""

    path: Path
    """Where it is, as JSON keys from the root."""
    message: str
    """What is wrong and how to fix it."""
    not_utf8: str | None = None
    """The `$ref`, when the problem is that its %-escapes are not UTF-8 (`RefNotUtf8Error`)."""


class RefNotUtf8Error(UserValueError, UnicodeDecodeError):
    """A hand-written schema has a `$ref` whose %-escapes are not UTF-8, among its problems.

    A `UserError` with tooluse's message (every problem, where, and the fix), and a
    `UnicodeDecodeError` too, as openai-agents raises there, so that code catching that
    keeps working.
    """

    def __init__(self, message: str, ref: str) -> None:
        """Keep the message; the decode error's fields name the reference.

        Args:
            message: The whole message.
            ref: The first reference that is not UTF-8.
        """
        raw = ref.encode("utf-8", "surrogateescape")
        UnicodeDecodeError.__init__(self, "utf-8", raw, 0, len(raw), "not UTF-8 once %-decoded")
        self.message = message
        """The whole message."""

    def __str__(self) -> str:
        """The message, rather than the decode error's own words."""
        return self.message


def def_name(ref: str) -> str:
    """The definition a `$ref` names: `#/$defs/Point` -> `Point` (JSON-pointer escapes read).

    Args:
        ref: The reference.

    Returns:
        The definition's name.
    """
    tokens = _tokens(ref)
    return tokens[-1] if tokens else ref.rsplit("/", 1)[-1]


def nesting_beyond(schema: JsonSchema, limit: int) -> StrictProblem | None:
    """A problem if `schema` nests deeper than `limit` JSON levels, found without recursion.

    Args:
        schema: The schema.
        limit: The deepest level allowed.

    Returns:
        The problem, or None.
    """
    pending: list[tuple[JsonValue, int]] = [(schema, 1)]
    while pending:
        value, depth = pending.pop()
        if depth > limit:
            return StrictProblem(
                (),
                f"is too deeply nested: more than {limit} levels of JSON, where strict mode "
                f"allows {MAX_NESTING} levels of objects; flatten the arguments, or turn strict "
                "mode off",
            )
        if isinstance(value, dict):
            pending.extend((child, depth + 1) for child in value.values())
        elif isinstance(value, list):
            pending.extend((child, depth + 1) for child in value)
    return None


def ref_chain_beyond(schema: JsonSchema, limit: int) -> StrictProblem | None:
    """A problem if definitions that are only a `$ref` to the next chain past `limit`.

    Inlining such a chain would nest one level per link; found without recursion.

    Args:
        schema: The schema, its definitions under `$defs` or `definitions`.
        limit: The longest chain allowed.

    Returns:
        The problem, or None.
    """
    defs: dict[str, JsonValue] = {**schema.get("definitions", {}), **schema.get("$defs", {})}
    next_of: dict[str, str] = {}
    for name, node in defs.items():
        ref = node.get("$ref") if isinstance(node, dict) else None
        if isinstance(ref, str):
            next_of[name] = def_name(ref)
    lengths: dict[str, int] = {}
    for start in next_of:
        chain: list[str] = []
        name = start
        while name in next_of and name not in lengths and name not in chain:
            chain.append(name)
            name = next_of[name]
        length = lengths.get(name, 0)
        for link in reversed(chain):
            length += 1
            lengths[link] = length
        if length > limit:
            return StrictProblem(
                (),
                f"is too deeply nested: a chain of more than {limit} $refs, each definition "
                "only naming the next; refer to the last one directly, or turn strict mode off",
            )
    return None


def defs_renamed(schema: JsonSchema) -> JsonSchema:
    """A draft-07 schema's `definitions` as `$defs`, and its `$ref`s pointing there.

    Args:
        schema: The schema; not modified.

    Returns:
        The schema, or a renamed copy.
    """
    if "definitions" not in schema:
        return schema
    out = _renamed_node(schema)
    out["$defs"] = {**out.pop("definitions"), **out.get("$defs", {})}
    return out


_KEPT_PLACES = frozenset(
    {"$defs", "properties", "items", "additionalProperties", "propertyNames", "anyOf"}
    | {"oneOf", "allOf", "prefixItems"}
)
"""The keywords under which strict mode keeps a subschema, so a `$ref` there still holds."""
_APPLICATORS = frozenset(
    {"not", "if", "then", "else", "dependentSchemas", "patternProperties", "contains"}
    | {"unevaluatedProperties", "unevaluatedItems"}
)
"""The other keywords holding subschemas: what they say is the schema's meaning, kept."""


def refs_hoisted(schema: JsonSchema) -> JsonSchema:
    """`schema` with what its `$ref`s point at outside `_KEPT_PLACES` copied under `$defs`.

    Strict mode drops keywords outside its subset (`components`, `definitions2`), and a
    `$ref` into one would point at nothing; the copy under `$defs` keeps its meaning.

    Args:
        schema: The schema (its `definitions` already `$defs`); not modified.

    Returns:
        The schema, or a copy with those definitions under `$defs` and the refs to them
        rewritten.
    """
    names: dict[str, str] = {}
    taken = set(schema.get("$defs", {}))
    for _, ref in _refs(schema, ()):
        tokens = _tokens(ref)
        if ref in names or not tokens or tokens[0] in _KEPT_PLACES:
            continue
        if not isinstance(resolve(schema, ref), dict):
            continue  # pointing at nothing stays a problem `dangling_refs` reports
        name, suffix = tokens[-1], 1
        while name in taken:
            name, suffix = f"{tokens[-1]}_{suffix}", suffix + 1
        names[ref] = name
        taken.add(name)
    if not names:
        return schema
    out = cast(JsonSchema, _pointing(schema, names))
    defs: JsonSchema = dict(out.get("$defs", {}))
    for ref, name in names.items():
        defs[name] = resolve(out, ref)  # the copy: its own refs already rewritten
    # A container of definitions (`components`) validates nothing: once its definitions
    # are under $defs it would only reach the description, as an unknown keyword does.
    containers = {(_tokens(ref) or [""])[0] for ref in names} - _APPLICATORS
    return {**{k: v for k, v in out.items() if k not in containers}, "$defs": defs}


def _pointing(value: JsonValue, names: dict[str, str]) -> JsonValue:
    """A copy of `value` whose `$ref`s in `names` point at their `$defs` entries."""
    if isinstance(value, list):
        return [_pointing(item, names) for item in value]
    if not isinstance(value, dict):
        return value
    out = {key: _pointing(child, names) for key, child in value.items()}
    ref = value.get("$ref")
    if isinstance(ref, str) and ref in names:
        escaped = names[ref].replace("%", "%25").replace("~", "~0").replace("/", "~1")
        out["$ref"] = f"#/$defs/{escaped}"
    return out


def _renamed_node(node: JsonSchema) -> JsonSchema:
    """A copy of `node` with every `$ref` into `#/definitions/` pointing into `#/$defs/`."""
    out = {key: _renamed(child) for key, child in node.items()}
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/definitions/"):
        out["$ref"] = "#/$defs/" + ref.removeprefix("#/definitions/")
    return out


def _renamed(value: JsonValue) -> JsonValue:
    if isinstance(value, list):
        return [_renamed(item) for item in value]
    return _renamed_node(value) if isinstance(value, dict) else value


def with_object_root(schema: JsonSchema) -> JsonSchema:
    """The root as an object when it says nothing of its type (`{}`: no arguments).

    Args:
        schema: The schema's root.

    Returns:
        The schema, or a copy with `"type": "object"`.
    """
    if set(schema) & set(_TYPED_KEYS):
        return schema
    return {"type": "object", **schema}


def inlined_too_large(schema: JsonSchema) -> StrictProblem | None:
    """A problem if inlining `$ref`s with sibling keywords grew the schema past the limits.

    Shared parts are counted once each, so the count itself stays cheap.

    Args:
        schema: The rewritten schema (parts may be shared).

    Returns:
        The problem, or None.
    """
    counted: dict[int, tuple[int, int]] = {}

    def size(node: JsonSchema) -> tuple[int, int]:
        """Properties and subschemas under `node`, itself included."""
        if id(node) not in counted:
            below = [size(child) for _, child in subschemas(node)]
            counted[id(node)] = (
                len(node.get("properties", {})) + sum(p for p, _ in below),
                1 + sum(n for _, n in below),
            )
        return counted[id(node)]

    properties, nodes = size(schema)
    if properties <= MAX_PROPERTIES and nodes <= MAX_SUBSCHEMAS:
        return None
    return StrictProblem(
        (),
        f"has {properties:,} object properties in {nodes:,} subschemas (limits: "
        f"{MAX_PROPERTIES:,} and {MAX_SUBSCHEMAS:,}) {INLINED}",
    )


def dangling_refs(schema: JsonSchema) -> list[StrictProblem]:
    """A problem for each `$ref` that points at nothing in the schema, where it stands.

    Args:
        schema: The schema.

    Returns:
        The problems, in document order.
    """
    problems: list[StrictProblem] = []
    for path, ref in _refs(schema, ()):
        if resolve(schema, ref) is not None:
            continue
        not_utf8 = ref.startswith("#") and _tokens(ref) is None
        why = " (its %-escapes are not UTF-8)" if not_utf8 else ""
        message = (
            f"refers to {ref!r}, which points at nothing in the schema{why}; refer to '#' or "
            "to '#/$defs/<name>' with the definition under $defs"
        )
        problems.append(StrictProblem(path, message, ref if not_utf8 else None))
    return problems


def nested_resource_refs(schema: JsonSchema) -> list[StrictProblem]:
    """A problem for each `$ref` that a nested `$id` resource would make mean something else.

    Below the root, an `$id` starts a schema resource of its own: a `$ref` inside it is
    read against that `$id`, not against the document, and a JSON pointer from the root
    into it depends on where the resource happens to be embedded. Strict mode has no
    `$id`, and inlining reads every `$ref` from the root, so either kind would silently
    point somewhere else; they are refused where they stand.

    Args:
        schema: The hand-written schema (its `definitions` already `$defs`).

    Returns:
        The problems, in document order.
    """
    problems: list[StrictProblem] = []
    for path, ref in _refs(schema, ()):
        if _declares_resource_along(schema, path):
            problems.append(StrictProblem(path, _INSIDE_RESOURCE.format(ref=ref)))
        elif (tokens := _tokens(ref)) and _declares_resource_along(schema, tokens):
            problems.append(StrictProblem(path, _INTO_RESOURCE.format(ref=ref)))
    return problems


def _declares_resource_along(root: JsonSchema, keys: Sequence[str | int]) -> bool:
    """Whether a node below the root on the way along `keys` (the last one too) has an `$id`."""
    node = cast(JsonValue, root)
    for key in map(str, keys):  # a path's list indexes as a pointer's tokens
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return False
        if isinstance(node, dict) and isinstance(node.get("$id"), str):
            return True
    return False


def _refs(node: JsonValue, path: Path) -> Iterator[tuple[Path, str]]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield path, value
            else:
                yield from _refs(value, (*path, key))
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _refs(item, (*path, index))


def resolve(root: JsonSchema, ref: str) -> JsonValue:
    """The node a local `$ref` points to (`#`, `#/$defs/X`, any JSON pointer).

    Args:
        root: The whole schema.
        ref: The reference (`~0`, `~1` and %-escapes are read).

    Returns:
        The node, or None when the reference leads nowhere.
    """
    tokens = _tokens(ref)
    if tokens is None:
        return None
    node: JsonValue = root
    for key in tokens:
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return None
    return node


def _tokens(ref: str) -> list[str] | None:
    """The keys a local `$ref` names, or None for one that is not a local pointer.

    A URI fragment is %-decoded before it is read as a JSON pointer (RFC 6901, section
    6), so `#/%24defs%2FPoint` is `#/$defs/Point`; then `~1` and `~0` are read in each
    token. Escapes that are not UTF-8 name nothing (a replacement character would).
    """
    if not ref.startswith("#"):
        return None
    try:
        pointer = unquote(ref[1:], errors="strict")
    except UnicodeDecodeError:
        return None
    tokens = [part for part in pointer.split("/") if part]
    return [token.replace("~1", "/").replace("~0", "~") for token in tokens]
