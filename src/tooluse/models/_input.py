"""What both conversions of a conversation share: reading an item, and refusing one clearly.

A run's input may mix the two OpenAI APIs' forms: Responses items (messages
with content parts, `function_call`, `function_call_output`, reasoning, hosted
tool calls) and Chat Completions messages (`system`, `developer`, `user`,
`assistant` with `tool_calls`, `tool`), as people write history by hand. Each
model converts what is in the other API's form (`_responses_input.py`,
`_chat_conversion.py`); what has no form in the API in use is refused with a
`UserError` before the request, naming the item as `input[i]`, what is wrong,
and how to fix it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal, TypeAlias, TypeGuard, TypeVar, cast

from pydantic import BaseModel

from ..core._items import Item
from ..exceptions import UserError

__all__ = [
    "METADATA_KEYS",
    "ROLES",
    "TEXT_PART_TYPES",
    "InputError",
    "JsonObject",
    "Role",
    "as_item",
    "content_parts",
    "describe",
    "fields_of",
    "from_another_provider",
    "is_list",
    "is_object",
    "message_role",
    "part_list",
    "required_text",
    "tool_calls",
    "with_extras",
]

Role: TypeAlias = Literal["user", "system", "developer", "assistant", "tool", "function"]
"""A message's role, in either API."""
ROLES: tuple[Role, ...] = ("user", "system", "developer", "assistant", "tool", "function")
"""Every role a message may have in either API."""

JsonObject: TypeAlias = Mapping[str, object]
"""A JSON object of the input (a content part, a tool call): each value is checked as it is read."""

METADATA_KEYS = frozenset({"type", "id", "status", "phase"})
"""Keys of a Responses message that say where it came from, not what it says."""
TEXT_PART_TYPES = ("text", "input_text", "output_text")
"""Content parts that carry text, in either API's spelling."""

_PART_EXTRAS = ("prompt_cache_breakpoint",)
"""Keys content parts of both APIs spell alike, carried across a conversion."""

P = TypeVar("P", bound=JsonObject)
"""A part a conversion built."""


class InputError:
    """Builds the `UserError` for one item or part of the input that cannot be sent."""

    __slots__ = ("_index", "_item", "_what", "_where", "api")

    def __init__(self, where: str, what: str, api: str) -> None:
        self._where: str | None = where
        self._what: str | None = what
        self._index = 0
        self._item: Item | None = None
        self.api = api
        """The API the request was for."""

    @classmethod
    def of_item(cls, index: int, item: Item, api: str) -> InputError:
        """The error builder for `input[index]`, worded only if an error is raised.

        A conversion makes one for every item of every request it converts.

        Args:
            index: The item's position in the input.
            item: The item.
            api: The API the request is for.

        Returns:
            The builder.
        """
        error = cls.__new__(cls)  # no __init__: this runs for every item
        error._where = error._what = None
        error._index, error._item, error.api = index, item, api
        return error

    @property
    def where(self) -> str:
        """`input[3]`, or `input[3].content[1]` for a part."""
        return self._where if self._where is not None else f"input[{self._index}]"

    @property
    def what(self) -> str:
        """What it is, e.g. "an 'assistant' message"."""
        if self._what is None:
            self._what = describe(self._item or {})
        return self._what

    def __call__(self, problem: str, fix: str) -> UserError:
        """The error: where, what, the problem, and the fix.

        Args:
            problem: What is wrong, e.g. "its 'audio' has no Responses form".
            fix: How to fix it.

        Returns:
            The error to raise.
        """
        return UserError(
            f"{self.where} ({self.what}) cannot be sent to the {self.api} API: {problem}. {fix}"
        )

    def part(self, index: int, part: JsonObject) -> InputError:
        """The error builder for the item's content part `index`."""
        return InputError(f"{self.where}.content[{index}]", f"a {part['type']!r} part", self.api)


def as_item(index: int, value: object, api: str) -> Item:
    """The item at `input[index]` as a dict: a dict as it is, a pydantic model dumped.

    Args:
        index: Its position in the input.
        value: The item; the `openai` package's own objects are pydantic models.
        api: The API the request is for.

    Returns:
        The item.

    Raises:
        UserError: For anything else.
    """
    if isinstance(value, dict):  # inline, not `is_object`: this runs for every item
        return cast(Item, value)
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    error = InputError(f"input[{index}]", f"a {type(value).__name__}", api)
    raise error(
        "an item is a dict",
        'Give each item as a dict, e.g. {"role": "user", "content": "..."}, or the whole '
        "input as one string",
    )


def from_another_provider(item: Item, provider: str = "openai") -> bool:
    """Whether an item holds what only another provider's model reads back.

    Claude's thinking and Gemini's thought signatures are kept as `reasoning` items
    whose `provider_data` names their provider: in a conversation handed over to
    another provider's model they are left out, as that provider could not read them.

    Args:
        item: A conversation item.
        provider: The provider the request is for.

    Returns:
        True for an item whose `provider_data` names another provider.
    """
    data: object = item.get("provider_data")
    return is_object(data) and data.get("provider", provider) != provider


def describe(item: Item) -> str:
    """What an item is, for an error message: "a 'user' message", "a 'reasoning' item"."""
    kind = item.get("type") or "message"
    if kind != "message":
        return f"a {kind!r} item"
    role = item.get("role")
    return f"{'an' if role == 'assistant' else 'a'} {role!r} message" if role else "a message"


def message_role(item: Item, error: InputError) -> Role:
    """The role of a message item, checked.

    Args:
        item: A message (its `type` is `message` or missing).
        error: Words the error.

    Returns:
        One of `ROLES`.

    Raises:
        UserError: If it has no role, or an unknown one.
    """
    role: object = item.get("role")
    if role in ROLES:
        return role
    if role is None:
        raise error(
            "it has neither a 'type' nor a 'role'",
            'Give a message a role, e.g. {"role": "user", "content": "..."}, or an item its '
            "'type' (function_call, function_call_output, ...)",
        )
    raise error(f"the role {role!r} is unknown", f"Use one of {', '.join(ROLES)}")


def content_parts(item: Item, error: InputError) -> str | list[JsonObject]:
    """A message's content, checked to be text or a list of parts.

    Args:
        item: A message with content.
        error: Words the error.

    Returns:
        The text, or the parts.

    Raises:
        UserError: If it has no content, or content of another type, or a part is not a dict.
    """
    content: object = item.get("content")
    if isinstance(content, str):
        return content
    return part_list(content, error)


def part_list(content: object, error: InputError) -> list[JsonObject]:
    """A message's content, checked to be a list of parts.

    Args:
        content: The message's content.
        error: Words the error.

    Returns:
        The parts.

    Raises:
        UserError: If it is not a list, or a part is not a dict with a `type`.
    """
    if not is_list(content):
        found = "no 'content'" if content is None else f"'content' of type {_type_name(content)}"
        raise error(f"it has {found}", "Give 'content' as a string, or as a list of content parts")
    for index, part in enumerate(content):
        if not _is_part(part):
            where = f"{error.where}.content[{index}]"
            raise InputError(where, f"a {_type_name(part)}", error.api)(
                "a content part is a dict with a 'type'",
                'Write a text part as {"type": "input_text", "text": "..."} '
                '(Chat Completions: {"type": "text", "text": "..."})',
            )
    return cast("list[JsonObject]", content)  # each part checked above


def is_object(value: object) -> TypeGuard[JsonObject]:
    """Whether a value of the input is a JSON object (a dict).

    Args:
        value: The value.

    Returns:
        True for a dict.
    """
    return isinstance(value, dict)


def is_list(value: object) -> TypeGuard[list[object]]:
    """Whether a value of the input is a JSON array (a list).

    Args:
        value: The value.

    Returns:
        True for a list.
    """
    return isinstance(value, list)


_NO_FIELDS: JsonObject = MappingProxyType({})


def fields_of(value: object) -> JsonObject:
    """A JSON object of the input, as it is; anything else as an object without fields.

    Args:
        value: What the input holds where an object belongs (e.g. a tool call's `function`).

    Returns:
        The object, or an empty one: a field read from it is then missing, and refused as such.
    """
    return value if is_object(value) else _NO_FIELDS


def _is_part(value: object) -> bool:
    return isinstance(value, dict) and "type" in value


def _type_name(value: object) -> str:
    return type(value).__name__


def required_text(value: object, key: str, error: InputError) -> str:
    """`value`, checked to be a string, as an item's or part's `key` must be.

    Args:
        value: The value found (None when the key is missing).
        key: Its key, for the message.
        error: Words the error.

    Returns:
        The string.

    Raises:
        UserError: If it is not a string.
    """
    if isinstance(value, str):
        return value
    found = "no" if value is None else f"a {type(value).__name__} as its"
    raise error(f"it has {found} {key!r}", f"Give {key!r} as a string")


def tool_calls(item: Item, error: InputError) -> list[JsonObject]:
    """An assistant message's `tool_calls`, checked to be a list of dicts.

    Args:
        item: An assistant message.
        error: Words the error.

    Returns:
        The tool calls; none if it has none.

    Raises:
        UserError: If `tool_calls` is not a list of dicts.
    """
    calls: object = item.get("tool_calls")
    if calls is None:
        return []
    if not is_list(calls) or not all(isinstance(call, dict) for call in calls):
        raise error(
            "its 'tool_calls' is not a list of tool calls",
            'Write each as {"id": ..., "type": "function", "function": {"name": ..., '
            '"arguments": "..."}}',
        )
    return cast("list[JsonObject]", calls)  # each call checked above


def with_extras(converted: P, part: JsonObject) -> P:
    """A part a conversion built, with the keys both APIs' parts spell alike carried over.

    Args:
        converted: The part built, changed in place.
        part: The part it was built from.

    Returns:
        `converted`.
    """
    for key in _PART_EXTRAS:
        if part.get(key) is not None:
            # A TypedDict is open to keys it does not declare, and is a dict at run time.
            cast("dict[str, object]", converted)[key] = part[key]
    return converted
