"""Descriptions come from google, numpy and sphinx docstrings, detected or forced."""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from inline_snapshot import snapshot

from tooluse import DocstringStyle, UserError, function_schema
from tooluse.schema._docstrings import (  # pyright: ignore[reportPrivateUsage]
    FuncDocumentation,
    _simple_google,  # pyright: ignore[reportPrivateUsage]
    generate_func_documentation,
)

from .conftest import examples


def google(city: str, days: int = 1, *args: str, **kwargs: int) -> str:
    """Forecast the weather.

    Uses the national service.

    Args:
        city: The city to forecast.
        days: How many days ahead.
        *args: Extra cities.

    Keyword Args:
        **kwargs: Tuning knobs.

    Returns:
        The forecast.
    """
    return f"{city}{days}{args}{kwargs}"


def numpy(city: str, days: int = 1, *args: str, **kwargs: int) -> str:
    """Forecast the weather.

    Uses the national service.

    Parameters
    ----------
    city : str
        The city to forecast.
    days : int
        How many days ahead.
    *args : str
        Extra cities.

    Other Parameters
    ----------------
    **kwargs : int
        Tuning knobs.

    Returns
    -------
    str
        The forecast.
    """
    return f"{city}{days}{args}{kwargs}"


def sphinx(city: str, days: int = 1, *args: str, **kwargs: int) -> str:
    """Forecast the weather.

    Uses the national service.

    :param city: The city to forecast.
    :param days: How many days ahead.
    :param args: Extra cities.
    :keyword kwargs: Tuning knobs.
    :returns: The forecast.
    """
    return f"{city}{days}{args}{kwargs}"


STYLES: dict[DocstringStyle, Callable[..., str]] = {
    "google": google,
    "numpy": numpy,
    "sphinx": sphinx,
}
EXPECTED_PARAMS = {
    "city": "The city to forecast.",
    "days": "How many days ahead.",
    "args": "Extra cities.",
    "kwargs": "Tuning knobs.",
}


def descriptions(func: Callable[..., Any], style: DocstringStyle | None = None) -> dict[str, Any]:
    schema = function_schema(func, docstring_style=style, strict_json_schema=False)
    properties = schema.params_json_schema["properties"]
    return {
        "description": schema.description,
        **{name: prop.get("description") for name, prop in properties.items()},
    }


@pytest.mark.parametrize("style", list(STYLES))
@pytest.mark.parametrize("forced", [False, True], ids=["detected", "forced"])
def test_each_style_gives_all_descriptions(style: DocstringStyle, forced: bool) -> None:
    found = descriptions(STYLES[style], style if forced else None)
    assert found == {"description": "Forecast the weather.\n\nUses the national service."} | (
        EXPECTED_PARAMS
    )


@pytest.mark.parametrize("style", list(STYLES))
@pytest.mark.parametrize("forced", [False, True], ids=["detected", "forced"])
def test_each_style_gives_the_same_schema(style: DocstringStyle, forced: bool) -> None:
    schema = function_schema(
        STYLES[style],
        docstring_style=style if forced else None,
        name_override="forecast",
        strict_json_schema=False,
    )
    assert schema.params_json_schema == snapshot(
        {
            "properties": {
                "city": {"description": "The city to forecast.", "title": "City", "type": "string"},
                "days": {
                    "default": 1,
                    "description": "How many days ahead.",
                    "title": "Days",
                    "type": "integer",
                },
                "args": {
                    "description": "Extra cities.",
                    "items": {"type": "string"},
                    "title": "Args",
                    "type": "array",
                },
                "kwargs": {
                    "additionalProperties": {"type": "integer"},
                    "description": "Tuning knobs.",
                    "title": "Kwargs",
                    "type": "object",
                },
            },
            "required": ["city"],
            "title": "forecast_args",
            "type": "object",
            "additionalProperties": False,  # beside **kwargs, flat keys are refused
        }
    )


def test_unknown_style_is_a_user_error() -> None:
    with pytest.raises(
        UserError,
        match=r"docstring_style='rst' for function 'google' is not a docstring style; use one of 'google', 'numpy', 'sphinx'",
    ):
        function_schema(google, docstring_style="rst", strict_json_schema=False)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]


def test_google_section_right_under_the_summary() -> None:
    def tight(city: str) -> str:
        """Forecast the weather.
        Args:
            city: The city to forecast.
        """
        return city

    assert descriptions(tight) == {
        "description": "Forecast the weather.",
        "city": "The city to forecast.",
    }


def test_multiline_parameter_description() -> None:
    def spread(city: str) -> str:
        """Forecast.

        Args:
            city: The city to forecast,
                written in English.
        """
        return city

    assert descriptions(spread)["city"] == "The city to forecast,\nwritten in English."


def test_no_docstring() -> None:
    def bare(city: str) -> str:
        return city

    assert descriptions(bare) == {"description": None, "city": None}


def test_docstring_without_sections() -> None:
    def prose(city: str) -> str:
        """Forecast the weather for a city."""
        return city

    assert descriptions(prose) == {"description": "Forecast the weather for a city.", "city": None}


def test_use_docstring_info_false_ignores_the_docstring() -> None:
    schema = function_schema(google, use_docstring_info=False, strict_json_schema=False)
    assert schema.description is None
    assert all("description" not in p for p in schema.params_json_schema["properties"].values())


def test_description_override_wins() -> None:
    schema = function_schema(google, description_override="Custom.", strict_json_schema=False)
    assert schema.description == "Custom."


def test_griffe_warnings_stay_out_of_the_logs(
    caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    def undocumented_types(a: str) -> str:
        """Summary.

        Args:
            a: Documented without a type.
            ghost: Not a parameter at all.

        Returns:
            Something without a type.
        """
        return a

    griffe_logger = logging.getLogger("griffe")
    with caplog.at_level(logging.DEBUG):
        function_schema(undocumented_types)
    assert caplog.records == []
    assert capsys.readouterr().err == ""
    assert griffe_logger.disabled is False


def test_griffe_logger_restored_when_it_was_disabled() -> None:
    griffe_logger = logging.getLogger("griffe")
    griffe_logger.disabled = True
    try:
        function_schema(google, strict_json_schema=False)
        assert griffe_logger.disabled is True
    finally:
        griffe_logger.disabled = False


@pytest.mark.parametrize(
    ("doc", "style"),
    [
        ("Summary.\n\nArgs:\n    a: x.", "google"),
        ("Summary.", "google"),
        ("Summary.\n\nParameters\n----------\na : int\n    x.", "numpy"),
        ("Summary.\n\n:param a: x.", "sphinx"),
        ("Summary.\n\n:type a: int", "sphinx"),
    ],
)
def test_style_detection(doc: str, style: str) -> None:
    from tooluse.schema._docstrings import detect_docstring_style

    assert detect_docstring_style(doc) == style


def test_forced_style_parses_a_docstring_in_that_style_only() -> None:
    # A numpy docstring read as google finds no parameters (and does not fail).
    found = descriptions(numpy, "google")
    assert found["city"] is None
    assert found == snapshot(
        {
            "description": """\
Forecast the weather.

Uses the national service.

Parameters
----------
city : str
    The city to forecast.
days : int
    How many days ahead.
*args : str
    Extra cities.

Other Parameters
----------------
**kwargs : int
    Tuning knobs.

Returns
-------
str
    The forecast.\
""",
            "city": None,
            "days": None,
            "args": None,
            "kwargs": None,
        }
    )


def test_griffe_is_loaded_by_the_first_docstring_it_reads_not_by_import() -> None:
    code = (
        "import sys, tooluse\n"
        "assert 'griffe' not in sys.modules\n"
        "@tooluse.function_tool\n"
        "def f(x: int) -> int:\n"
        "    '''Echo.\\n\\n    Args:\\n        x: A number.\\n    '''\n"
        "    return x\n"
        "assert 'griffe' not in sys.modules  # the simplest docstrings are read without it\n"
        "assert f.params_json_schema['properties']['x']['description'] == 'A number.'\n"
        "@tooluse.function_tool\n"
        "def g(x: int) -> int:\n"
        "    '''Echo.\\n\\n    Args:\\n        x: A number.\\n\\n    Returns:\\n        x.\\n    '''\n"
        "    return x\n"
        "assert 'griffe' in sys.modules\n"
        "assert g.params_json_schema['properties']['x']['description'] == 'A number.'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# Docstrings near the shape read without griffe, and past it: colons, fences, other
# sections, other headers, indents, types, continuation and blank lines.
PROSE = st.text(st.sampled_from(list("abc XY.,:`*-()")), max_size=12).map(str.rstrip)
HEADERS = st.sampled_from(
    ["Args:", "Arguments:", "Params:", "Parameters:", "Args :", "args:", "Args:  ", "Returns:",
     "Raises:", "Note:", "Keyword Args:", "Other Parameters:", "Example:"]
)  # fmt: skip
NAMES = st.sampled_from(["a", "b_c", "*args", "**kw", "x1", "a (int)", "b(str, optional)", "c "])


def entry(indent: int, name: str, colon: str, text: str) -> str:
    return f"{' ' * indent}{name}{colon}{text}"


def simple(summary: str, header: str, entries: list[str]) -> list[str]:
    return [summary, "", header, *entries]


ENTRIES = st.builds(
    entry,
    st.sampled_from([0, 1, 2, 4, 8]),
    NAMES,
    st.sampled_from([": ", ":", " : ", " "]),
    PROSE,
)
LINES = st.one_of(PROSE, HEADERS, ENTRIES, st.just(""), st.just("```"), st.just("    ```"))
SIMPLE = st.builds(
    simple,
    PROSE,
    st.sampled_from(["Args:", "Arguments:", "Params:", "Parameters:"]),
    st.lists(ENTRIES, max_size=4),
)


def read(doc: str, style: DocstringStyle | None) -> FuncDocumentation:
    def f() -> None:
        pass

    f.__doc__ = doc
    return generate_func_documentation(f, style)


@settings(max_examples=examples(600), deadline=None)
@given(st.one_of(SIMPLE, st.lists(LINES, max_size=10)), st.sampled_from([None, "google"]))
@example(["Search.", "", "```", "", "Args:", "    a: x."], None)  # Args inside a code block
@example(["Search.", "Args:", "    a: x."], None)  # no blank line above the header
@example(["Args:", "    a: x.", "    b: y."], "google")  # the header first
def test_docstrings_read_without_griffe_read_as_griffe_reads_them(
    lines: list[str], style: DocstringStyle | None
) -> None:
    doc = "\n".join(lines)
    fast = read(doc, style)
    with mock.patch("tooluse.schema._docstrings._simple_google", return_value=None):
        assert fast == read(doc, style)


def test_the_simplest_google_docstrings_are_read_without_griffe() -> None:
    simple = "Search.\n\nMore words.\n\nArgs:\n    origin: IATA code.\n    *rest: Others."
    assert _simple_google(simple) == (
        "Search.\n\nMore words.",
        {"origin": "IATA code.", "rest": "Others."},
    )
    assert _simple_google("Search flights.") == ("Search flights.", {})
    for other in [
        "Search: flights.",  # a colon in the prose: perhaps an admonition
        "Search.\n\nArgs:\n    origin: IATA\n        code.",  # a continuation line
        "Search.\n\nArgs:\n    origin (str): IATA code.",  # a type
        "Search.\n\nArgs:\n    origin: IATA code.\n\nReturns:\n    Flights.",
        "Search.\n\nArgs:\n\n    origin: IATA code.",  # a blank line under the header
        "Search.\n\n```\n\nArgs:\n    origin: IATA code.",  # in a code block
    ]:
        assert _simple_google(other) is None
