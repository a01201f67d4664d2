"""Drop-in for openai-agents' tool API: the forms its users write work the same here."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import functools
import inspect
import json
import logging
import time
from typing import Any, cast

import pytest
from inline_snapshot import snapshot
from jsonschema import Draft202012Validator
from pydantic import BaseModel, ConfigDict

from tooluse import (
    Agent,
    FilteredToolset,
    FunctionTool,
    ImageGenerationTool,
    ModelBehaviorError,
    ModelSettings,
    RunConfig,
    RunContextWrapper,
    Runner,
    RunState,
    StopAtTools,
    ToolContext,
    ToolsToFinalOutputResult,
    ToolTimeoutError,
    check_strict_schema,
    ensure_strict_json_schema,
    function_schema,
    function_tool,
    generate_func_documentation,
    handoff,
    invoke_function_tool,
    tool_namespace,
)
from tooluse.exceptions import ToolDefinitionWarning, UserError

from .conftest import model_text
from .openai_server import Call, ScriptedServer, Turn
from .scripted import ScriptModel, call, outputs, text


async def echo(ctx: ToolContext[Any], arguments: str) -> str:
    return arguments


@function_tool
def book(city: str) -> str:
    """Book a trip.

    Args:
        city: Where to.
    """
    return f"booked {city}"


@function_tool
def weather(city: str) -> str:
    """Say the weather.

    Args:
        city: Where.
    """
    return f"sunny in {city}"


class TestStopAtTools:
    @pytest.mark.parametrize(
        "behavior",
        [StopAtTools(stop_at_tool_names=["book"]), {"stop_at_tool_names": ["book"]}],
        ids=["typed", "dict"],
    )
    async def test_both_spellings_stop_at_the_named_tool(self, behavior: Any) -> None:
        model = ScriptModel(
            [call("c1", "weather", {"city": "Oslo"})],
            [call("c2", "book", {"city": "Oslo"})],
            [text("never asked")],
        )
        agent = Agent("a", tools=[weather, book], model=model, tool_use_behavior=behavior)
        result = await Runner.run(agent, "go")
        assert result.final_output == "booked Oslo"
        assert len(result.raw_responses) == 2

    @pytest.mark.parametrize(
        "behavior",
        ["stop_on_first", {"stop_at": ["book"]}, {"stop_at_tool_names": "book"}, 3],
    )
    def test_a_wrong_form_fails_when_the_agent_is_built(self, behavior: Any) -> None:
        with pytest.raises(UserError, match=r"Agent 'a': tool_use_behavior=.*StopAtTools"):
            Agent("a", tool_use_behavior=behavior)


class TestModelSettings:
    def test_a_dict_is_read_as_model_settings(self) -> None:
        agent = Agent("a", model_settings={"temperature": 0.2, "tool_choice": "required"})  # type: ignore[arg-type]
        assert agent.model_settings == ModelSettings(temperature=0.2, tool_choice="required")

    def test_unknown_fields_and_wrong_types_fail_when_the_agent_is_built(self) -> None:
        with pytest.raises(UserError, match=r"unknown field\(s\) 'temprature'.*extra_args"):
            Agent("a", model_settings={"temprature": 0.2})  # type: ignore[arg-type]
        with pytest.raises(UserError, match=r"Agent 'a': model_settings=0.2 must be"):
            Agent("a", model_settings=0.2)  # type: ignore[arg-type]


def no_arguments() -> None: ...


def context_only(ctx: RunContextWrapper[Any]) -> None: ...


@dataclasses.dataclass
class Escalation:
    reason: str


def context_and_input(ctx: RunContextWrapper[Any], data: Escalation) -> None: ...


def any_arguments(*args: Any) -> None: ...


class TestHandoffCallbacks:
    def test_a_callback_of_the_wrong_arity_fails_when_the_handoff_is_built(self) -> None:
        target = Agent("billing")
        with pytest.raises(UserError) as error:
            handoff(target, on_handoff=no_arguments)
        assert str(error.value) == snapshot(
            "handoff to 'billing': on_handoff=no_arguments must take (run_context); it takes ()"
        )
        with pytest.raises(UserError, match=r"must take \(run_context, input\)"):
            handoff(target, on_handoff=context_only, input_type=Escalation)

    def test_callbacks_that_fit_are_accepted(self) -> None:
        target = Agent("billing")
        handoff(target, on_handoff=context_only)
        handoff(target, on_handoff=context_and_input, input_type=Escalation)
        handoff(target, on_handoff=any_arguments, input_type=Escalation)
        handoff(target, on_handoff=print)  # a builtin with no signature: the call will tell


class TestHandBuiltSchemas:
    def test_an_empty_schema_is_a_tool_without_arguments(self) -> None:
        tool = FunctionTool("ping", "Ping.", {}, echo)
        assert tool.params_json_schema == {
            "type": "object",
            "properties": {},
            "additionalProperties": False,
            "required": [],
        }

    def test_properties_without_a_type_are_an_object(self) -> None:
        schema = {"properties": {"a": {"properties": {"b": {"type": "string"}}}}}
        tool = FunctionTool("t", "T.", schema, echo)
        assert tool.params_json_schema == snapshot(
            {
                "properties": {
                    "a": {
                        "properties": {"b": {"type": "string"}},
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["b"],
                    }
                },
                "type": "object",
                "additionalProperties": False,
                "required": ["a"],
            }
        )

    def test_a_long_chain_of_refs_is_refused_before_it_is_inlined(self) -> None:
        def chain(links: int) -> dict[str, Any]:
            defs: dict[str, Any] = {f"L{i}": {"$ref": f"#/$defs/L{i + 1}"} for i in range(links)}
            defs[f"L{links}"] = {"type": "string"}
            value = {"$ref": "#/$defs/L0", "description": "A value."}
            return {"type": "object", "properties": {"value": value}, "$defs": defs}

        with pytest.raises(UserError, match=r"too deeply nested: a chain of more than 100 \$refs"):
            FunctionTool("t", "T.", chain(1_000), echo)
        short = FunctionTool("t", "T.", chain(3), echo)
        assert short.params_json_schema["properties"]["value"] == {
            "type": "string",
            "description": "A value.",
        }

    def test_a_typeless_map_is_a_dict_and_refused_saying_so(self) -> None:
        schema = {"properties": {"meta": {"additionalProperties": {"type": "string"}}}}
        with pytest.raises(
            UserError,
            match=r"'meta' .* is a dict \(an object whose keys come from additionalProperties\)",
        ):
            FunctionTool("t", "T.", schema, echo)
        loose = FunctionTool("t", "T.", schema, echo, strict_json_schema=False)
        assert loose.params_json_schema is schema

    def test_draft_07_definitions_become_defs(self) -> None:
        schema = {
            "type": "object",
            "properties": {"p": {"$ref": "#/definitions/Point"}},
            "definitions": {"Point": {"type": "object", "properties": {"x": {"type": "number"}}}},
        }
        strict = FunctionTool("t", "T.", schema, echo).params_json_schema
        assert strict["properties"] == {"p": {"$ref": "#/$defs/Point"}}
        assert strict["$defs"]["Point"]["required"] == ["x"]
        assert "definitions" not in strict

    def test_a_dangling_ref_is_refused_by_name(self) -> None:
        schema = {"type": "object", "properties": {"p": {"$ref": "#/definitions/Point"}}}
        with pytest.raises(UserError) as error:
            FunctionTool("t", "T.", schema, echo)
        assert "parameter 'p' (at properties.p) refers to '#/definitions/Point', which" in str(
            error.value
        )

    def test_refs_are_json_pointers(self) -> None:
        schema = {
            "type": "object",
            "properties": {
                "a": {"$ref": "#/properties/b"},
                "b": {"type": "string"},
                "c": {"$ref": "#/$defs/A%20B", "description": "C."},
                "d": {"$ref": "#/$defs/x~1y"},
            },
            "$defs": {"A B": {"type": "string"}, "x/y": {"type": "integer"}},
        }
        strict = FunctionTool("t", "T.", schema, echo).params_json_schema
        assert strict["properties"]["a"] == {"$ref": "#/properties/b"}
        assert strict["properties"]["c"] == {"type": "string", "description": "C."}

    def test_a_ref_fragment_is_percent_decoded_before_it_is_read_as_a_pointer(self) -> None:
        # RFC 6901, section 6: an encoded "/" separates tokens, as a plain one does.
        schema = {
            "type": "object",
            "properties": {"a": {"$ref": "#/%24defs%2FPoint", "description": "A."}},
            "$defs": {"Point": {"type": "string"}},
        }
        strict = FunctionTool("t", "T.", schema, echo).params_json_schema
        assert strict["properties"]["a"] == {"type": "string", "description": "A."}

    def test_refs_into_openapi_components_are_kept_under_defs(self) -> None:
        # Strict mode drops `components`, an unknown keyword; its definitions must survive.
        schema = {
            "type": "object",
            "properties": {"order": {"$ref": "#/components/schemas/Order"}},
            "components": {
                "schemas": {
                    "Order": {
                        "type": "object",
                        "properties": {"qty": {"$ref": "#/components/schemas/Qty"}},
                    },
                    "Qty": {"type": "integer"},
                }
            },
        }
        strict = FunctionTool("t", "T.", schema, echo).params_json_schema
        assert strict["properties"] == {"order": {"$ref": "#/$defs/Order"}}
        assert strict["$defs"]["Order"]["properties"] == {"qty": {"$ref": "#/$defs/Qty"}}
        assert "components" not in strict
        assert "components" not in strict.get("description", "")
        assert "components" in schema  # the caller's schema is left as it was

    def test_a_ref_with_escapes_that_are_not_utf8_points_at_nothing(self) -> None:
        schema = {  # a lenient decoding would read %FF as the replacement character
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/%FF"}},
            "$defs": {"\ufffd": {"type": "string"}},
        }
        with pytest.raises(UserError, match="refers to '#/\\$defs/%FF', which points at nothing"):
            FunctionTool("t", "T.", schema, echo)
        # A UnicodeDecodeError too, as openai-agents raises there, with tooluse's message.
        with pytest.raises(UnicodeDecodeError, match=r"\(its %-escapes are not UTF-8\)") as raised:
            FunctionTool("t", "T.", schema, echo)
        assert raised.value.object == b"#/$defs/%FF"
        with pytest.raises(UserError) as other:  # another unreadable ref: a UserError only
            FunctionTool("t", "T.", {**schema, "properties": {"a": {"$ref": "#/$defs/X"}}}, echo)
        assert not isinstance(other.value, UnicodeDecodeError)

    def test_a_ref_into_a_nested_id_resource_is_refused_by_name(self) -> None:
        # Strict mode has no $id; inlined from the root, the resource would lose it.
        nested = {"$id": "https://example.test/word", "type": "string"}
        schema = {
            "type": "object",
            "properties": {"word": {"$ref": "#/$defs/Word", "description": "A word."}},
            "$defs": {"Word": nested},
        }
        with pytest.raises(UserError) as raised:
            FunctionTool("t", "T.", schema, echo)
        assert str(raised.value) == snapshot(
            """\
Cannot make FunctionTool 't' strict:
  - parameter 'word' (at properties.word) refers to '#/$defs/Word', which leads into a nested `$id` resource, and strict mode has no $id; move that definition under the root's $defs without its $id, or turn strict mode off (strict_json_schema=False)\
"""
        )
        loose = FunctionTool("t", "T.", schema, echo, strict_json_schema=False)
        assert loose.params_json_schema is schema  # the API reads the $id itself

    def test_a_ref_inside_a_nested_id_resource_is_refused(self) -> None:
        # Inside the resource, '#/$defs/Name' means the resource's own $defs, not the root's.
        schema = {
            "type": "object",
            "properties": {
                "user": {
                    "$id": "https://example.test/user",
                    "type": "object",
                    "properties": {"name": {"$ref": "#/$defs/Name"}},
                }
            },
            "$defs": {"Name": {"type": "string"}},
        }
        with pytest.raises(UserError, match=r"'user' \(at properties\.user\.properties\.name\)"):
            FunctionTool("t", "T.", schema, echo)
        with pytest.raises(UserError, match="from inside a nested `\\$id` resource"):
            ensure_strict_json_schema(schema)

    def test_an_id_at_the_root_or_without_refs_stays_accepted(self) -> None:
        schema = {
            "$id": "https://example.test/args",
            "type": "object",
            "properties": {
                "word": {"$ref": "#/$defs/Word"},
                "tag": {"$id": "https://example.test/tag", "type": "string"},
            },
            "$defs": {"Word": {"type": "string"}},
        }
        strict = FunctionTool("t", "T.", schema, echo).params_json_schema
        assert strict["properties"] == {"word": {"$ref": "#/$defs/Word"}, "tag": {"type": "string"}}

    def test_a_pydantic_model_with_an_id_still_makes_a_tool(self) -> None:
        # pydantic's $refs always mean the document's root, whatever $id a model declares.
        class Word(BaseModel):
            model_config = ConfigDict(json_schema_extra={"$id": "https://example.test/word"})
            text: str

        @function_tool
        def spell(word: Word) -> str:
            return word.text

        assert spell.params_json_schema["properties"]["word"] == {"$ref": "#/$defs/Word"}

    @pytest.mark.parametrize("use_ref", [True, False])
    def test_a_singleton_all_of_that_would_widen_a_closed_object_is_refused(
        self, use_ref: bool
    ) -> None:
        # additionalProperties sees only the properties beside it: this object takes no key
        # at all, which merging the allOf entry into it would turn into taking 'value'.
        entry = {"type": "object", "properties": {"value": {"type": "string"}}}
        schema = {
            "type": "object",
            "additionalProperties": False,
            "$defs": {"Entry": entry},
            "allOf": [{"$ref": "#/$defs/Entry"} if use_ref else copy.deepcopy(entry)],
        }
        original = copy.deepcopy(schema)
        validator: Any = Draft202012Validator(schema)  # the stubs' deprecated overload is untyped
        assert not validator.is_valid({"value": "x"})
        with pytest.raises(UserError) as raised:
            FunctionTool("t", "T.", schema, echo)
        assert str(raised.value) == snapshot(
            """\
Cannot make FunctionTool 't' strict:
  - the arguments object has a singleton `allOf` whose properties ('value') the additionalProperties beside it refuses, as it sees only the properties in its own object, and merged for strict mode they would be accepted; declare them beside that additionalProperties, or turn strict mode off (strict_json_schema=False)\
"""
        )
        assert schema == original
        loose = FunctionTool("t", "T.", schema, echo, strict_json_schema=False)
        assert loose.params_json_schema == original

    def test_a_closed_ref_that_would_take_keys_beside_it_is_refused(self) -> None:
        entry = {"type": "object", "properties": {"a": {"type": "string"}}}
        closed = {**entry, "additionalProperties": False}
        schema = {
            "type": "object",
            "properties": {"p": {"$ref": "#/$defs/E", "properties": {"b": {"type": "integer"}}}},
            "$defs": {"E": closed},
        }
        validator: Any = Draft202012Validator(schema)  # the stubs' deprecated overload is untyped
        assert not validator.is_valid({"p": {"a": "x", "b": 1}})
        with pytest.raises(UserError, match=r"'p' \(at properties\.p\) has properties \('b'\)"):
            FunctionTool("t", "T.", schema, echo)
        open_entry = {**schema, "$defs": {"E": entry}}  # both hold: merged, as before
        strict = FunctionTool("t", "T.", open_entry, echo).params_json_schema
        assert strict["properties"]["p"]["required"] == ["a", "b"]

    def test_a_thousand_levels_are_refused_without_recursion_error(self) -> None:
        schema: dict[str, Any] = {"type": "object", "properties": {}}
        node = schema
        for _ in range(1000):
            node["properties"]["x"] = {"type": "object", "properties": {}}
            node = node["properties"]["x"]
        with pytest.raises(UserError, match="too deeply nested: more than 100 levels"):
            FunctionTool("deep", "Deep.", schema, echo)
        loose = FunctionTool("deep", "Deep.", schema, echo, strict_json_schema=False)
        assert loose.params_json_schema is schema

    @pytest.mark.parametrize("levels", [5, 30])
    def test_levels_that_reference_the_next_twice_take_no_time(self, levels: int) -> None:
        defs: dict[str, Any] = {f"L{levels}": {"type": "string"}}
        for i in range(levels):
            field = {"$ref": f"#/$defs/L{i + 1}", "description": "Next."}
            defs[f"L{i}"] = {"type": "object", "properties": {"a": field, "b": dict(field)}}
        schema = {"type": "object", "properties": {"l": {"$ref": "#/$defs/L0"}}, "$defs": defs}
        started = time.process_time()
        if levels == 5:  # small enough to inline: the descriptions are kept
            strict = FunctionTool("t", "T.", schema, echo).params_json_schema
            assert strict["$defs"]["L0"]["properties"]["a"]["description"] == "Next."
        else:
            with pytest.raises(UserError, match=r"object properties in .* subschemas \(limits"):
                FunctionTool("t", "T.", schema, echo)
        assert time.process_time() - started < 5  # minutes before the shared walk

    def test_a_definition_that_inlines_itself_ends(self) -> None:
        schema = {
            "type": "object",
            "properties": {"n": {"$ref": "#/$defs/Node"}},
            "$defs": {
                "Node": {
                    "type": "object",
                    "properties": {
                        "next": {
                            "anyOf": [{"$ref": "#/$defs/Node", "title": "N"}, {"type": "null"}]
                        }
                    },
                }
            },
        }
        strict = FunctionTool("t", "T.", schema, echo).params_json_schema
        inlined = strict["$defs"]["Node"]["properties"]["next"]["anyOf"][0]
        assert inlined["properties"]["next"]["anyOf"][0] == {"$ref": "#/$defs/Node"}

    async def test_a_renamed_tool_uses_its_new_name_in_errors(self) -> None:
        renamed = dataclasses.replace(book, name="reserve")
        ctx = ToolContext.for_testing(tool_name=renamed.name)
        output = await renamed.on_invoke_tool(ctx, '{"town": "Oslo"}')
        assert "reserve" in output
        assert "book" not in output

    def test_description_is_empty_text_without_a_docstring(self) -> None:
        def ping() -> str:
            return "pong"

        assert function_tool(ping).description == ""
        assert function_schema(ping).description is None  # as openai-agents has it


class TestCallables:
    def test_a_partial_hides_its_bound_arguments_from_the_model(self) -> None:
        def send(channel: str, text: str, *, urgent: bool = False) -> str:
            """Send a message.

            Args:
                channel: Where.
                text: What.
                urgent: Whether to page.
            """
            return f"{channel}:{text}:{urgent}"

        tool = function_tool(functools.partial(send, "ops", urgent=True))
        assert tool.name == "send"
        assert tool.description == "Send a message."
        assert list(tool.params_json_schema["properties"]) == ["text"]

    async def test_the_model_cannot_override_a_bound_argument(self) -> None:
        def send(channel: str, text: str) -> str:
            return f"{channel}:{text}"

        tool = function_tool(functools.partial(send, channel="ops"))
        ctx = ToolContext.for_testing(tool_name=tool.name)
        assert await tool.on_invoke_tool(ctx, '{"text": "hi"}') == "ops:hi"
        refused = await tool.on_invoke_tool(ctx, '{"text": "hi", "channel": "all"}')
        assert "channel" in refused
        assert "ops" not in refused

    def test_a_callable_object_is_named_after_its_class(self) -> None:
        class Doubler:
            """Double a number."""

            def __call__(self, x: int) -> int:
                return 2 * x

        tool = function_tool(Doubler())
        assert (tool.name, tool.description) == ("Doubler", "Double a number.")

    def test_a_class_name_the_api_refuses_asks_for_name_override(self) -> None:
        class Café:  # noqa: PLC2401 - a name the API refuses is the case under test
            def __call__(self, x: int) -> int:
                return x

        with pytest.raises(UserError, match=r"'Café' does not match .*Pass name_override="):
            function_tool(Café())
        assert function_tool(Café(), name_override="cafe").name == "cafe"

    def test_a_method_decorated_in_its_class_body_is_refused(self) -> None:
        with pytest.raises(UserError) as error:

            class Shop:  # pyright: ignore[reportUnusedClass]
                @function_tool
                def price(self, item: str) -> int:
                    return 1

        assert "'self' would be an argument the model fills" in str(error.value)
        assert "function_tool(Shop(...).price)" in str(error.value)

    def test_a_bound_method_is_fine(self) -> None:
        class Shop:
            def price(self, item: str) -> int:
                return 1

        tool = function_tool(Shop().price)
        assert list(tool.params_json_schema["properties"]) == ["item"]


class TestArgumentErrorsAsOpenAIAgentsWordsThem:
    """The error raised for bad arguments opens with openai-agents' words, then says why."""

    @pytest.mark.parametrize(("sent", "kind"), [("[]", "array"), ("3", "number"), ("null", "null")])
    async def test_arguments_that_are_not_an_object(self, sent: str, kind: str) -> None:
        tool = function_tool(failure_error_function=None)(book.__wrapped__)
        ctx = ToolContext.for_testing(tool_name=tool.name)
        with pytest.raises(ModelBehaviorError) as raised:
            await tool.on_invoke_tool(ctx, sent)
        assert str(raised.value) == (
            f"Invalid JSON input for tool book: expected a JSON object (the arguments by name), "
            f"not a JSON {kind}"
        )

    async def test_several_problems_are_listed_under_the_copy_s_own_name(self) -> None:
        def pay(amount: int, to: str) -> str:
            return f"{amount} {to}"

        copied = dataclasses.replace(function_tool(failure_error_function=None)(pay), name="p2")
        ctx = ToolContext.for_testing(tool_name=copied.name)
        with pytest.raises(ModelBehaviorError) as raised:
            await copied.on_invoke_tool(ctx, '{"amount": "SECRET-7"}')
        assert str(raised.value) == snapshot("""\
Invalid JSON input for tool p2:
- amount: Input should be a valid integer, unable to parse string as an integer
- to: required field is missing\
""")


class TestKeywordArguments:
    """A loose `**kwargs` tool: its values are any JSON, and flat keys are refused."""

    async def test_nested_values_of_any_type_reach_the_function(self) -> None:
        def collect(**kwargs):  # unannotated: the case under test  # pyright: ignore[reportMissingParameterType, reportUnknownParameterType]
            return kwargs  # pyright: ignore[reportUnknownVariableType]

        tool = function_tool(collect, strict_mode=False)  # pyright: ignore[reportUnknownArgumentType]
        assert tool.params_json_schema["additionalProperties"] is False
        assert tool.params_json_schema["properties"]["kwargs"]["additionalProperties"] is True
        ctx = ToolContext.for_testing(tool_name=tool.name)
        sent = '{"kwargs": {"n": 1, "tags": ["a"], "on": true}}'
        assert await tool.on_invoke_tool(ctx, sent) == {"n": 1, "tags": ["a"], "on": True}
        assert await tool.on_invoke_tool(ctx, "{}") == {}

    async def test_keys_sent_flat_are_refused_before_the_call(self) -> None:
        calls: list[dict[str, int]] = []

        def tag(label: str, **counts: int) -> int:
            calls.append(counts)
            return len(counts)

        tool = function_tool(tag, strict_mode=False)
        ctx = ToolContext.for_testing(tool_name=tool.name)
        text = await tool.on_invoke_tool(ctx, '{"label": "x", "a": 1}')
        assert "a: unexpected field; remove it" in text
        assert calls == []
        assert await tool.on_invoke_tool(ctx, '{"label": "x", "counts": {"a": 1}}') == 1

    def test_a_loose_tool_without_kwargs_still_ignores_extra_keys(self) -> None:
        def ping(host: str) -> str:
            return host

        assert (
            "additionalProperties" not in function_tool(ping, strict_mode=False).params_json_schema
        )


class TestCallArgs:
    def test_without_context_the_caller_passes_it_first(self) -> None:
        def f(ctx: RunContextWrapper[Any], a: int, *rest: int, b: str = "x") -> str:
            return f"{a}{rest}{b}"

        schema = function_schema(f)
        parsed = schema.params_pydantic_model.model_validate({"a": 1, "rest": [2], "b": "y"})
        args, kwargs = schema.to_call_args(parsed)
        assert f(RunContextWrapper(None), *args, **kwargs) == "1(2,)y"

    def test_keyword_only_arguments_too(self) -> None:
        def f(ctx: RunContextWrapper[Any], *, a: int) -> int:
            return a

        schema = function_schema(f)
        args, kwargs = schema.to_call_args(schema.params_pydantic_model(a=3))
        assert f(RunContextWrapper(None), *args, **kwargs) == 3

    def test_a_context_that_is_not_first_needs_to_be_given(self) -> None:
        def f(a: int, ctx: RunContextWrapper[Any]) -> int:
            return a

        schema = function_schema(f)
        parsed = schema.params_pydantic_model(a=1)
        with pytest.raises(UserError, match=r"'ctx' is not the first parameter.*context\)"):
            schema.to_call_args(parsed)
        ctx = RunContextWrapper(None)
        args, kwargs = schema.to_call_args(parsed, ctx)
        assert f(*args, **kwargs) == 1


class TestOutputs:
    async def test_a_value_whose_str_raises_is_logged_for_the_developer(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        class Opaque:
            def __str__(self) -> str:
                raise RuntimeError("secret 42")

        @function_tool
        def make() -> Any:
            """Make something."""
            return Opaque()

        with caplog.at_level(logging.WARNING, logger="tooluse"):
            output = await model_text(make, "{}")
        assert "Opaque" not in output  # the model gets the value-free message
        assert caplog.messages == [
            "Tool 'make' returned a value of type Opaque, whose str() raised RuntimeError; "
            "return a str"
        ]

    async def test_for_testing_builds_a_context_a_tool_can_read(self) -> None:
        @function_tool
        def whoami(ctx: ToolContext[dict[str, str]]) -> str:
            """Say who calls."""
            return f"{ctx.context['user']} via {ctx.tool_name} ({ctx.tool_call_id})"

        ctx = ToolContext.for_testing({"user": "ada"}, tool_name="whoami")
        assert await whoami.on_invoke_tool(ctx, "{}") == "ada via whoami (call_test)"


def test_stop_at_tools_is_a_plain_dict() -> None:
    assert StopAtTools(stop_at_tool_names=["book"]) == {"stop_at_tool_names": ["book"]}


class TestTimeouts:
    @staticmethod
    def slow(**options: Any) -> FunctionTool:
        async def nap(seconds: float) -> str:
            """Sleep."""
            await asyncio.sleep(seconds)
            return "rested"

        return function_tool(timeout=0.05, **options)(nap)

    async def test_the_default_tells_the_model(self) -> None:
        tool = self.slow()
        assert (tool.timeout_seconds, tool.timeout_behavior) == (0.05, "error_as_result")
        model = ScriptModel([call("c1", "nap", {"seconds": 5})], [text("gave up")])
        result = await Runner.run(Agent("a", tools=[tool], model=model), "go")
        assert result.final_output == "gave up"
        assert "timed out after 0.05 s and was stopped" in model.requests[1]["input"][-1]["output"]

    async def test_invoke_function_tool_applies_the_timeout_as_a_run_does(self) -> None:
        def words(ctx: RunContextWrapper[Any], error: Exception) -> str:
            assert isinstance(error, ToolTimeoutError)
            return f"{error.tool_name} after {error.timeout_seconds:g}"

        ctx = ToolContext.for_testing(tool_name="nap")
        slow, fast = '{"seconds": 5}', '{"seconds": 0}'
        told = await invoke_function_tool(function_tool=self.slow(), context=ctx, arguments=slow)
        assert "timed out after 0.05 s and was stopped" in told
        worded = self.slow(timeout_error_function=words)
        assert await invoke_function_tool(function_tool=worded, context=ctx, arguments=slow) == (
            "nap after 0.05"
        )
        stopping = self.slow(timeout_behavior="raise_exception")
        with pytest.raises(ToolTimeoutError):
            await invoke_function_tool(function_tool=stopping, context=ctx, arguments=slow)
        assert await invoke_function_tool(function_tool=stopping, context=ctx, arguments=fast) == (
            "rested"
        )

    async def test_invoke_function_tool_keeps_a_timeout_the_tool_raised_itself(self) -> None:
        async def raising(ctx: ToolContext[Any], arguments: str) -> str:
            raise TimeoutError("the tool's own")

        hand_built = FunctionTool("t", "T.", {}, raising, timeout_seconds=5)
        ctx = ToolContext.for_testing(tool_name="t")
        with pytest.raises(TimeoutError, match="the tool's own"):
            await invoke_function_tool(function_tool=hand_built, context=ctx, arguments="{}")

    async def test_raise_exception_stops_the_run(self) -> None:
        tool = self.slow(timeout_behavior="raise_exception")
        model = ScriptModel([call("c1", "nap", {"seconds": 5})], [text("never")])
        with pytest.raises(ToolTimeoutError) as error:
            await Runner.run(Agent("a", tools=[tool], model=model), "go")
        assert (error.value.tool_name, error.value.timeout_seconds) == ("nap", 0.05)
        assert [item.get("type") for item in error.value.new_items] == ["function_call"]
        assert error.value.state is not None  # resuming runs the call again

    async def test_a_timeout_error_function_words_the_message(self) -> None:
        def words(ctx: RunContextWrapper[Any], error: Exception) -> str:
            assert isinstance(error, ToolTimeoutError)
            return f"{error.tool_name} is slow today"

        tool = self.slow(timeout_error_function=words)
        model = ScriptModel([call("c1", "nap", {"seconds": 5})], [text("ok")])
        await Runner.run(Agent("a", tools=[tool], model=model), "go")
        assert model.requests[1]["input"][-1]["output"] == "nap is slow today"

    def test_an_unknown_behaviour_fails_when_built(self) -> None:
        with pytest.raises(UserError, match=r"timeout_behavior must be one of .* not 'stop'"):
            self.slow(timeout_behavior="stop")
        with pytest.raises(ValueError, match="timeout_behavior must be one of"):
            self.slow(timeout_behavior="stop")  # a ValueError too, as openai-agents raises

    def test_a_timeout_error_function_that_cannot_be_called_fails_when_built(self) -> None:
        with pytest.raises(UserError, match=r"timeout_error_function must be callable.*'late'"):
            self.slow(timeout_error_function="late")

    @pytest.mark.parametrize(
        ("seconds", "error", "words"),
        [
            (0, ValueError, r"must be a positive number of seconds \(greater than 0\)"),
            (-2.5, ValueError, r"greater than 0"),
            (float("inf"), ValueError, r"must be a finite number of seconds.*None for no limit"),
            (float("nan"), ValueError, r"must be a finite number"),
            ("1", TypeError, r"timeout_seconds='1' .* must be a positive number .*int or a float"),
        ],
    )
    def test_a_timeout_that_cannot_be_applied_fails_when_built(
        self, seconds: object, error: type[Exception], words: str
    ) -> None:
        with pytest.raises(error, match=words) as raised:
            FunctionTool("t", "T.", {}, echo, timeout_seconds=seconds)  # type: ignore[arg-type]
        assert isinstance(raised.value, UserError)
        assert str(raised.value).startswith("FunctionTool 't': ")


class TestOpenAIAgentsNames:
    async def test_an_image_generation_tool_is_a_parameter_type_the_model_fills(self) -> None:
        # Its config is typed with openai's TypedDict, which is not imported at run time;
        # pydantic reads tooluse's own copy of the shape instead.
        @function_tool
        def quality(image_tool: ImageGenerationTool) -> str:
            return f"{image_tool.tool_config.get('quality')} {image_tool.to_tool_param()['type']}"

        schema = quality.params_json_schema
        assert schema["required"] == ["image_tool"]
        assert schema["$defs"]["ImageGenerationTool"]["required"] == ["tool_config"]
        config = schema["$defs"]["ImageGenerationToolConfig"]
        assert config["properties"]["type"]["const"] == "image_generation"
        # Optional keys the model may leave out (null), the newer qualities offered too.
        levels = config["properties"]["quality"]["anyOf"][0]["enum"]
        assert {"xhigh", "max"} <= set(levels)
        assert check_strict_schema(schema) == []
        sent = {"type": "image_generation", "quality": "max"}
        arguments = {"image_tool": {"tool_config": {**dict.fromkeys(config["required"]), **sent}}}
        ctx = ToolContext.for_testing(tool_name=quality.name)
        assert await quality.on_invoke_tool(ctx, json.dumps(arguments)) == "max image_generation"

    def test_wrapped_is_the_function(self) -> None:
        assert book.__wrapped__("Rome") == "booked Rome"
        with pytest.raises(AttributeError, match="built by hand"):
            _ = FunctionTool("t", "T.", {}, echo).__wrapped__

    def test_wrapped_is_a_tools_not_the_classs(self) -> None:
        # On the class it would lead `inspect.signature` and `inspect.unwrap` astray.
        assert not hasattr(FunctionTool, "__wrapped__")
        assert "on_invoke_tool" in inspect.signature(FunctionTool).parameters
        assert inspect.unwrap(cast(Any, book)) is book.__wrapped__
        with pytest.raises(AttributeError, match="make a new tool with function_tool"):
            book.__wrapped__ = echo

    def test_ensure_strict_json_schema(self) -> None:
        loose = {"type": "object", "properties": {"n": {"type": "integer", "default": 3}}}
        assert ensure_strict_json_schema(loose) == {
            "type": "object",
            "properties": {"n": {"type": "integer", "description": "Defaults to 3."}},
            "additionalProperties": False,
            "required": ["n"],
        }
        assert "additionalProperties" not in loose  # the input is left as it was
        with pytest.raises(UserError, match="Cannot make the schema strict"):
            ensure_strict_json_schema({"type": "object", "properties": {"x": {"not": {}}}})

    def test_generate_func_documentation(self) -> None:
        def greet(name: str) -> str:
            """Greet someone.

            Args:
                name: Who.
            """
            return name

        doc = generate_func_documentation(greet)
        assert (doc.name, doc.description, doc.param_descriptions) == (
            "greet",
            "Greet someone.",
            {"name": "Who."},
        )
        assert generate_func_documentation(greet, "google") == doc


@dataclasses.dataclass(init=False)
class _SessionTool(FunctionTool):
    """A subclass with a constructor of its own, whose invoker is its own method."""

    session: str = dataclasses.field(default="", repr=False, compare=False)

    def __init__(self, session: str) -> None:
        self.session = session
        super().__init__("session_tool", "Says its session.", {}, self._invoke)

    async def _invoke(self, ctx: ToolContext[Any], arguments: str) -> str:
        return self.session


@dataclasses.dataclass
class _CountedTool(FunctionTool):
    """A dataclass subclass with a `__post_init__` of its own."""

    built: int = dataclasses.field(default=0, init=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.built += 1


class TestCopies:
    async def test_a_copy_s_own_method_invoker_reads_the_copy(self) -> None:
        original = _SessionTool("original")
        copied = copy.copy(original)
        copied.session = "copied"
        ctx = ToolContext.for_testing(tool_name="session_tool")
        assert await copied.on_invoke_tool(ctx, "{}") == "copied"
        assert await original.on_invoke_tool(ctx, "{}") == "original"

    def test_a_subclass_post_init_runs_once_and_not_again_on_copy(self) -> None:
        tool = _CountedTool("counted", "Counted.", {}, echo)
        assert tool.params_json_schema["additionalProperties"] is False  # made strict
        assert (tool.built, copy.copy(tool).built) == (1, 1)

    async def test_a_replaced_decorated_tool_keeps_its_strict_schema(self) -> None:
        copied = dataclasses.replace(book, name="book2")
        assert copied.params_json_schema == book.params_json_schema
        loose = copied.with_strict_mode(False)
        assert "additionalProperties" not in loose.params_json_schema
        assert loose.name == "book2"


class TestToolNamespace:
    def test_refuses_what_the_api_would(self) -> None:
        with pytest.raises(UserError) as error:
            tool_namespace(name=" ", description="", tools=[book, "x"])  # type: ignore[list-item]
        assert str(error.value) == snapshot(
            "tool_namespace(''): name must be a non-empty namespace name, e.g. 'crm'; it needs a non-empty description saying what the namespace's tools are for; tools[1] is str, not a FunctionTool"
        )

    def test_refuses_a_tool_named_as_its_namespace(self) -> None:
        lookup = function_tool(name_override="lookup")(book.__wrapped__)
        with pytest.raises(
            UserError,
            match=r"tools\[1\] is named 'lookup' like the namespace.*`lookup\.lookup`.*rename",
        ):
            tool_namespace(name="lookup", description="Look-ups.", tools=[book, lookup])
        assert tool_namespace(name="crm", description="CRM.", tools=[lookup])[0].name == "lookup"

    def test_the_copies_are_named_in_their_namespace(self) -> None:
        (copied,) = tool_namespace(name="trips", description="Travel.", tools=[book])
        assert (copied.qualified_name, book.qualified_name) == ("trips.book", "book")
        assert copied.with_strict_mode(False).qualified_name == "trips.book"

    def test_a_subclass_with_its_own_constructor_is_copied_not_rebuilt(self) -> None:
        (copied,) = tool_namespace(name="desk", description="Desk.", tools=[_SessionTool("s1")])
        assert isinstance(copied, _SessionTool)
        assert (copied.qualified_name, copied.session) == ("desk.session_tool", "s1")

    @pytest.mark.parametrize("api", ["responses", "chat_completions"])
    async def test_a_namespace_over_http(self, openai_server: ScriptedServer, api: str) -> None:
        trips = tool_namespace(name="trips", description="Travel bookings.", tools=[book])
        called = {"type": "function_call", "call_id": "c1", "name": "book"}
        called |= {"arguments": '{"city": "Oslo"}', "namespace": "trips", "id": "fc_1"}
        first = (
            Turn(items=[called])
            if api == "responses"
            else Turn(calls=[Call("book", '{"city": "Oslo"}')])
        )
        openai_server.script(first, Turn(text="Booked."))
        agent = Agent("a", tools=[weather, *trips], model=openai_server.model(api))
        assert (await Runner.run(agent, "Go to Oslo")).final_output == "Booked."
        sent, answered = (request["body"] for request in openai_server.requests)
        if api == "responses":
            assert [t["type"] for t in sent["tools"]] == ["function", "namespace"]
            assert sent["tools"][1]["name"] == "trips"
            assert [t["name"] for t in sent["tools"][1]["tools"]] == ["book"]
            assert answered["input"][-2]["namespace"] == "trips"
            assert answered["input"][-1]["output"] == "booked Oslo"
        else:  # no namespaces in Chat Completions: plain function tools
            assert [t["function"]["name"] for t in sent["tools"]] == ["weather", "book"]
            assert answered["messages"][-1]["content"] == "booked Oslo"


async def test_run_state_strings_as_openai_agents_spells_them() -> None:
    model = ScriptModel([call("c1", "book", {"city": "Oslo"})], [text("done")])
    agent = Agent("a", tools=[function_tool(needs_approval=True)(book.__wrapped__)], model=model)
    paused = await Runner.run(agent, "go")
    text_form = paused.to_state().to_string()
    assert json.loads(text_form) == paused.to_state().to_json()
    state = await RunState.from_string(agent, text_form)
    state.approve("c1")
    assert (await Runner.run(agent, state)).final_output == "done"


class TestModelSettingsFields:
    SETTINGS = ModelSettings(
        reasoning={"effort": "low"},
        verbosity="low",
        truncation="auto",
        store=False,
        metadata={"team": "billing"},
        top_logprobs=2,
        frequency_penalty=0.5,
        presence_penalty=0.25,
        extra_headers={"X-Trace": "t-1"},
        extra_query={"tenant": "acme"},
        extra_body={"service_tier": "flex"},
    )

    @pytest.mark.parametrize("api", ["responses", "chat_completions"])
    async def test_each_api_gets_the_settings_in_its_own_words(
        self, openai_server: ScriptedServer, api: str
    ) -> None:
        openai_server.script(Turn(text="ok"))
        agent = Agent("a", model=openai_server.model(api), model_settings=self.SETTINGS)
        assert (await Runner.run(agent, "hi")).final_output == "ok"
        request = openai_server.requests[0]
        body = request["body"]
        assert request["headers"]["x-trace"] == "t-1"
        assert request["path"].endswith("?tenant=acme")
        shared = {"store": False, "metadata": {"team": "billing"}, "top_logprobs": 2}
        assert {key: body[key] for key in shared} == shared
        assert body["service_tier"] == "flex"
        if api == "responses":
            assert body["reasoning"] == {"effort": "low"}
            assert body["text"] == {"verbosity": "low"}
            assert body["truncation"] == "auto"
            assert "frequency_penalty" not in body  # the Responses API has none
        else:
            assert body["reasoning_effort"] == "low"
            assert body["verbosity"] == "low"
            assert (body["frequency_penalty"], body["presence_penalty"]) == (0.5, 0.25)
            assert body["logprobs"] is True
            assert "truncation" not in body

    def test_a_dict_with_the_new_fields_is_read_too(self) -> None:
        agent = Agent("a", model_settings={"reasoning": {"effort": "high"}, "store": True})  # type: ignore[arg-type]
        assert agent.model_settings.reasoning == {"effort": "high"}
        assert agent.model_settings.store is True


async def test_get_all_tools_lists_what_the_agent_offers() -> None:
    def only_for_admins(ctx: RunContextWrapper[Any], agent: Any) -> bool:
        return ctx.context == "admin"

    hidden = dataclasses.replace(weather, is_enabled=only_for_admins)
    agent = Agent(
        "a", tools=[book, hidden, FilteredToolset([weather], lambda ctx, agent, tool: True)]
    )
    names = [tool.name for tool in await agent.get_all_tools(RunContextWrapper("guest"))]
    assert names == ["book", "weather"]
    admin = await agent.get_all_tools(RunContextWrapper("admin"))
    assert [tool.name for tool in admin] == ["book", "weather", "weather"]


def test_a_ref_beside_other_keywords_is_merged_or_refused_and_the_checker_names_the_rule() -> None:
    def with_v(v: dict[str, Any]) -> dict[str, Any]:
        return {"type": "object", "properties": {"v": v}, "$defs": {"S": {"type": "string"}}}

    agreeing = ensure_strict_json_schema(with_v({"$ref": "#/$defs/S", "maxLength": 3}))
    assert agreeing["properties"]["v"] == {
        "type": "string",
        "description": "At most 3 characters long.",
    }
    with pytest.raises(UserError, match="has 'type' beside its \\$ref that differ"):
        ensure_strict_json_schema(with_v({"$ref": "#/$defs/S", "type": "integer"}))
    loose = {**with_v({"$ref": "#/$defs/S", "description": "V."}), "required": ["v"]}
    loose["additionalProperties"] = False
    assert [v.rule for v in check_strict_schema(loose)] == ["ref-siblings"]


def test_hand_written_schemas_never_change_meaning_silently() -> None:
    wrapped: dict[str, Any] = {
        "type": "object",
        "properties": {},
        "allOf": [{"type": "object", "properties": {"value": {"type": "string"}}}],
    }
    assert ensure_strict_json_schema(wrapped)["required"] == ["value"]
    both = {
        "type": "object",
        "properties": {"v": {"anyOf": [{"type": "string"}], "oneOf": [{"type": "integer"}]}},
    }
    with pytest.raises(UserError, match="uses both anyOf and oneOf"):
        ensure_strict_json_schema(both)
    open_object = {
        "type": "object",
        "properties": {"a": {"type": "number"}},
        "additionalProperties": True,
    }
    with pytest.raises(UserError, match=r"allows keys beyond its properties.*\(\"strict\": false"):
        ensure_strict_json_schema(open_object)


class TestApprovalsAsOpenAIAgentsSpellsThem:
    @staticmethod
    def agent(model: ScriptModel) -> Agent[Any]:
        guarded = function_tool(needs_approval=True)(book.__wrapped__)
        return Agent("a", tools=[guarded], model=model)

    @staticmethod
    def three_turns() -> ScriptModel:
        return ScriptModel(
            [call("c1", "book", {"city": "Oslo"})],
            [call("c2", "book", {"city": "Rome"})],
            [text("done")],
        )

    async def test_always_approve_decides_every_later_call_of_the_tool(self) -> None:
        model = self.three_turns()
        paused = await Runner.run(self.agent(model), "go")
        state = paused.to_state()
        [waiting] = state.get_interruptions()
        assert waiting.name == "book"
        state.approve(waiting, always_approve=True)
        state = RunState.from_json(state.to_json())  # the standing decision is kept
        result = await Runner.run(self.agent(model), state)
        assert (result.final_output, result.interruptions) == ("done", [])
        assert outputs(model.requests[2]) == {"c1": "booked Oslo", "c2": "booked Rome"}

    async def test_always_reject_with_a_message(self) -> None:
        model = self.three_turns()
        paused = await Runner.run(self.agent(model), "go")
        paused.reject(paused.interruptions[0], True, rejection_message="Not today.")
        result = await Runner.run(self.agent(model), paused.to_state())
        assert result.final_output == "done"
        assert outputs(model.requests[2]) == {"c1": "Not today.", "c2": "Not today."}

    async def test_a_message_in_the_flag_is_refused_before_anything_runs(self) -> None:
        paused = await Runner.run(self.agent(self.three_turns()), "go")
        with pytest.raises(UserError, match=r"always_reject='No\.' must be True or False"):
            paused.reject("c1", "No.")  # type: ignore[arg-type]
        with pytest.raises(UserError, match="rejection_message=3 must be the text"):
            paused.reject("c1", rejection_message=3)  # type: ignore[arg-type]


def test_a_partial_with_documented_bound_arguments_draws_no_finding() -> None:
    def search_orders(db: object, user_id: str, query: str) -> list[str]:
        """Search a user's orders.

        Args:
            db: The connection.
            user_id: Whose orders.
            query: What to look for.
        """
        return [query]

    tool = function_tool(functools.partial(search_orders, object(), "u-42"))
    assert tool._findings == ()  # pyright: ignore[reportPrivateUsage]


def test_a_warning_for_a_callable_object_points_at_its_call() -> None:
    class Lookup:
        """Look up.

        Args:
            missing: Not a parameter.
        """

        def __call__(self, key: str) -> str:
            return key

    with pytest.warns(ToolDefinitionWarning) as warned:
        function_tool(Lookup())
    assert warned[0].filename == __file__


async def test_a_stopping_tool_gives_its_python_value_as_the_final_output() -> None:
    @dataclasses.dataclass
    class Quote:
        price: int

    @function_tool
    def quote(item: str) -> Quote:
        """Quote a price.

        Args:
            item: What.
        """
        return Quote(3)

    seen: list[Any] = []

    def decide(ctx: RunContextWrapper[Any], results: list[Any]) -> ToolsToFinalOutputResult:
        seen.append(results[0].output)
        return ToolsToFinalOutputResult(is_final_output=False)

    model = ScriptModel([call("c1", "quote", {"item": "tea"})], [text("3")])
    first = Agent("a", tools=[quote], model=model, tool_use_behavior="stop_on_first_tool")
    assert (await Runner.run(first, "go")).final_output == Quote(3)
    model = ScriptModel([call("c1", "quote", {"item": "tea"})], [text("3")])
    deciding = first.clone(model=model, tool_use_behavior=decide)
    assert (await Runner.run(deciding, "go")).final_output == "3"
    assert seen == [Quote(3)]
    assert outputs(model.requests[1]) == {"c1": str(Quote(3))}  # its str(), as in openai-agents


async def test_run_config_and_its_model_settings_may_be_dicts() -> None:
    model = ScriptModel([text("ok")])
    config = {"model_settings": {"temperature": 0.1}, "max_tool_errors": 2}
    result = await Runner.run(Agent("a", model=model), "hi", run_config=config)
    assert result.final_output == "ok"
    assert RunConfig(model_settings={"top_p": 0.5}).model_settings == ModelSettings(top_p=0.5)  # type: ignore[arg-type]
    with pytest.raises(UserError, match="RunConfig: model_settings has unknown field"):
        RunConfig(model_settings={"temp": 1})  # type: ignore[arg-type]


class TestHandoffsAsOpenAIAgentsHasThem:
    def test_checks_when_built(self) -> None:
        target = Agent("billing")
        with pytest.raises(UserError, match="needs an on_handoff that receives the input"):
            handoff(target, input_type=Escalation)
        with pytest.raises(UserError, match="on_handoff='log' must be a function"):
            handoff(target, on_handoff="log")  # type: ignore[arg-type]
        with pytest.raises(
            UserError, match=r"the root of a strict JSON schema must be an object \(not anyOf\)"
        ):
            handoff(target, on_handoff=context_and_input, input_type=Escalation | None)

    def test_names_and_schema(self) -> None:
        made = handoff(Agent("billing"), None, None, context_and_input, Escalation)
        assert made.agent_name == "billing"
        assert made.input_json_schema["required"] == ["reason"]

    @pytest.mark.parametrize("switch", [False, "by_context"])
    async def test_is_enabled(self, switch: Any) -> None:
        def only_vip(ctx: RunContextWrapper[Any], agent: Any) -> bool:
            return ctx.context == "vip"

        enabled = only_vip if switch else False
        billing = Agent("billing", model=ScriptModel([text("billing here")]))
        model = ScriptModel([call("c1", "transfer_to_billing")], [text("front desk")])
        front = Agent("front", handoffs=[handoff(billing, is_enabled=enabled)], model=model)
        result = await Runner.run(front, "hi", context="guest")
        assert result.final_output == "front desk"  # the call named no tool it was offered
        assert [t["name"] for t in model.requests[0].get("tools", [])] == []
        if switch:
            model = ScriptModel([call("c1", "transfer_to_billing")], [text("unused")])
            front = front.clone(model=model)
            result = await Runner.run(front, "hi", context="vip")
            assert (result.last_agent.name, result.final_output) == ("billing", "billing here")


def test_agent_fields_after_the_name_go_by_keyword() -> None:
    with pytest.raises(TypeError, match="positional"):
        Agent("billing", "Handles invoices.")  # type: ignore[misc]
    assert (
        Agent(name="billing", instructions="Handles invoices.").instructions == "Handles invoices."
    )


def test_a_callable_object_is_documented_by_its_call_method() -> None:
    class Doubler:
        def __call__(self, value: int) -> int:
            """Double a value.

            Args:
                value: The value to double.
            """
            return value * 2

    tool = function_tool(Doubler())
    assert tool.description == "Double a value."
    assert tool.params_json_schema["properties"]["value"]["description"] == "The value to double."


def test_a_google_docstring_may_start_with_its_section() -> None:
    def weather(city: str) -> str:
        """
        Args:
            city: The city.
        """
        return city

    doc = generate_func_documentation(weather)
    assert (doc.description, doc.param_descriptions) == (None, {"city": "The city."})


async def test_a_kwargs_key_naming_a_parameter_is_an_argument_error() -> None:
    def collide(x: int, **kw: int) -> int:
        """Collide.

        Args:
            x: A number.
            kw: More numbers.
        """
        return x

    tool = function_tool(collide, strict_mode=False)
    output = await tool.on_invoke_tool(
        ToolContext.for_testing(tool_name="collide"), '{"x": 1, "kw": {"x": 99}}'
    )
    assert output == (
        "Tool 'collide' was called with invalid arguments:\n"
        "- kw.x: 'x' is a parameter of its own; pass it there\n"
        "Call 'collide' again with corrected arguments."
    )


async def test_more_names_of_openai_agents() -> None:
    def greeting(ctx: RunContextWrapper[Any], agent: Any) -> str:
        return f"Greet {ctx.context}."

    agent = Agent("a", instructions=greeting, model=ScriptModel([text("hi")]))
    assert await agent.get_system_prompt(RunContextWrapper("Ada")) == "Greet Ada."
    result = await Runner.run(agent, "hello", context="Ada")
    assert result.final_output_as(str, raise_if_incorrect_type=True) == "hi"
    with pytest.raises(TypeError, match="final_output is a str, not a int"):
        result.final_output_as(int, raise_if_incorrect_type=True)
    helper = Agent("helper").as_tool(is_enabled=False, needs_approval=True)
    assert (helper.is_enabled, helper.needs_approval) == (False, True)


def test_tool_namespace_refuses_wrong_types_clearly_and_takes_one_tool() -> None:
    with pytest.raises(UserError, match="name must be a non-empty namespace name"):
        tool_namespace(name=None, description="D.", tools=[book])  # type: ignore[arg-type]
    [alone] = tool_namespace(name="trips", description="Travel.", tools=book)  # type: ignore[arg-type]
    assert alone.namespace == "trips"


async def test_an_empty_assistant_message_is_refused_before_a_chat_request(
    openai_server: ScriptedServer,
) -> None:
    agent = Agent("a", model=openai_server.model("chat_completions"))
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": None}]
    with pytest.raises(UserError, match=r"input\[1\].*has no content, refusal or tool calls"):
        await Runner.run(agent, history)
    assert openai_server.requests == []


async def test_is_enabled_functions_are_asked_at_once_and_a_failure_cancels_the_rest() -> None:
    started = asyncio.Event()
    cancelled: list[str] = []

    async def first(ctx: RunContextWrapper[Any], agent: Any) -> bool:
        await asyncio.wait_for(started.wait(), 5)  # only a sibling running at once sets it
        return True

    async def second(ctx: RunContextWrapper[Any], agent: Any) -> bool:
        started.set()
        return False

    a = dataclasses.replace(book, is_enabled=first)
    b = dataclasses.replace(weather, is_enabled=second)
    assert [
        t.name for t in await Agent("x", tools=[a, b]).get_all_tools(RunContextWrapper(None))
    ] == ["book"]

    async def waits(ctx: RunContextWrapper[Any], agent: Any) -> bool:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            cancelled.append("waits")
            raise
        return True

    async def fails(ctx: RunContextWrapper[Any], agent: Any) -> bool:
        await asyncio.sleep(0)
        raise RuntimeError("broken check")

    tools = [
        dataclasses.replace(book, is_enabled=waits),
        dataclasses.replace(weather, is_enabled=fails),
    ]
    with pytest.raises(RuntimeError, match="broken check"):
        await Agent("x", tools=tools).get_all_tools(RunContextWrapper(None))
    assert cancelled == ["waits"]
