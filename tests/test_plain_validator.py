"""A plain signature's arguments validator, written without the model, is the model's.

`plain_fields_validator` writes the core schema pydantic would make of a plain
signature's fields, so that a tool's first call need not build the arguments model.
Each signature here is validated both ways (the validator written directly, and the
fields validator taken from the model pydantic builds) on the same arguments: the
values, and every error (type, location, message, input), must be equal.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any, Literal

import pytest
from pydantic import ValidationError
from pydantic_core import SchemaValidator

from tooluse import ToolContext, function_tool
from tooluse.exceptions import ToolArgumentsError
from tooluse.schema._function_schema import deferred_function_schema, plain_validator


def scalars(name: str, count: int, ratio: float, flag: bool) -> str:
    """Scalars, all required."""
    return f"{name}{count}{ratio}{flag}"


def defaults(
    name: str = "x", count: int = 3, ratio: float = 0.5, flag: bool = False, note: None = None
) -> str:
    """Scalar defaults."""
    return name


def optional_and_unions(
    maybe: int | None, either: int | str, many: list[int], names: list[str] | None = None
) -> str:
    """Optionals, unions and lists."""
    return str(maybe)


def literals_and_text(
    mode: Literal["fast", "slow"],
    level: Literal[1, 2, True],
    count: Annotated[int, "how many"],
    nested: list[list[float | None]],
) -> str:
    """Literals, Annotated text, nested lists."""
    return mode


def reserved_names(copy: int, model_dump: str = "a") -> str:
    """Parameter names pydantic's models reserve (aliased)."""
    return str(copy)


def positional_rest(first: int, *items: int) -> str:
    """`*items`: a list field whose default is made by `list`."""
    return str(first)


SIGNATURES: list[Callable[..., str]] = [
    scalars,
    defaults,
    optional_and_unions,
    literals_and_text,
    reserved_names,
    positional_rest,
]

ARGUMENTS = [
    "",
    "{}",
    "[]",
    "not json",
    "null",
    '{"name": "a", "count": 1, "ratio": 2.5, "flag": true}',
    '{"name": 1, "count": "2", "ratio": "x", "flag": "yes"}',
    '{"name": "a", "count": 1.5, "ratio": 1, "flag": 0, "extra": 1}',
    '{"count": 9007199254740993, "ratio": 1e400, "flag": "true", "note": null}',
    '{"note": 1, "name": null}',
    '{"maybe": null, "either": "s", "many": [1, 2]}',
    '{"maybe": "1", "either": 1.5, "many": [1, "x", null], "names": null}',
    '{"maybe": 1, "either": [], "many": "1", "names": ["a", 2]}',
    '{"mode": "fast", "level": 1, "count": 2, "nested": [[1.5, null], []]}',
    '{"mode": "FAST", "level": true, "count": "2", "nested": [[1, "x"]]}',
    '{"mode": null, "level": 3, "count": null, "nested": [1]}',
    '{"copy": 1, "model_dump": "b", "items": [1]}',
    '{"copy": "x", "model_dump": 2, "items": ["a"], "unknown": true}',
    '{"first": 1}',
    '{"first": 1, "items": [2, "3", "x"]}',
]


def model_fields_validator(schema: Any) -> SchemaValidator:
    """The fields validator taken from the model pydantic builds (what the call used)."""
    core = schema.params_pydantic_model.__pydantic_core_schema__
    return SchemaValidator(core["schema"], core.get("config"))


def outcome(validator: SchemaValidator, arguments: str) -> Any:
    try:
        return ("ok", validator.validate_json(arguments or "{}")[0])
    except ValidationError as error:
        return ("error", json.loads(error.json(include_url=False)))


@pytest.mark.parametrize("strict", [True, False])
@pytest.mark.parametrize("func", SIGNATURES, ids=lambda f: f.__name__)
def test_the_written_validator_gives_the_models_values_and_errors(
    func: Callable[..., str], strict: bool
) -> None:
    written = plain_validator(deferred_function_schema(func, strict_json_schema=strict))
    assert written is not None, "a plain signature's validator is written"
    built = model_fields_validator(deferred_function_schema(func, strict_json_schema=strict))
    for arguments in ARGUMENTS:
        assert outcome(written, arguments) == outcome(built, arguments), arguments


def test_once_the_model_is_built_its_own_validator_is_used() -> None:
    schema = deferred_function_schema(scalars)
    assert plain_validator(schema) is not None
    schema.params_pydantic_model  # noqa: B018 - built on its first read
    assert plain_validator(schema) is None


def test_a_signature_that_is_not_plain_has_no_written_validator() -> None:
    def dated(when: dict[str, int]) -> str:
        """A dict is not plain."""
        return str(when)

    assert plain_validator(deferred_function_schema(dated)) is None


async def test_a_first_call_validates_as_the_model_would_and_names_the_tool() -> None:
    tool = function_tool(optional_and_unions)
    arguments = '{"maybe": 1, "either": "s", "many": [1, 2]}'
    ctx = ToolContext(context=None, tool_name=tool.name, tool_call_id="1", tool_arguments=arguments)
    assert await tool.on_invoke_tool(ctx, arguments) == "1"
    bad = '{"maybe": "x", "either": "s", "many": [1]}'
    with pytest.raises(ToolArgumentsError, match="optional_and_unions") as caught:
        tool.on_invoke_tool.named_arguments(bad)  # type: ignore[union-attr]
    assert "maybe" in str(caught.value)
