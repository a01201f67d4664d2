"""Scripted models for your tests: no network, no API key.

- `TestModel` calls every offered function tool once, with arguments its schema
  accepts (`value_for_schema`) and, for a tool made by `@function_tool`, that its
  validator accepts where a few other values of a refused field will do; then it
  answers with a summary of their outputs (or, for an agent with an `output_type`,
  with a value made from that schema).
- `FunctionModel(fn)` answers with whatever `fn(messages, tools)` returns: a
  string, or a `ModelReply` with text and/or `ToolCall`s. `current_turn(messages)`
  gives what `fn` should read: the last user message and what followed it.
- Both stream a reply in pieces (`piece_size=` characters each) when the run streams.

```python
from tooluse import Agent, Runner, function_tool
from tooluse.testing import TestModel


@function_tool
def add(a: int, b: int) -> int:
    \"\"\"Add two numbers.\"\"\"
    return a + b


agent = Agent("helper", tools=[add], model=TestModel())
result = Runner.run_sync(agent, "add something")
print(result.final_output)  # {"add": "0"}
```

Imports: any layer up to the run loop; scripted models implement `tooluse.models.Model`.
"""

from ._scripted import (
    FunctionModel,
    ModelReply,
    TestModel,
    ToolCall,
    current_turn,
    value_for_schema,
)

__all__ = [
    "FunctionModel",
    "ModelReply",
    "TestModel",
    "ToolCall",
    "current_turn",
    "value_for_schema",
]
