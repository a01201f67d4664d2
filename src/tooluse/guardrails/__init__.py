"""Guardrails as they are defined.

Input, output and tool guardrails, their decorators, results, and the checks made
when they are given.

Running them (with their spans) is the run loop's work (`tooluse.run`).

Imports: `tooluse.core`, `tooluse.exceptions`, `tooluse.schema`.
"""
