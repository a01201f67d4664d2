"""An agent's output type as openai-agents spells it, strict or not.

`Agent(output_type=T)` takes a type, whose strict schema tooluse makes
(`OutputSchema`). `AgentOutputSchema(T, strict_json_schema=False)` sends T's
schema as pydantic writes it, unconstrained by strict mode (the model may then
answer outside it: the answer is still validated). A subclass of
`AgentOutputSchemaBase` gives its own schema and parser.
"""

from __future__ import annotations

import abc
import json
from typing import Any

import typing_extensions
from pydantic import TypeAdapter, ValidationError

from ..exceptions import ModelBehaviorError
from ._output_type import OutputSchema, is_object_type, output_schema
from ._strict_rules import JsonSchema

__all__ = ["AgentOutputSchema", "AgentOutputSchemaBase", "CustomOutput", "as_output"]

_WRAPPER_KEY = "response"


class AgentOutputSchemaBase(abc.ABC):
    """An agent's output: the schema the model is asked to answer in, and its parser.

    Subclass it for an output no Python type describes; give it as `Agent(output_type=...)`.
    """

    @abc.abstractmethod
    def is_plain_text(self) -> bool:
        """Whether the answer is plain text (no schema is sent)."""

    @abc.abstractmethod
    def name(self) -> str:
        """The output type's name, for messages."""

    @abc.abstractmethod
    def json_schema(self) -> dict[str, Any]:
        """The JSON schema the answer must follow (an object at the root)."""

    @abc.abstractmethod
    def is_strict_json_schema(self) -> bool:
        """Whether the schema is sent in strict mode (the model cannot answer outside it)."""

    @abc.abstractmethod
    def validate_json(self, json_str: str) -> Any:
        """The final output made from the model's answer.

        Args:
            json_str: The model's answer, JSON text.

        Returns:
            The final output.
        """


class AgentOutputSchema(AgentOutputSchemaBase):
    """A Python type as an agent's output, in strict mode or not."""

    def __init__(self, output_type: type[Any] | Any, strict_json_schema: bool = True) -> None:
        """The output schema of `output_type`.

        Args:
            output_type: The type the answer must be.
            strict_json_schema: Send tooluse's strict schema (the default, as
                `output_type=T` does); False sends the type's schema as pydantic writes
                it, for types strict mode cannot express.

        Raises:
            UserError: If `strict_json_schema` is True and the type has no strict schema.
        """
        self.output_type = output_type
        self._strict: OutputSchema | None = None
        self._wrapped = not is_object_type(output_type)
        if strict_json_schema:
            self._strict = output_schema(output_type)
            self._schema: JsonSchema = self._strict.json_schema
            return
        target: Any = output_type
        if self._wrapped:
            target = typing_extensions.TypedDict("final_output", {_WRAPPER_KEY: output_type})  # type: ignore[operator]
        self._adapter: TypeAdapter[Any] = TypeAdapter(target)
        self._schema = self._adapter.json_schema()

    def is_plain_text(self) -> bool:
        """Whether the answer is plain text: `output_type` is `str` or None.

        Returns:
            True for plain text.
        """
        return self.output_type in (None, str)

    def name(self) -> str:
        """The type's name.

        Returns:
            Its name, or its `repr` for a type without one.
        """
        return getattr(self.output_type, "__name__", repr(self.output_type))

    def json_schema(self) -> dict[str, Any]:
        """The schema sent.

        Returns:
            The strict schema, or pydantic's.
        """
        return self._schema

    def is_strict_json_schema(self) -> bool:
        """Whether the schema is strict.

        Returns:
            `strict_json_schema` as given.
        """
        return self._strict is not None

    def validate_json(self, json_str: str) -> Any:
        """The answer as a value of `output_type`.

        Args:
            json_str: The model's answer.

        Returns:
            The value.

        Raises:
            ModelBehaviorError: If the answer is not JSON of the type (value-free).
        """
        if self._strict is not None:
            return self._strict.parse(json_str)
        try:
            value = self._adapter.validate_python(json.loads(json_str))
        except (json.JSONDecodeError, ValidationError) as error:
            raise ModelBehaviorError(
                f"The model's final answer does not match output_type {self.name()} "
                f"({type(error).__name__})"
            ) from None
        return value[_WRAPPER_KEY] if self._wrapped else value


class CustomOutput:
    """An `AgentOutputSchemaBase` read as the run reads its output schemas."""

    def __init__(self, schema: AgentOutputSchemaBase) -> None:
        """Read `schema` once.

        Args:
            schema: The agent's output schema object.
        """
        self.schema = schema
        self.json_schema: JsonSchema = schema.json_schema()
        """The schema sent."""
        self.strict = schema.is_strict_json_schema()
        """Whether it is sent in strict mode."""

    def parse(self, text: str) -> Any:
        """The final output, by the schema's own `validate_json`.

        Args:
            text: The model's answer.

        Returns:
            The final output.
        """
        return self.schema.validate_json(text)


def as_output(output_type: object) -> OutputSchema | CustomOutput | None:
    """What the run reads of an agent's `output_type`.

    Args:
        output_type: None, `str`, a type, or an `AgentOutputSchemaBase`.

    Returns:
        None for plain text; else the schema to send and the parser.
    """
    if output_type is None or output_type is str:
        return None
    if isinstance(output_type, AgentOutputSchemaBase):
        return None if output_type.is_plain_text() else CustomOutput(output_type)
    return output_schema(output_type)
