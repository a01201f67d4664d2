"""`tooluse check --provider`: per tool, what a provider would refuse and what was rewritten.

The command runs as users run it, on files written for each test.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tooluse.schema._dialects import gemini_schema, provider_findings

TOOLS = '''
from __future__ import annotations

from pydantic import BaseModel

from tooluse import function_tool


class Node(BaseModel):
    name: str
    children: list[Node]


@function_tool
def walk(tree: Node, depth: int | None) -> str:
    """Walk a tree.

    Args:
        tree: The tree.
        depth: How deep, or everything.
    """
    return tree.name
'''


def check(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "tooluse", "check", str(path), "--no-mcp", *args]
    return subprocess.run(command, capture_output=True, text=True, check=False)


@pytest.fixture
def tools_file(tmp_path: Path) -> Path:
    path = tmp_path / "tree_tools.py"
    path.write_text(TOOLS)
    return path


def test_gemini_refuses_a_recursive_schema_and_the_command_fails(tools_file: Path) -> None:
    done = check(tools_file, "--provider", "gemini", "--json")

    assert done.returncode == 1, done.stderr
    findings = json.loads(done.stdout)["findings"]
    codes = {(f["code"], f["severity"]) for f in findings}
    assert ("provider-refused", "error") in codes
    refused = next(f for f in findings if f["code"] == "provider-refused")
    assert refused["tool"] == "walk"
    assert "recursive $ref" in refused["message"]
    rewrites = [f["message"] for f in findings if f["code"] == "provider-rewrite"]
    assert any("properties.depth.anyOf: a null branch became nullable" in m for m in rewrites)
    assert refused["file"] == str(tools_file)  # placed at the function, as other findings


def test_anthropic_and_openai_take_the_strict_schema_as_it_is(tools_file: Path) -> None:
    for provider in ("anthropic", "openai"):
        done = check(tools_file, "--provider", provider)

        assert done.returncode == 0, done.stdout + done.stderr
        assert "provider-refused" not in done.stdout
        assert "[provider-strict]" in done.stdout
    assert (
        "sent to Anthropic as input_schema, with strict: true"
        in check(tools_file, "--provider", "anthropic").stdout
    )


def test_without_provider_nothing_is_said_of_providers(tools_file: Path) -> None:
    done = check(tools_file)

    assert done.returncode == 0
    assert "provider-" not in done.stdout


def test_an_unknown_provider_is_a_usage_error(tools_file: Path) -> None:
    done = check(tools_file, "--provider", "mistral")

    assert done.returncode == 2
    assert "invalid choice: 'mistral'" in done.stderr


def test_the_gemini_dialect_inlines_and_keeps_what_it_can() -> None:
    schema = {
        "type": "object",
        "$defs": {"Kind": {"enum": ["a", "b"], "type": "string", "title": "Kind"}},
        "properties": {
            "kind": {"$ref": "#/$defs/Kind", "description": "Which."},
            "level": {"enum": [1, 2], "type": "integer"},
            "exact": {"const": "x"},
            "when": {"type": "string", "format": "date-time"},
            "where": {"type": "string", "format": "hostname"},
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        },
        "required": ["kind", "level"],
        "additionalProperties": False,
    }

    found = gemini_schema(schema)

    assert found.schema == {
        "type": "OBJECT",
        "properties": {
            "kind": {"enum": ["a", "b"], "type": "STRING", "description": "Which."},
            "level": {"type": "INTEGER", "description": "One of: 1, 2."},
            "exact": {"enum": ["x"], "type": "STRING"},
            "when": {"type": "STRING", "format": "date-time"},
            "where": {"type": "STRING"},
            "either": {"anyOf": [{"type": "STRING"}, {"type": "INTEGER"}]},
        },
        "required": ["kind", "level"],
    }
    assert found.refused == []
    assert len(found.rewrites) == 5


def test_openai_findings_say_how_the_tool_is_sent() -> None:
    (finding,) = provider_findings("t", {"type": "object"}, False, "openai")

    assert finding.message == "sent to OpenAI non-strict (strict_mode=False), as it is"
