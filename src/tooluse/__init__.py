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

from ._agent import Agent, FunctionToolResult, StopAtTools, ToolsToFinalOutputResult
from ._agent_base import AgentBase
from ._context import (
    InputTokensDetails,
    OutputTokensDetails,
    RequestUsage,
    RunContextWrapper,
    ToolContext,
    Usage,
)
from ._docstrings import DocstringStyle, FuncDocumentation, generate_func_documentation
from ._function_schema import FuncSchema, function_schema
from ._function_tool import FunctionTool, ToolErrorFunction, function_tool, tool_output_text
from ._guardrails import (
    GuardrailFunctionOutput,
    InputGuardrail,
    InputGuardrailResult,
    OutputGuardrail,
    OutputGuardrailResult,
    input_guardrail,
    output_guardrail,
)
from ._handoffs import Handoff, handoff
from ._hooks import AgentHooks, RunHooks
from ._hosted_tools import (
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
from ._items import TResponseInputItem
from ._limits import UsageLimits
from ._result import RunResult, RunResultStreaming
from ._retries import RetryPolicy
from ._returns import Result
from ._runner import RunConfig, Runner, RunOptions
from ._settings import ModelSettings
from ._state import RunState, ToolApproval
from ._stream_events import (
    AgentUpdatedStreamEvent,
    GuardrailResultStreamEvent,
    RawResponsesStreamEvent,
    RunItemStreamEvent,
    RunStreamEvent,
    ToolCallArgumentsDeltaStreamEvent,
    UsageStreamEvent,
)
from ._strict import ensure_strict_json_schema
from ._strict_rules import StrictViolation, check_strict_schema
from ._tool_errors import default_tool_error_function
from ._tool_guardrails import (
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
from ._tool_outputs import ToolOutput, ToolOutputFileContent, ToolOutputImage, ToolOutputText
from ._tool_params import chat_completions_tool_param, responses_tool_param, tool_namespace
from ._toolsets import FilteredToolset, PrefixedToolset, RenamedToolset, Toolset
from ._version import __version__ as __version__
from .exceptions import (
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
from .models import (
    Model,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    set_default_openai_api,
    set_default_openai_client,
)

__all__ = [
    "Agent",
    "AgentBase",
    "AgentHooks",
    "AgentUpdatedStreamEvent",
    "CodeInterpreterTool",
    "Computer",
    "ComputerTool",
    "DocstringStyle",
    "FileSearchTool",
    "FilteredToolset",
    "FuncDocumentation",
    "FuncSchema",
    "FunctionTool",
    "FunctionToolResult",
    "GuardrailFunctionOutput",
    "GuardrailResultStreamEvent",
    "Handoff",
    "HostedMCPTool",
    "HostedTool",
    "ImageGenerationTool",
    "InputGuardrail",
    "InputGuardrailResult",
    "InputGuardrailTripwireTriggered",
    "InputTokensDetails",
    "LocalShellTool",
    "MaxTurnsExceeded",
    "Model",
    "ModelBehaviorError",
    "ModelRetry",
    "ModelSettings",
    "OpenAIChatCompletionsModel",
    "OpenAIResponsesModel",
    "OutputGuardrail",
    "OutputGuardrailResult",
    "OutputGuardrailTripwireTriggered",
    "OutputTokensDetails",
    "PrefixedToolset",
    "RawResponsesStreamEvent",
    "RenamedToolset",
    "RequestUsage",
    "Result",
    "RetryPolicy",
    "RunConfig",
    "RunContextWrapper",
    "RunHooks",
    "RunItemStreamEvent",
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
    "StopAtTools",
    "StrictViolation",
    "TResponseInputItem",
    "ToolApproval",
    "ToolArgumentsError",
    "ToolCallArgumentsDeltaStreamEvent",
    "ToolContext",
    "ToolErrorFunction",
    "ToolGuardrailFunctionOutput",
    "ToolInputGuardrail",
    "ToolInputGuardrailData",
    "ToolInputGuardrailResult",
    "ToolInputGuardrailTripwireTriggered",
    "ToolOutput",
    "ToolOutputFileContent",
    "ToolOutputGuardrail",
    "ToolOutputGuardrailData",
    "ToolOutputGuardrailResult",
    "ToolOutputGuardrailTripwireTriggered",
    "ToolOutputImage",
    "ToolOutputText",
    "ToolTimeoutError",
    "ToolsToFinalOutputResult",
    "Toolset",
    "Usage",
    "UsageLimitExceeded",
    "UsageLimits",
    "UsageStreamEvent",
    "UserError",
    "WebSearchTool",
    "chat_completions_tool_param",
    "check_strict_schema",
    "default_tool_error_function",
    "ensure_strict_json_schema",
    "function_schema",
    "function_tool",
    "generate_func_documentation",
    "handoff",
    "input_guardrail",
    "output_guardrail",
    "responses_tool_param",
    "set_default_openai_api",
    "set_default_openai_client",
    "tool_input_guardrail",
    "tool_namespace",
    "tool_output_guardrail",
    "tool_output_text",
]

if _TYPE_CHECKING:
    from .sessions import RunSession, Session, SessionSettings, SQLiteSession

# Sessions load sqlite3 (and are for runs that keep a conversation): imported when first used.
_SESSIONS = frozenset({"RunSession", "SQLiteSession", "Session", "SessionSettings"})


def __getattr__(name: str) -> _Any:
    if name in _SESSIONS:
        from . import sessions  # noqa: PLC0415 - see _SESSIONS

        return getattr(sessions, name)
    raise AttributeError(f"module 'tooluse' has no attribute {name!r}")
