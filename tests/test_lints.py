"""Definition-time findings: warnings at decoration, and `tooluse check`."""

from __future__ import annotations

import json
import textwrap
import warnings
from pathlib import Path
from typing import Any

import pytest
from inline_snapshot import snapshot

from tooluse import FunctionTool, function_tool
from tooluse.cli._main import main
from tooluse.exceptions import ToolDefinitionWarning


def decorate(func: Any, **options: Any) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        function_tool(**options)(func)
    return [str(w.message) for w in caught if issubclass(w.category, ToolDefinitionWarning)]


class TestDecorationWarnings:
    def test_a_well_documented_tool_is_silent(self) -> None:
        def add(a: int, b: int) -> int:
            """Add.

            Args:
                a: First.
                b: Second.
            """
            return a + b

        assert decorate(add) == []

    def test_only_errors_warn_and_check_gets_every_finding(self) -> None:
        def look(ctx: Any, city, days: int) -> str:  # type: ignore[no-untyped-def]
            """Look up the weather.

            Args:
                city: The city.
                dayz: A typo, so 'days' has no description.
            """
            return ""

        assert decorate(look) == snapshot(
            [
                "look: error: the docstring describes 'dayz', which is not a parameter: its description is dropped; fix the name in the docstring [unknown-doc-param]"
            ]
        )
        tool = function_tool(look)  # pyright: ignore[reportUnknownArgumentType]
        assert [str(f) for f in tool._findings] == snapshot(  # pyright: ignore[reportPrivateUsage]
            [
                "look: error: the docstring describes 'dayz', which is not a parameter: its description is dropped; fix the name in the docstring [unknown-doc-param]",
                "look(ctx): warning: has no description; document it in the docstring's Args section [no-description]",
                "look(city): warning: has no annotation, so the model is asked for a string; annotate it [unannotated]",
                "look(days): warning: has no description; document it in the docstring's Args section [no-description]",
            ]
        )

    def test_undocumented_and_unannotated_tools_decorate_silently(self) -> None:
        # Thirty undocumented two-parameter tools used to print sixty warnings at import.
        def make(index: int) -> Any:
            def tool(a, b: int) -> str:  # type: ignore[no-untyped-def]
                return ""

            tool.__name__ = f"tool_{index}"
            return tool  # pyright: ignore[reportUnknownVariableType]

        assert [message for i in range(30) for message in decorate(make(i))] == []

    def test_long_description_and_bad_name_in_loose_mode(self) -> None:
        def f() -> str:
            return ""

        found = decorate(
            f, name_override="has space", description_override="x" * 1025, strict_mode=False
        )
        assert found == snapshot(
            [
                "has space: error: the tool name 'has space' does not match ^[a-zA-Z0-9_-]{1,64}$; fix: use 1 to 64 letters, digits, '_' or '-' (name_override='...') [tool-name]",
                "has space: error: the description has 1,025 characters, more than 1,024; shorten it [long-description]",
            ]
        )

    def test_minus_w_error_makes_them_fail(self) -> None:
        def f(x: int) -> int:
            """F.

            Args:
                y: Not a parameter.
            """
            return x

        with warnings.catch_warnings():
            warnings.simplefilter("error", ToolDefinitionWarning)
            with pytest.raises(
                ToolDefinitionWarning, match=r"f: error: the docstring describes 'y'"
            ):
                function_tool(f)

    def test_warning_points_at_the_function(self) -> None:
        def f(x: int) -> int:
            """F.

            Args:
                y: Not a parameter.
            """
            return x

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            function_tool(f)
        assert caught[0].filename == __file__
        assert caught[0].lineno == f.__code__.co_firstlineno

    def test_context_parameter_needs_no_description(self) -> None:
        from tooluse import RunContextWrapper

        def f(ctx: RunContextWrapper[Any]) -> str:
            """Do it."""
            return ""

        assert decorate(f) == []

    def test_hand_built_tool_findings(self) -> None:
        async def invoke(ctx: Any, arguments: str) -> str:
            return arguments

        tool = FunctionTool(
            "bad name", None, {"type": "object", "properties": {}}, invoke, strict_json_schema=False
        )
        assert [f.code for f in tool._findings] == ["tool-name"]  # pyright: ignore[reportPrivateUsage]


def write(tmp_path: Path, name: str, source: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


CLEAN = '''
    from tooluse import function_tool

    @function_tool
    def add(a: int, b: int) -> int:
        """Add two numbers.

        Args:
            a: The first.
            b: The second.
        """
        return a + b
'''

MESSY = '''
    from tooluse import function_tool

    @function_tool
    def search(query, limit: int = 5) -> str:
        """Search.

        Args:
            query: What to look for.
            limt: A typo.
        """
        return ""

    @function_tool(name_override="search")
    def search_again(query: str) -> str:
        """Search again.

        Args:
            query: What to look for.
        """
        return ""

    TOOLS = [search, search_again]
'''

BROKEN = '''
    from typing import Annotated
    from pydantic import Field
    from tooluse import function_tool

    @function_tool
    def f(x: Annotated[int, Field(json_schema_extra={"not": {"const": 0}})]) -> int:
        """F.

        Args:
            x: X.
        """
        return x
'''


class TestCheckCommand:
    def test_clean_file(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        code, out, _ = run(capsys, "check", write(tmp_path, "clean.py", CLEAN))
        assert (code, out) == (0, "tooluse check: 0 errors, 0 warnings in 1 tool from 1 file\n")

    def test_findings_and_exit_status(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        target = write(tmp_path, "messy.py", MESSY)
        code, out, _ = run(capsys, "check", target)
        assert code == 1
        assert out.replace(target, "messy.py") == snapshot("""\
messy.py: search: error: the docstring describes 'limt', which is not a parameter: its description is dropped; fix the name in the docstring [unknown-doc-param]
messy.py: search(query): warning: has no annotation, so the model is asked for a string; annotate it [unannotated]
messy.py: search(limit): warning: has no description; document it in the docstring's Args section [no-description]
messy.py: search: error: 2 tools are named 'search'; the model cannot tell them apart: rename all but one (name_override='...') [duplicate-name]
tooluse check: 2 errors, 2 warnings in 2 tools from 1 file
""")

    def test_json(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        target = write(tmp_path, "messy_json.py", MESSY)
        code, out, _ = run(capsys, "check", "--json", target)
        report = json.loads(out)
        assert code == 1
        assert (report["errors"], report["warnings"], report["tools"]) == (2, 2, 2)
        assert (report["files"], report["unusable"]) == (1, [])
        assert report["findings"][0] == {
            "target": target,
            "code": "unknown-doc-param",
            "severity": "error",
            "tool": "search",
            "message": "the docstring describes 'limt', which is not a parameter: its description is dropped; fix the name in the docstring",
            "parameter": None,
            "function": "search",
            "file": target,
            "line": 4,
        }

    def test_a_tool_that_cannot_be_defined(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        target = write(tmp_path, "broken.py", BROKEN)
        code, out, _ = run(capsys, "check", target)
        assert code == 1
        assert out.replace(target, "broken.py") == snapshot("""\
broken.py: f: error: parameter 'x' (at properties.x) uses 'not', which strict mode cannot express; simplify the type, or turn strict mode off (strict_mode=False) [definition]
tooluse check: 1 error, 0 warnings in 0 tools from 1 file
""")

    def test_warnings_alone_exit_zero(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        source = "from tooluse import function_tool\n\n@function_tool\ndef f(x: int) -> int:\n    return x\n"
        code, out, _ = run(capsys, "check", write(tmp_path, "warn.py", source))
        assert code == 0
        assert out.endswith("tooluse check: 0 errors, 1 warning in 1 tool from 1 file\n")

    def test_several_targets_and_a_module(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        code, out, _ = run(
            capsys, "check", write(tmp_path, "clean2.py", CLEAN), "tests.test_tool_params"
        )
        assert code == 0
        assert out.endswith("in 2 tools from 1 file and 1 module\n")

    def test_a_missing_target_cannot_be_checked(self, capsys: pytest.CaptureFixture[str]) -> None:
        assert run(capsys, "check", "nowhere.py") == (
            1,
            "cannot check nowhere.py: no such file; check the path\n"
            "tooluse check: 0 errors, 0 warnings in 0 tools from 0 files; cannot check 1 file\n",
            "",
        )
