"""From a Python signature and docstring to a JSON schema, and strict mode.

The signature and docstring are read (`_callables`, `_docstrings`), turned into a
pydantic model and its schema (`_function_schema`, `_plain`), rewritten into the
subset OpenAI's strict mode accepts (`_strict`, by the rules of `_strict_rules`,
walking hand-written schemas safely with `_guards`), and each rewrite is undone on
the model's arguments (`_adapters`). An agent's `output_type` gets the same
treatment (`_output_type`). `_dialects` rewrites the strict schema into what
Anthropic and Gemini accept. `_lints` holds the findings `tooluse check` reports.

Imports: `tooluse.core` and `tooluse.exceptions` only.
"""
