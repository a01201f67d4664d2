"""Models for your tests: scripted, or replaying a recording; no network, no API key.

- `TestModel` calls every offered function tool once, with arguments its schema
  accepts (`value_for_schema`) and, for a tool made by `@function_tool`, that its
  validator accepts where a few other values of a refused field will do; then it
  answers with a summary of their outputs (or, for an agent with an `output_type`,
  with a value made from that schema).
- `FunctionModel(fn)` answers with whatever `fn(messages, tools)` returns: a
  string, or a `ModelReply` with text and/or `ToolCall`s. `current_turn(messages)`
  gives what `fn` should read: the last user message and what followed it;
  `tool_outputs(items)` the texts of the tool outputs among them.
- `ScriptedModel(steps)` answers the n-th call with the n-th step: output items made
  with `function_call` and `assistant_message`, a text answer, or an exception to
  raise (openai-agents' `agents.testing` spelling).
- All of them stream a reply in pieces (`piece_size=` characters each) when the run streams.

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

- `RecordingModel(model, path)` records a real model's calls in a JSONL cassette;
  `ReplayModel(path)` answers from it, and raises `CassetteMismatch` naming the first
  path at which a request differs from the recording. `use_cassette` (and the pytest
  plugin's `tooluse_cassette` fixture) wraps every model a run calls.
- `Trajectory(result)` asserts what a run did: the tools called (in order or as a
  set), their arguments (exact or partial), the handoffs, the final output.

Imports: any layer up to the run loop; scripted models implement `tooluse.models.Model`.
"""

from ._cassette import Cassette, CassetteMismatch
from ._recording import (
    CassetteProvider,
    RecordedEvent,
    RecordingModel,
    ReplayModel,
    use_cassette,
)
from ._script import ScriptedModel, assistant_message, function_call
from ._scripted import (
    FunctionModel,
    ModelReply,
    TestModel,
    ToolCall,
    current_turn,
    tool_outputs,
    value_for_schema,
)
from ._trajectory import Step, Trajectory

__all__ = [
    "Cassette",
    "CassetteMismatch",
    "CassetteProvider",
    "FunctionModel",
    "ModelReply",
    "RecordedEvent",
    "RecordingModel",
    "ReplayModel",
    "ScriptedModel",
    "Step",
    "TestModel",
    "ToolCall",
    "Trajectory",
    "assistant_message",
    "current_turn",
    "function_call",
    "tool_outputs",
    "use_cassette",
    "value_for_schema",
]
