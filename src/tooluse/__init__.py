"""tooluse: turn Python functions into tools an LLM can call.

```python
from tooluse import function_tool

@function_tool
def add(a: int, b: int) -> int:
    \"\"\"Add two numbers.\"\"\"
    return a + b
```
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from . import handoff_filters as handoff_filters
from ._version import __version__ as __version__
from .agents._agent import (
    Agent,
    AgentHooks,
    FunctionToolResult,
    RunHooks,
    StopAtTools,
    ToolsToFinalOutputResult,
)
from .agents._agent_tool import AgentToolStreamEvent
from .agents._handoff_input import HandoffInputData
from .agents._handoff_prompt import RECOMMENDED_PROMPT_PREFIX, prompt_with_handoff_instructions
from .agents._handoffs import Handoff, handoff
from .agents._prompts import DynamicPromptFunction, GenerateDynamicPromptData, Prompt
from .agents._tool_use import ToolsToFinalOutputFunction
from .core._agent_base import AgentBase
from .core._context import (
    AgentHookContext,
    InputTokensDetails,
    OutputTokensDetails,
    RequestUsage,
    RunContextWrapper,
    ToolContext,
    Usage,
)
from .core._items import TResponseInputItem
from .core._retry_settings import ModelRetryBackoffSettings, ModelRetrySettings
from .core._settings import MCPToolChoice, ModelSettings
from .core._state import RunState, ToolApproval
from .exceptions import (
    ContextWindowExceeded,
    InputGuardrailTripwireTriggered,
    MaxTurnsExceeded,
    ModelBehaviorError,
    ModelRetry,
    OutputGuardrailTripwireTriggered,
    RunTimeoutError,
    SessionBusyError,
    ToolArgumentsError,
    ToolInputGuardrailTripwireTriggered,
    ToolOutputGuardrailTripwireTriggered,
    ToolTimeoutError,
    UsageLimitExceeded,
    UserError,
)
from .guardrails._agent_guardrails import (
    GuardrailFunctionOutput,
    InputGuardrail,
    InputGuardrailResult,
    OutputGuardrail,
    OutputGuardrailResult,
    input_guardrail,
    output_guardrail,
)
from .guardrails._tool_guardrails import (
    ToolGuardrailFunctionOutput,
    ToolInputGuardrail,
    ToolInputGuardrailData,
    ToolInputGuardrailResult,
    ToolOutputGuardrail,
    ToolOutputGuardrailData,
    ToolOutputGuardrailResult,
    tool_input_guardrail,
    tool_output_guardrail,
)
from .models import (
    Model,
    ModelResponse,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    set_default_openai_api,
    set_default_openai_client,
    set_default_openai_key,
)
from .models._tool_params import chat_completions_tool_param, responses_tool_param, tool_namespace
from .run._context import ContextPolicy
from .run._limits import UsageLimits
from .run._result import RunResult, RunResultStreaming
from .run._retries import RetryPolicy
from .run._retry_rules import RetryDecision, RetryPolicyContext, retry_policies
from .run._run_items import (
    HandoffCallItem,
    HandoffOutputItem,
    ItemHelpers,
    MCPApprovalRequestItem,
    MCPApprovalResponseItem,
    MCPListToolsItem,
    MessageOutputItem,
    ReasoningItem,
    RunItem,
    RunItemBase,
    RunItems,
    ToolApprovalItem,
    ToolCallItem,
    ToolCallOutputItem,
    ToolOrigin,
    ToolOriginType,
)
from .run._runner import RunConfig, Runner, RunOptions
from .run._stream_events import (
    AgentUpdatedStreamEvent,
    GuardrailResultStreamEvent,
    RawResponsesStreamEvent,
    RunItemStreamEvent,
    RunStreamEvent,
    TextDeltaStreamEvent,
    ToolCallArgumentsDeltaStreamEvent,
    UsageStreamEvent,
)
from .run._tool_error_formatter import ToolErrorFormatter, ToolErrorFormatterArgs
from .schema._agent_output import AgentOutputSchema, AgentOutputSchemaBase
from .schema._docstrings import DocstringStyle, FuncDocumentation, generate_func_documentation
from .schema._function_schema import FuncSchema, function_schema
from .schema._strict import ensure_strict_json_schema
from .schema._strict_rules import StrictViolation, check_strict_schema
from .tools._calls import invoke_function_tool
from .tools._errors import default_tool_error_function
from .tools._function_tool import FunctionTool, ToolErrorFunction, function_tool, tool_output_text
from .tools._hosted import (
    CodeInterpreterTool,
    Computer,
    ComputerTool,
    FileSearchTool,
    HostedMCPTool,
    HostedTool,
    ImageGenerationTool,
    LocalShellTool,
    WebSearchTool,
)
from .tools._mcp_approval import MCPToolApprovalFunctionResult, MCPToolApprovalRequest
from .tools._outputs import (
    ToolOutput,
    ToolOutputFileContent,
    ToolOutputFileContentDict,
    ToolOutputImage,
    ToolOutputImageDict,
    ToolOutputText,
    ToolOutputTextDict,
)
from .tools._returns import Result
from .tools._shell import (
    ShellActionRequest,
    ShellCallData,
    ShellCallOutcome,
    ShellCommandOutput,
    ShellCommandRequest,
    ShellOnApprovalFunctionResult,
    ShellResult,
    ShellTool,
    ShellToolLocalSkill,
)
from .tools._toolsets import FilteredToolset, PrefixedToolset, RenamedToolset, Tool, Toolset
from .tracing._api import (
    CustomSpan,
    Trace,
    custom_span,
    gen_span_id,
    gen_trace_id,
    set_tracing_disabled,
    set_tracing_export_api_key,
    trace,
)
from .tracing._processing import add_trace_processor, set_trace_processors
from .tracing._records import Span, SpanData
from .tracing.processor_interface import TracingProcessor

tool = function_tool
"""openai-agents' other name for `function_tool`."""

__all__ = [  # noqa: RUF022 - in plain sorted order, which tests/test_api.py checks
    "Agent",
    "AgentBase",
    "AgentHookContext",
    "AgentHooks",
    "AgentOutputSchema",
    "AgentOutputSchemaBase",
    "AgentToolStreamEvent",
    "AgentUpdatedStreamEvent",
    "CodeInterpreterTool",
    "Computer",
    "ComputerTool",
    "ContextPolicy",
    "ContextWindowExceeded",
    "CustomSpan",
    "DocstringStyle",
    "DynamicPromptFunction",
    "FileSearchTool",
    "FilteredToolset",
    "FuncDocumentation",
    "FuncSchema",
    "FunctionTool",
    "FunctionToolResult",
    "GenerateDynamicPromptData",
    "GuardrailFunctionOutput",
    "GuardrailResultStreamEvent",
    "Handoff",
    "HandoffCallItem",
    "HandoffInputData",
    "HandoffOutputItem",
    "HostedMCPTool",
    "HostedTool",
    "ImageGenerationTool",
    "InputGuardrail",
    "InputGuardrailResult",
    "InputGuardrailTripwireTriggered",
    "InputTokensDetails",
    "ItemHelpers",
    "LocalShellTool",
    "MCPApprovalRequestItem",
    "MCPApprovalResponseItem",
    "MCPListToolsItem",
    "MCPToolApprovalFunctionResult",
    "MCPToolApprovalRequest",
    "MCPToolChoice",
    "MaxTurnsExceeded",
    "MessageOutputItem",
    "Model",
    "ModelBehaviorError",
    "ModelResponse",
    "ModelRetry",
    "ModelRetryBackoffSettings",
    "ModelRetrySettings",
    "ModelSettings",
    "OpenAIChatCompletionsModel",
    "OpenAIResponsesCompactionArgs",
    "OpenAIResponsesCompactionSession",
    "OpenAIResponsesModel",
    "OutputGuardrail",
    "OutputGuardrailResult",
    "OutputGuardrailTripwireTriggered",
    "OutputTokensDetails",
    "PrefixedToolset",
    "Prompt",
    "RECOMMENDED_PROMPT_PREFIX",
    "RawResponsesStreamEvent",
    "ReasoningItem",
    "RenamedToolset",
    "RequestUsage",
    "Result",
    "RetryDecision",
    "RetryPolicy",
    "RetryPolicyContext",
    "RunConfig",
    "RunContextWrapper",
    "RunHooks",
    "RunItem",
    "RunItemBase",
    "RunItemStreamEvent",
    "RunItems",
    "RunOptions",
    "RunResult",
    "RunResultStreaming",
    "RunSession",
    "RunState",
    "RunStreamEvent",
    "RunTimeoutError",
    "Runner",
    "SQLiteSession",
    "Session",
    "SessionBusyError",
    "SessionSettings",
    "ShellActionRequest",
    "ShellCallData",
    "ShellCallOutcome",
    "ShellCommandOutput",
    "ShellCommandRequest",
    "ShellOnApprovalFunctionResult",
    "ShellResult",
    "ShellTool",
    "ShellToolLocalSkill",
    "Span",
    "SpanData",
    "StopAtTools",
    "StrictViolation",
    "TResponseInputItem",
    "TextDeltaStreamEvent",
    "Tool",
    "ToolApproval",
    "ToolApprovalItem",
    "ToolArgumentsError",
    "ToolCallArgumentsDeltaStreamEvent",
    "ToolCallItem",
    "ToolCallOutputItem",
    "ToolContext",
    "ToolErrorFormatter",
    "ToolErrorFormatterArgs",
    "ToolErrorFunction",
    "ToolGuardrailFunctionOutput",
    "ToolInputGuardrail",
    "ToolInputGuardrailData",
    "ToolInputGuardrailResult",
    "ToolInputGuardrailTripwireTriggered",
    "ToolOrigin",
    "ToolOriginType",
    "ToolOutput",
    "ToolOutputFileContent",
    "ToolOutputFileContentDict",
    "ToolOutputGuardrail",
    "ToolOutputGuardrailData",
    "ToolOutputGuardrailResult",
    "ToolOutputGuardrailTripwireTriggered",
    "ToolOutputImage",
    "ToolOutputImageDict",
    "ToolOutputText",
    "ToolOutputTextDict",
    "ToolTimeoutError",
    "ToolsToFinalOutputFunction",
    "ToolsToFinalOutputResult",
    "Toolset",
    "Trace",
    "TracingProcessor",
    "Usage",
    "UsageLimitExceeded",
    "UsageLimits",
    "UsageStreamEvent",
    "UserError",
    "WebSearchTool",
    "add_trace_processor",
    "chat_completions_tool_param",
    "check_strict_schema",
    "custom_span",
    "default_tool_error_function",
    "ensure_strict_json_schema",
    "function_schema",
    "function_tool",
    "gen_span_id",
    "gen_trace_id",
    "generate_func_documentation",
    "handoff",
    "input_guardrail",
    "invoke_function_tool",
    "output_guardrail",
    "prompt_with_handoff_instructions",
    "responses_tool_param",
    "retry_policies",
    "set_default_openai_api",
    "set_default_openai_client",
    "set_default_openai_key",
    "set_trace_processors",
    "set_tracing_disabled",
    "set_tracing_export_api_key",
    "tool",
    "tool_input_guardrail",
    "tool_namespace",
    "tool_output_guardrail",
    "tool_output_text",
    "trace",
]

if _TYPE_CHECKING:
    from .sessions import (
        OpenAIResponsesCompactionArgs,
        OpenAIResponsesCompactionSession,
        RunSession,
        Session,
        SessionSettings,
        SQLiteSession,
    )

# Sessions load sqlite3 (and are for runs that keep a conversation): imported when first used.
_SESSIONS = frozenset(
    {
        "OpenAIResponsesCompactionArgs",
        "OpenAIResponsesCompactionSession",
        "RunSession",
        "SQLiteSession",
        "Session",
        "SessionSettings",
    }
)


def __getattr__(name: str) -> _Any:
    if name in _SESSIONS:
        from . import sessions  # noqa: PLC0415 - see _SESSIONS

        return getattr(sessions, name)
    raise AttributeError(f"module 'tooluse' has no attribute {name!r}")
