"""`Trajectory`: what a run did, as steps to assert on, with the whole run shown on failure.

`Trajectory(result)` reads a run's new items: each function call with its arguments and
output, each handoff (a call whose output names the agent taken over), each hosted tool
call, each message. Its `assert_*` methods raise `AssertionError` with what was expected,
what happened, and the trajectory as a short table.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from typing import Literal

from ..core._items import Item, message_text
from ..run._result import RunResult
from ..schema._strict_rules import JsonValue

__all__ = ["Step", "Trajectory"]

StepKind = Literal["tool", "handoff", "hosted", "message"]
_ROW = "  {:>3}  {:<8} {:<20} {}"
_CELL = 70


@dataclass(frozen=True)
class Step:
    """One thing a run did."""

    kind: StepKind
    """A function tool call, a handoff, a hosted tool call, or a message."""
    name: str
    """The tool called, the agent handed off to, the hosted call's type; "" for a message."""
    arguments: JsonValue = None
    """A tool call's arguments, parsed (their text if they are not JSON)."""
    output: str | None = None
    """A tool call's output, or a message's text; None before a call is answered."""


class Trajectory:
    """The steps of a run, and assertions on them.

    Example:
        ```python
        trajectory = Trajectory(result)
        trajectory.assert_tools_called(["get_weather", "book"])
        trajectory.assert_tool_called("book", {"city": "Paris"}, partial=True)
        ```
    """

    def __init__(self, result: RunResult | Iterable[Item]) -> None:
        """The trajectory of a run's result (or of items, as a run's `new_items`).

        Args:
            result: The run's result, or its items.
        """
        items = list(result.new_items if isinstance(result, RunResult) else result)
        self.steps: list[Step] = _steps(items)
        """The steps, in order."""
        self.final_output: object = result.final_output if isinstance(result, RunResult) else None
        """The run's final output (None for items)."""

    @property
    def tool_calls(self) -> list[Step]:
        """The function tool calls, in order (handoffs are not among them)."""
        return [step for step in self.steps if step.kind == "tool"]

    @property
    def handoffs(self) -> list[str]:
        """The agents handed off to, in order."""
        return [step.name for step in self.steps if step.kind == "handoff"]

    def assert_tools_called(self, expected: Sequence[str] | Set[str]) -> None:
        """Assert which tools were called: in this order (a list), or as a set.

        Args:
            expected: The tools' names: a sequence is compared with the calls in order,
                each call once; a set with the set of tools called, however often.

        Raises:
            AssertionError: If the calls differ.
        """
        called = [step.name for step in self.tool_calls]
        if isinstance(expected, Set):
            if set(called) != set(expected):
                self._fail(
                    f"expected the tools called to be {sorted(expected)}, got {sorted(set(called))}"
                )
        elif called != list(expected):
            self._fail(f"expected the tools called, in order, to be {list(expected)}, got {called}")

    def assert_tool_called(
        self,
        name: str,
        arguments: Mapping[str, JsonValue] | None = None,
        *,
        partial: bool = False,
        times: int | None = None,
    ) -> None:
        """Assert that a tool was called, with these arguments if given.

        Args:
            name: The tool's name.
            arguments: The arguments of one of its calls; None for any.
            partial: Compare only what `arguments` holds (nested objects too), not all of
                the call's arguments.
            times: How many of its calls (with matching arguments) there must be; None
                for at least one.

        Raises:
            AssertionError: If no call (or not `times` calls) matches.
        """
        calls = [step for step in self.tool_calls if step.name == name]
        if arguments is not None:
            wanted = dict(arguments)
            calls = [s for s in calls if _matches(wanted, s.arguments, partial=partial)]
        if len(calls) == times if times is not None else calls:
            return
        how = ""
        if arguments is not None:
            how = f" with {'arguments including' if partial else 'arguments'}"
            how += f" {_json(dict(arguments))}"
        count = "at least once" if times is None else f"{times} time(s), not {len(calls)}"
        self._fail(f"expected {name!r} to be called{how} {count}")

    def assert_not_called(self, name: str) -> None:
        """Assert that a tool was never called.

        Args:
            name: The tool's name.

        Raises:
            AssertionError: If it was.
        """
        if any(step.name == name for step in self.tool_calls):
            self._fail(f"expected {name!r} not to be called")

    def assert_handoffs(self, expected: Sequence[str]) -> None:
        """Assert the handoffs taken, in order.

        Args:
            expected: The names of the agents handed off to.

        Raises:
            AssertionError: If they differ.
        """
        if self.handoffs != list(expected):
            self._fail(f"expected the handoffs {list(expected)}, got {self.handoffs}")

    def assert_final_output(self, expected: object) -> None:
        """Assert the run's final output.

        Args:
            expected: The final output it must equal.

        Raises:
            AssertionError: If it differs.
        """
        if self.final_output != expected:
            self._fail(f"expected the final output {expected!r}, got {self.final_output!r}")

    def table(self) -> str:
        """The steps as a short table: one row each, long values cut."""
        rows = [_ROW.format("#", "step", "name", "arguments / output")]
        for number, step in enumerate(self.steps, start=1):
            if step.kind == "tool":
                rows.append(_ROW.format(number, "call", step.name, _cut(_json(step.arguments))))
                if step.output is not None:
                    rows.append(_ROW.format("", "output", "", _cut(step.output)))
            else:
                rows.append(_ROW.format(number, step.kind, step.name, _cut(step.output or "")))
        if len(rows) == 1:
            rows.append("  (no steps)")
        return "\n".join(row.rstrip() for row in rows)

    def _fail(self, what: str) -> None:
        final = f"\nfinal output: {self.final_output!r}" if self.final_output is not None else ""
        raise AssertionError(f"{what}\nthe run's trajectory:\n{self.table()}{final}")


def _steps(items: list[Item]) -> list[Step]:
    outputs = {
        str(item.get("call_id")): str(item.get("output"))
        for item in items
        if item.get("type") == "function_call_output"
    }
    steps: list[Step] = []
    for item in items:
        kind = item.get("type")
        text = message_text(item)
        if text is not None:
            steps.append(Step("message", "", output=text))
        elif kind == "function_call":
            output = outputs.get(str(item.get("call_id")))
            target = _handoff_target(output)
            name = str(item.get("name"))
            if target is not None:
                steps.append(Step("handoff", target))
            else:
                steps.append(Step("tool", name, _arguments(item.get("arguments")), output))
        elif isinstance(kind, str) and kind.endswith("_call"):
            steps.append(Step("hosted", kind))
    return steps


def _handoff_target(output: str | None) -> str | None:
    """The agent a handoff's output names (`{"assistant": "billing"}`), else None."""
    if output is None or not output.startswith('{"assistant"'):
        return None
    try:
        data: JsonValue = json.loads(output)
    except ValueError:
        return None
    if isinstance(data, dict) and len(data) == 1 and isinstance(data.get("assistant"), str):
        return str(data["assistant"])
    return None


def _arguments(text: object) -> JsonValue:
    if not isinstance(text, str):
        return None
    try:
        parsed: JsonValue = json.loads(text)
    except ValueError:
        return text
    return parsed


def _matches(expected: JsonValue, actual: JsonValue, *, partial: bool) -> bool:
    if not partial:
        return expected == actual
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and _matches(value, actual[key], partial=True)
            for key, value in expected.items()
        )
    return expected == actual


def _json(value: JsonValue) -> str:
    return json.dumps(value, ensure_ascii=False)


def _cut(text: str) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= _CELL else text[: _CELL - 3] + "..."
