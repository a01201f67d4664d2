"""Values a JSON schema accepts, made from the schema alone: the arguments `TestModel` sends.

`sample(schema)` proposes values for each node, best first (zero, `"a"`, the
first choice, the least length), keeps those the node admits (`_schema_check`)
and returns the first; for an object nothing satisfies, the properties that have
a value, so that the tool's error names only the rest. Proposals honour bounds
and `multipleOf`, lengths, `format` (a table of valid values), `pattern`
(`_regex_sample`), `enum`/`const`, `examples`, arrays (`minItems`, `maxItems`,
unique items), objects (required properties, `additionalProperties`,
`minProperties`), `anyOf`/`oneOf` (the first branch that yields a value), `allOf`
(merged), `$ref` and nullable types. Past a few levels of nesting, branches that
end (null, scalars, empty arrays, only the required properties) come first, so
recursive schemas terminate. No randomness.
"""

from __future__ import annotations

import copy
import enum
import itertools
import json
import math
import string
from collections.abc import Callable, Iterator, Mapping
from fractions import Fraction
from typing import Final

from ..schema._strict_rules import JsonSchema, JsonValue
from ._regex_sample import strings_matching
from ._schema_check import admits, json_equal, resolve
from ._schema_hints import UNIQUE_KEYS, with_hints

__all__ = ["accepted_sample", "sample"]

_SHALLOW = 4  # levels of descent (properties, items, branches) before branches that end come first
_DEEPEST = 64  # levels of descent past which a node yields nothing
_TRIES_PER_NODE = 200  # proposals checked for one node before giving up on it
_BUDGET = 20_000  # proposals checked for one whole schema
_NUMBERS_TRIED = 40
_VARIANTS = 3  # other values tried per property, for distinct array items
_ALTERNATIVES = 8  # other values tried for a field the tool refuses
_VALIDATIONS = 24  # calls of a tool's validator for one sample
_MAX_REF_HOPS = 32
_TYPE_ORDER = ("object", "array", "string", "integer", "number", "boolean", "null")
_NEVER: JsonSchema = {"not": {}}


def _uuid(version: int) -> Callable[[int], str]:
    return lambda k: f"12345678-1234-{version}234-8234-{k:012x}"


_FORMATS: dict[str, Callable[[int], str]] = {
    "date-time": lambda k: f"2024-01-{k % 28 + 1:02d}T12:00:00Z",
    "date": lambda k: f"2024-01-{k % 28 + 1:02d}",
    "time": lambda k: f"12:{k % 60:02d}:00Z",
    "duration": lambda k: f"P{k + 1}D",
    "email": lambda k: f"user{k or ''}@example.com",
    "hostname": lambda k: f"host{k}.example.com" if k else "example.com",
    "uri": lambda k: f"https://example.com/{k or ''}",
    "uri-template": lambda k: f"https://example.com/{{id{k or ''}}}",
    "json-pointer": lambda k: f"/a{k or ''}",
    "relative-json-pointer": str,
    "regex": lambda k: f"^a{k or ''}$",
    "uuid": _uuid(4),
    **{f"uuid{version}": _uuid(version) for version in range(1, 9)},
    "ipv4": lambda k: f"192.0.2.{k % 254 + 1}",
    "ipv6": lambda k: f"2001:db8::{k + 1:x}",
    "ipv4network": lambda k: f"10.{k % 256}.0.0/16",
    "ipv6network": lambda k: f"2001:db8:{k:x}::/48",
    "ipv4interface": lambda k: f"192.0.2.{k % 254 + 1}/24",
    "ipv6interface": lambda k: f"2001:db8::{k + 1:x}/64",
    "multi-host-uri": lambda k: f"postgres://user:pass@localhost:5432/db{k or ''}",
    "base64": lambda k: ["YQ==", "Yg==", "Yw=="][k % 3] if k < 3 else f"YWFh{k:04d}",
    "directory-path": lambda k: "." if not k else "..",
}
_FORMATS.update(
    {
        "idn-email": _FORMATS["email"],
        "idn-hostname": _FORMATS["hostname"],
        "iri": _FORMATS["uri"],
        "uri-reference": _FORMATS["uri"],
        "iri-reference": _FORMATS["uri"],
        "ipvanyaddress": _FORMATS["ipv4"],
        "ipvanynetwork": _FORMATS["ipv4network"],
        "ipvanyinterface": _FORMATS["ipv4interface"],
        "base64url": _FORMATS["base64"],
    }
)


class _Missing(enum.Enum):
    NO_VALUE = enum.auto()


_NO_VALUE: Final = _Missing.NO_VALUE
"""What `next()` gives back when a node has no (more) values."""


def sample(schema: JsonSchema, root: JsonSchema | None = None, *, hints: bool = True) -> JsonValue:
    """A value `schema` admits, made deterministically; a best effort when none is found.

    Args:
        schema: A JSON schema (or a part of `root`).
        root: The whole schema, for `$ref`; `schema` itself when None.
        hints: Whether descriptions state constraints (`_schema_hints`): true of a schema
            tooluse's strict transform wrote.

    Returns:
        The value. For an object schema nothing satisfies, an object of every property
        that has a value (so that a validator names only the others); else None.
    """
    whole = root if root is not None else schema
    found = _Sampler(whole, hints=hints).best_effort(schema, 0)
    return None if found is _NO_VALUE else copy.deepcopy(found)  # items may share their values


def accepted_sample(
    schema: JsonSchema,
    refusals: Callable[[dict[str, JsonValue]], list[str]],
    *,
    hints: bool = True,
) -> JsonValue:
    """Arguments for a tool: the sample, with each field the tool refuses swapped for another.

    The tool's own validator (pydantic, with the user's validators) may refuse what the
    schema admits (an `AfterValidator`, a `model_validator` of a nested model). For each
    top-level field it names, the field's next values are tried, at most `_ALTERNATIVES`
    each and `_VALIDATIONS` calls of `refusals` in all, and the first value it stops
    naming the field for is kept. Deterministic, like `sample`.

    Args:
        schema: The tool's arguments schema, an object.
        refusals: The tool's problems with some arguments, one line each starting with
            the field's path (`inner.flag: ...`); empty when it accepts them.
        hints: Whether descriptions state constraints (see `sample`).

    Returns:
        The sample, with the swaps the tool accepted.
    """
    sampler = _Sampler(schema, hints=hints)
    found = sampler.best_effort(schema, 0)
    if not isinstance(found, dict):
        return None if found is _NO_VALUE else copy.deepcopy(found)
    properties: JsonSchema = sampler.expanded(schema).get("properties", {})
    sampler.budget = _BUDGET  # the alternatives' own
    pending = {
        name: sampler.values(properties[name], 1)
        for name in _fields_named(refusals(found), properties)
    }
    checks = _VALIDATIONS - 1
    for name in _in_turns(pending, _ALTERNATIVES):
        sent = found.get(name, _NO_VALUE)
        others = (v for v in pending[name] if sent is _NO_VALUE or not json_equal(v, sent))
        other = next(others, _NO_VALUE)
        if other is _NO_VALUE:
            del pending[name]
            continue
        if checks == 0:
            break
        checks -= 1
        trial = {**found, name: other}
        if name not in _fields_named(refusals(trial), properties):
            found = trial
            del pending[name]
    return copy.deepcopy(found)


def _in_turns(pending: Mapping[str, object], rounds: int) -> Iterator[str]:
    """The names in `pending`, each in turn, for `rounds` rounds; a name taken out is skipped."""
    for _ in range(rounds):
        for name in list(pending):
            if name in pending:
                yield name


def _fields_named(problems: list[str], names: JsonSchema) -> list[str]:
    """The top-level fields that `problems` (`user.tags[2]: why`) are about, in order."""
    named = (
        name
        for problem in problems
        for name in names
        if problem.startswith(name) and problem[len(name) : len(name) + 1] in (":", ".", "[")
    )
    return list(dict.fromkeys(named))


class _Sampler:
    """Proposes and checks values for the nodes of one schema."""

    def __init__(self, root: JsonSchema, *, hints: bool = True) -> None:
        self.root = root
        self.hints = hints
        self.budget = _BUDGET

    def values(self, node: JsonValue, depth: int) -> Iterator[JsonValue]:
        """Distinct values `node` admits, best first."""
        self.budget -= 1
        if depth > _DEEPEST or node is False or self.budget < 0:
            return
        seen: set[str] = set()
        proposals = self._proposals(self.expanded(node), depth)
        for value in itertools.islice(proposals, _TRIES_PER_NODE):
            self.budget -= 1  # checked when the next node starts
            key = json.dumps(value, sort_keys=True)
            if key not in seen and admits(node, value, self.root, hints=self.hints):
                seen.add(key)
                yield value

    def best_effort(self, node: JsonValue, depth: int) -> JsonValue | _Missing:
        """The first value `node` admits; else, for an object, every property that has one.

        Returns:
            The value; `_NO_VALUE` when `node` admits none and is not an object near the top.
        """
        found = next(self.values(node, depth), _NO_VALUE)
        schema = self.expanded(node)
        if found is not _NO_VALUE or depth >= _SHALLOW or _types(schema)[:1] != ["object"]:
            return found
        if depth == 0:
            self.budget = _BUDGET  # the search for the whole may have spent it: the parts' own
        properties: JsonSchema = schema.get("properties", {})
        made: dict[str, JsonValue] = {}
        for name in dict.fromkeys([*schema.get("required", []), *properties]):
            value = self.best_effort(
                properties.get(name, schema.get("additionalProperties", True)), depth + 1
            )
            if value is not _NO_VALUE:
                made[name] = value
        return made

    def expanded(self, node: JsonValue, hops: int = 0) -> JsonSchema:
        """`node` with its description's hints, its `$ref` followed and its `allOf` merged."""
        if not isinstance(node, dict):
            return {} if node is not False else _NEVER
        schema: JsonSchema = with_hints(node) if self.hints else node
        ref = schema.get("$ref")
        if isinstance(ref, str):
            target = resolve(self.root, ref)
            if target is None or hops >= _MAX_REF_HOPS:
                return _NEVER
            siblings = {key: value for key, value in schema.items() if key != "$ref"}
            schema = _merge(self.expanded(target, hops + 1), siblings)
        all_of: list[JsonValue] = schema.get("allOf", [])
        if all_of:
            rest = {key: value for key, value in schema.items() if key != "allOf"}
            for part in all_of:
                rest = _merge(rest, self.expanded(part, hops + 1))
            schema = rest
        return schema

    def _proposals(self, schema: JsonSchema, depth: int) -> Iterator[JsonValue]:
        if "not" in schema and schema["not"] in ({}, True):
            return
        if "const" in schema:
            yield schema["const"]
            return
        if "enum" in schema:
            yield from schema["enum"]
            return
        examples: JsonValue = schema.get("examples")
        if isinstance(examples, list):
            yield from examples
        branches: list[JsonValue] = schema.get("anyOf") or schema.get("oneOf") or []
        if branches:
            yield from self._branches(schema, branches, depth)
            return
        for kind in self._ordered_types(schema, depth):
            yield from self._of_type(kind, schema, depth)

    def _branches(
        self, schema: JsonSchema, branches: list[JsonValue], depth: int
    ) -> Iterator[JsonValue]:
        siblings = {key: value for key, value in schema.items() if key not in ("anyOf", "oneOf")}
        merged = [_merge(siblings, self.expanded(branch)) for branch in branches]
        if depth >= _SHALLOW:
            merged.sort(key=_ending_rank)
        for branch in merged:
            yield from self.values(branch, depth + 1)

    def _ordered_types(self, schema: JsonSchema, depth: int) -> list[str]:
        kinds = _types(schema)
        if depth >= _SHALLOW and "null" in kinds:
            kinds = ["null", *(kind for kind in kinds if kind != "null")]
        return kinds

    def _of_type(self, kind: str, schema: JsonSchema, depth: int) -> Iterator[JsonValue]:
        if kind == "object":
            yield from self._objects(schema, depth)
        elif kind == "array":
            yield from self._arrays(schema, depth)
        elif kind == "string":
            yield from self._strings(schema, depth)
        elif kind in ("integer", "number"):
            yield from _numbers(schema, integer=kind == "integer")
        elif kind == "boolean":
            yield from (False, True)
        elif kind == "null":
            yield None

    def _strings(self, schema: JsonSchema, depth: int) -> Iterator[str]:
        shortest: int = schema.get("minLength", 0)
        longest: int | None = schema.get("maxLength")
        if schema.get("contentMediaType") == "application/json":
            content = schema.get("contentSchema", {})
            yield from (json.dumps(v) for v in self.values(content, depth + 1))
        made = _FORMATS.get(str(schema.get("format")))
        if made is not None:
            yield from (made(k) for k in range(_NUMBERS_TRIED))
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            yield from strings_matching(pattern, shortest, longest)
        else:
            yield from _plain_strings(shortest, longest)

    def _arrays(self, schema: JsonSchema, depth: int) -> Iterator[list[JsonValue]]:
        least: int = schema.get("minItems", 0)
        most: int | None = schema.get("maxItems")
        for size in (least, least + 1):
            items = self._items(schema, size, depth + 1) if most is None or size <= most else None
            if items is not None:
                yield items

    def _items(self, schema: JsonSchema, size: int, depth: int) -> list[JsonValue] | None:
        """`size` items, distinct when the items allow it; the prefix items first.

        None when there cannot be that many.
        """
        prefix: list[JsonValue] = schema.get("prefixItems", [])
        rest: JsonValue = schema.get("items", True)
        unique = schema.get("uniqueItems") is True or UNIQUE_KEYS in schema
        key: JsonValue = schema.get(UNIQUE_KEYS)
        made: list[JsonValue] = []
        pools: dict[int, Iterator[JsonValue]] = {}
        for index in range(size):
            item = prefix[index] if index < len(prefix) else rest
            pool = pools.setdefault(id(item), self.values(item, depth))
            fresh = next((v for v in pool if not _repeats(v, made, key)), _NO_VALUE)
            if fresh is _NO_VALUE:
                if unique or not made:
                    return None
                fresh = made[0]
            made.append(fresh)
        return made

    def _objects(self, schema: JsonSchema, depth: int) -> Iterator[dict[str, JsonValue]]:
        named = self._named(schema, depth + 1)
        if named is None:
            return
        base, pools = named
        entries = self._entries(schema, base, depth + 1)
        if entries is None:
            return
        yield {**base, **entries}
        for name, pool in pools.items():
            yield from ({**base, name: other} for other in itertools.islice(pool, _VARIANTS))
        for more, shift in itertools.product((0, 1), range(_VARIANTS + 1)):
            entries = self._entries(schema, base, depth + 1, shift, more)
            if entries is not None:
                yield {**base, **entries}
        required = schema.get("required", [])
        yield {name: value for name, value in base.items() if name in required}

    def _named(
        self, schema: JsonSchema, depth: int
    ) -> tuple[dict[str, JsonValue], dict[str, Iterator[JsonValue]]] | None:
        """A value for each required property (and, near the top, each optional one).

        Returns:
            The values and the rest of each property's values; None when a required
            property has none.
        """
        properties: JsonSchema = schema.get("properties", {})
        required: list[str] = list(schema.get("required", []))
        wanted = required + [n for n in properties if n not in required and depth <= _SHALLOW]
        base: dict[str, JsonValue] = {}
        pools: dict[str, Iterator[JsonValue]] = {}
        for name in wanted:
            pool = self.values(
                properties.get(name, schema.get("additionalProperties", True)), depth
            )
            value = next(pool, _NO_VALUE)
            if value is _NO_VALUE and name in required:
                return None
            if value is not _NO_VALUE:
                base[name], pools[name] = value, pool
        return base, pools

    def _entries(
        self,
        schema: JsonSchema,
        taken: dict[str, JsonValue],
        depth: int,
        shift: int = 0,
        more: int = 0,
    ) -> dict[str, JsonValue] | None:
        """Entries beyond the named properties: as many as `minProperties` asks, and `more`.

        `shift` skips that many candidate keys, for objects that differ in their keys.
        None when the object cannot have them.
        """
        wanted = max(0, schema.get("minProperties", 0) - len(taken)) + more
        if wanted <= 0:
            return {}
        extra = schema.get("additionalProperties", True)
        value = next(self.values(extra, depth), _NO_VALUE)
        if value is _NO_VALUE:
            return None
        names_schema = {"type": "string", **self.expanded(schema.get("propertyNames", {}))}
        known = {**schema.get("properties", {}), **taken}
        # Keys are strings, whatever type `propertyNames` may state.
        names = (
            n for n in self.values(names_schema, depth) if isinstance(n, str) and n not in known
        )
        keys = list(itertools.islice(names, shift, shift + wanted))
        return dict.fromkeys(keys, value) if len(keys) == wanted else None


def _merge(base: JsonSchema, extra: JsonSchema) -> JsonSchema:
    """Both schemas' keywords: properties and `required` combined, else `extra` wins."""
    merged = {**base, **extra}
    if "properties" in base and "properties" in extra:
        properties = dict(base["properties"])
        for name, sub in extra["properties"].items():
            properties[name] = {"allOf": [properties[name], sub]} if name in properties else sub
        merged["properties"] = properties
    if "required" in base and "required" in extra:
        merged["required"] = list(dict.fromkeys([*base["required"], *extra["required"]]))
    return merged


def _types(schema: JsonSchema) -> list[str]:
    """The types to propose values of, in order; guessed from the keywords when unstated."""
    kind: JsonValue = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [str(k) for k in kind]
    guesses = {
        "object": ("properties", "required", "additionalProperties", "minProperties"),
        "array": ("items", "prefixItems", "minItems", "maxItems", "uniqueItems"),
        "string": ("pattern", "format", "minLength", "maxLength", "contentMediaType"),
        "number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
    }
    found = [name for name, keys in guesses.items() if any(key in schema for key in keys)]
    return found or ["null", *(k for k in _TYPE_ORDER if k != "null")]


def _ending_rank(branch: JsonSchema) -> int:
    """How soon a branch ends: null first, then scalars, then containers and references."""
    kinds = _types(branch)
    if kinds[:1] == ["null"]:
        return 0
    if "$ref" in branch or {"object", "array"} & set(kinds):
        return 2
    return 1


def _repeats(value: JsonValue, made: list[JsonValue], key: JsonValue) -> bool:
    """Whether `value` equals an item already made (or shares its `key`, for pairs)."""
    if isinstance(key, str) and isinstance(value, dict):
        own = value.get(key)
        keyed = [m for m in made if isinstance(m, dict)]
        return any(json_equal(m.get(key), own) for m in keyed)
    return any(json_equal(value, other) for other in made)


def _plain_strings(shortest: int, longest: int | None) -> Iterator[str]:
    """`a`, `b`, ..., `9` at the least length that is not empty, then longer ones."""
    length = max(shortest, 1 if longest is None or longest >= 1 else 0)
    if length == 0:
        yield ""
        return
    for extra in range(3):
        if longest is not None and length + extra > longest:
            return
        for char in string.ascii_lowercase + string.digits:
            yield char * (length + extra)


def _numbers(schema: JsonSchema, *, integer: bool) -> Iterator[int | float]:
    """Numbers within the bounds, multiples of `multipleOf`, nearest zero first.

    Multiples are counted in exact fractions of the numbers as written (0.07 is 7/100),
    and those whose float quotient is whole come first: every validator takes them.
    A number without `multipleOf` may then be a fraction (for a `oneOf` that an
    integer would match twice), or a point inside a range too narrow for a whole one.
    """
    low = _bound(schema, "minimum", "exclusiveMinimum")
    high = _bound(schema, "maximum", "exclusiveMaximum")
    step = _finite_number(schema.get("multipleOf"))
    if step is not None and step <= 0:
        step = None  # no multiple to keep to
    multiples = list(_multiples(1 if step is None else step, low, high))
    if integer:
        yield from (int(value) for value in multiples if value.denominator == 1)
        return
    floats = [float(value) for value in multiples]
    if step is not None:
        floats.sort(key=lambda value: not _whole_quotient(value, step))
    yield from floats
    if step is not None:  # a closed bound a hair off a multiple: within the validators' tolerance
        yield from (bound[0] for bound in (low, high) if bound is not None and not bound[1])
    else:
        yield from (value + 0.5 for value in floats[:_VARIANTS])
        if low is not None and high is not None:
            yield from _between(low[0], high[0])


def _finite_number(value: JsonValue) -> float | None:
    """`value` if it is a finite number (a bool is not one), else None."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return value
    return None


def _whole_quotient(value: float, step: float) -> bool:
    """Whether `value / step` is whole in floating point, as jsonschema wants it."""
    quotient = value / step
    return math.isfinite(quotient) and quotient.is_integer()


def _exact(number: float) -> Fraction:
    """The number as written in JSON: `0.1` is 1/10, not the float nearest it."""
    return Fraction(number) if isinstance(number, int) else Fraction(repr(number))


def _bound(schema: JsonSchema, inclusive: str, exclusive: str) -> tuple[float, bool] | None:
    """The tighter of a closed and an open bound, as (value, open?)."""
    found: list[tuple[float, bool]] = []
    for key, is_open in ((inclusive, False), (exclusive, True)):
        value = _finite_number(schema.get(key))
        if value is not None:
            found.append((value, is_open))
    if not found:
        return None
    lower = inclusive == "minimum"
    return max(found) if lower else min(found, key=lambda b: (b[0], not b[1]))


def _multiples(
    step: float, low: tuple[float, bool] | None, high: tuple[float, bool] | None
) -> Iterator[Fraction]:
    """Multiples of `step` inside the bounds, from the one nearest zero outwards."""
    unit = _exact(step)
    least = None if low is None else _count(_exact(low[0]) / unit, up=True, past=low[1])
    most = None if high is None else _count(_exact(high[0]) / unit, up=False, past=high[1])
    if least is not None and most is not None and least > most:
        return
    start = 0 if least is None else max(0, least)
    start = start if most is None else min(start, most)
    for offset in itertools.islice(_outwards(), _NUMBERS_TRIED):
        k = start + offset
        if (least is None or k >= least) and (most is None or k <= most):
            yield k * unit


def _count(quotient: Fraction, *, up: bool, past: bool) -> int:
    """The whole number of steps nearest `quotient` on the inside of a bound; beyond it if open."""
    whole = math.ceil(quotient) if up else math.floor(quotient)
    if past and whole == quotient:
        whole += 1 if up else -1
    return whole


def _outwards() -> Iterator[int]:
    yield 0
    for distance in itertools.count(1):
        yield distance
        yield -distance


def _between(low: float, high: float) -> Iterator[float]:
    """Points inside a range too narrow to hold a multiple: its middle, then its quarters."""
    width = high - low
    yield from (low + width / 2, low + width / 4, low + 3 * width / 4, low, high)
