"""Errors raised by tooluse, and the one a tool raises to talk to the model.

The tree, by who has to act:

```
Exception
├── TooluseError                  base of every error tooluse raises
│   ├── UserError (TypeError)     the developer misused the API: fix the code
│   └── RunError                  something failed while a run was going on
│       ├── MaxTurnsExceeded      the run used all its turns; keeps the conversation
│       └── ModelBehaviorError    the model sent something unusable
│           └── ToolArgumentsError  a tool call's arguments did not validate
├── ModelRetry                    raised by a tool: its message goes to the model
└── Warning
    └── UserWarning
        └── ToolDefinitionWarning  a tool's definition has a likely mistake
```

`UserError` subclasses `TypeError` because nearly every misuse is a function or
a type that tooluse cannot turn into a tool. `ModelRetry` is deliberately not a
`TooluseError`: tooluse never raises it, tools do.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "MaxTurnsExceeded",
    "ModelBehaviorError",
    "ModelRetry",
    "RunError",
    "ToolArgumentsError",
    "ToolDefinitionWarning",
    "TooluseError",
    "UserError",
]


class TooluseError(Exception):
    """Base class of every error raised by tooluse itself."""


class UserError(TooluseError, TypeError):
    """The developer used tooluse in a way it cannot work with.

    Raised at definition time (decorating a function, building a tool) with a
    message naming the function or tool, each problem, and how to fix it.
    """


class RunError(TooluseError):
    """Something failed at run time, while calling a model or a tool."""


class MaxTurnsExceeded(RunError):
    """The run reached `max_turns` model calls without a final answer.

    It keeps the conversation: `items` can be fed to a new run to continue.
    """

    def __init__(
        self, max_turns: int, items: list[dict[str, Any]], new_items: list[dict[str, Any]]
    ) -> None:
        self.max_turns = max_turns
        """The limit that was reached."""
        self.items = items
        """The whole conversation so far: the input and every item the run added."""
        self.new_items = new_items
        """The items the run added."""
        super().__init__(
            f"The run reached max_turns={max_turns} without a final answer; raise max_turns "
            "(Runner.run(..., max_turns=...)) or check why the model keeps calling tools"
        )


class ModelBehaviorError(RunError):
    """The model produced something tooluse cannot use."""


class ToolArgumentsError(ModelBehaviorError):
    """The arguments a model sent for a tool call are not valid.

    The message names the tool and each problem (a JSON syntax error with its
    position, or each invalid field's path and what was expected). It never
    repeats the argument values, which may hold data the model was given.
    """

    def __init__(self, tool_name: str, problems: list[str]) -> None:
        self.tool_name = tool_name
        """The name of the tool whose arguments were rejected."""
        self.problems = problems
        """One line per problem, safe to show to the model."""
        lines = "\n".join(f"- {problem}" for problem in problems)
        super().__init__(f"Invalid arguments for tool '{tool_name}':\n{lines}")


class ToolDefinitionWarning(UserWarning):
    """A tool's definition has a likely mistake that does not stop it from working.

    For example a parameter without a description, or a docstring entry for a
    parameter that does not exist. `tooluse check` lists the same findings;
    run tests with `-W error::tooluse.exceptions.ToolDefinitionWarning` to fail on them.
    """


class ModelRetry(Exception):
    """Raised by a tool to send `message` to the model, verbatim, as the tool's output.

    Use it when the model can fix the problem, for example
    `raise ModelRetry("No city named 'Pariss'; check the spelling.")`.
    Everything else a tool raises reaches the model only as the tool's name
    and the exception's type, because exception messages may hold secrets.
    """

    def __init__(self, message: str) -> None:
        self.message = message
        """The text sent to the model."""
        super().__init__(message)
