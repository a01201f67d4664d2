"""`tooluse check`: lint the tools of files, folders and modules, for CI and pre-commit.

The MCP servers a module holds are connected to and their tools reported
(`tooluse.mcp._check`), unless told not to; `tooluse.mcp` is imported only then.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import re
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any, Literal, cast

from ..agents._agent import Agent
from ..core._factories import new_list
from ..exceptions import ToolDefinitionWarning, UserError
from ..schema._callables import unwrapped
from ..schema._dialects import Provider, provider_findings
from ..schema._lints import Finding, duplicate_name_findings
from ..schema._strict_rules import check_tool_name
from ..tools._function_tool import FunctionTool
from ..tools._toolsets import toolsets_to_enter
from ._loading import (
    CliError,
    import_location,
    looks_like_path,
    module_tools,
    python_files,
    select_tools,
    shown_path,
    split_target,
    submodule_names,
)

__all__ = ["CheckReport", "Kind", "check_targets"]

_FAILED_TOOL = re.compile(
    r"^Cannot make (?:a tool from function '(?:.*\.)?([^.']+)'|FunctionTool '([^']+)')"
)
# A strict-mode rule broken, as `describe_violations` words it: "where: message [rule]; fix: fix".
_VIOLATION = re.compile(r"(?P<where>.+?): (?P<message>.+) \[(?P<rule>[\w-]+)\]; fix: (?P<fix>.+)")
_BAD_NAME = re.compile(r"the tool name (?P<name>'.*'|\".*\") does not match ")

Kind = Literal["file", "folder", "package", "module"]


@dataclass
class CheckReport:
    """What `tooluse check` found in one file or module."""

    target: str
    """The file or module: as given, or a file found in a folder given."""
    tools: int = 0
    """How many tools were checked."""
    findings: list[Finding] = field(default_factory=new_list)
    """What was found, errors and warnings."""
    problem: str | None = None
    """Why the target could not be checked (it does not exist, fails to import, ...)."""

    @property
    def kind(self) -> Kind:
        """What the target names: a file, a folder (a package's, with `__init__.py`) or a module."""
        location = split_target(self.target)[0]
        if not looks_like_path(location):
            return "module"
        if not Path(location).is_dir():
            return "file"
        return "package" if (Path(location) / "__init__.py").is_file() else "folder"

    @property
    def errors(self) -> int:
        """How many findings are errors."""
        return sum(finding.severity == "error" for finding in self.findings)

    def as_json(self) -> list[dict[str, Any]]:
        """The findings as JSON-ready dicts, each with the target."""
        return [{"target": self.target, **asdict(finding)} for finding in self.findings]


@dataclass
class _Loaded:
    report: CheckReport
    module: ModuleType | None = None
    tools: list[FunctionTool] = field(default_factory=new_list)
    servers: list[tuple[Any, Any]] = field(default_factory=new_list)
    """The MCP servers the module holds, each with the agent that lists it (or None)."""
    agents: list[Agent[object]] = field(default_factory=new_list)
    """The module's agents that list MCP servers."""


def check_targets(
    targets: Sequence[str], *, mcp: bool = True, provider: Provider | None = None
) -> list[CheckReport]:
    """Import files, the `.py` files of folders, and modules, and lint their tools.

    Args:
        targets: `path/to/file.py`, `path/to/folder`, `package.module`, with `:NAME` for one tool.
        mcp: Connect to the MCP servers the modules hold (at module level, or in an
            agent's tools), and report how each of their tools is sent.
        provider: Report, per tool, what this provider would refuse and what its schema
            dialect rewrote; None for the usual findings only.

    Returns:
        One report per file or module, each checked once; a package named as a
        module is checked with all its submodules, as its folder would be. A
        tool imported into several of them is reported once, with the module
        that defines it. A tool that fails to define (a `UserError` while
        importing) is reported as errors, one per problem (`tool-name` for its
        name, else `definition`); a target that cannot be imported at all has
        its `problem` set. An MCP server is checked once, with the first
        target that holds it. With a `provider`, each tool also gets what that
        provider would refuse, and what its schema dialect rewrote
        (`schema/_dialects.py`).
    """
    with warnings.catch_warnings():
        # Decoration warns about a tool's errors; here they are findings, printed once.
        warnings.simplefilter("ignore", ToolDefinitionWarning)
        loaded = _each_module_once([item for each in _expand(targets) for item in _load(each)])
    _each_failure_once([item.report for item in loaded])
    _keep_each_tool_once(loaded)
    reports = [_lint(item) for item in loaded]
    if provider is not None:
        for item in loaded:
            item.report.findings.extend(_for_provider(item.tools, provider))
    if mcp:
        _check_servers(loaded)
    return reports


def _check_servers(loaded: list[_Loaded]) -> None:
    """Connect to every MCP server found, each once, and add what is found to its report."""
    seen: set[int] = set()
    for item in loaded:
        item.servers = [pair for pair in item.servers if _first(id(pair[0]), seen)]
    if not any(item.servers for item in loaded):
        return
    from ..mcp._check import check_servers  # noqa: PLC0415 - only where MCP servers are in use

    checks = iter(check_servers([pair for item in loaded for pair in item.servers]))
    offered: dict[int, list[str]] = {}
    for item in loaded:
        for server, _ in item.servers:
            findings, offered[id(server)] = next(checks)
            item.report.findings.extend(findings)
            item.report.tools += len(offered[id(server)])
    for item in loaded:
        item.report.findings.extend(f for a in item.agents for f in _agent_clashes(a, offered))


def _agent_clashes(agent: Agent[object], offered: dict[int, list[str]]) -> list[Finding]:
    """Two tools of one name among an agent's function tools and its MCP servers' tools."""
    sources: dict[str, list[str]] = {}
    entries: list[Any] = list(agent.tools)
    for entry in entries:
        if isinstance(entry, FunctionTool):
            sources.setdefault(entry.name, []).append("a function tool")
        for name in offered.get(id(entry), []):  # an MCP server checked
            sources.setdefault(name, []).append(f"MCP server {entry.name!r}")
    return [
        Finding(
            "duplicate-name",
            "error",
            name,
            f"agent {agent.name!r} is offered {len(where)} tools of this name, from "
            f"{', '.join(where)}; the model cannot tell them apart: give each MCP server its "
            "own tool_name_prefix, or rename the function tool (name_override='...')",
        )
        for name, where in sources.items()
        if len(where) > 1
    ]


def _first(key: int, seen: set[int]) -> bool:
    first = key not in seen
    seen.add(key)
    return first


def _mcp_servers(module: ModuleType) -> tuple[list[tuple[Any, Any]], list[Agent[object]]]:
    """The MCP servers in the module's agents, at its top level and in its lists; the agents.

    Each server comes with the first agent that lists it (its filter may ask), or None.
    `tooluse.mcp` is never imported here: a module holding a server has imported it.
    """
    client = sys.modules.get("tooluse.mcp._client")
    if client is None:
        return [], []
    kind: type = client.MCPServer
    values: list[object] = list(vars(module).values())
    agents = [cast(Agent[object], value) for value in values if isinstance(value, Agent)]
    found: dict[int, tuple[Any, Any]] = {}
    for agent in agents:
        entries: list[object] = [*agent.tools, *toolsets_to_enter(agent.tools)]
        for entry in entries:
            if isinstance(entry, kind):
                found.setdefault(id(entry), (entry, agent))
    for value in values:
        items: Sequence[object] = (
            cast(Sequence[object], value) if isinstance(value, list | tuple) else (value,)
        )
        for entry in items:
            if isinstance(entry, kind):
                found.setdefault(id(entry), (entry, None))
    users = [agent for agent in agents if any(id(entry) in found for entry in agent.tools)]
    return list(found.values()), users


def _expand(targets: Sequence[str]) -> list[str]:
    """Folders become their `.py` files; a file or module named twice is checked once."""
    expanded: dict[tuple[str, str], str] = {}
    for target in targets:
        location, name = split_target(target)
        folder = Path(location)
        files = python_files(folder) if not name and folder.is_dir() else []
        for each in [str(file) for file in files] or [target]:
            location, name = split_target(each)
            key = str(Path(location).resolve()) if looks_like_path(location) else location
            expanded.setdefault((key, name), each)
    return list(expanded.values())


def _load(target: str) -> list[_Loaded]:
    """The target's module, then, for a package named as a module, each of its submodules."""
    location, name = split_target(target)
    loaded = _Loaded(CheckReport(target))
    if not name and Path(location).is_dir():
        loaded.report.problem = (
            f"{location}: no .py files in this folder (hidden folders, __pycache__ and "
            "virtual environments are skipped); name the files or folders to check"
        )
        return [loaded]
    try:
        loaded.module = import_location(location)
        # Files without tools are normal among those pre-commit passes: only a :NAME must exist.
        tools = select_tools(loaded.module, location, name) if name else None
        loaded.tools = tools or module_tools(loaded.module)
        # One tool asked for (:NAME): its module's servers are not what was asked about.
        loaded.servers, loaded.agents = ([], []) if name else _mcp_servers(loaded.module)
    except UserError as error:
        loaded.report.findings.extend(_definition_errors(error))
    except CliError as error:
        loaded.report.problem = str(error)
    if loaded.module is None or name or looks_like_path(location):
        return [loaded]  # a package's folder was expanded to its files already
    return [loaded, *(item for sub in submodule_names(loaded.module) for item in _load(sub))]


def _each_module_once(loaded: list[_Loaded]) -> list[_Loaded]:
    """Drop a target that names a module already loaded (a file and its module name)."""
    seen: set[tuple[int | str, str]] = set()
    kept: list[_Loaded] = []
    for item in loaded:
        location, name = split_target(item.report.target)
        key = (_file_of(location) if item.module is None else id(item.module), name)
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept


def _file_of(location: str) -> str:
    """The file a target names, found without importing it; the location if not found.

    A file and its module name that both fail to import are then reported once.
    """
    if looks_like_path(location):
        return str(Path(location).resolve())
    try:
        spec = importlib.util.find_spec(location)
    except (ImportError, ValueError):  # its package fails to import, or it is no module name
        return location
    origin = spec.origin if spec is not None else None
    return str(Path(origin).resolve()) if origin else location


def _each_failure_once(reports: list[CheckReport]) -> None:
    """Report one import failure once: targets failing by it refer to the one reporting it.

    A package whose `__init__` fails takes its modules down with it, and a module
    importing a broken one fails the same way: the same message, `at` the same line,
    would repeat for each. The target where the error was raised keeps the message
    (else the first to fail by it); the others say whose failure they share.
    """
    by_detail: dict[str, list[CheckReport]] = {}
    for report in reports:
        if report.problem is not None:
            detail = report.problem.removeprefix(f"{split_target(report.target)[0]}: ")
            by_detail.setdefault(detail, []).append(report)
    for detail, failed in by_detail.items():
        if len(failed) < 2:
            continue
        owner = next((each for each in failed if _raised_in(each, detail)), failed[0])
        for report in failed:
            if report is not owner:
                report.problem = (
                    f"{split_target(report.target)[0]}: importing it fails as "
                    f"{split_target(owner.target)[0]} does (reported there); fix that first"
                )


def _raised_in(report: CheckReport, detail: str) -> bool:
    """Whether the failure's message places it in the report's own file (`at FILE:LINE`)."""
    location = split_target(report.target)[0]
    return looks_like_path(location) and (f"at {location}:" in detail)


def _keep_each_tool_once(loaded: list[_Loaded]) -> None:
    """Give each tool to one target: the module defining it if checked, else the first."""
    owners: dict[int, _Loaded] = {}
    for item in loaded:
        for tool in item.tools:
            owner = owners.setdefault(id(tool), item)
            if _defined_in(item.module, tool) and not _defined_in(owner.module, tool):
                owners[id(tool)] = item
    for item in loaded:
        item.tools = [tool for tool in item.tools if owners[id(tool)] is item]


def _defined_in(module: ModuleType | None, tool: FunctionTool) -> bool:
    try:
        func = tool.__wrapped__
    except AttributeError:  # built by hand: no function to place
        return False
    return module is not None and getattr(func, "__module__", None) == module.__name__


def _lint(item: _Loaded) -> CheckReport:
    report = item.report
    if item.module is None:
        return report
    report.tools = len(item.tools)
    for tool in item.tools:
        place = _defined_at(tool)
        findings = tool.findings
        report.findings.extend(replace(finding, **place) for finding in findings)
    report.findings.extend(duplicate_name_findings(tool.name for tool in module_tools(item.module)))
    for offered in _tool_lists(vars(item.module).values()):
        report.findings.extend(duplicate_name_findings(tool.name for tool in offered))
    report.findings = list(dict.fromkeys(report.findings))  # a clash seen twice is one finding
    return report


def _for_provider(tools: list[FunctionTool], provider: Provider) -> list[Finding]:
    found: list[Finding] = []
    for tool in tools:
        place = _defined_at(tool)
        findings = provider_findings(
            tool.name, tool.params_json_schema, tool.strict_json_schema, provider
        )
        found.extend(replace(finding, **place) for finding in findings)
    return found


def _tool_lists(values: Iterable[object]) -> Iterator[list[FunctionTool]]:
    """Module-level lists and tuples of tools: what an agent would be offered together."""
    for value in values:
        if isinstance(value, list | tuple):
            items = cast(Sequence[object], value)
            tools = [item for item in items if isinstance(item, FunctionTool)]
            if tools:
                yield tools


def _defined_at(tool: FunctionTool) -> dict[str, Any]:
    """The qualified name, file and first line of the function a tool is made from, if any."""
    try:
        func = tool.__wrapped__
    except AttributeError:  # built by hand: no function to place
        return {}
    target: Callable[..., Any] = inspect.unwrap(unwrapped(func))
    if not hasattr(target, "__qualname__"):  # a callable object: its class's __call__
        target = type(target).__call__
    code = getattr(target, "__code__", None)
    place: dict[str, Any] = {"function": target.__qualname__}
    if code is not None:
        place |= {"file": shown_path(code.co_filename), "line": code.co_firstlineno}
    return place


def _definition_errors(error: UserError) -> list[Finding]:
    lines = str(error).splitlines()
    match = _FAILED_TOOL.match(lines[0])
    tool = next((group for group in match.groups() if group), "?") if match else "?"
    problems = [line.strip().removeprefix("- ") for line in lines[1:]] or [lines[0]]
    return [_definition_error(tool, problem) for problem in problems]


def _definition_error(tool: str, problem: str) -> Finding:
    """One problem of a tool that failed to build, coded as the docs' table codes it."""
    violation = _VIOLATION.fullmatch(problem)
    if violation and violation["rule"] != "tool-name":
        where, message, rule, fix = violation.group("where", "message", "rule", "fix")
        problem = f"{where}: {message} (strict-mode rule '{rule}'); fix: {fix}"
    elif violation:  # "the tool: the tool name ... [tool-name]; fix: ..." of a hand-built tool
        problem = f"{violation['message']}; fix: {violation['fix']}"
    return Finding("tool-name" if _is_bad_name(problem) else "definition", "error", tool, problem)


def _is_bad_name(problem: str) -> bool:
    """Whether a problem is exactly what `check_tool_name` says of a tool's name."""
    match = _BAD_NAME.match(problem)
    if match is None:
        return False
    name = ast.literal_eval(match["name"])
    return any(problem == f"{v.message}; fix: {v.fix}" for v in check_tool_name(name))
