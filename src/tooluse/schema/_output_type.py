"""An agent's `output_type`: its strict schema for the model, and parsing the answer."""

from __future__ import annotations

import dataclasses
import functools
import json
from typing import Any

import typing_extensions
from pydantic import BaseModel, TypeAdapter, ValidationError
from typing_extensions import is_typeddict

from ..exceptions import ModelBehaviorError, UserError
from ._adapters import AdapterMismatch, ArgumentAdapters, compile_adapters
from ._strict import describe_problems, describe_violations, to_strict_schema
from ._strict_rules import JsonSchema, JsonValue, check_strict_schema

__all__ = ["OutputSchema", "is_object_type", "output_schema"]

_WRAPPER_KEY = "response"


def output_schema(output_type: object) -> OutputSchema:
    """The `OutputSchema` of a type, built once per type (agents are run again and again).

    Args:
        output_type: An agent's `output_type`.

    Returns:
        The schema and parser.
    """
    try:
        hash(output_type)
    except TypeError:  # an unhashable annotation: build it each time
        return OutputSchema(output_type)
    return _cached_output_schema(output_type)


@functools.lru_cache(maxsize=256)
def _cached_output_schema(output_type: object) -> OutputSchema:
    return OutputSchema(output_type)


class OutputSchema:
    """The strict schema sent as the response format, and the parser of the answer."""

    def __init__(self, output_type: object) -> None:
        """Build the schema for `output_type` with tooluse's own strict transform.

        Args:
            output_type: A model, dataclass or TypedDict (used as the root object), or any
                other type, wrapped as `{"response": T}` since the root must be an object.

        Raises:
            UserError: If the type cannot be expressed in strict mode.
        """
        self.output_type = output_type
        self.wrapped = not is_object_type(output_type)
        target: Any = output_type
        if self.wrapped:
            target = typing_extensions.TypedDict("final_output", {_WRAPPER_KEY: output_type})  # type: ignore[operator]
        self._adapter: TypeAdapter[Any] = TypeAdapter(target)
        loose = self._adapter.json_schema()
        result = to_strict_schema(loose, adapters=True)
        problems = describe_problems(loose, result.problems, "output_type=None")
        problems += describe_violations(result.schema, check_strict_schema(result.schema))
        if problems:
            lines = "\n".join(f"  - {line}" for line in problems)
            raise UserError(f"output_type {output_type!r} has no strict schema:\n{lines}")
        self.json_schema: JsonSchema = result.schema
        self.strict = True
        """Sent in strict mode, always: the schema was made strict."""
        self._adapters: ArgumentAdapters | None = compile_adapters(result.schema, result.adapters)

    def parse(self, text: str) -> Any:
        """Turn the model's final answer into a value of `output_type`.

        Args:
            text: The JSON the model answered with.

        Returns:
            The value.

        Raises:
            ModelBehaviorError: If the answer is not valid JSON of the right shape.
        """
        try:
            data: JsonValue = json.loads(text)
            if self._adapters is not None and isinstance(data, dict):
                data = self._adapters.apply(data)
            value = self._adapter.validate_python(data)
        except (json.JSONDecodeError, AdapterMismatch, ValidationError) as error:
            raise ModelBehaviorError(
                f"The model's final answer does not match output_type {self.output_type!r} "
                f"({type(error).__name__})"
            ) from None
        return value[_WRAPPER_KEY] if self.wrapped else value


def is_object_type(tp: object) -> bool:
    """A model, dataclass or TypedDict: its schema's root is already an object."""
    if dataclasses.is_dataclass(tp) or is_typeddict(tp):
        return True
    return isinstance(tp, type) and issubclass(tp, BaseModel)
