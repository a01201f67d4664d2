"""Agents behind a web front end: AG-UI and the Vercel AI SDK's UI message stream.

`pip install 'tooluse[ui]'`. Each adapter is an ASGI app (Starlette) that runs an
agent for a front end and streams what the run does, as the protocol's events:

```python
from tooluse import Agent
from tooluse.ui import ag_ui_app, vercel_ai_app

agent = Agent(name="Assistant", instructions="Help.")
app = ag_ui_app(agent)          # POST RunAgentInput, read AG-UI events (CopilotKit, ...)
chat = vercel_ai_app(agent)     # POST {"id", "messages"}, read the UI message stream (useChat)
```

The server keeps each thread: its history and a run paused for approval live in
memory, or in a session per thread id (`sessions=lambda thread_id: SQLiteSession(...)`).
What a client sends back is untrusted: only its new user messages are taken; a tool
output the server never produced is refused, system and developer messages and tool
calls with no output are stripped, and an approval decision is applied once, to a
call the server is waiting on, or refused.

Imports: every layer below `cli` (the run loop, sessions, agents), and the `ui`
extra's packages (Starlette, `ag-ui-protocol`); `tooluse` itself never imports it.
"""

from ._ag_ui import ag_ui_app
from ._threads import SessionFactory
from ._vercel import vercel_ai_app

__all__ = ["SessionFactory", "ag_ui_app", "vercel_ai_app"]
