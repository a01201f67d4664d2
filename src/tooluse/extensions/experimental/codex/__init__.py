"""The Codex CLI as a function tool: `codex_tool`, its events and items, and `Codex` threads.

openai-agents' `agents.extensions.experimental.codex`, with `tooluse` in place of `agents`:

```python
from tooluse.extensions.experimental.codex import ThreadOptions, codex_tool

tool = codex_tool(sandbox_mode="read-only", default_thread_options=ThreadOptions(model="gpt-5.5"))
```

Each call of the tool runs `codex exec --experimental-json` as a subprocess (the
executable named by `CodexOptions.codex_path_override`, else `CODEX_PATH`, else `codex`
on PATH), reads its JSONL events into the classes here, hands each to `on_stream`, and
returns the thread id and the final response. `import tooluse` does not import this.

Imports: `core`, `exceptions`, `schema`, `tools`; never the run loop.
"""

from ._events import (
    AgentMessageItem,
    CodexProtocolError,
    CommandExecutionItem,
    ErrorItem,
    FileChangeItem,
    FileUpdateChange,
    ItemCompletedEvent,
    ItemStartedEvent,
    ItemUpdatedEvent,
    McpToolCallError,
    McpToolCallItem,
    McpToolCallResult,
    ReasoningItem,
    ThreadError,
    ThreadErrorEvent,
    ThreadEvent,
    ThreadItem,
    ThreadStartedEvent,
    TodoItem,
    TodoListItem,
    TurnCompletedEvent,
    TurnFailedEvent,
    TurnStartedEvent,
    UnknownThreadEvent,
    UnknownThreadItem,
    Usage,
    WebSearchItem,
)
from ._exec import CodexCLIError, CodexNotFoundError
from ._options import (
    ApprovalMode,
    CodexOptions,
    ModelReasoningEffort,
    SandboxMode,
    ThreadOptions,
    TurnOptions,
    WebSearchMode,
)
from ._thread import Codex, Input, LocalImageInput, TextInput, Thread, Turn, UserInput
from ._tool import (
    FAILED_CALL_TEXT,
    CodexToolCall,
    CodexToolOptions,
    CodexToolResult,
    CodexToolStreamEvent,
    codex_failure_text,
    codex_tool,
)

__all__ = [
    "FAILED_CALL_TEXT",
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
]
