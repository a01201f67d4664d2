"""The public API: every name exported once, documented, and importable from where users look."""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import re
from typing import get_origin

import pytest

import tooluse
import tooluse.exceptions

EXPECTED_PUBLIC = {
    "ShellActionRequest",
    "ShellCallData",
    "ShellCallOutcome",
    "ShellCommandOutput",
    "ShellCommandRequest",
    "ShellOnApprovalFunctionResult",
    "ShellResult",
    "ShellTool",
    "ShellToolLocalSkill",
    "AgentHookContext",
    "CustomSpan",
    "HandoffCallItem",
    "HandoffInputData",
    "HandoffOutputItem",
    "ItemHelpers",
    "MessageOutputItem",
    "ModelResponse",
    "RECOMMENDED_PROMPT_PREFIX",
    "ReasoningItem",
    "RunItem",
    "RunItemBase",
    "RunItems",
    "AgentOutputSchema",
    "AgentOutputSchemaBase",
    "AgentToolStreamEvent",
    "ToolErrorFormatter",
    "ToolErrorFormatterArgs",
    "Tool",
    "ToolApprovalItem",
    "ToolCallItem",
    "ToolCallOutputItem",
    "ToolOrigin",
    "ToolOriginType",
    "ToolOutputFileContentDict",
    "ToolOutputImageDict",
    "ToolOutputTextDict",
    "ToolsToFinalOutputFunction",
    "Span",
    "SpanData",
    "Trace",
    "TracingProcessor",
    "add_trace_processor",
    "custom_span",
    "gen_span_id",
    "gen_trace_id",
    "prompt_with_handoff_instructions",
    "set_default_openai_key",
    "set_trace_processors",
    "set_tracing_disabled",
    "set_tracing_export_api_key",
    "tool",
    "trace",
    "AgentBase",
    "TextDeltaStreamEvent",
    "TResponseInputItem",
    "FuncDocumentation",
    "ToolTimeoutError",
    "ensure_strict_json_schema",
    "generate_func_documentation",
    "tool_namespace",
    "Toolset",
    "RunOptions",
    "RunHooks",
    "RenamedToolset",
    "PrefixedToolset",
    "FilteredToolset",
    "AgentHooks",
    "Agent",
    "AgentUpdatedStreamEvent",
    "CodeInterpreterTool",
    "Computer",
    "ComputerTool",
    "DocstringStyle",
    "FileSearchTool",
    "FuncSchema",
    "FunctionTool",
    "FunctionToolResult",
    "Handoff",
    "HostedMCPTool",
    "HostedTool",
    "ImageGenerationTool",
    "LocalShellTool",
    "MaxTurnsExceeded",
    "Model",
    "ModelBehaviorError",
    "ModelRetry",
    "ModelSettings",
    "OpenAIChatCompletionsModel",
    "OpenAIResponsesModel",
    "RawResponsesStreamEvent",
    "Result",
    "RunConfig",
    "RunContextWrapper",
    "RunItemStreamEvent",
    "RunResult",
    "RunResultStreaming",
    "RunState",
    "RunStreamEvent",
    "Runner",
    "StopAtTools",
    "StrictViolation",
    "ToolApproval",
    "ToolArgumentsError",
    "ToolContext",
    "ToolErrorFunction",
    "ToolsToFinalOutputResult",
    "Usage",
    "UsageLimitExceeded",
    "UsageLimits",
    "ContextPolicy",
    "ContextWindowExceeded",
    "RequestUsage",
    "InputTokensDetails",
    "OutputTokensDetails",
    "RetryPolicy",
    "MCPToolChoice",
    "MCPToolApprovalFunctionResult",
    "MCPListToolsItem",
    "MCPApprovalRequestItem",
    "MCPApprovalResponseItem",
    "MCPToolApprovalRequest",
    "DynamicPromptFunction",
    "GenerateDynamicPromptData",
    "Prompt",
    "RetryDecision",
    "RetryPolicyContext",
    "retry_policies",
    "ModelRetrySettings",
    "ModelRetryBackoffSettings",
    "RunTimeoutError",
    "GuardrailResultStreamEvent",
    "ToolCallArgumentsDeltaStreamEvent",
    "UsageStreamEvent",
    "UserError",
    "WebSearchTool",
    "chat_completions_tool_param",
    "check_strict_schema",
    "default_tool_error_function",
    "function_schema",
    "function_tool",
    "handoff",
    "invoke_function_tool",
    "responses_tool_param",
    "set_default_openai_api",
    "set_default_openai_client",
    "tool_output_text",
    "GuardrailFunctionOutput",
    "InputGuardrail",
    "InputGuardrailResult",
    "OutputGuardrail",
    "OutputGuardrailResult",
    "input_guardrail",
    "output_guardrail",
    "ToolGuardrailFunctionOutput",
    "ToolInputGuardrail",
    "ToolInputGuardrailData",
    "ToolInputGuardrailResult",
    "ToolOutputGuardrail",
    "ToolOutputGuardrailData",
    "ToolOutputGuardrailResult",
    "tool_input_guardrail",
    "tool_output_guardrail",
    "InputGuardrailTripwireTriggered",
    "OutputGuardrailTripwireTriggered",
    "ToolInputGuardrailTripwireTriggered",
    "ToolOutputGuardrailTripwireTriggered",
    "ToolOutput",
    "ToolOutputText",
    "ToolOutputImage",
    "ToolOutputFileContent",
    "RunSession",
    "SQLiteSession",
    "Session",
    "SessionBusyError",
    "SessionSettings",
    "OpenAIResponsesCompactionArgs",
    "OpenAIResponsesCompactionSession",
}


# Each public module's names: those it had before the wave-3 layout (every one still
# imports from the same module), and those added since.
PUBLIC_MODULES: dict[str, tuple[set[str], set[str]]] = {
    "tooluse.tracing": (
        set(),
        {
            "CustomSpan",
            "Span",
            "SpanData",
            "Trace",
            "TracingExporter",
            "TracingProcessor",
            "add_trace_processor",
            "custom_span",
            "gen_span_id",
            "gen_trace_id",
            "set_trace_processors",
            "set_tracing_disabled",
            "set_tracing_export_api_key",
            "trace",
        },
    ),
    "tooluse.tracing.processor_interface": (set(), {"TracingExporter", "TracingProcessor"}),
    "tooluse.tracing.processors": (set(), {"BatchTraceProcessor", "ConsoleSpanExporter"}),
    "tooluse.models": (
        {
            "DEFAULT_MODEL",
            "Model",
            "ModelRequest",
            "ModelResponse",
            "ModelTransportError",
            "OpenAIChatCompletionsModel",
            "OpenAIResponsesModel",
            "ResponseDone",
            "StreamDelta",
            "StreamEvent",
            "ToolCallArgumentsDelta",
            "default_openai_client",
            "items_to_messages",
            "message_to_items",
            "resolve_model",
            "set_default_openai_api",
            "set_default_openai_client",
        },
        {
            "ModelProvider",
            "OpenAIProvider",
            "TextDelta",
            "AnthropicModel",
            "AnthropicProvider",
            "GeminiModel",
            "GeminiProvider",
            "MultiProvider",
            "is_gpt_5_default",
            "get_default_model",
            "get_default_model_settings",
            "gpt_5_reasoning_settings_required",
            "set_default_openai_key",
        },
    ),
    "tooluse.handoff_filters": ({"remove_all_tools"}, set()),
    "tooluse.testing": (
        {"FunctionModel", "ModelReply", "TestModel", "ToolCall", "value_for_schema"},
        {
            "Cassette",
            "current_turn",
            "CassetteMismatch",
            "CassetteProvider",
            "RecordedEvent",
            "RecordingModel",
            "ReplayModel",
            "ScriptedModel",
            "Step",
            "assistant_message",
            "function_call",
            "tool_outputs",
            "Trajectory",
            "use_cassette",
        },
    ),
    "tooluse.exceptions": (
        {
            "GuardrailTripwireTriggered",
            "InputGuardrailTripwireTriggered",
            "MCPServerError",
            "MaxTurnsExceeded",
            "MissingAPIKey",
            "ModelAPIError",
            "ModelBehaviorError",
            "ModelRetry",
            "OutputGuardrailTripwireTriggered",
            "ResponseIncomplete",
            "RunError",
            "RunStopped",
            "RunTimeoutError",
            "SessionBusyError",
            "ToolArgumentsError",
            "ToolDefinitionWarning",
            "ToolErrorBudgetExceeded",
            "ToolInputGuardrailTripwireTriggered",
            "ToolOutputGuardrailTripwireTriggered",
            "ToolTimeoutError",
            "TooluseError",
            "UsageLimitExceeded",
            "ContextWindowExceeded",
            "UserError",
        },
        set(),
    ),
    "tooluse.mcp": (
        {
            "MCPServer",
            "MCPServerSse",
            "MCPServerSseParams",
            "MCPServerStdio",
            "MCPServerStdioParams",
            "MCPServerStreamableHttp",
            "MCPServerStreamableHttpParams",
            "MCPToolError",
            "RequireApproval",
            "RequireApprovalToolList",
            "ToolFilter",
            "ToolFilterCallable",
            "ToolFilterContext",
            "ToolFilterStatic",
            "Transport",
            "create_static_tool_filter",
            "serve",
            "server_error_message",
            "tool_server",
        },
        set(),
    ),
    "tooluse.sessions": (
        {"RunSession", "SQLiteSession", "Session", "SessionBusyError", "SessionSettings"},
        {
            "AdvancedSQLiteSession",
            "EncryptedEnvelope",
            "EncryptedSession",
            "OpenAIResponsesCompactionArgs",
            "OpenAIResponsesCompactionSession",
        },
    ),
    "tooluse.sessions.sqlalchemy": (
        {"SQLAlchemySession"},
        set(),
    ),
    "tooluse.temporal": (
        {
            "ActivityModel",
            "ActivityOptions",
            "AgentWorkflow",
            "ApproveCall",
            "MODEL_ACTIVITY",
            "ModelProvider",
            "PASSTHROUGH_MODULES",
            "PendingApproval",
            "RejectCall",
            "TemporalBackend",
            "ToolActivityError",
            "ToolFailed",
            "TooluseInterceptor",
            "TooluseTemporalPlugin",
            "UNKNOWN_APPROVAL",
            "model_activity",
            "tool_activity",
        },
        {"ModelSource"},
    ),
    "tooluse.ui": (set(), {"SessionFactory", "ag_ui_app", "vercel_ai_app"}),
    "tooluse.extensions.experimental.codex": (
        set(),
        {
            "AgentMessageItem",
            "ApprovalMode",
            "Codex",
            "CodexCLIError",
            "CodexNotFoundError",
            "CodexOptions",
            "CodexProtocolError",
            "CodexToolCall",
            "CodexToolOptions",
            "CodexToolResult",
            "CodexToolStreamEvent",
            "CommandExecutionItem",
            "ErrorItem",
            "FAILED_CALL_TEXT",
            "FileChangeItem",
            "FileUpdateChange",
            "Input",
            "ItemCompletedEvent",
            "ItemStartedEvent",
            "ItemUpdatedEvent",
            "LocalImageInput",
            "McpToolCallError",
            "McpToolCallItem",
            "McpToolCallResult",
            "ModelReasoningEffort",
            "ReasoningItem",
            "SandboxMode",
            "TextInput",
            "Thread",
            "ThreadError",
            "ThreadErrorEvent",
            "ThreadEvent",
            "ThreadItem",
            "ThreadOptions",
            "ThreadStartedEvent",
            "TodoItem",
            "TodoListItem",
            "Turn",
            "TurnCompletedEvent",
            "TurnFailedEvent",
            "TurnOptions",
            "TurnStartedEvent",
            "UnknownThreadEvent",
            "UnknownThreadItem",
            "Usage",
            "UserInput",
            "WebSearchItem",
            "WebSearchMode",
            "codex_failure_text",
            "codex_tool",
        },
    ),
}


@pytest.mark.parametrize("module_name", sorted(PUBLIC_MODULES))
def test_each_public_module_keeps_its_names(module_name: str) -> None:
    module = importlib.import_module(module_name)
    kept, added = PUBLIC_MODULES[module_name]
    exported = set(getattr(module, "__all__", ()))
    assert kept <= exported, f"{module_name} lost {sorted(kept - exported)}"
    assert exported == kept | added, (
        f"{module_name} exports new names {sorted(exported - kept - added)}"
    )
    for name in exported:
        assert getattr(module, name) is not None


def test_all_is_exactly_the_public_api() -> None:
    assert sorted(tooluse.__all__) == tooluse.__all__
    assert len(set(tooluse.__all__)) == len(tooluse.__all__)
    assert set(tooluse.__all__) == EXPECTED_PUBLIC


def test_version_is_the_installed_one() -> None:
    # `__version__` is a dunder beside `__all__`, not in it: `import *` does not bind it.
    assert isinstance(tooluse.__version__, str)
    assert re.fullmatch(r"\d+\.\d+\.\d+(\.dev\d+|(a|b|rc)\d+)?", tooluse.__version__)
    assert tooluse.__version__ == importlib.metadata.version("tooluse")
    assert "__version__" not in tooluse.__all__


def test_every_public_name_resolves() -> None:
    for name in tooluse.__all__:
        assert getattr(tooluse, name) is not None


def test_nothing_public_is_left_out() -> None:
    public = {
        name
        for name, value in vars(tooluse).items()
        if not name.startswith("_") and not inspect.ismodule(value)
    }
    lazy = {"RunSession", "SQLiteSession", "Session", "SessionSettings"}  # import sqlite3
    lazy |= {"OpenAIResponsesCompactionArgs", "OpenAIResponsesCompactionSession"}
    assert public | lazy == set(tooluse.__all__)


def test_public_objects_have_docstrings() -> None:
    for name in tooluse.__all__:
        value = getattr(tooluse, name)
        if get_origin(value) is not None:
            continue  # a type alias (Python 3.10 calls `Callable[...]` a class)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert inspect.getdoc(value), name


def test_exceptions_module() -> None:
    assert set(tooluse.exceptions.__all__) == {
        "SessionBusyError",
        "MCPServerError",
        "MaxTurnsExceeded",
        "MissingAPIKey",
        "ModelAPIError",
        "ModelBehaviorError",
        "ModelRetry",
        "ResponseIncomplete",
        "RunError",
        "RunStopped",
        "RunTimeoutError",
        "UsageLimitExceeded",
        "ContextWindowExceeded",
        "GuardrailTripwireTriggered",
        "InputGuardrailTripwireTriggered",
        "OutputGuardrailTripwireTriggered",
        "ToolInputGuardrailTripwireTriggered",
        "ToolOutputGuardrailTripwireTriggered",
        "ToolErrorBudgetExceeded",
        "ToolArgumentsError",
        "ToolDefinitionWarning",
        "ToolTimeoutError",
        "TooluseError",
        "UserError",
    }
    assert issubclass(tooluse.UserError, TypeError)
    assert issubclass(tooluse.UserError, tooluse.exceptions.TooluseError)
    assert issubclass(tooluse.ToolArgumentsError, tooluse.ModelBehaviorError)
    assert issubclass(tooluse.ModelBehaviorError, tooluse.exceptions.RunError)
    assert not issubclass(tooluse.ModelRetry, tooluse.exceptions.TooluseError)


def test_openai_agents_names_are_here() -> None:
    # Code written for the OpenAI Agents SDK's tool API moves over by changing the import.
    for name in (
        "function_tool",
        "FunctionTool",
        "function_schema",
        "FuncSchema",
        "RunContextWrapper",
        "StrictViolation",
        "ToolContext",
        "default_tool_error_function",
    ):
        assert hasattr(tooluse, name)


def test_tool_context_is_keyword_constructible() -> None:
    ctx = tooluse.ToolContext(context=1, tool_name="t", tool_call_id="c", tool_arguments="{}")
    assert isinstance(ctx, tooluse.RunContextWrapper)
    assert (ctx.context, ctx.tool_name, ctx.tool_call_id, ctx.tool_arguments) == (1, "t", "c", "{}")
    assert ctx.usage == tooluse.Usage()


def test_usage_adds_up() -> None:
    total = tooluse.Usage(requests=1, input_tokens=10, output_tokens=5, total_tokens=15)
    total.add(tooluse.Usage(requests=1, input_tokens=1, output_tokens=2, total_tokens=3))
    assert total == tooluse.Usage(requests=2, input_tokens=11, output_tokens=7, total_tokens=18)


TEMPORAL_PUBLIC = {
    "ModelSource",
    "MODEL_ACTIVITY",
    "PASSTHROUGH_MODULES",
    "UNKNOWN_APPROVAL",
    "ActivityModel",
    "ActivityOptions",
    "AgentWorkflow",
    "ApproveCall",
    "ModelProvider",
    "PendingApproval",
    "RejectCall",
    "TemporalBackend",
    "ToolActivityError",
    "ToolFailed",
    "TooluseInterceptor",
    "TooluseTemporalPlugin",
    "model_activity",
    "tool_activity",
}


def test_temporal_public_api() -> None:
    import tooluse.temporal  # an extra: imported where it is pinned

    assert len(set(tooluse.temporal.__all__)) == len(tooluse.temporal.__all__)
    assert set(tooluse.temporal.__all__) == TEMPORAL_PUBLIC
    public = {
        name
        for name, value in vars(tooluse.temporal).items()
        if not name.startswith("_") and not inspect.ismodule(value)
    }
    assert public == TEMPORAL_PUBLIC
    for name in TEMPORAL_PUBLIC:
        value = getattr(tooluse.temporal, name)
        if get_origin(value) is not None:
            continue  # a type alias (Python 3.10 calls `Callable[...]` a class)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert inspect.getdoc(value), name
    assert issubclass(tooluse.temporal.ToolActivityError, tooluse.exceptions.RunError)
    plugin = inspect.signature(tooluse.temporal.TooluseTemporalPlugin)
    assert list(plugin.parameters) == ["tools", "agents", "model_provider", "activity_options"]
