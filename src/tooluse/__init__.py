"""tooluse: turn Python functions into tools an LLM can call.

```python
from tooluse import function_tool

@function_tool
def add(a: int, b: int) -> int:
    \"\"\"Add two numbers.\"\"\"
    return a + b
```
"""

from ._context import RunContextWrapper, ToolContext, Usage
from ._docstrings import DocstringStyle
from ._function_schema import FuncSchema, function_schema
from ._function_tool import FunctionTool, ToolErrorFunction, function_tool, tool_output_text
from ._strict_rules import StrictViolation, check_strict_schema
from ._tool_errors import default_tool_error_function
from ._tool_params import chat_completions_tool_param, responses_tool_param
from .exceptions import ModelBehaviorError, ModelRetry, ToolArgumentsError, UserError

__all__ = [
    "DocstringStyle",
    "FuncSchema",
    "FunctionTool",
    "ModelBehaviorError",
    "ModelRetry",
    "RunContextWrapper",
    "StrictViolation",
    "ToolArgumentsError",
    "ToolContext",
    "ToolErrorFunction",
    "Usage",
    "UserError",
    "chat_completions_tool_param",
    "check_strict_schema",
    "default_tool_error_function",
    "function_schema",
    "function_tool",
    "responses_tool_param",
    "tool_output_text",
]
