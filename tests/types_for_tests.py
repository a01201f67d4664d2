"""Types used as tool parameters across the tests, defined at module level."""

from __future__ import annotations

import enum
import typing
from dataclasses import dataclass

import pydantic
import typing_extensions
from pydantic import BaseModel


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Point(typing.TypedDict):
    x: int
    y: int


class Options(typing_extensions.TypedDict, total=False):
    verbose: bool
    label: str


class Tree(typing.TypedDict):
    value: int
    children: list[Tree]


@dataclass
class Window:
    width: int
    height: int = 10


class User(BaseModel):
    name: str
    age: int | None = None


class Node(BaseModel):
    label: str
    next: Node | None = None


class Address(typing.TypedDict):
    """A postal address."""

    street: typing.Annotated[str, "The street and number."]
    city: str
    zip: typing_extensions.NotRequired[str]


@pydantic.with_config(pydantic.ConfigDict(str_strip_whitespace=True))
class Stripped(typing.TypedDict):
    name: str


class Tagged(BaseModel):
    """A model with a dict inside: adapted in strict mode."""

    name: str
    tags: dict[str, int]


@dataclass
class Box:
    size: tuple[int, int]
    labels: dict[str, str]


class Branch(BaseModel):
    weights: dict[str, float]
    children: list[Branch] = []


class Sparse(typing.TypedDict, total=False):
    note: str
    scores: dict[str, int]
