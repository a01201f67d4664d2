"""Two tools from the tooluse docs; print their schemas with `tooluse schema`.

Run with:
    tooluse schema examples/weather.py
"""

from __future__ import annotations

from typing import Any, TypedDict

from tooluse import RunContextWrapper, function_tool


class Location(TypedDict):
    lat: float
    long: float


@function_tool
async def fetch_weather(location: Location) -> str:
    """Fetch the weather for a given location.

    Args:
        location: The location to fetch the weather for.
    """
    return f"Sunny at {location['lat']:.2f}, {location['long']:.2f}"


@function_tool(name_override="fetch_data")
def read_file(ctx: RunContextWrapper[Any], path: str, directory: str | None = None) -> str:
    """Read the contents of a file.

    Args:
        path: The path to the file to read.
        directory: The directory to read the file from.
    """
    del ctx
    return f"(contents of {directory or '.'}/{path})"
