"""Instructions that tell an agent it works among others that pass conversations on."""

from __future__ import annotations

__all__ = ["RECOMMENDED_PROMPT_PREFIX", "prompt_with_handoff_instructions"]

RECOMMENDED_PROMPT_PREFIX = (
    "# System context\n"
    "You are one of several agents that share one conversation with the user. Each agent "
    "has its own instructions and tools. When another agent is better placed to go on, "
    "call the matching handoff function (its name starts with `transfer_to_`) rather "
    "than answering yourself; do not mention these transfers to the user.\n"
)
"""A start for the instructions of an agent that hands off or is handed to."""


def prompt_with_handoff_instructions(prompt: str) -> str:
    """`prompt` after `RECOMMENDED_PROMPT_PREFIX`.

    Args:
        prompt: The agent's own instructions.

    Returns:
        The instructions to give the agent.
    """
    return f"{RECOMMENDED_PROMPT_PREFIX}\n\n{prompt}"
