r"""Strings that match a regular expression, for the subset JSON schemas commonly use.

`strings_matching(pattern, min_length, max_length)` parses the pattern into a small
tree (literals, classes such as `[a-z0-9]`, `\d \w \s`, `.`, quantifiers `? * +
{m,n}`, anchors, groups and alternation), builds strings of increasing length from
it, and yields those that `re.search` confirms and that fit the lengths. A pattern
outside the subset (lookarounds, backreferences, ...) falls back to a few plain
candidates, checked the same way. Everything is deterministic.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import cast

__all__ = ["strings_matching"]

# Characters tried first, in order, when a class admits several: readable ones.
_NICE = string.ascii_lowercase + string.digits + string.ascii_uppercase + "_-. @:/+"
_CATEGORIES = {
    "d": string.digits,
    "w": string.ascii_letters + string.digits + "_",
    "s": " \t\n\r\f\v",
}
_CONTROL = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "0": "\0"}
_ZERO_WIDTH = frozenset("bBAZz")
_FALLBACKS = ("a", "0", "A", "_", "", "a0", "abc", "example", "a-b", "a.b", "a b")
_EXTRA_LENGTHS = 64  # lengths past the least one that are considered
_LENGTHS_TRIED = 12
_VARIANTS = 3
_MAX_CAP = 4_096  # the longest string built


class _Unsupported(Exception):
    """The pattern uses syntax the generator does not model."""


@dataclass(frozen=True)
class _Chars:
    options: str  # the characters it may be, best first


@dataclass(frozen=True)
class _Seq:
    items: tuple[_Node, ...]


@dataclass(frozen=True)
class _Alt:
    branches: tuple[_Node, ...]


@dataclass(frozen=True)
class _Repeat:
    item: _Node
    low: int
    high: int | None


_Node = _Chars | _Seq | _Alt | _Repeat
_EMPTY = _Seq(())


def strings_matching(
    pattern: str, min_length: int = 0, max_length: int | None = None
) -> Iterator[str]:
    """Yield distinct strings that `pattern` matches (as `re.search`), shortest first.

    Args:
        pattern: The regular expression.
        min_length: The fewest characters a string may have.
        max_length: The most characters a string may have; None for no limit.

    Yields:
        Matching strings. When `re` cannot compile the pattern, the generator's
        strings are yielded unchecked.
    """
    try:
        compiled: re.Pattern[str] | None = re.compile(pattern)
    except (re.error, OverflowError):
        compiled = None
    seen: set[str] = set()
    for text in _proposals(pattern, min_length, max_length):
        fits = min_length <= len(text) and (max_length is None or len(text) <= max_length)
        if text in seen or not fits:
            continue
        seen.add(text)
        if compiled is None or compiled.search(text):
            yield text


def _proposals(pattern: str, min_length: int, max_length: int | None) -> Iterator[str]:
    try:
        tree = _Parser(pattern).parse()
    except _Unsupported:
        tree = None
    if tree is not None:
        yield from _from_tree(pattern, tree, min_length, max_length)
    yield from _FALLBACKS
    yield from _padded(pattern, list(_FALLBACKS[:2]), min_length)


def _from_tree(pattern: str, tree: _Node, min_length: int, max_length: int | None) -> Iterator[str]:
    least = max(min_length, _shortest(tree))
    cap = min(_MAX_CAP, least + _EXTRA_LENGTHS)
    cap = cap if max_length is None else min(cap, max_length)
    builder = _Builder(cap)
    possible = builder.lengths(tree)
    lengths = [n for n in range(min_length, cap + 1) if possible >> n & 1]
    for length in lengths[:_LENGTHS_TRIED]:
        for variant in range(_VARIANTS):
            yield builder.build(tree, length, variant)
    shortest = _lowest_bit(possible)
    if shortest is not None and shortest < min_length:
        built = [builder.build(tree, shortest, v) for v in range(_VARIANTS)]
        yield from _padded(pattern, built, min_length)


def _shortest(node: _Node) -> int:
    if isinstance(node, _Chars):
        return 1
    if isinstance(node, _Repeat):
        return node.low * _shortest(node.item)
    if isinstance(node, _Alt):
        return min(map(_shortest, node.branches))
    return sum(map(_shortest, node.items))


def _padded(pattern: str, texts: list[str], min_length: int) -> Iterator[str]:
    """Texts too short, padded at an end the pattern does not anchor."""
    for text in texts:
        missing = max(0, min_length - len(text))
        if missing and not pattern.endswith("$"):
            yield text + "a" * missing
            yield text + " " * missing
        if missing and not pattern.startswith("^"):
            yield "a" * missing + text


def _bits(mask: int) -> Iterator[int]:
    """The positions of the set bits of `mask`, lowest first."""
    while mask:
        lowest = mask & -mask
        yield lowest.bit_length() - 1
        mask ^= lowest


def _lowest_bit(mask: int) -> int | None:
    return (mask & -mask).bit_length() - 1 if mask else None


def _union(masks: Iterable[int]) -> int:
    union = 0
    for mask in masks:
        union |= mask
    return union


class _Builder:
    """Builds strings of an exact length from a tree, up to `cap` characters.

    The lengths a node can match are a bit set (bit n: a string of n characters),
    so every choice (how many repeats, how long each part) is made knowing that
    the rest can still be filled.
    """

    def __init__(self, cap: int) -> None:
        self.mask = (1 << (cap + 1)) - 1
        self.known: dict[_Node, int] = {}

    def lengths(self, node: _Node) -> int:
        """The bit set of the lengths `node` matches, up to the cap."""
        if node not in self.known:
            self.known[node] = self._lengths(node)
        return self.known[node]

    def _lengths(self, node: _Node) -> int:
        if isinstance(node, _Chars):
            return 0b10 & self.mask
        if isinstance(node, _Alt):
            return _union(map(self.lengths, node.branches))
        if isinstance(node, _Seq):
            return functools.reduce(self._plus, map(self.lengths, node.items), 1)
        return _union(self._counts(node)[node.low :])

    def _counts(self, node: _Repeat) -> list[int]:
        """The lengths of 0, 1, 2, ... repeats, until more add nothing new."""
        one = self.lengths(node.item)
        counts = [1]
        while node.high is None or len(counts) <= node.high:
            more = self._plus(counts[-1], one)
            if len(counts) > node.low and (more == counts[-1] or not more):
                break
            counts.append(more)
        return counts

    def _plus(self, left: int, right: int) -> int:
        """The lengths of a string from `left` followed by one from `right`."""
        if left.bit_count() < right.bit_count():
            left, right = right, left
        total = 0
        for shift in _bits(right):
            total |= left << shift
        return total & self.mask

    def build(self, node: _Node, length: int, variant: int) -> str:
        """A string of `length` characters `node` matches (`length` must be possible)."""
        if isinstance(node, _Chars):
            return node.options[variant % len(node.options)]
        if isinstance(node, _Alt):
            branch = next(b for b in node.branches if self.lengths(b) >> length & 1)
            return self.build(branch, length, variant)
        if isinstance(node, _Seq):
            return self._build_parts(list(node.items), length, variant)
        counts = self._counts(node)
        count = next(k for k in range(node.low, len(counts)) if counts[k] >> length & 1)
        return self._build_parts([node.item] * count, length, variant)

    def _build_parts(self, parts: list[_Node], length: int, variant: int) -> str:
        """Each part as short as it can be while the parts after it can fill the rest."""
        if not parts:
            return ""
        rests = [1]
        for part in reversed(parts[1:]):
            rests.append(self._plus(self.lengths(part), rests[-1]))
        built: list[str] = []
        for part, rest in zip(parts, reversed(rests), strict=True):
            size = next(n for n in _bits(self.lengths(part)) if rest >> (length - n) & 1)
            built.append(self.build(part, size, variant))
            length -= size
        return "".join(built)


class _Parser:
    """A recursive-descent parser for the regex subset."""

    def __init__(self, pattern: str) -> None:
        self.text = pattern
        self.at = 0

    def parse(self) -> _Node:
        node = self._alternation()
        if self.at != len(self.text):
            raise _Unsupported(self.text)  # an unbalanced ")"
        return node

    def _peek(self, ahead: int = 0) -> str:
        index = self.at + ahead
        return self.text[index] if index < len(self.text) else ""

    def _take(self) -> str:
        char = self._peek()
        if not char:
            raise _Unsupported(self.text)
        self.at += 1
        return char

    def _alternation(self) -> _Node:
        branches = [self._sequence()]
        while self._peek() == "|":
            self.at += 1
            branches.append(self._sequence())
        return branches[0] if len(branches) == 1 else _Alt(tuple(branches))

    def _sequence(self) -> _Node:
        items: list[_Node] = []
        while self._peek() not in ("", "|", ")"):
            atom = self._atom()
            items.append(self._quantified(atom))
        return items[0] if len(items) == 1 else _Seq(tuple(items))

    def _atom(self) -> _Node:
        char = self._take()
        if char == "(":
            return self._group()
        if char == "[":
            return _Chars(self._class())
        if char == ".":
            return _Chars(_NICE)
        if char == "\\":
            return self._escape(in_class=False)
        if char in "^$":
            return _EMPTY
        if char in "*+?":
            raise _Unsupported(self.text)  # a quantifier with nothing to repeat
        return _Chars(char)

    def _group(self) -> _Node:
        if self._peek() == "?":
            self._group_prefix()
        node = self._alternation()
        if self._take() != ")":
            raise _Unsupported(self.text)
        return node

    def _group_prefix(self) -> None:
        """Skip `?:` or a name (`?P<n>`, `?<n>`); lookarounds and flags are unsupported."""
        ahead = self.text[self.at : self.at + 3]
        if ahead.startswith("?:"):
            self.at += 2
        elif ahead.startswith(("?P<", "?<")) and ahead[:3] not in ("?<=", "?<!"):
            self.at = self.text.index(">", self.at) + 1
        else:
            raise _Unsupported(self.text)

    def _quantified(self, atom: _Node) -> _Node:
        bounds = self._quantifier()
        if bounds is None:
            return atom
        if self._peek() in ("?", "+"):  # lazy or possessive: the same strings match
            self.at += 1
        return _Repeat(atom, *bounds)

    def _quantifier(self) -> tuple[int, int | None] | None:
        char = self._peek()
        simple = {"?": (0, 1), "*": (0, None), "+": (1, None)}
        if char in simple:
            self.at += 1
            return simple[char]
        found = re.match(r"\{(\d*)(,?)(\d*)\}", self.text[self.at :])
        if char != "{" or found is None or not (found[1] or found[3]):
            return None  # a "{" that is not a quantifier is a literal, as in `re`
        self.at += found.end()
        low = int(found[1] or 0)
        if not found[2]:
            return low, low
        return low, int(found[3]) if found[3] else None

    def _escape(self, *, in_class: bool) -> _Node:
        char = self._take()
        if char.lower() in _CATEGORIES:
            members = _CATEGORIES[char.lower()]
            return _Chars(members if char.islower() else _outside(members))
        if char in _ZERO_WIDTH and not in_class:
            return _EMPTY
        if char in _CONTROL:
            return _Chars(_CONTROL[char])
        if char in "xu":
            return _Chars(self._code_point(2 if char == "x" else 4))
        if char.isalnum():
            raise _Unsupported(self.text)  # backreferences, \p{..}, \k<..>, ...
        return _Chars(char)

    def _code_point(self, digits: int) -> str:
        code = self.text[self.at : self.at + digits]
        if len(code) != digits or not all(c in string.hexdigits for c in code):
            raise _Unsupported(self.text)
        self.at += digits
        return chr(int(code, 16))

    def _class(self) -> str:
        """The characters of a `[...]` class (after the `[`), best first."""
        negated = self._peek() == "^"
        self.at += negated
        members: list[str] = []
        first = True
        while first or self._peek() != "]":
            members.append(self._class_item())
            first = False
        self.at += 1
        chars = "".join(dict.fromkeys("".join(members)))
        options = _outside(chars) if negated else _best_first(chars)
        if not options:
            raise _Unsupported(self.text)
        return options

    def _class_item(self) -> str:
        start = self._class_char()
        if self._peek() != "-" or self._peek(1) in ("]", "") or len(start) != 1:
            return start
        self.at += 1
        end = self._class_char()
        if len(end) != 1 or ord(end) < ord(start):
            raise _Unsupported(self.text)
        return "".join(chr(code) for code in range(ord(start), min(ord(end), ord(start) + 256) + 1))

    def _class_char(self) -> str:
        char = self._take()
        if char != "\\":
            return char
        return cast(_Chars, self._escape(in_class=True)).options  # in a class: never empty


def _best_first(chars: str) -> str:
    nice = [c for c in _NICE if c in chars]
    return "".join(nice) + "".join(c for c in chars if c not in _NICE)


def _outside(chars: str) -> str:
    return "".join(c for c in _NICE if c not in chars)
