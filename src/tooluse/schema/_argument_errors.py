"""What is wrong with a call's arguments, in words the model can act on.

Each problem names the place in the arguments (`user.tags[2].name`) and what is
wrong, never the value sent: pydantic's messages are used only where their
wording carries no input; the others are replaced or trimmed here.
"""

from __future__ import annotations

import json
from typing import cast, get_args

from pydantic import ValidationError
from pydantic_core import ErrorDetails
from pydantic_core.core_schema import ErrorType

from ..exceptions import ToolArgumentsError

__all__ = ["arguments_error", "format_location", "json_syntax_problem", "not_an_object_problem"]

_KNOWN_ERROR_TYPES = frozenset(get_args(ErrorType))
# Message templates that interpolate the input itself, or text a validator wrote about it.
_ECHOING_ERROR_TYPES = frozenset({"value_error", "assertion_error", "union_tag_invalid"})
# Date and time parsers explain themselves in fixed words ("month value is outside
# expected range of 1-12"); other parsers' reasons may quote the input.
_SELF_EXPLAINING_PARSERS = frozenset(
    {
        "date_parsing",
        "date_from_datetime_parsing",
        "datetime_parsing",
        "datetime_from_date_parsing",
        "time_parsing",
        "time_delta_parsing",
    }
)
_JSON_TYPE_NAMES: dict[type[object], str] = {
    dict: "object",
    list: "array",
    str: "string",
    int: "number",
    float: "number",
    bool: "boolean",
    type(None): "null",
}


def arguments_error(tool_name: str, error: ValidationError) -> ToolArgumentsError:
    """Describe why a tool's arguments failed validation, without echoing them.

    Args:
        tool_name: The tool that was called.
        error: pydantic's validation error for the arguments JSON.

    Returns:
        The error, with one line per problem.
    """
    problems = [_describe(detail) for detail in error.errors(include_url=False)]
    return ToolArgumentsError(tool_name, problems)


def json_syntax_problem(error: json.JSONDecodeError) -> str:
    """The problem line for arguments that are not JSON, with the error's position.

    Args:
        error: The error from `json.loads`.

    Returns:
        The same wording as for pydantic's JSON errors.
    """
    return (
        f"the arguments are not valid JSON: {error.msg} at line {error.lineno} column {error.colno}"
    )


def not_an_object_problem(value: object) -> str:
    """The problem line for arguments that are JSON but not an object.

    Args:
        value: The parsed arguments.

    Returns:
        A line naming the JSON type that was sent instead.
    """
    got = _JSON_TYPE_NAMES.get(type(value), "value")
    return f"expected a JSON object (the arguments by name), not a JSON {got}"


def _describe(detail: ErrorDetails) -> str:
    kind = detail["type"]
    location = format_location(detail["loc"])
    if kind == "json_invalid":
        return f"the arguments are not valid JSON: {detail.get('ctx', {}).get('error')}"
    if kind in ("model_type", "model_attributes_type", "dict_type") and not detail["loc"]:
        return not_an_object_problem(cast(object, detail["input"]))
    if kind == "missing":
        return f"{location}: required field is missing"
    if kind == "extra_forbidden":
        return f"{location}: unexpected field; remove it"
    return f"{location}: {_safe_message(detail)}"


def _safe_message(detail: ErrorDetails) -> str:
    kind = detail["type"]
    if kind in _ECHOING_ERROR_TYPES or kind not in _KNOWN_ERROR_TYPES:
        return f"was rejected by a validation check ({kind})"
    message = detail["msg"]
    reason = detail.get("ctx", {}).get("error")
    suffix = f", {reason}"
    if reason is not None and message.endswith(suffix) and kind not in _SELF_EXPLAINING_PARSERS:
        message = message[: -len(suffix)]  # the parser's reason may quote the input
    return message


def format_location(loc: tuple[int | str, ...]) -> str:
    """A path into the arguments as the model would write it: `user.tags[2].name`.

    Args:
        loc: The keys and indexes from the root.

    Returns:
        The dotted path, or `arguments` for the root.
    """
    if not loc:
        return "arguments"
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text
