"""The run loop.

`Runner`, the steps of a turn, results, stream events, limits, retries, approvals
and runs on a session.

Imports: every layer below it; nothing above it (`mcp`, `testing`, `temporal`,
`cli`).
"""
