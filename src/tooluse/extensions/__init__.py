"""Integrations with other programs, each in a subpackage of its own, imported only when named.

`import tooluse` imports none of them. `tooluse.extensions.experimental.codex` runs the
Codex CLI as a function tool, under openai-agents' import path (`agents` made `tooluse`).

Imports: `core`, `exceptions`, `schema`, `tools`; never the run loop.
"""
