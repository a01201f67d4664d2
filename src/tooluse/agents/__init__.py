"""What an agent is.

`Agent`, its handoffs and hooks, how it treats tool results, and an agent used as a
tool.

Imports: everything below the run loop (`core`, `exceptions`, `schema`,
`guardrails`, `tools`, `models`); never `tooluse.run`.
"""
