"""`tooluse check`: lint the tools of files and modules, for CI and pre-commit."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, cast

from ._function_tool import FunctionTool
from ._lints import Finding, duplicate_name_findings
from ._loading import import_location, module_tools, select_tools
from .exceptions import UserError

__all__ = ["CheckReport", "check_target"]

_FAILED_TOOL = re.compile(
    r"^Cannot make (?:a tool from function '(?:.*\.)?([^.']+)'|FunctionTool '([^']+)')"
)


@dataclass
class CheckReport:
    """What `tooluse check` found in one target."""

    target: str
    """The file or module as given."""
    tools: int = 0
    """How many tools were checked."""
    findings: list[Finding] = field(default_factory=list[Finding])
    """What was found, errors and warnings."""

    @property
    def errors(self) -> int:
        """How many findings are errors."""
        return sum(finding.severity == "error" for finding in self.findings)

    def as_json(self) -> list[dict[str, Any]]:
        """The findings as JSON-ready dicts, each with the target."""
        return [{"target": self.target, **asdict(finding)} for finding in self.findings]


def check_target(target: str) -> CheckReport:
    """Import a file or module (optionally `:NAME`) and lint its tools.

    Args:
        target: `path/to/file.py`, `package.module`, either followed by `:NAME`.

    Returns:
        The report. A tool that fails to define (a `UserError` while importing)
        is reported as `strict`/`definition` errors, one per problem.

    Raises:
        CliError: If the target does not exist, fails to import otherwise, or has no tool.
    """
    location, _, name = target.partition(":")
    report = CheckReport(target)
    try:
        module = import_location(location)
    except UserError as error:
        report.findings.extend(_definition_errors(error))
        return report
    tools = select_tools(module, location, name)
    report.tools = len(tools)
    for tool in tools:
        report.findings.extend(_tool_findings(tool))
    report.findings.extend(duplicate_name_findings(tool.name for tool in module_tools(module)))
    for offered in _tool_lists(vars(module).values()):
        report.findings.extend(duplicate_name_findings(tool.name for tool in offered))
    report.findings = list(dict.fromkeys(report.findings))  # a clash seen twice is one finding
    return report


def _tool_findings(tool: FunctionTool) -> list[Finding]:
    return list(tool._findings)  # pyright: ignore[reportPrivateUsage]


def _tool_lists(values: Iterable[object]) -> Iterator[list[FunctionTool]]:
    """Module-level lists and tuples of tools: what an agent would be offered together."""
    for value in values:
        if isinstance(value, list | tuple):
            items = cast(Sequence[object], value)
            tools = [item for item in items if isinstance(item, FunctionTool)]
            if tools:
                yield tools


def _definition_errors(error: UserError) -> list[Finding]:
    lines = str(error).splitlines()
    match = _FAILED_TOOL.match(lines[0])
    tool = next((group for group in match.groups() if group), "?") if match else "?"
    problems = [line.strip().removeprefix("- ") for line in lines[1:]] or [lines[0]]
    return [Finding("definition", "error", tool, problem) for problem in problems]
