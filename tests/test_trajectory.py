"""Trajectory assertions: what a run did, and failure messages that show the whole run."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tooluse import Agent, Runner, function_tool
from tooluse.testing import FunctionModel, ModelReply, Step, ToolCall, Trajectory


@function_tool
def get_weather(city: str, unit: str = "C") -> str:
    """Get the weather.

    Args:
        city: The city.
        unit: C or F.
    """
    return f"Sunny, 21{unit} in {city}"


@function_tool
def book(city: str, day: str) -> str:
    """Book a trip.

    Args:
        city: The city.
        day: The day.
    """
    return "booked"


def triage_reply(items: list[Any], tools: Any) -> ModelReply | str:
    answered = [i for i in items if i.get("type") == "function_call_output"]
    if not answered:
        return ModelReply(
            tool_calls=[
                ToolCall("get_weather", {"city": "Paris", "unit": "C"}),
                ToolCall("get_weather", {"city": "Oslo", "unit": "C"}),
            ]
        )
    if len(answered) == 2:
        return ModelReply(tool_calls=[ToolCall("book", {"city": "Paris", "day": "Monday"})])
    return ModelReply(tool_calls=[ToolCall("transfer_to_billing", {})])


def run() -> Any:
    billing = Agent("billing", model=FunctionModel(lambda items, tools: "Paid."))
    triage = Agent(
        "triage",
        tools=[get_weather, book],
        handoffs=[billing],
        model=FunctionModel(triage_reply),
    )
    return Runner.run_sync(triage, "Plan my trip")


def test_the_steps_of_a_run() -> None:
    trajectory = Trajectory(run())
    assert trajectory.steps == [
        Step("tool", "get_weather", {"city": "Paris", "unit": "C"}, "Sunny, 21C in Paris"),
        Step("tool", "get_weather", {"city": "Oslo", "unit": "C"}, "Sunny, 21C in Oslo"),
        Step("tool", "book", {"city": "Paris", "day": "Monday"}, "booked"),
        Step("handoff", "billing"),
        Step("message", "", output="Paid."),
    ]
    assert trajectory.handoffs == ["billing"]


def test_the_assertions_that_hold_pass() -> None:
    trajectory = Trajectory(run())
    trajectory.assert_tools_called(["get_weather", "get_weather", "book"])
    trajectory.assert_tools_called({"book", "get_weather"})
    trajectory.assert_tool_called("get_weather", {"city": "Oslo", "unit": "C"})
    trajectory.assert_tool_called("get_weather", {"unit": "C"}, partial=True, times=2)
    trajectory.assert_tool_called("book")
    trajectory.assert_not_called("cancel")
    trajectory.assert_handoffs(["billing"])
    trajectory.assert_final_output("Paid.")


TABLE = """\
the run's trajectory:
    #  step     name                 arguments / output
    1  call     get_weather          {"city": "Paris", "unit": "C"}
       output                        Sunny, 21C in Paris
    2  call     get_weather          {"city": "Oslo", "unit": "C"}
       output                        Sunny, 21C in Oslo
    3  call     book                 {"city": "Paris", "day": "Monday"}
       output                        booked
    4  handoff  billing
    5  message                       Paid.
final output: 'Paid.'"""


CHECKS: list[tuple[Callable[[Trajectory], None], str]] = [
    (
        lambda t: t.assert_tools_called(["get_weather", "book"]),
        "expected the tools called, in order, to be ['get_weather', 'book'], got "
        "['get_weather', 'get_weather', 'book']",
    ),
    (
        lambda t: t.assert_tools_called({"book"}),
        "expected the tools called to be ['book'], got ['book', 'get_weather']",
    ),
    (
        lambda t: t.assert_tool_called("book", {"city": "Oslo"}, partial=True),
        'expected \'book\' to be called with arguments including {"city": "Oslo"} at least once',
    ),
    (
        lambda t: t.assert_tool_called("book", {"city": "Paris"}),
        'expected \'book\' to be called with arguments {"city": "Paris"} at least once',
    ),
    (
        lambda t: t.assert_tool_called("get_weather", times=1),
        "expected 'get_weather' to be called 1 time(s), not 2",
    ),
    (lambda t: t.assert_not_called("book"), "expected 'book' not to be called"),
    (
        lambda t: t.assert_handoffs([]),
        "expected the handoffs [], got ['billing']",
    ),
    (
        lambda t: t.assert_final_output("Done."),
        "expected the final output 'Done.', got 'Paid.'",
    ),
]


@pytest.mark.parametrize(("check", "first_line"), CHECKS)
def test_a_failed_assertion_says_what_and_shows_the_trajectory(
    check: Callable[[Trajectory], None], first_line: str
) -> None:
    with pytest.raises(AssertionError) as caught:
        check(Trajectory(run()))
    assert str(caught.value) == f"{first_line}\n{TABLE}"


def test_items_without_a_result_and_an_empty_run() -> None:
    trajectory = Trajectory([{"type": "web_search_call", "id": "ws_1", "status": "completed"}])
    assert trajectory.steps == [Step("hosted", "web_search_call")]
    empty = Trajectory([])
    with pytest.raises(AssertionError, match=r"\(no steps\)"):
        empty.assert_tool_called("x")


def test_unparsable_arguments_and_long_values_are_shown_cut() -> None:
    items = [
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "not json"},
        {"type": "function_call_output", "call_id": "c1", "output": "x" * 200},
        {"type": "function_call", "call_id": "c2", "name": "g", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c2", "output": '{"assistant": 1}'},
    ]
    trajectory = Trajectory(items)
    assert trajectory.steps[0].arguments == "not json"
    assert trajectory.steps[1] == Step("tool", "g", {}, '{"assistant": 1}')  # not a handoff
    assert "x" * 67 + "..." in trajectory.table()
