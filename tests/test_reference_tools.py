"""The two tools from the reference docs give exactly the documented schemas."""

from __future__ import annotations

from typing import Any, TypedDict

from inline_snapshot import snapshot

from tooluse import RunContextWrapper, function_tool


class Location(TypedDict):
    lat: float
    long: float


async def fetch_weather(location: Location) -> str:
    """Fetch the weather for a given location.

    Args:
        location: The location to fetch the weather for.
    """
    return f"{location}"


def read_file(ctx: RunContextWrapper[Any], path: str, directory: str | None = None) -> str:
    """Read the contents of a file.

    Args:
        path: The path to the file to read.
        directory: The directory to read the file from.
    """
    del ctx
    return f"{directory}/{path}"


def test_fetch_weather_loose() -> None:
    tool = function_tool(strict_mode=False)(fetch_weather)
    assert tool.name == "fetch_weather"
    assert tool.description == "Fetch the weather for a given location."
    assert tool.params_json_schema == {
        "$defs": {
            "Location": {
                "properties": {
                    "lat": {"title": "Lat", "type": "number"},
                    "long": {"title": "Long", "type": "number"},
                },
                "required": ["lat", "long"],
                "title": "Location",
                "type": "object",
            }
        },
        "properties": {
            "location": {
                "$ref": "#/$defs/Location",
                "description": "The location to fetch the weather for.",
            }
        },
        "required": ["location"],
        "title": "fetch_weather_args",
        "type": "object",
    }


def test_fetch_data_loose() -> None:
    tool = function_tool(name_override="fetch_data", strict_mode=False)(read_file)
    assert tool.name == "fetch_data"
    assert tool.description == "Read the contents of a file."
    assert tool.params_json_schema == {
        "properties": {
            "path": {
                "description": "The path to the file to read.",
                "title": "Path",
                "type": "string",
            },
            "directory": {
                "anyOf": [{"type": "string"}, {"type": "null"}],
                "default": None,
                "description": "The directory to read the file from.",
                "title": "Directory",
            },
        },
        "required": ["path"],
        "title": "fetch_data_args",
        "type": "object",
    }


def test_loose_schema_is_pydantics_own() -> None:
    tool = function_tool(strict_mode=False)(fetch_weather)
    from tooluse import function_schema

    schema = function_schema(fetch_weather, strict_json_schema=False)
    assert schema.params_json_schema == schema.params_pydantic_model.model_json_schema()
    assert tool.params_json_schema == schema.params_json_schema


def test_fetch_weather_strict() -> None:
    tool = function_tool(fetch_weather)
    assert tool.strict_json_schema is True
    assert tool.params_json_schema == snapshot(
        {
            "additionalProperties": False,
            "properties": {
                "location": {
                    "additionalProperties": False,
                    "properties": {
                        "lat": {"title": "Lat", "type": "number"},
                        "long": {"title": "Long", "type": "number"},
                    },
                    "required": ["lat", "long"],
                    "title": "Location",
                    "type": "object",
                    "description": "The location to fetch the weather for.",
                }
            },
            "required": ["location"],
            "title": "fetch_weather_args",
            "type": "object",
        }
    )


def test_fetch_data_strict() -> None:
    tool = function_tool(name_override="fetch_data")(read_file)
    assert tool.params_json_schema == snapshot(
        {
            "additionalProperties": False,
            "properties": {
                "path": {
                    "description": "The path to the file to read.",
                    "title": "Path",
                    "type": "string",
                },
                "directory": {
                    "anyOf": [{"type": "string"}, {"type": "null"}],
                    "description": "The directory to read the file from.",
                    "title": "Directory",
                },
            },
            "required": ["path", "directory"],
            "title": "fetch_data_args",
            "type": "object",
        }
    )
