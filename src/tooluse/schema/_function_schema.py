"""From a Python function's signature and docstring to a `FuncSchema`.

The signature is read with `inspect` and `typing.get_type_hints`; each
parameter becomes a field of a pydantic model, except context parameters
(annotated `RunContextWrapper`/`ToolContext`), which are injected at call time.
Every problem in the signature is collected first and reported in one
`UserError` naming the function and each parameter.
"""

from __future__ import annotations

import copy
import functools
import inspect
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import CodeType, NoneType, UnionType
from typing import (
    Annotated,
    Any,
    ForwardRef,
    Literal,
    NoReturn,
    Union,
    cast,
    get_args,
    get_origin,
    get_type_hints,
)

import pydantic
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined, SchemaValidator
from typing_extensions import Unpack, is_typeddict

from ..core._context import RunContextWrapper
from ..core._deferred import defer, deferred_fields
from ..exceptions import ToolArgumentsError, UserError
from ._adapters import AdapterMismatch, ArgumentAdapters, compile_adapters
from ._argument_errors import (
    arguments_error,
    format_location,
    json_syntax_problem,
    not_an_object_problem,
)
from ._callables import (
    bound_parameters,
    default_name,
    describe_callable,
    refuse_unbound_method,
    unwrapped,
    without_bound_keywords,
)
from ._docstrings import DocstringStyle, FuncDocumentation, generate_func_documentation
from ._lints import Finding, parameter_findings, warn_at
from ._plain import plain_json_schema, strict_plain_schema
from ._plain_validator import plain_fields_validator
from ._strict import describe_problems, describe_violations, to_strict_schema
from ._strict_rules import JsonSchema, JsonValue, check_strict_schema, check_tool_name
from ._typeddict_compat import fix_typeddicts

__all__ = ["FuncSchema", "deferred_function_schema", "function_schema"]

_P = inspect.Parameter
# Validation accepts exactly what the schema advertises: strict schemas close every
# object, so unexpected keys are errors; loose schemas say nothing, so extras are ignored.
_STRICT_CONFIG = ConfigDict(extra="forbid", protected_namespaces=())
_LOOSE_CONFIG = ConfigDict(protected_namespaces=())
_RESERVED_NAMES = frozenset(dir(BaseModel))
# The reserved names that read as values on a model instance (the others are methods,
# which fail loudly when mistaken for an argument): warned about, as pydantic would.
_VALUE_ATTRIBUTES = frozenset(
    {"model_config", "model_extra", "model_fields", "model_fields_set", "model_computed_fields"}
)
_PRIMITIVES = (bool, int, float, str)


@dataclass(frozen=True)
class _Slot:
    """Where one validated field goes in the call."""

    attr: str
    """The field's name in the arguments model."""
    name: str
    """The parameter's name in the signature."""
    how: Literal["position", "keyword", "*", "**"]
    """Passed by position or keyword, or spread from a list (`*`) or dict (`**`)."""


@dataclass
class FuncSchema:
    """Everything tooluse knows about a function it turns into a tool."""

    name: str
    """The tool's name: the function's name unless overridden."""
    description: str | None
    """The tool's description, from the docstring unless overridden."""
    params_pydantic_model: type[BaseModel]
    """A model of the arguments the model sends (context parameters excluded)."""
    params_json_schema: JsonSchema
    """The JSON schema of the arguments, strict when `strict_json_schema`."""
    signature: inspect.Signature
    """The function's signature."""
    takes_context: bool = False
    """Whether the function has a `RunContextWrapper`/`ToolContext` parameter."""
    strict_json_schema: bool = True
    """Whether `params_json_schema` follows OpenAI's strict-mode rules."""
    _slots: tuple[_Slot, ...] = field(default=(), repr=False)
    _context_slot: _Slot | None = field(default=None, repr=False)
    _adapters: ArgumentAdapters | None = field(default=None, repr=False)
    _findings: tuple[Finding, ...] = field(default=(), repr=False)
    _by_keyword: bool = field(default=False, init=False, repr=False)
    _pending: _Pending | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # The common case: every argument goes by keyword under its own name.
        self._by_keyword = all(
            slot.how == "keyword" and slot.attr == slot.name for slot in self._slots
        )

    @property
    def findings(self) -> tuple[Finding, ...]:
        """Likely mistakes in the function's definition (`tooluse check` reports them)."""
        return self._findings

    @property
    def keyword_call(self) -> bool:
        """Whether the call passes every argument by keyword under its own name."""
        return self._by_keyword

    @property
    def context_parameter(self) -> str | None:
        """The name of the function's context parameter, if it has one."""
        slot = self._context_slot
        return None if slot is None else slot.name

    @property
    def adapts_arguments(self) -> bool:
        """Whether validating the arguments undoes strict-mode rewrites of the schema."""
        return self._adapters is not None

    def parse_arguments(self, arguments: str) -> BaseModel:
        """Validate the JSON arguments a model sent, undoing any strict-mode rewrites.

        Args:
            arguments: The raw JSON text; an empty string means `{}`.

        Returns:
            An instance of `params_pydantic_model`.

        Raises:
            ToolArgumentsError: If the arguments are not valid; the message names
                each problem without repeating any value.
        """
        try:
            if self._adapters is None:  # the fast path: one pass over the JSON text
                # What `model_validate_json` does, without its Python wrapper (~40 % of a call).
                validator = self.params_pydantic_model.__pydantic_validator__
                return validator.validate_json(arguments or "{}")
            return self.params_pydantic_model.model_validate(self._undo_adapters(arguments))
        except ValidationError as error:
            # Not chained: pydantic's message repeats the input values.
            raise arguments_error(self.name, error) from None

    def _undo_adapters(self, arguments: str) -> dict[str, object]:
        adapters = cast(ArgumentAdapters, self._adapters)
        try:
            data: JsonValue = json.loads(arguments or "{}")
        except json.JSONDecodeError as error:
            raise ToolArgumentsError(self.name, [json_syntax_problem(error)]) from None
        if not isinstance(data, dict):
            raise ToolArgumentsError(self.name, [not_an_object_problem(data)])
        try:
            return adapters.apply(data)
        except AdapterMismatch as mismatch:
            problem = f"{format_location(mismatch.location)}: {mismatch.message}"
            raise ToolArgumentsError(self.name, [problem]) from None

    def named_arguments(self, data: BaseModel) -> dict[str, Any]:
        """The validated arguments by parameter name, as the function receives them.

        Args:
            data: An instance of `params_pydantic_model`.

        Returns:
            Each parameter's value (a `*args` list, a `**kwargs` dict); context parameters
            left out.
        """
        values = data.__dict__
        return {
            slot.name: values[slot.attr] for slot in self._slots if slot is not self._context_slot
        }

    def to_call_args(
        self, data: BaseModel, context: RunContextWrapper[Any] | None = None
    ) -> tuple[list[Any], dict[str, Any]]:
        """Turn validated arguments into the positional and keyword arguments of a call.

        Args:
            data: An instance of `params_pydantic_model`.
            context: The run context, put where the function declares it. Without it, a
                context parameter is left out, as openai-agents does: the caller passes
                it first, `func(ctx, *args, **kwargs)`.

        Returns:
            The positional arguments and the keyword arguments.

        Raises:
            UserError: No context was given, and the function's context parameter is not
                its first, so the caller cannot pass it first.
        """
        skipped = self._context_slot if context is None else None
        if skipped is not None and skipped is not self._slots[0]:
            raise UserError(
                f"FuncSchema '{self.name}': the context parameter '{skipped.name}' is not the "
                "first parameter, so it cannot be passed first; call "
                "to_call_args(data, context) to have it placed"
            )
        values = data.__dict__
        if self._by_keyword:
            kwargs = dict(values)
            if self._context_slot is not None and skipped is None:
                kwargs[self._context_slot.name] = context
            return [], kwargs
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for slot in self._slots:
            if slot is skipped:
                continue
            value: Any = context if slot is self._context_slot else values[slot.attr]
            if slot.how == "*":
                args.extend(value)
            elif slot.how == "**":
                self._check_spread(slot.name, value)
                kwargs.update(value)
            elif slot.how == "position":
                args.append(value)
            else:
                kwargs[slot.name] = value
        return args, kwargs

    def _check_spread(self, name: str, values: Mapping[str, object]) -> None:
        """Refuse `**kwargs` keys that name the function's own parameters (no call has both).

        Only parameters a keyword can reach clash: a positional-only parameter's name, or
        `*args`'s, is an ordinary key of `**kwargs` (`def f(a, /, **kw)` takes `f(1, a=2)`).
        """
        clash = sorted(set(values) & self._keyword_names())
        if clash:
            problems = [
                f"{name}.{key}: '{key}' is a parameter of its own; pass it there" for key in clash
            ]
            raise ToolArgumentsError(self.name, problems)

    def _keyword_names(self) -> set[str]:
        """The names of the parameters a call can pass by keyword."""
        kinds = (_P.POSITIONAL_OR_KEYWORD, _P.KEYWORD_ONLY)
        return {p.name for p in self.signature.parameters.values() if p.kind in kinds}


def function_schema(
    func: Callable[..., object],
    docstring_style: DocstringStyle | None = None,
    name_override: str | None = None,
    description_override: str | None = None,
    use_docstring_info: bool = True,
    strict_json_schema: bool = True,
) -> FuncSchema:
    """Read a function's signature and docstring into a `FuncSchema`.

    Args:
        func: The function (sync or async) to describe.
        docstring_style: "google", "numpy" or "sphinx"; None detects it.
        name_override: The tool name to use instead of the function's name.
        description_override: The description to use instead of the docstring's.
        use_docstring_info: Whether to take descriptions from the docstring.
        strict_json_schema: Whether to rewrite the schema for OpenAI's strict mode.

    Returns:
        The schema, the arguments model and how to call the function.

    Raises:
        UserError: If the function cannot become a tool; the message lists every problem.
    """
    schema = deferred_function_schema(
        func, docstring_style, name_override, description_override, use_docstring_info,
        strict_json_schema,
    )  # fmt: skip
    _complete(schema)
    return schema


def deferred_function_schema(
    func: Callable[..., object],
    docstring_style: DocstringStyle | None = None,
    name_override: str | None = None,
    description_override: str | None = None,
    use_docstring_info: bool = True,
    strict_json_schema: bool = True,
) -> FuncSchema:
    """`function_schema`, with the model and JSON schema built on first read when they can wait.

    The signature, the annotations and the docstring are checked at once, so a function
    that cannot become a tool fails here. The pydantic model, the JSON schema and the
    strict rewrite (most of the cost) wait for their first use, but only when every
    parameter's type and default are ones they cannot fail on (plain JSON types, lists,
    unions and literals of them); otherwise they are built here too, so that their errors
    still come at decoration. A plain signature's schema is then written directly
    (`_plain_schema`) on the first read of `params_json_schema`; its model is built on the
    first call or read of `params_pydantic_model`.

    Args:
        func: The function (sync or async) to describe.
        docstring_style: "google", "numpy" or "sphinx"; None detects it.
        name_override: The tool name to use instead of the function's name.
        description_override: The description to use instead of the docstring's.
        use_docstring_info: Whether to take descriptions from the docstring.
        strict_json_schema: Whether to rewrite the schema for OpenAI's strict mode.

    Returns:
        The schema; its model and JSON schema possibly not built yet.

    Raises:
        UserError: If the function cannot become a tool; the message lists every problem.
    """
    builder = _SchemaBuilder(func, name_override, strict=strict_json_schema)
    doc = _documentation(func, docstring_style) if use_docstring_info else None
    docs = doc.param_descriptions if doc else {}
    fields, slots, context_slot = builder.fields(docs)
    plain = _all_plain(fields)
    pending = _Pending(builder, fields, plain=plain)
    if not plain:  # pydantic or the strict rules may refuse it: find out now
        pending.model()
    schema = FuncSchema(
        name=builder.tool_name,
        description=description_override or (doc.description if doc else None),
        params_pydantic_model=cast("type[BaseModel]", None),
        params_json_schema={},
        signature=builder.signature,
        takes_context=context_slot is not None,
        strict_json_schema=strict_json_schema,
        _slots=slots,
        _context_slot=context_slot,
        _findings=tuple(builder.findings(docs, fields, pending.built_model, context_slot)),
    )
    defer(schema, *_MODEL_FIELDS, *_SCHEMA_FIELDS)
    vars(schema)[_PENDING] = pending
    if not plain:
        _complete(schema)
    return schema


class _Pending:
    """What `deferred_function_schema` left for later: the arguments model and the schema.

    They are built apart: a plain signature's JSON schema is written directly
    (`_plain_schema`), so reading a tool's schema does not build the model, which waits
    for the first call (or read of `params_pydantic_model`).
    """

    def __init__(
        self, builder: _SchemaBuilder, fields: dict[str, tuple[object, FieldInfo]], *, plain: bool
    ) -> None:
        self.builder = builder
        self.fields = fields
        self.plain = plain
        self.built_model: type[BaseModel] | None = None
        self.validator: SchemaValidator | None = None
        self.written = plain  # whether `plain_fields_validator` may write the validator

    def plain_validator(self) -> SchemaValidator | None:
        """The fields validator of a plain signature, written without its model; or None."""
        if self.validator is None and self.written:
            title = _model_name(self.builder.tool_name)
            self.validator = plain_fields_validator(title, self.fields, closed=self.builder.closed)
            self.written = self.validator is not None  # else: the model's validator it is
        return self.validator

    def model(self) -> type[BaseModel]:
        if self.built_model is None:
            config = _STRICT_CONFIG if self.builder.closed else _LOOSE_CONFIG
            self.built_model = self.builder.create_model(self.fields, config)
        return self.built_model

    def json_schema(self) -> tuple[JsonSchema, ArgumentAdapters | None]:
        builder = self.builder
        if self.plain:
            title = _model_name(builder.tool_name)
            loose = plain_json_schema(title, self.fields, closed=builder.closed)
            if loose is not None:
                return (strict_plain_schema(loose) if builder.strict else loose), None
        loose = builder.json_schema(self.model())
        return builder.make_strict(loose, strict_json_schema=builder.strict)


def plain_validator(schema: FuncSchema) -> SchemaValidator | None:
    """The fields validator of a plain signature whose model is not built yet; else None.

    What the model's fields validator would be (`_plain_validator`), without building the
    model: a tool's first call needs only this. None once the model is built (its own
    validator is used then), for a signature that is not plain, and for a schema that
    undoes strict-mode rewrites of the arguments.

    Args:
        schema: The function's schema.

    Returns:
        The validator, or None.
    """
    values = vars(schema)
    pending: _Pending | None = values.get(_PENDING)
    if pending is None or "params_pydantic_model" in values or schema.adapts_arguments:
        return None
    return pending.plain_validator()


_MODEL_FIELDS = ("params_pydantic_model",)
_SCHEMA_FIELDS = ("params_json_schema", "_adapters")
# What builds the deferred fields, kept in the instance's `__dict__` beside them (where
# `core._deferred` reads and writes them) and dropped once the last of them is built.
_PENDING = "_pending"


def _complete(schema: FuncSchema) -> None:
    """Build all that `deferred_function_schema` left for later (again: nothing happens)."""
    _complete_schema(schema)
    _complete_model(schema)


def _complete_model(schema: FuncSchema) -> None:
    values = vars(schema)
    pending: _Pending | None = values.get(_PENDING)
    if pending is not None and "params_pydantic_model" not in values:
        values["params_pydantic_model"] = pending.model()
        _release(schema)


def _complete_schema(schema: FuncSchema) -> None:
    values = vars(schema)
    pending: _Pending | None = values.get(_PENDING)
    if pending is not None and "params_json_schema" not in values:
        values["params_json_schema"], values["_adapters"] = pending.json_schema()
        _release(schema)


def _release(schema: FuncSchema) -> None:
    """Drop what built the deferred fields once every one of them is built."""
    values = vars(schema)
    if all(name in values for name in (*_MODEL_FIELDS, *_SCHEMA_FIELDS)):
        values[_PENDING] = None


deferred_fields(FuncSchema, _complete_model, *_MODEL_FIELDS)
deferred_fields(FuncSchema, _complete_schema, *_SCHEMA_FIELDS)


def _documentation(func: Callable[..., object], style: DocstringStyle | None) -> FuncDocumentation:
    """What the docstrings say; for a callable object, `__call__`'s fills in for its class's."""
    target = unwrapped(func)
    doc = generate_func_documentation(target, style)
    if inspect.isroutine(target) or inspect.isclass(target):
        return doc
    call = generate_func_documentation(type(target).__call__, style)
    return FuncDocumentation(
        doc.name,
        doc.description or call.description,
        doc.param_descriptions or call.param_descriptions,
    )


class _SchemaBuilder:
    """Collects a function's problems while building its arguments model."""

    def __init__(
        self, func: Callable[..., object], name_override: str | None, *, strict: bool
    ) -> None:
        self.where = describe_callable(func)
        self.func = func
        self.strict = strict
        self.problems: list[str] = []
        self.tool_name = name_override or default_name(func)
        if not self.tool_name or self.tool_name == "<lambda>":
            self._fail(["it has no usable name. Pass name_override='...'"])
        if strict:  # a loose tool's name is only warned about (see _lints)
            # A name taken from the function (or its class) is fixed with name_override.
            self.problems.extend(
                f"{v.message}; fix: {v.fix}"
                if name_override
                else f"{v.message}. Pass name_override='...' with 1 to 64 letters, digits, "
                "'_' or '-'"
                for v in check_tool_name(self.tool_name)
            )
        self.signature = without_bound_keywords(_signature(func, self.where), func)
        # A loose schema ignores keys it does not name, except beside `**kwargs`: there a
        # key meant for it but sent flat would be dropped unseen, so it is refused instead.
        self.closed = strict or any(
            p.kind is _P.VAR_KEYWORD for p in self.signature.parameters.values()
        )
        self.bound = bound_parameters(func, self.signature)
        refuse_unbound_method(self.signature, func)
        self.hints = _type_hints(func, self.where)

    def fields(
        self, docs: dict[str, str]
    ) -> tuple[dict[str, tuple[object, FieldInfo]], tuple[_Slot, ...], _Slot | None]:
        fields: dict[str, tuple[object, FieldInfo]] = {}
        slots: list[_Slot] = []
        context_slot: _Slot | None = None
        last_positional = _last_positional_index(self.signature)
        for index, param in enumerate(self.signature.parameters.values()):
            annotation = self.hints.get(param.name, _P.empty)
            slot = _Slot(_attr_name(param.name), param.name, _how(param, index <= last_positional))
            slots.append(slot)
            if _is_context_annotation(annotation):
                context_slot = self._check_context(param, context_slot, slot)
                continue
            definition = self._param_field(param, annotation, docs.get(param.name))
            if definition is not None:
                fields[slot.attr] = definition
        self._raise_if_problems()
        for slot in slots:
            if slot.name in _VALUE_ATTRIBUTES and slot.attr in fields:
                warn_at(self.func, self._shadowing(slot), UserWarning)
        return fields, tuple(slots), context_slot

    def _shadowing(self, slot: _Slot) -> str:
        return (
            f"{self.where}: parameter '{slot.name}' has the name of a pydantic BaseModel "
            f"attribute. The tool works as written (its field is '{slot.attr}', aliased "
            f"'{slot.name}'), but on an instance of its params_pydantic_model, .{slot.name} "
            "is pydantic's attribute, not the argument: read the arguments through "
            "to_call_args or model_dump(by_alias=True), or rename the parameter"
        )

    def json_schema(self, model: type[BaseModel]) -> JsonSchema:
        try:
            return model.model_json_schema()
        except Exception as error:
            self._fail(
                [
                    f"pydantic could not write the arguments' JSON schema ({type(error).__name__}: "
                    f"{error}); a default value shaped like a schema (with '$ref' or '$defs' "
                    "keys) is one known cause"
                ]
            )

    def make_strict(
        self, loose: JsonSchema, *, strict_json_schema: bool
    ) -> tuple[JsonSchema, ArgumentAdapters | None]:
        if not strict_json_schema:
            return loose, None
        result = to_strict_schema(loose, adapters=True)
        self.problems.extend(describe_problems(loose, result.problems, "strict_mode=False"))
        self._raise_if_problems()
        violations = check_strict_schema(result.schema)
        self.problems.extend(describe_violations(result.schema, violations))
        self._raise_if_problems()
        return result.schema, compile_adapters(result.schema, result.adapters)

    def findings(
        self,
        docs: dict[str, str],
        fields: dict[str, tuple[object, FieldInfo]],
        model: type[BaseModel] | None,
        context: _Slot | None,
    ) -> list[Finding]:
        if model is not None:
            described = {
                info.alias or attr for attr, info in model.model_fields.items() if info.description
            }
        else:  # plain fields: the description is the field's own (no FieldInfo in Annotated)
            described = {
                info.alias or attr for attr, (_, info) in fields.items() if info.description
            }
        return parameter_findings(
            self.tool_name,
            self.signature,
            self.hints,
            {name: text for name, text in docs.items() if name not in self.bound},
            described,
            context.name if context else None,
        )

    def _check_context(self, param: _P, current: _Slot | None, slot: _Slot) -> _Slot:
        if current is not None:
            self.problems.append(
                f"parameter '{param.name}' is a second context parameter (the first is "
                f"'{current.name}'); a tool receives one RunContextWrapper/ToolContext: "
                "remove one"
            )
        if param.kind in (_P.VAR_POSITIONAL, _P.VAR_KEYWORD):
            self.problems.append(
                f"parameter '{param.name}' is variadic but annotated as a context; "
                "declare the context as a plain parameter"
            )
        return current or slot

    def _param_field(
        self, param: _P, annotation: object, doc: str | None
    ) -> tuple[object, FieldInfo] | None:
        if annotation is _P.empty and param.kind is _P.VAR_KEYWORD and not self.strict:
            annotation = Any  # a loose schema holds any value; strict mode has no plain form
        elif annotation is _P.empty:
            annotation = _type_of_unannotated(param)
        annotation = fix_typeddicts(annotation)
        if param.kind is _P.VAR_POSITIONAL:
            return self._var_positional_field(param, annotation, doc)
        if param.kind is _P.VAR_KEYWORD:
            return self._var_keyword_field(param, annotation, doc)
        return _field(param, annotation, doc)

    def _var_positional_field(
        self, param: _P, annotation: object, doc: str | None
    ) -> tuple[object, FieldInfo] | None:
        if get_origin(annotation) is Unpack:
            unpacked = get_args(annotation)[0]
            items = get_args(unpacked)
            if get_origin(unpacked) is not tuple or len(items) != 2 or items[1] is not Ellipsis:
                self.problems.append(
                    f"parameter '*{param.name}' is a fixed-length tuple of positional arguments, "
                    "which a tool cannot receive; declare them as named parameters"
                )
                return None
            annotation = items[0]
        return _field(param, list[annotation], doc, default_factory=list)

    def _var_keyword_field(
        self, param: _P, annotation: object, doc: str | None
    ) -> tuple[object, FieldInfo] | None:
        if get_origin(annotation) is Unpack and is_typeddict(get_args(annotation)[0]):
            return _field(param, get_args(annotation)[0], doc, default_factory=dict)
        return _field(param, dict[str, annotation], doc, default_factory=dict)

    def create_model(
        self, fields: dict[str, tuple[object, FieldInfo]], config: ConfigDict
    ) -> type[BaseModel]:
        try:
            return create_model(
                _model_name(self.tool_name), __config__=config, **cast("dict[str, Any]", fields)
            )
        except (pydantic.PydanticSchemaGenerationError, pydantic.PydanticUserError, TypeError):
            self._report_unsupported_types(fields)
            raise  # only reached when no single field explains the failure

    def _report_unsupported_types(self, fields: dict[str, tuple[object, FieldInfo]]) -> None:
        for attr, (annotation, info) in fields.items():
            reason = _pydantic_rejection(annotation)
            if reason is not None:
                self.problems.append(
                    f"parameter '{info.alias or attr}' has a type pydantic cannot validate "
                    f"({_type_name(annotation)}): {reason}; use a JSON-friendly type such as "
                    "a TypedDict, dataclass or pydantic model"
                )
        self._raise_if_problems()

    def _raise_if_problems(self) -> None:
        if self.problems:
            self._fail(self.problems)

    def _fail(self, problems: list[str]) -> NoReturn:
        lines = "\n".join(f"  - {problem}" for problem in problems)
        raise UserError(f"Cannot make a tool from function {self.where}:\n{lines}")


_PLAIN_TYPES = frozenset({str, int, float, bool, NoneType})
_PLAIN_DEFAULTS = (str, int, float, bool, NoneType)
# Far below the strict-mode limits (properties, enum values, characters, nesting):
# a plain signature within them cannot break a rule.
_PLAIN_MAX_FIELDS = 100
_PLAIN_MAX_LITERALS = 200
_PLAIN_MAX_DEPTH = 4


def _all_plain(fields: dict[str, tuple[object, FieldInfo]]) -> bool:
    """Whether pydantic and the strict rules surely accept these fields, so they can wait.

    Plain: `str`, `int`, `float`, `bool`, `None`, lists and unions of plain types,
    literals of short strings, ints and bools, `Annotated` with text only; defaults of
    those scalar types. Anything else is built at decoration, where its errors belong.
    """
    if len(fields) > _PLAIN_MAX_FIELDS:
        return False
    literals: list[object] = []
    for annotation, info in fields.values():
        default = info.default
        if default is not PydanticUndefined and type(default) not in _PLAIN_DEFAULTS:
            return False
        if info.default_factory not in (None, list) or not _is_plain(annotation, literals, 0):
            return False
    return len(literals) <= _PLAIN_MAX_LITERALS


def _is_plain(annotation: object, literals: list[object], depth: int) -> bool:
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is None:
        return isinstance(annotation, type) and annotation in _PLAIN_TYPES
    if depth > _PLAIN_MAX_DEPTH:
        return False
    if origin is Literal:
        literals.extend(args)
        return all(
            type(arg) in (int, bool) or (type(arg) is str and len(arg) <= 64) for arg in args
        )
    if origin is Annotated:  # args: the annotated type, then its metadata
        return all(type(meta) is str for meta in args[1:]) and _is_plain(args[0], literals, depth)
    if origin is list or origin is Union or origin is UnionType:
        return bool(args) and all(_is_plain(arg, literals, depth + 1) for arg in args)
    return False


def _model_name(tool_name: str) -> str:
    """The arguments model's name, and so its JSON schema's title."""
    return f"{tool_name}_args"


def _how(param: _P, before_positional: bool) -> Literal["position", "keyword", "*", "**"]:
    if param.kind is _P.VAR_POSITIONAL:
        return "*"
    if param.kind is _P.VAR_KEYWORD:
        return "**"
    return "position" if before_positional else "keyword"


def _field(
    param: _P,
    annotation: object,
    doc: str | None,
    default_factory: Callable[[], object] | None = None,
) -> tuple[object, FieldInfo]:
    """The field's type and settings: default, alias, and the description that wins.

    A docstring description beats one from `Field(description=...)`, which beats
    `Annotated[T, "text"]`. A `Field(...)` default moves into `Annotated` (without
    its default) so that its constraints stay and a later description can win.
    """
    settings: dict[str, Any] = {}
    user_field = param.default if isinstance(param.default, FieldInfo) else None
    if user_field is not None:
        annotation = Annotated[annotation, _without_default(user_field)]
        settings["default"] = user_field.default
        settings["default_factory"] = user_field.default_factory
    elif default_factory is not None:
        settings["default_factory"] = default_factory
    else:
        settings["default"] = ... if param.default is _P.empty else param.default
    description = doc or (
        None if _has_field_description(annotation) else _annotated_string(annotation)
    )
    if description:
        settings["description"] = description
    if _attr_name(param.name) != param.name:
        settings["alias"] = param.name
    return annotation, Field(**settings)


def _without_default(info: FieldInfo) -> FieldInfo:
    stripped = copy.copy(info)
    stripped.default = PydanticUndefined
    stripped.default_factory = None
    return stripped


def _has_field_description(annotation: object) -> bool:
    return any(isinstance(meta, FieldInfo) and meta.description for meta in _metadata(annotation))


def _attr_name(name: str) -> str:
    """A field name pydantic accepts for `name`; the parameter name stays the alias."""
    if name.startswith("_") or name in _RESERVED_NAMES:
        return f"param_{name.lstrip('_')}_"
    return name


def _metadata(annotation: object) -> tuple[object, ...]:
    return get_args(annotation)[1:] if get_origin(annotation) is Annotated else ()


def _annotated_string(annotation: object) -> str | None:
    return next((meta for meta in _metadata(annotation) if isinstance(meta, str)), None)


def _type_of_unannotated(param: _P) -> type[object]:
    """An unannotated parameter is a string, or the type of its primitive default."""
    default: object = param.default
    kind = type(default)
    return kind if kind in _PRIMITIVES else str


def _is_context_annotation(annotation: object) -> bool:
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    origin = get_origin(annotation) or annotation
    return isinstance(origin, type) and issubclass(origin, RunContextWrapper)


def _last_positional_index(signature: inspect.Signature) -> int:
    """Parameters up to this index are passed by position (they precede `/` or `*args`)."""
    last = -1
    for index, param in enumerate(signature.parameters.values()):
        if param.kind in (_P.POSITIONAL_ONLY, _P.VAR_POSITIONAL):
            last = index
    return last


def _signature(func: Callable[..., object], where: str) -> inspect.Signature:
    try:
        return inspect.signature(func)
    except (TypeError, ValueError) as error:
        raise UserError(
            f"Cannot make a tool from function {where}: its signature cannot be read ({error}); "
            "wrap it in a plain def or async def"
        ) from error


def _type_hints(func: Callable[..., object], where: str) -> dict[str, object]:
    target = unwrapped(func)
    scope: dict[str, object] = {}
    if inspect.ismethod(target):
        scope = _class_scope(type(target.__self__), target.__name__)
    elif not inspect.isfunction(target):
        scope = _class_scope(type(target), "__call__")
        target = type(target).__call__
    try:
        return _quick_type_hints(target)
    except Exception:
        pass
    try:
        return get_type_hints(target, include_extras=True)
    except NameError:
        pass
    # String annotations (PEP 563) naming a class local to the function that defines
    # the tool: the decorating frame's locals can resolve them, as pydantic does.
    try:
        return get_type_hints(target, localns={**_caller_locals(), **scope}, include_extras=True)
    except NameError as error:
        raise UserError(
            f"Cannot make a tool from function {where}: an annotation cannot be resolved "
            f"({error}); define the type at module level or import it where the function is "
            "defined"
        ) from error


def _quick_type_hints(target: Callable[..., object]) -> dict[str, object]:
    """What `get_type_hints` gives for a plain function, with each string compiled once.

    `get_type_hints` compiles every string annotation anew; tools repeat the same few
    ("str", "int | None") endlessly. Anything unusual (a forward reference nested in a
    generic, a name that does not resolve) raises, and the caller falls back.
    """
    namespace: dict[str, object] = inspect.unwrap(target).__globals__
    hints: dict[str, object] = {}
    for name, value in target.__annotations__.items():
        resolved = eval(_compiled(value), namespace) if isinstance(value, str) else value
        if _has_forward_ref(resolved):
            raise TypeError(name)
        hints[name] = type(None) if resolved is None else resolved
    return hints


@functools.lru_cache(maxsize=1024)
def _compiled(annotation: str) -> CodeType:
    return compile(annotation, "<annotation>", "eval")


def _has_forward_ref(annotation: object) -> bool:
    if isinstance(annotation, str | ForwardRef):
        return True
    return any(_has_forward_ref(arg) for arg in getattr(annotation, "__args__", ()))


def _class_scope(cls: type, method: str) -> dict[str, object]:
    """The names of the class body that defines `method`, where its annotations were written.

    Without `from __future__ import annotations`, Python evaluates a method's annotations
    in that body, so a class nested in it (`Handler.Payload`) resolves: strings do too.
    """
    for owner in cls.__mro__:
        if method in vars(owner):
            return dict(vars(owner))
    return {}


def _caller_locals(depth: int = 12) -> dict[str, object]:
    """The local names of the frames calling into tooluse, innermost first."""
    names: dict[str, object] = {}
    frame = inspect.currentframe()
    for _ in range(depth):
        frame = frame.f_back if frame is not None else None
        if frame is None:
            break
        for name, value in frame.f_locals.items():
            names.setdefault(name, value)
    return names


def _pydantic_rejection(annotation: Any) -> str | None:
    """Pydantic's first line of complaint about a type, or None if it accepts it."""
    try:
        TypeAdapter(annotation)
    except (pydantic.PydanticSchemaGenerationError, pydantic.PydanticUserError) as error:
        return str(error).splitlines()[0].split(". ")[0]
    return None


def _type_name(annotation: object) -> str:
    return getattr(annotation, "__name__", None) or repr(annotation)
