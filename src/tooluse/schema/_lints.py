"""Definition-time findings about tools: what `tooluse check` reports and decoration warns about.

Strict-mode violations stop decoration with a `UserError`; the findings here
are softer, and `tooluse check` lists them all. The errors among them (a bad
tool name or an over-long description on a loose tool, which the API would
refuse; a docstring entry for no parameter) are also emitted at decoration as
a `ToolDefinitionWarning`, so a test run with `-W error` fails on them. The
warnings (a parameter without description or annotation) are not: a module of
undocumented tools would print one per parameter at every import.
"""

from __future__ import annotations

import inspect
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..exceptions import ToolDefinitionWarning
from ._callables import unwrapped
from ._strict_rules import check_tool_name

__all__ = [
    "MAX_DESCRIPTION",
    "Finding",
    "duplicate_name_findings",
    "parameter_findings",
    "tool_findings",
    "warn",
    "warn_at",
]

MAX_DESCRIPTION = 1_024
"""Characters a tool description may have."""

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class Finding:
    """One problem with a tool's definition."""

    code: str
    """What kind: `no-description`, `unknown-doc-param`, `unannotated`, `tool-name`,
    `duplicate-name`, `long-description`, or `definition` (the tool failed to build); for
    an MCP server's tools, `mcp-strict`, `mcp-non-strict`, `mcp-renamed`, `mcp-tool-names`
    and `mcp-unavailable`."""
    severity: Severity
    """`error` makes `tooluse check` exit 1 and is warned about at decoration;
    `warning` is only listed by `tooluse check`; `info` (how an MCP server's tool is
    sent) is listed and counts as neither."""
    tool: str
    """The tool's name."""
    message: str
    """What is wrong and how to fix it."""
    parameter: str | None = None
    """The parameter concerned, if any."""
    function: str | None = None
    """The qualified name of the function the tool is made from, where `tooluse check` knows it."""
    file: str | None = None
    """The file that defines that function."""
    line: int | None = None
    """The function's first line (its first decorator's) in that file."""

    def __str__(self) -> str:
        where = f"{self.tool}({self.parameter})" if self.parameter else self.tool
        if self.function and self.function.removesuffix(".__call__").split(".")[-1] != self.tool:
            at = f" at {self.file}:{self.line}" if self.file else ""
            where += f" (function {self.function}{at})"  # renamed: its name is not the tool's
        return f"{where}: {self.severity}: {self.message} [{self.code}]"


def parameter_findings(
    tool: str,
    signature: inspect.Signature,
    hints: Mapping[str, object],
    documented: Iterable[str],
    described: set[str],
    context: str | None,
) -> list[Finding]:
    """Findings about a function's parameters and its docstring's parameter entries.

    Args:
        tool: The tool's name.
        signature: The function's signature.
        hints: Its resolved annotations.
        documented: The parameter names the docstring describes (without stars).
        described: The parameters with a description from any source.
        context: The context parameter's name, if any: it needs no description.

    Returns:
        Unknown docstring entries, then per parameter: unannotated, undescribed.
    """
    names = list(signature.parameters)
    findings = [
        Finding(
            "unknown-doc-param",
            "error",
            tool,
            f"the docstring describes '{name}', which is not a parameter: its description "
            "is dropped; fix the name in the docstring",
        )
        for name in documented
        if name not in names
    ]
    for name in names:
        if name == context:
            continue
        if name not in hints:
            findings.append(
                Finding(
                    "unannotated",
                    "warning",
                    tool,
                    "has no annotation, so the model is asked for a string; annotate it",
                    name,
                )
            )
        if name not in described:
            findings.append(
                Finding(
                    "no-description",
                    "warning",
                    tool,
                    "has no description; document it in the docstring's Args section",
                    name,
                )
            )
    return findings


def tool_findings(name: str, description: str | None, *, strict: bool) -> list[Finding]:
    """Findings about a tool as a whole: its name and the length of its description.

    Args:
        name: The tool's name.
        description: The tool's description.
        strict: Whether the tool is strict (then a bad name already failed decoration).

    Returns:
        The findings, possibly none.
    """
    findings: list[Finding] = []
    if not strict:
        findings.extend(
            Finding("tool-name", "error", name, f"{v.message}; fix: {v.fix}")
            for v in check_tool_name(name)
        )
    if description and len(description) > MAX_DESCRIPTION:
        findings.append(
            Finding(
                "long-description",
                "error",
                name,
                f"the description has {len(description):,} characters, more than "
                f"{MAX_DESCRIPTION:,}; shorten it",
            )
        )
    return findings


def duplicate_name_findings(names: Iterable[str]) -> list[Finding]:
    """Findings for tool names used more than once among tools offered together.

    Args:
        names: The names of the tools one agent (or module) offers.

    Returns:
        One finding per repeated name.
    """
    counts = Counter(names)
    return [
        Finding(
            "duplicate-name",
            "error",
            name,
            f"{count} tools are named '{name}'; the model cannot tell them apart: "
            "rename all but one (name_override='...')",
        )
        for name, count in counts.items()
        if count > 1
    ]


def warn(findings: Iterable[Finding], func: Callable[..., object]) -> None:
    """Emit the errors among findings as `ToolDefinitionWarning`s at the function's definition.

    Warning-severity findings are left to `tooluse check`.

    Args:
        findings: A tool's findings.
        func: The decorated function, whose file and first line the warnings name.
    """
    findings = [finding for finding in findings if finding.severity == "error"]
    for finding in findings:
        warn_at(func, str(finding), ToolDefinitionWarning)


def warn_at(func: Callable[..., object], message: str, category: type[Warning]) -> None:
    """Emit one warning at the function's definition (its file and first line), once.

    Args:
        func: The decorated function.
        message: What to say.
        category: The warning's class.
    """
    target = inspect.unwrap(unwrapped(func))
    code = getattr(target, "__code__", None) or getattr(type(target).__call__, "__code__", None)
    filename = code.co_filename if code else "<unknown>"
    lineno = code.co_firstlineno if code else 0
    module_globals: dict[str, Any] = getattr(target, "__globals__", {})
    registry = module_globals.setdefault("__warningregistry__", {})
    warnings.warn_explicit(message, category, filename, lineno, registry=registry)
