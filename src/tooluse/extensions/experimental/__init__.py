"""Integrations whose details may still change: `codex` (the Codex CLI as a function tool).

Imports: `core`, `exceptions`, `schema`, `tools`; never the run loop.
"""
