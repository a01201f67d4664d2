"""A traced run held against the GenAI semantic conventions as their packages publish them.

Every span name and `gen_ai.*` attribute (on spans and their events) is one that
`opentelemetry-semantic-conventions` defines, every operation one of its
operation names (a guardrail's `apply_guardrail` excepted: the conventions name none),
and every message part in `gen_ai.input.messages` / `gen_ai.output.messages` has the
shape of the part of its type in `opentelemetry-util-genai`'s models of the
conventions' message schemas (a tool's result under `response`).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import typing
from collections.abc import Iterable
from enum import Enum
from typing import Any

from tooluse import (
    Agent,
    GuardrailFunctionOutput,
    RunContextWrapper,
    Runner,
    function_tool,
    handoff,
    input_guardrail,
)
from tooluse.testing import FunctionModel, ModelReply, ToolCall

from .test_tracing import Traced, attributes

# Imported by name: the packages ship no type stubs (and mark the GenAI names deprecated,
# as they move to a conventions repository of their own).
gen_ai_attributes = importlib.import_module(
    "opentelemetry.semconv._incubating.attributes.gen_ai_attributes"
)
genai_types = importlib.import_module("opentelemetry.util.genai.types")


def _values(enum: Iterable[Enum]) -> set[str]:
    return {str(member.value) for member in enum}


GEN_AI_NAMES = {
    value
    for name, value in vars(gen_ai_attributes).items()
    if name.startswith("GEN_AI_") and isinstance(value, str)
}
OPERATIONS = _values(vars(gen_ai_attributes)["GenAiOperationNameValues"])
ROLES = _values(vars(genai_types)["Role"])
OURS = {"apply_guardrail"}  # the conventions name no guardrail operation


def _part_models() -> dict[str, type[Any]]:
    """Each message part model of the conventions, by its `type`."""
    models: dict[str, type[Any]] = {}
    for value in vars(genai_types).values():
        if not (isinstance(value, type) and dataclasses.is_dataclass(value)):
            continue
        kind = next((f for f in dataclasses.fields(value) if f.name == "type"), None)
        if kind is not None and isinstance(kind.default, str):
            models[kind.default] = value
    return models


PART_MODELS = _part_models()


def check_part(part: dict[str, Any]) -> None:
    model = PART_MODELS.get(part["type"])
    assert model is not None, f"no part of type {part['type']!r} in the conventions"
    fields = {field.name: field for field in dataclasses.fields(model)}
    required = {
        name
        for name, field in fields.items()
        if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING
    }
    assert set(part) <= set(fields), f"{part['type']}: {set(part) - set(fields)} not in {model}"
    assert required <= set(part), f"{part['type']}: {required - set(part)} missing"


@function_tool
def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first.
        b: The second.
    """
    return a + b


@input_guardrail
def polite(
    ctx: RunContextWrapper[None], agent: Agent[None], text: object
) -> GuardrailFunctionOutput:
    """Pass everything."""
    return GuardrailFunctionOutput(output_info=None, tripwire_triggered=False)


def scripted(*replies: ModelReply | str) -> FunctionModel:
    pending = list(replies)
    return FunctionModel(lambda items, tools: pending.pop(0))


async def test_every_span_attribute_and_message_part_is_the_conventions() -> None:
    traced = Traced()
    expert = Agent("expert", model=scripted("It is 5."))
    front = Agent(
        "front",
        tools=[add],
        handoffs=[handoff(expert)],
        input_guardrails=[polite],
        model=scripted(
            ModelReply(tool_calls=[ToolCall("add", {"a": 2, "b": 3})]),
            ModelReply(tool_calls=[ToolCall("transfer_to_expert", {})]),
        ),
    )
    config = traced.config(trace_include_sensitive_data=True)
    result = await Runner.run(front, "What is 2 + 3?", run_config=config)
    assert result.final_output == "It is 5."

    spans = traced.spans
    operations: set[str] = set()
    parts: list[dict[str, Any]] = []
    for span in spans:
        found = attributes(span)
        for event in span.events:
            found.update(event.attributes or {})
        unknown = {key for key in found if key.startswith("gen_ai.")} - GEN_AI_NAMES
        assert not unknown, f"{span.name}: not in the conventions: {unknown}"
        operation = found.get("gen_ai.operation.name")
        assert isinstance(operation, str), f"{span.name} has no operation name"
        assert operation in OPERATIONS | OURS, operation
        assert span.name == operation or span.name.startswith(f"{operation} ")
        operations.add(operation)
        for key in ("gen_ai.input.messages", "gen_ai.output.messages"):
            if key in found:
                for message in json.loads(typing.cast(str, found[key])):
                    assert message["role"] in ROLES
                    parts.extend(message["parts"])
    assert operations == {"invoke_workflow", "invoke_agent", "chat", "execute_tool"} | OURS
    for part in parts:
        check_part(part)
    responses = [part for part in parts if part["type"] == "tool_call_response"]
    assert responses
    assert all("response" in part for part in responses)  # a tool's result, as written
    assert {part["response"] for part in responses} >= {"5"}
