"""Signatures into schemas: descriptions, constraints, context parameters, kinds, errors."""

import functools
import inspect
import json
from collections.abc import Callable
from typing import Annotated, Any, cast

import pytest
from inline_snapshot import snapshot
from pydantic import Field
from typing_extensions import TypedDict, Unpack

from tooluse import (
    FuncSchema,
    RunContextWrapper,
    ToolContext,
    UserError,
    function_schema,
    function_tool,
)
from tooluse.tools._invocation import Invoker

from .conftest import tool_context


def properties(schema: FuncSchema) -> dict[str, Any]:
    return schema.params_json_schema["properties"]


def _with_model_extra(query: str, model_extra: str) -> str:
    return f"{query}:{model_extra}"


def _with_model_fields_set(query: str, model_fields_set: str) -> str:
    return f"{query}:{model_fields_set}"


class TestDescriptions:
    def test_annotated_string(self) -> None:
        def f(city: Annotated[str, "The city."]) -> str:
            return city

        assert properties(function_schema(f))["city"]["description"] == "The city."

    def test_annotated_field(self) -> None:
        def f(city: Annotated[str, Field(description="The city.")]) -> str:
            return city

        assert properties(function_schema(f))["city"]["description"] == "The city."

    def test_field_default(self) -> None:
        def f(days: int = Field(default=3, description="Days ahead.")) -> str:
            return str(days)

        loose = function_schema(f, strict_json_schema=False)
        assert properties(loose)["days"] == {
            "default": 3,
            "description": "Days ahead.",
            "title": "Days",
            "type": "integer",
        }

    def test_docstring_wins_over_annotations(self) -> None:
        def f(
            a: Annotated[str, "from Annotated"],
            b: Annotated[str, Field(description="from Field")],
            c: str = Field(default="x", description="from default Field"),
        ) -> str:
            """Summary.

            Args:
                a: from docstring a
                b: from docstring b
                c: from docstring c
            """
            return a + b + c

        props = properties(function_schema(f, strict_json_schema=False))
        assert {name: p["description"] for name, p in props.items()} == {
            "a": "from docstring a",
            "b": "from docstring b",
            "c": "from docstring c",
        }

    def test_field_constraints_are_kept_in_model_and_schema(self) -> None:
        def f(
            count: Annotated[int, Field(ge=1, le=10)],
            name: str = Field(default="x", max_length=5),
        ) -> str:
            return name * count

        schema = function_schema(f, strict_json_schema=False)  # pyright: ignore[reportUnknownArgumentType]
        assert properties(schema) == snapshot(
            {
                "count": {"maximum": 10, "minimum": 1, "title": "Count", "type": "integer"},
                "name": {"default": "x", "maxLength": 5, "title": "Name", "type": "string"},
            }
        )
        with pytest.raises(ValueError, match="greater than or equal to 1"):
            schema.params_pydantic_model.model_validate({"count": 0})


class TestContextParameters:
    @pytest.mark.parametrize("position", ["first", "middle", "last"])
    async def test_found_by_type_in_any_position(self, position: str) -> None:
        def first(ctx: RunContextWrapper[str], a: int, b: int) -> str:
            return f"{ctx.context}:{a + b}"

        def middle(a: int, ctx: ToolContext[str], b: int) -> str:
            return f"{ctx.context}:{a + b}"

        def last(a: int, b: int, ctx: RunContextWrapper[str]) -> str:
            return f"{ctx.context}:{a + b}"

        func = {"first": first, "middle": middle, "last": last}[position]
        schema = function_schema(func)
        assert schema.takes_context
        assert list(properties(schema)) == ["a", "b"]
        tool = function_tool(func)
        assert await tool.on_invoke_tool(tool_context(context="C"), '{"a": 1, "b": 2}') == "C:3"

    async def test_the_tool_context_itself_is_injected(self) -> None:
        seen: list[ToolContext[Any]] = []

        @function_tool
        def f(ctx: ToolContext[Any]) -> str:
            seen.append(ctx)
            return "ok"

        ctx = tool_context("f")
        await f.on_invoke_tool(ctx, "")
        assert seen == [ctx]

    def test_bare_and_annotated_context_annotations(self) -> None:
        def f(ctx: Annotated[RunContextWrapper[Any], "ctx"], x: int) -> int:
            return x

        def g(ctx: RunContextWrapper, x: int) -> int:  # type: ignore[type-arg]  # pyright: ignore[reportMissingTypeArgument, reportUnknownParameterType]
            return x

        assert list(properties(function_schema(f))) == ["x"]
        assert list(properties(function_schema(g))) == ["x"]  # pyright: ignore[reportUnknownArgumentType]

    def test_no_context(self) -> None:
        def f(x: int) -> int:
            return x

        assert function_schema(f).takes_context is False


class TestSignatureKinds:
    async def test_positional_only_and_varargs(self) -> None:
        received: list[Any] = []

        @function_tool(strict_mode=False)
        def f(a: int, /, b: int, *rest: int, c: int = 0, **extra: str) -> str:
            received.append((a, b, rest, c, extra))
            return "ok"

        arguments = json.dumps({"a": 1, "b": 2, "rest": [3, 4], "c": 5, "extra": {"k": "v"}})
        assert await f.on_invoke_tool(tool_context(), arguments) == "ok"
        assert received == [(1, 2, (3, 4), 5, {"k": "v"})]

    async def test_context_before_varargs_goes_by_position(self) -> None:
        @function_tool
        def f(ctx: RunContextWrapper[str], *numbers: int) -> str:
            return f"{ctx.context}{sum(numbers)}"

        assert await f.on_invoke_tool(tool_context(context="="), '{"numbers": [1, 2]}') == "=3"

    def test_varargs_schema_is_a_list(self) -> None:
        def f(*numbers: int) -> int:
            return sum(numbers)

        assert properties(function_schema(f, strict_json_schema=False)) == snapshot(
            {"numbers": {"items": {"type": "integer"}, "title": "Numbers", "type": "array"}}
        )

    def test_var_keyword_unpacked_typeddict_is_strict(self) -> None:
        class Opts(TypedDict, total=False):
            verbose: bool

        def f(**opts: Unpack[Opts]) -> str:
            return str(opts)

        assert function_schema(f).params_json_schema == snapshot(
            {
                "$defs": {
                    "Opts": {
                        "additionalProperties": False,
                        "properties": {
                            "verbose": {
                                "anyOf": [{"type": "boolean"}, {"type": "null"}],
                                "title": "Verbose",
                                "description": "Null leaves it out.",
                            }
                        },
                        "title": "Opts",
                        "type": "object",
                        "required": ["verbose"],
                    }
                },
                "additionalProperties": False,
                "properties": {"opts": {"$ref": "#/$defs/Opts"}},
                "title": "f_args",
                "type": "object",
                "required": ["opts"],
            }
        )

    async def test_reserved_and_private_names_keep_their_names(self) -> None:
        received: list[Any] = []

        with pytest.warns(UserWarning, match="parameter 'model_config' has the name of a pyd"):

            @function_tool
            def f(json: str, model_config: int, _hidden: bool) -> str:
                received.append((json, model_config, _hidden))
                return "ok"

        assert list(f.params_json_schema["properties"]) == ["json", "model_config", "_hidden"]
        arguments = '{"json": "j", "model_config": 1, "_hidden": true}'
        assert await f.on_invoke_tool(tool_context(), arguments) == "ok"
        assert received == [("j", 1, True)]

    @pytest.mark.parametrize("lookup", [_with_model_extra, _with_model_fields_set])
    async def test_a_name_that_reads_as_a_value_on_a_model_warns_and_still_works(
        self, lookup: Callable[[str, str], str]
    ) -> None:
        name = list(inspect.signature(lookup).parameters)[1]
        with pytest.warns(UserWarning, match=f"parameter '{name}' has the name") as warned:
            schema = function_schema(lookup)
        assert "model_dump(by_alias=True), or rename the parameter" in str(warned[0].message)
        parsed = schema.params_pydantic_model.model_validate({"query": "q", name: "gpt"})
        assert getattr(parsed, name) != "gpt"  # pydantic's attribute: what the warning says
        args, kwargs = schema.to_call_args(parsed)
        assert lookup(*args, **kwargs) == "q:gpt"
        with pytest.warns(UserWarning, match=name):
            tool = function_tool(lookup)
        arguments = json.dumps({"query": "q", name: "gpt"})
        assert await tool.on_invoke_tool(tool_context(), arguments) == "q:gpt"

    def test_unannotated_parameters(self) -> None:
        def f(a, b=3, c=None, d=1.5) -> str:  # type: ignore[no-untyped-def]  # pyright: ignore[reportMissingParameterType]
            return "unused"

        schema = function_schema(f, strict_json_schema=False)  # pyright: ignore[reportUnknownArgumentType]
        assert {k: v.get("type") for k, v in properties(schema).items()} == {
            "a": "string",
            "b": "integer",
            "c": "string",
            "d": "number",
        }

    def test_string_annotations_resolve(self) -> None:
        from . import future_annotations_module

        schema = function_schema(future_annotations_module.forecast)
        assert list(properties(schema)) == ["city", "when"]
        assert schema.takes_context

    def test_string_annotations_of_a_method_read_in_its_class_body(self) -> None:
        # As Python evaluates them without `from __future__ import annotations`.
        from .future_annotations_module import SubHandler

        for func in (SubHandler(), SubHandler().first):
            schema = function_schema(func, name_override="handle")
            assert schema.params_json_schema["$defs"]["Order"]["required"] == ["item"]

    def test_partial_and_callable_object(self) -> None:
        def add(a: int, b: int) -> int:
            return a + b

        class Adder:
            def __call__(self, a: int) -> int:
                return a

        partial_schema = function_schema(functools.partial(add, b=1), name_override="add1")
        assert list(properties(partial_schema)) == ["a"]  # the bound b is not the model's
        assert list(properties(function_schema(Adder(), name_override="adder"))) == ["a"]

    @pytest.mark.parametrize("data", [{"a": 1, "kw": {"a": 2}}, {"rest": [1], "kw": {"rest": 2}}])
    def test_a_kwargs_key_may_name_a_parameter_no_keyword_reaches(self, data: Any) -> None:
        # Python itself takes f(1, a=2) for `def f(a, /, **kw)`: `a` binds no keyword.
        def positional(a: int, /, **kw: int) -> tuple[int, dict[str, int]]:
            return a, kw

        def spread(*rest: int, **kw: int) -> tuple[tuple[int, ...], dict[str, int]]:
            return rest, kw

        func = positional if "a" in data else spread
        schema = function_schema(func, strict_json_schema=False)
        args, kwargs = schema.to_call_args(schema.params_pydantic_model(**data))
        assert kwargs == data["kw"]
        assert func(*args, **kwargs)[1] == data["kw"]

    def test_signature_is_kept(self) -> None:
        def f(a: int) -> int:
            return a

        assert function_schema(f).signature == inspect.signature(f)


class TestErrors:
    def error(self, func: Any, **kwargs: Any) -> str:
        with pytest.raises(UserError) as raised:
            function_schema(func, **kwargs)
        return str(raised.value)

    def test_two_context_parameters(self) -> None:
        def f(a: RunContextWrapper[Any], b: ToolContext[Any], x: int) -> int:
            return x

        assert self.error(f) == snapshot("""\
Cannot make a tool from function 'tests.test_function_schema.TestErrors.test_two_context_parameters.<locals>.f':
  - parameter 'b' is a second context parameter (the first is 'a'); a tool receives one RunContextWrapper/ToolContext: remove one\
""")

    def test_fixed_length_varargs(self) -> None:
        def f(*args: Unpack[tuple[int, str]]) -> int:
            return len(args)

        assert self.error(f) == snapshot("""\
Cannot make a tool from function 'tests.test_function_schema.TestErrors.test_fixed_length_varargs.<locals>.f':
  - parameter '*args' is a fixed-length tuple of positional arguments, which a tool cannot receive; declare them as named parameters\
""")

    def test_every_problem_in_one_error(self) -> None:
        def f(
            a: RunContextWrapper[Any],
            b: RunContextWrapper[Any],
            *args: Unpack[tuple[int, str]],
            **kwargs: int,
        ) -> int:
            return len(kwargs)

        assert self.error(f, name_override="bad name!") == snapshot("""\
Cannot make a tool from function 'tests.test_function_schema.TestErrors.test_every_problem_in_one_error.<locals>.f':
  - the tool name 'bad name!' does not match ^[a-zA-Z0-9_-]{1,64}$; fix: use 1 to 64 letters, digits, '_' or '-' (name_override='...')
  - parameter 'b' is a second context parameter (the first is 'a'); a tool receives one RunContextWrapper/ToolContext: remove one
  - parameter '*args' is a fixed-length tuple of positional arguments, which a tool cannot receive; declare them as named parameters\
""")

    def test_type_pydantic_cannot_validate(self) -> None:
        class Opaque:
            pass

        def f(ok: int, thing: Opaque) -> int:
            return ok

        assert self.error(f) == snapshot(
            """\
Cannot make a tool from function 'tests.test_function_schema.TestErrors.test_type_pydantic_cannot_validate.<locals>.f':
  - parameter 'thing' has a type pydantic cannot validate (Opaque): Unable to generate pydantic-core schema for <class 'tests.test_function_schema.TestErrors.test_type_pydantic_cannot_validate.<locals>.Opaque'>; use a JSON-friendly type such as a TypedDict, dataclass or pydantic model\
"""
        )

    def test_strict_problem_inside_a_nested_type(self) -> None:
        from .types_for_tests import Point

        class Holder(TypedDict):
            nonzero: Annotated[int, Field(json_schema_extra={"not": {"const": 0}})]
            where: Point

        def f(first: Holder, second: list[Holder]) -> int:
            return 0

        assert self.error(f) == snapshot("""\
Cannot make a tool from function 'tests.test_function_schema.TestErrors.test_strict_problem_inside_a_nested_type.<locals>.f':
  - parameter 'first' (at $defs.Holder.properties.nonzero) uses 'not', which strict mode cannot express; simplify the type, or turn strict mode off (strict_mode=False)
  - parameter 'second' (at $defs.Holder.properties.nonzero) uses 'not', which strict mode cannot express; simplify the type, or turn strict mode off (strict_mode=False)\
""")

    def test_unresolvable_annotation(self) -> None:
        from . import future_annotations_module

        assert self.error(future_annotations_module.broken) == snapshot(
            "Cannot make a tool from function 'tests.future_annotations_module.broken': an annotation cannot be resolved (name 'Decimal' is not defined); define the type at module level or import it where the function is defined"
        )

    def test_lambda_needs_a_name(self) -> None:
        nameless: Callable[[int], int] = lambda x: x  # noqa: E731 - a lambda is the case under test
        assert self.error(nameless) == snapshot("""\
Cannot make a tool from function 'tests.test_function_schema.TestErrors.test_lambda_needs_a_name.<locals>.<lambda>':
  - it has no usable name. Pass name_override='...'\
""")

    def test_loose_mode_accepts_what_strict_refuses(self) -> None:
        def f(thing: Any, tags: dict[str, int], **kwargs: int) -> int:
            return 0

        assert list(properties(function_schema(f, strict_json_schema=False))) == [
            "thing",
            "tags",
            "kwargs",
        ]


class TestDecoratorMisuse:
    def test_positional_name_instead_of_function(self) -> None:
        with pytest.raises(
            UserError,
            match=r"function_tool takes the function itself, or only keyword arguments; got 'lookup'\. For a name, write @function_tool\(name_override='lookup'\)",
        ):
            function_tool("lookup")  # type: ignore[call-overload]  # pyright: ignore[reportCallIssue, reportArgumentType]

    @pytest.mark.parametrize("timeout", [0, -1.5])
    def test_timeout_must_be_positive(self, timeout: float) -> None:
        def f() -> str:
            return ""

        with pytest.raises(
            UserError,
            match=r"FunctionTool 'f': timeout_seconds=.* must be a positive number of seconds",
        ):
            function_tool(timeout=timeout)(f)

    def test_options_are_kept_on_the_tool(self) -> None:
        def enabled(ctx: Any, agent: Any) -> bool:
            return False

        @function_tool(timeout=2.5, is_enabled=enabled, description_override="Custom.")
        def f() -> str:
            return ""

        assert (f.timeout_seconds, f.is_enabled, f.description) == (2.5, enabled, "Custom.")


class TestMoreKinds:
    async def test_varargs_of_any_length_unpacked(self) -> None:
        @function_tool
        def total(*numbers: Unpack[tuple[int, ...]]) -> int:
            return sum(numbers)

        assert total.params_json_schema["properties"]["numbers"]["items"] == {"type": "integer"}
        assert await total.on_invoke_tool(tool_context(), '{"numbers": [1, 2, 3]}') == 6

    def test_variadic_context_is_an_error(self) -> None:
        def f(*ctx: RunContextWrapper[Any]) -> str:
            return ""

        with pytest.raises(
            UserError,
            match=r"parameter 'ctx' is variadic but annotated as a context; declare the context as a plain parameter",
        ):
            function_schema(f)

    def test_unreadable_signature(self) -> None:
        with pytest.raises(
            UserError, match=r"its signature cannot be read .*; wrap it in a plain def or async def"
        ):
            function_schema(max)


def test_pydantic_failing_to_write_the_schema_is_a_user_error() -> None:
    def f(weights: dict[str, list[int]] = {"$defs": [1]}) -> str:  # noqa: B006
        return ""

    with pytest.raises(
        UserError, match=r"pydantic could not write the arguments' JSON schema \(AttributeError"
    ):
        function_schema(f)


class TestDeferredSchema:
    """`@function_tool` builds the model and JSON schema on first use, when they cannot fail."""

    def test_a_plain_signature_waits_for_the_first_read(self) -> None:
        def f(
            origin: str, mode: Annotated[str, "How."] = "x", stops: list[int] | None = None
        ) -> str:
            return origin

        tool = function_tool(f)
        assert "params_json_schema" not in vars(tool)  # not built yet
        assert json.dumps(tool.params_json_schema) == json.dumps(
            function_schema(f).params_json_schema
        )
        assert "params_json_schema" in vars(tool)  # built once, then a plain attribute

    async def test_a_call_builds_the_model(self) -> None:
        def f(a: int, b: int = 2) -> int:
            return a + b

        tool = function_tool(f)
        arguments = '{"a": 1, "b": 5}'
        assert await tool.on_invoke_tool(tool_context("f", arguments), arguments) == 6

    def test_other_types_are_built_at_decoration(self) -> None:
        def f(counts: dict[str, int]) -> str:
            return str(counts)

        schema = cast(Invoker, function_tool(f).on_invoke_tool).schema
        assert schema is not None
        assert "params_json_schema" in vars(schema)

    def test_the_deferred_fields_read_as_built_ones(self) -> None:
        def f(a: int, b: list[str] | None = None) -> str:
            """Join.

            Args:
                a: A number.
            """
            return str(a)

        eager = function_schema(f)
        lazy = cast(Invoker, function_tool(f).on_invoke_tool).schema
        assert lazy is not None
        assert lazy.params_pydantic_model.model_json_schema() == (
            eager.params_pydantic_model.model_json_schema()
        )
        assert (lazy.name, lazy.description, lazy.params_json_schema) == (
            eager.name, eager.description, eager.params_json_schema
        )  # fmt: skip
        assert lazy._findings == eager._findings  # pyright: ignore[reportPrivateUsage]
