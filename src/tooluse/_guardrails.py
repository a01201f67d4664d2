"""Guardrails: checks of a run's input and final output (skeleton: filled in with its tests)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic

from ._context import TContext

__all__ = ["InputGuardrail", "OutputGuardrail"]


@dataclass
class InputGuardrail(Generic[TContext]):
    """A check of the run's input."""

    guardrail_function: Any
    name: str | None = None


@dataclass
class OutputGuardrail(Generic[TContext]):
    """A check of the run's final output."""

    guardrail_function: Any
    name: str | None = None
