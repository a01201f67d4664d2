"""OpenTelemetry spans for runs.

Made only when a tracer provider is configured.

Imports: `core`, `exceptions`, `tools`, `models`, `agents`.
"""
