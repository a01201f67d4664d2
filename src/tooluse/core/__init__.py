"""The vocabulary every layer shares.

Items, the run context and usage, model settings, the run's state, and `AgentBase`.

Imports: nothing of tooluse outside this package (it is the bottom layer).
"""
