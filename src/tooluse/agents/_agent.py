"""`Agent`: instructions, tools and a model, and how the run should treat tool results."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Generic, Literal, cast

from ..core._agent_base import AgentBase
from ..core._context import RunContextWrapper, TContext
from ..core._factories import new_list
from ..core._settings import ModelSettings, as_model_settings
from ..exceptions import UserError
from ..guardrails._agent_guardrails import InputGuardrail, OutputGuardrail
from ..guardrails._checks import check_guardrail_list
from ..models import Model
from ..tools._errors import default_tool_error_function
from ..tools._function_tool import ApprovalPredicate, EnabledPredicate, FunctionTool
from ..tools._hosted import HostedTool
from ..tools._invocation import ToolErrorFunction
from ..tools._toolsets import Tool, Toolset, check_tool_entries, list_tools
from ._agent_tool import AgentToolStreamHandler, OutputExtractor, agent_as_tool
from ._agent_tool_input import StructuredInput, StructuredToolInputBuilder
from ._handoffs import Handoff
from ._hooks import AgentHooksBase, RunHooksBase, check_hooks
from ._list_field import ListField
from ._prompts import (
    DynamicPromptFunction,
    GenerateDynamicPromptData,
    Prompt,
    check_prompt,
    resolve_prompt,
)
from ._tool_use import (
    FunctionToolResult,
    StopAtTools,
    ToolsToFinalOutputResult,
    ToolUseBehavior,
    check_tool_use_behavior,
)

__all__ = [
    "Agent",
    "AgentHooks",
    "FunctionToolResult",
    "RunHooks",
    "StopAtTools",
    "ToolsToFinalOutputResult",
    "as_agent",
]

Instructions = (
    str | Callable[[RunContextWrapper[TContext], "Agent[TContext]"], "str | Awaitable[str]"] | None
)
"""The system prompt: a string, or a function of the run context and the agent, sync or async."""


@dataclass
class Agent(AgentBase, Generic[TContext]):
    """An LLM with instructions and tools, run by `Runner`."""

    name: str
    """The agent's name, for results and handoffs."""
    _: KW_ONLY  # the rest by keyword: positions differ between SDKs, names do not
    instructions: Instructions[TContext] = None
    """The system prompt: a string, or a sync/async function of the run context and agent."""
    tools: ListField[FunctionTool | HostedTool | Toolset] = ListField()  # noqa: RUF009 (a descriptor)
    """The tools it may call: function tools, hosted tools, and toolsets that list tools
    turn by turn (`FilteredToolset`, `PrefixedToolset`, MCP servers, your own)."""
    model: str | Model | None = None
    """A model name, a `Model`, or None for the default."""
    model_settings: ModelSettings = field(default_factory=ModelSettings)
    """Sampling and tool-use settings."""
    handoff_description: str | None = None
    """What this agent does, for agents that hand off to it."""
    # Both lists, as in openai-agents (code appending to them type-checks), that take any
    # sequence, so a `list[Agent]` of the caller's own is accepted (see `ListField`).
    handoffs: ListField[Agent[Any] | Handoff[Agent[Any]]] = ListField()  # noqa: RUF009 (a descriptor)
    """Agents this one may pass the conversation to (an `Agent`, or `handoff(agent, ...)`)."""
    handoff_mode: Literal["tool_per_agent", "one_tool"] = "tool_per_agent"
    """`tool_per_agent`: a `transfer_to_<name>` tool each; `one_tool`: one `transfer` tool
    whose `agent` parameter is an enum of exactly the targets plus "none"."""
    tool_use_behavior: ToolUseBehavior = "run_llm_again"
    """After tool calls: ask the model again (default), stop at the first tool's output,
    stop at some tools (`StopAtTools`), or decide with a function."""
    reset_tool_choice: bool = True
    """After a turn with tool calls, drop a forced `tool_choice` so it cannot loop forever."""
    output_type: Any = None
    """None (or `str`) for a text answer, or a type the answer must be (its strict schema
    is sent); an `AgentOutputSchema(T, strict_json_schema=False)` sends T's schema without
    strict mode, and an `AgentOutputSchemaBase` subclass gives its own schema and parser."""
    hooks: AgentHooks[TContext] | None = None
    """Callbacks for this agent's steps (`AgentHooks`)."""
    input_guardrails: list[InputGuardrail[TContext]] = field(default_factory=new_list)
    """Checks of the run's input (`@input_guardrail`), when this agent starts the run: on its
    first turn, before or beside the first model call, and before any tool runs."""
    output_guardrails: list[OutputGuardrail[TContext]] = field(default_factory=new_list)
    """Checks of the final output (`@output_guardrail`), when this agent gives it."""
    mcp_servers: Sequence[Toolset] = field(default_factory=new_list)
    """MCP servers (`tooluse.mcp`), as openai-agents takes them: offered after `tools`, and
    added to the end of `tools` itself, which is what the run reads. Listing a server in
    `tools` does the same."""
    prompt: Prompt | DynamicPromptFunction | None = None
    """A prompt template stored with OpenAI, sent as the Responses API's `prompt`: a dict
    with its `id`, and optionally `version` and `variables`, or a function of a
    `GenerateDynamicPromptData` returning one each turn (sync or async). Other APIs
    have no prompts, and refuse an agent that has one."""

    def __post_init__(self) -> None:
        owner = f"Agent '{self.name}'"
        self.tools = _with_servers(owner, self.tools, self.mcp_servers)
        check_tool_entries(owner, self.tools)
        check_tool_use_behavior(owner, self.tool_use_behavior)
        check_guardrail_list(owner, "input_guardrails", self.input_guardrails, "input")
        check_guardrail_list(owner, "output_guardrails", self.output_guardrails, "output")
        if self.hooks is not None:
            check_hooks(self.hooks, AgentHooksBase, f"{owner} hooks")
        self.model_settings = as_model_settings(owner, self.model_settings)
        check_prompt(f"{owner}: prompt", self.prompt)

    def as_tool(
        self,
        tool_name: str | None = None,
        tool_description: str | None = None,
        custom_output_extractor: OutputExtractor | None = None,
        max_turns: int = 10,
        failure_error_function: ToolErrorFunction | None = default_tool_error_function,
        is_enabled: bool | EnabledPredicate = True,
        needs_approval: bool | ApprovalPredicate = False,
        *,
        parameters: type[Any] | None = None,
        input_builder: StructuredToolInputBuilder | None = None,
        include_input_schema: bool = False,
        on_stream: AgentToolStreamHandler | None = None,
        run_config: Any = None,
    ) -> FunctionTool:
        """This agent as a tool another agent calls: a nested run, and its answer as text.

        Args:
            tool_name: The tool's name; default the agent's name, made tool-safe.
            tool_description: The tool's description; default `handoff_description`.
            custom_output_extractor: Turns the nested `RunResult` into the tool's output.
            max_turns: The nested run's turn limit.
            failure_error_function: What the calling model gets when the nested run fails.
            is_enabled: Whether the tool is offered: a bool, or a function of the run
                context and the calling agent.
            needs_approval: Whether a call waits for a human's approval before the nested
                run starts: a bool, or a function of the run context and the arguments.
            parameters: A dataclass or pydantic model whose fields are the tool's
                parameters (structured input); None offers one parameter, `input`.
            input_builder: Makes the nested run's input from a structured call's
                arguments (`StructuredToolInputBuilderOptions`); None writes them as JSON
                after a short preamble, with a summary of the fields.
            include_input_schema: Give the nested agent the parameters' whole JSON schema
                instead of the summary.
            on_stream: Receives each event of the nested run, which is then streamed, as
                an `AgentToolStreamEvent` (`event`, `agent`, `tool_call`); sync or async. A
                handler that raises is logged (the exception's type) and the run goes on.
            run_config: The nested run's `RunConfig` (a sandbox agent's tool gives its
                `sandbox` here); None runs it with the calling run's settings.

        Returns:
            A tool with one parameter, `input` (or `parameters`' fields); the calling
            agent keeps control.

        Raises:
            UserError: If `parameters` is not a dataclass or pydantic model class, or
                `input_builder` or `include_input_schema` is given without it.
        """
        structured = None
        if parameters is not None:
            owner = f"Agent '{self.name}'.as_tool"
            structured = StructuredInput(owner, parameters, input_builder, include_input_schema)
        elif input_builder is not None or include_input_schema:
            raise UserError(
                f"Agent '{self.name}'.as_tool: input_builder and include_input_schema shape "
                "structured input: pass parameters=YourModel too"
            )
        tool = agent_as_tool(
            self,
            tool_name,
            tool_description,
            custom_output_extractor,
            max_turns,
            failure_error_function,
            structured,
            on_stream,
            run_config,
        )
        if is_enabled is True and needs_approval is False:
            return tool
        return dataclasses.replace(tool, is_enabled=is_enabled, needs_approval=needs_approval)

    async def get_system_prompt(self, run_context: RunContextWrapper[TContext]) -> str | None:
        """The instructions for a turn with this context, as openai-agents names them.

        Args:
            run_context: The run context (`RunContextWrapper(your_context)` outside a run).

        Returns:
            The system prompt, or None without instructions.
        """
        instructions = self.instructions
        if not callable(instructions):
            return instructions
        made = instructions(run_context, self)
        return await made if inspect.isawaitable(made) else made

    async def get_prompt(self, run_context: RunContextWrapper[TContext]) -> dict[str, Any] | None:
        """The prompt template for a turn with this context, as the Responses API takes it.

        Args:
            run_context: The run context (`RunContextWrapper(your_context)` outside a run).

        Returns:
            The `prompt` parameter (`id`, and `version` and `variables` when set), or
            None without a prompt.

        Raises:
            UserError: If the prompt function returns something that is not a prompt.
        """
        if self.prompt is None:
            return None
        data = GenerateDynamicPromptData(run_context, self)
        return await resolve_prompt(self.prompt, data, f"Agent '{self.name}'")

    async def get_all_tools(self, run_context: RunContextWrapper[Any]) -> list[Tool]:
        """The tools this agent offers in a turn with this context, as openai-agents names it.

        Args:
            run_context: The run context (`RunContextWrapper(your_context)` outside a run).

        Returns:
            The enabled function tools, the hosted tools, and what its toolsets list, in
            order; handoffs are not among them.
        """
        return await list_tools(self.tools, run_context, self)

    def clone(self, **changes: object) -> Agent[TContext]:
        """A copy of this agent with some fields changed.

        Args:
            **changes: New values, by field name.

        Returns:
            The new agent.
        """
        return dataclasses.replace(self, **changes)


def as_agent(value: object) -> Agent[Any] | None:
    """`value` if it is an `Agent` (what the layers below hold as an `AgentBase`), else None.

    Args:
        value: Anything.

    Returns:
        The agent, or None.
    """
    return cast("Agent[Any]", value) if isinstance(value, Agent) else None


class RunHooks(RunHooksBase[TContext, Agent[Any]]):
    """Callbacks at each step of a run; subclass and override the ones you need.

    Give them as `Runner.run(..., hooks=MyHooks())`. Every method is async and does
    nothing by default; docs/running.md gives the order they are called in.
    """


class AgentHooks(AgentHooksBase[TContext, Agent[Any]]):
    """Callbacks for the steps of one agent; set as `Agent(hooks=...)`.

    Every method is async and does nothing by default.
    """


class _ToolsAndServers(list[Tool | Toolset]):
    """`Agent.tools` with its `mcp_servers` after them; `own` is what `tools=` was given."""

    own: Sequence[Tool | Toolset]


def _with_servers(
    owner: str, tools: Sequence[Tool | Toolset], servers: object
) -> Sequence[Tool | Toolset]:
    """The tools, then the MCP servers (a clone's `tools` hold the old servers: left out).

    `servers` is `mcp_servers` as given, checked here.
    """
    own = tools.own if isinstance(tools, _ToolsAndServers) else tools
    if isinstance(servers, (str, Toolset)) or not isinstance(servers, Sequence):
        raise UserError(f"{owner}: mcp_servers must be a list of MCP servers, not {servers!r}")
    entries = cast("Sequence[object]", servers)  # true of any sequence
    toolsets: list[Toolset] = []
    problems: list[str] = []
    for index, entry in enumerate(entries):
        if isinstance(entry, Toolset) and not isinstance(entry, type):
            toolsets.append(entry)
        else:
            problems.append(f"mcp_servers[{index}] is {entry!r}, not an MCP server (a toolset)")
    if problems:
        raise UserError(f"{owner}: " + "; ".join(problems))
    if not toolsets:
        return own
    combined = _ToolsAndServers([*own, *toolsets])
    combined.own = own
    return combined
