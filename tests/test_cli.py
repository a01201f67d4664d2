"""The `tooluse` command: `schema`, `check` over many targets, `--version`.

`schema` prints JSON or one line on stderr with exit status 2. `check` reports
every finding once, then the targets it could not check, then a count, with
exit status 1 for errors or an unusable target; 2 is for a wrong command line.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from inline_snapshot import snapshot

import tooluse
from tooluse.cli._loading import split_target
from tooluse.cli._main import main

ROOT = Path(__file__).resolve().parent.parent
WEATHER = str(ROOT / "examples" / "weather.py")
SCRIPT = Path(sys.executable).with_name("tooluse")  # the console script, as pip installs it


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_prints_every_tool_of_a_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "schema", WEATHER)
    assert (code, err) == (0, "")
    params = json.loads(out)
    assert [p["name"] for p in params] == ["fetch_weather", "fetch_data"]
    assert all(p["type"] == "function" and p["strict"] is True for p in params)


def test_one_tool_by_name_for_chat_completions(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "schema", f"{WEATHER}:fetch_data", "--api", "chat")
    assert code == 0
    [param] = json.loads(out)
    assert param["function"]["name"] == "fetch_data"
    assert param["function"]["parameters"]["required"] == ["path", "directory"]


def test_by_attribute_name_too(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "schema", f"{WEATHER}:read_file")
    assert code == 0
    assert json.loads(out)[0]["name"] == "fetch_data"


def test_no_strict(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "schema", f"{WEATHER}:fetch_data", "--no-strict")
    assert code == 0
    [param] = json.loads(out)
    assert param["strict"] is False
    assert param["parameters"]["required"] == ["path"]
    assert param["parameters"]["properties"]["directory"]["default"] is None


def test_module_path(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "schema", "tests.test_tool_params")
    assert code == 0
    assert [p["name"] for p in json.loads(out)] == ["add"]


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("missing.py", "tooluse: error: missing.py: no such file; check the path\n"),
        (
            "no_such_module_xyz",
            "tooluse: error: no_such_module_xyz: no module named 'no_such_module_xyz'; check the name, run tooluse from the folder that holds it, or install it\n",
        ),
        (
            f"{WEATHER}:Location",
            f"tooluse: error: {WEATHER}: no tool named 'Location'; use one of its tools: fetch_weather, fetch_data\n",
        ),
        (
            "tests.types_for_tests",
            "tooluse: error: tests.types_for_tests: defines no FunctionTool; decorate a function with @function_tool, or name the module that holds the tools\n",
        ),
        (
            "examples",
            "tooluse: error: examples: is a folder without __init__.py, so no package; name a .py file in it, or a module\n",
        ),
        (
            "README.md",
            "tooluse: error: README.md: not a .py file; name Python source, a folder or a module\n",
        ),
    ],
)
def test_errors_are_one_line_with_status_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, target: str, message: str
) -> None:
    monkeypatch.chdir(ROOT)
    code, out, err = run(capsys, "schema", target)
    assert (code, out, err) == (2, "", message)


def test_schema_in_strict_mode_of_a_tool_strict_mode_refuses(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    loose = tmp_path / "loose_tool.py"
    loose.write_text(
        "from tooluse import function_tool\n\n"
        "@function_tool(strict_mode=False, name_override='bad name')\n"
        "def f(x: int) -> int:\n    return x\n"
    )
    code, out, err = run(capsys, "schema", str(loose))
    assert (code, out) == (2, "")
    assert err.startswith(f"tooluse: error: {loose}: tool 'bad name' cannot be printed strict: ")
    assert err.endswith("; print it as defined with --no-strict\n")
    code, out, _ = run(capsys, "schema", str(loose), "--no-strict")
    assert code == 0
    assert json.loads(out)[0]["name"] == "bad name"


def test_module_that_fails_to_import(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('bad module')\n")
    code, out, err = run(capsys, "schema", str(broken))
    assert (code, out) == (2, "")
    assert err == (
        f"tooluse: error: {broken}: importing it raised RuntimeError at {broken}:1: bad module; "
        "fix the module so that it imports\n"
    )
    assert "broken" not in sys.modules


def test_tool_definition_error_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad_tool.py"
    bad.write_text(
        "from typing import Any\nfrom tooluse import function_tool\n\n"
        "@function_tool(name_override='bad name')\ndef f(x: Any) -> str:\n    return ''\n"
    )
    code, _, err = run(capsys, "schema", str(bad))
    assert code == 2
    assert err.count("\n") == 1
    assert "UserError" in err
    assert "the tool name 'bad name' does not match" in err


def test_python_dash_m_entry_point() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tooluse", "schema", "missing.py"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "tooluse: error: missing.py: no such file; check the path\n"


# `tooluse check` over many targets, as pre-commit passes them.


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty current directory; the modules imported from it are forgotten afterwards."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    yield tmp_path
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if name not in before and file and Path(file).resolve().is_relative_to(tmp_path.resolve()):
            del sys.modules[name]


def write(root: Path, files: dict[str, str]) -> None:
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))


DOCUMENTED = '''
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

ONE_OF_EACH = '''
    from tooluse import function_tool

    @function_tool
    def lookup(key: str, limit: int) -> str:
        """Look a key up.

        Args:
            key: The key.
            limt: A typo, so 'limit' has no description.
        """
        return key
'''

LOOSE_BAD_NAME = """
    from tooluse import function_tool

    @function_tool(strict_mode=False, name_override="look up")
    def lookup(key: str) -> str:
        return key
"""


def test_counts_are_singular_or_plural(capsys: pytest.CaptureFixture[str], project: Path) -> None:
    write(project, {"one.py": ONE_OF_EACH, "two.py": ONE_OF_EACH})
    assert run(capsys, "check", "one.py") == snapshot(
        (
            1,
            """\
one.py: lookup: error: the docstring describes 'limt', which is not a parameter: its description is dropped; fix the name in the docstring [unknown-doc-param]
one.py: lookup(limit): warning: has no description; document it in the docstring's Args section [no-description]
tooluse check: 1 error, 1 warning in 1 tool from 1 file
""",
            "",
        )
    )
    code, out, _ = run(capsys, "check", "one.py", "two.py")
    assert code == 1
    # Equal findings of two files are both printed: each names its file.
    assert out.splitlines()[2:] == snapshot(
        [
            "two.py: lookup: error: the docstring describes 'limt', which is not a parameter: its description is dropped; fix the name in the docstring [unknown-doc-param]",
            "two.py: lookup(limit): warning: has no description; document it in the docstring's Args section [no-description]",
            "tooluse check: 2 errors, 2 warnings in 2 tools from 2 files",
        ]
    )


def test_a_folder_means_its_python_files(capsys: pytest.CaptureFixture[str], project: Path) -> None:
    never = "raise SystemExit('this file should not be imported')\n"
    write(
        project,
        {
            "tools.py": DOCUMENTED,
            "sub/more.py": ONE_OF_EACH,
            "sub/__main__.py": never,
            "notes.txt": never,
            ".hidden/x.py": never,
            ".hidden.py": never,
            "env/pyvenv.cfg": "",
            "env/lib/y.py": never,
            "conda/conda-meta/history": "",
            "conda/y.py": never,
            "__pycache__/z.py": never,
            "node_modules/w.py": never,
        },
    )
    assert run(capsys, "check", ".") == snapshot(
        (
            1,
            """\
sub/more.py: lookup: error: the docstring describes 'limt', which is not a parameter: its description is dropped; fix the name in the docstring [unknown-doc-param]
sub/more.py: lookup(limit): warning: has no description; document it in the docstring's Args section [no-description]
tooluse check: 1 error, 1 warning in 2 tools from 2 files
""",
            "",
        )
    )


def test_a_folder_without_python_files(capsys: pytest.CaptureFixture[str], project: Path) -> None:
    write(project, {"docs/index.md": "# Docs\n"})
    assert run(capsys, "check", "docs") == snapshot(
        (
            1,
            """\
cannot check docs: no .py files in this folder (hidden folders, __pycache__ and virtual environments are skipped); name the files or folders to check
tooluse check: 0 errors, 0 warnings in 0 tools from 0 files; cannot check 1 folder
""",
            "",
        )
    )


def test_unusable_targets_come_after_every_finding(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    write(
        project,
        {
            "broken.py": "import os\n\nraise RuntimeError('bad\\nmodule')\n",
            "exits.py": "import sys\n\nsys.exit(3)\n",
            "needs.py": "import no_such_dependency_xyz\n",
            "syntax.py": "def f(:\n",
            "one.py": ONE_OF_EACH,
        },
    )
    targets = ["broken.py", "one.py", "missing.py", "no_such_module_xyz", "one.py:nothing"]
    assert run(capsys, "check", *targets, "exits.py", "needs.py", "syntax.py") == snapshot(
        (
            1,
            """\
one.py: lookup: error: the docstring describes 'limt', which is not a parameter: its description is dropped; fix the name in the docstring [unknown-doc-param]
one.py: lookup(limit): warning: has no description; document it in the docstring's Args section [no-description]
cannot check broken.py: importing it raised RuntimeError at broken.py:3: bad module; fix the module so that it imports
cannot check missing.py: no such file; check the path
cannot check no_such_module_xyz: no module named 'no_such_module_xyz'; check the name, run tooluse from the folder that holds it, or install it
cannot check one.py: no tool named 'nothing'; use one of its tools: lookup
cannot check exits.py: importing it raised SystemExit at exits.py:3: 3; fix the module so that it imports
cannot check needs.py: importing it needs module 'no_such_dependency_xyz', which is not installed (at needs.py:1); install it where tooluse runs
cannot check syntax.py: importing it raised SyntaxError at syntax.py:1: invalid syntax; fix the module so that it imports
tooluse check: 1 error, 1 warning in 1 tool from 1 file; cannot check 6 files and 1 module
""",
            "",
        )
    )


def test_files_without_tools_are_checked_and_pass(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    write(project, {"helpers.py": "LIMIT = 5\n", "tools.py": DOCUMENTED})
    assert run(capsys, "check", "helpers.py") == (
        0,
        "tooluse check: 0 errors, 0 warnings in 0 tools from 1 file\n",
        "",
    )
    assert run(capsys, "check", "helpers.py", "tools.py")[:2] == (
        0,
        "tooluse check: 0 errors, 0 warnings in 1 tool from 2 files\n",
    )


PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/helpers.py": "LIMIT = 5\n",
    "pkg/tools.py": ONE_OF_EACH.replace("import function_tool", "import function_tool\n")
    + "\n    from .helpers import LIMIT\n",
    "pkg/agent.py": "from .tools import lookup\n\nTOOLS = [lookup]\n",
}


def test_a_file_in_a_package_imports_as_its_module(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    write(project, PACKAGE)  # pkg/tools.py imports relatively
    code, out, _ = run(capsys, "check", "pkg/tools.py")
    assert code == 1
    assert out.endswith("tooluse check: 1 error, 1 warning in 1 tool from 1 file\n")
    assert sys.modules["pkg.tools"].LIMIT == 5


def test_each_tool_is_reported_once_with_the_module_defining_it(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    write(project, PACKAGE)
    # pkg/agent.py comes first and holds the tool too; pkg.tools is pkg/tools.py again.
    code, out, _ = run(capsys, "check", "pkg", "pkg.tools", "pkg/tools.py")
    assert code == 1
    assert out == snapshot("""\
pkg/tools.py: lookup: error: the docstring describes 'limt', which is not a parameter: its description is dropped; fix the name in the docstring [unknown-doc-param]
pkg/tools.py: lookup(limit): warning: has no description; document it in the docstring's Args section [no-description]
tooluse check: 1 error, 1 warning in 1 tool from 4 files
""")


def test_a_hand_built_tool_imported_elsewhere_is_reported_once(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    hand_built = """
        from tooluse import FunctionTool

        async def invoke(ctx, arguments):
            return arguments

        echo = FunctionTool("echo", "Echo.", {"type": "object", "properties": {}}, invoke)
    """
    write(project, {"hand.py": hand_built, "user.py": "from hand import echo\n"})
    assert run(capsys, "check", "user.py", "hand.py")[:2] == (
        0,
        "tooluse check: 0 errors, 0 warnings in 1 tool from 2 files\n",
    )


def test_a_module_name_is_looked_up_from_the_current_directory(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    sys.path[:] = [entry for entry in sys.path if entry not in ("", str(project))]
    write(project, {"here_tools.py": DOCUMENTED})
    assert run(capsys, "check", "here_tools")[:2] == (
        0,
        "tooluse check: 0 errors, 0 warnings in 1 tool from 1 module\n",
    )
    assert sys.path[0] == str(project)


def test_a_file_named_like_a_loaded_module_leaves_it_alone(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    write(project, {"json.py": DOCUMENTED})
    assert run(capsys, "check", "json.py")[:2] == (
        0,
        "tooluse check: 0 errors, 0 warnings in 1 tool from 1 file\n",
    )
    assert sys.modules["json"] is json


def test_a_package_already_imported_from_elsewhere(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    write(project, {"tooluse/__init__.py": "", "tooluse/tools.py": DOCUMENTED})
    code, out, _ = run(capsys, "check", "tooluse/tools.py")
    installed = str(Path(tooluse.__file__).parent)
    assert code == 1
    assert out.replace(installed, "INSTALLED") == snapshot("""\
cannot check tooluse/tools.py: its package 'tooluse' is already imported from INSTALLED, so this file would not be the one checked; install 'tooluse' from this folder (pip install -e .) or run tooluse where it is not installed
tooluse check: 0 errors, 0 warnings in 0 tools from 0 files; cannot check 1 file
""")


def test_json_is_one_document_for_all_targets(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    write(project, {"one.py": ONE_OF_EACH, "broken.py": "raise RuntimeError('bad')\n"})
    code, out, err = run(capsys, "check", "--json", "one.py", "broken.py", "missing.py")
    assert (code, err) == (1, "")
    document = json.loads(out)
    assert [row["code"] for row in document.pop("findings")] == [
        "unknown-doc-param",
        "no-description",
    ]
    assert document == snapshot(
        {
            "unusable": [
                {
                    "target": "broken.py",
                    "message": "broken.py: importing it raised RuntimeError at broken.py:1: bad; fix the module so that it imports",
                },
                {"target": "missing.py", "message": "missing.py: no such file; check the path"},
            ],
            "errors": 1,
            "warnings": 1,
            "tools": 1,
            "files": 1,
        }
    )


def test_what_imported_code_prints_goes_to_stderr(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    write(project, {"loud.py": "print('hello from loud')\n" + textwrap.dedent(DOCUMENTED)})
    code, out, err = run(capsys, "check", "--json", "loud.py")
    assert (code, json.loads(out)["tools"], err) == (0, 1, "hello from loud\n")
    del sys.modules["loud"]
    code, out, err = run(capsys, "schema", "loud.py")
    assert (code, json.loads(out)[0]["name"], err) == (0, "add", "hello from loud\n")


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["check"], ["check", "--bogus", "x.py"], ["lint", "x.py"], []):
        with pytest.raises(SystemExit) as exited:
            main(argv)
        assert exited.value.code == 2
        out, err = capsys.readouterr()
        assert out == ""
        assert err.startswith("usage: tooluse")


@pytest.mark.parametrize(
    ("target", "parts"),
    [
        ("tools.py", ("tools.py", "")),
        ("tools.py:add", ("tools.py", "add")),
        ("pkg.tools:look-up", ("pkg.tools", "look-up")),
        ("C:\\src\\tools.py", ("C:\\src\\tools.py", "")),
        ("C:\\src\\tools.py:add", ("C:\\src\\tools.py", "add")),
    ],
)
def test_a_target_splits_at_its_last_colon_before_a_name(
    target: str, parts: tuple[str, str]
) -> None:
    assert split_target(target) == parts


# In a fresh process, through the console script `pip install` writes.


def tooluse_command(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    assert SCRIPT.is_file(), f"{SCRIPT} is missing: pip install -e . writes it"
    return subprocess.run(
        [str(SCRIPT), *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
        env={**os.environ, **(env or {})},
    )


def test_version(tmp_path: Path) -> None:
    done = tooluse_command("--version", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        f"tooluse {tooluse.__version__}\n",
        "",
    )


def test_schema_and_check_of_a_module_in_the_current_directory(tmp_path: Path) -> None:
    write(tmp_path, {"cwd_tools_xyz/__init__.py": "", "cwd_tools_xyz/tools.py": DOCUMENTED})
    done = tooluse_command("schema", "cwd_tools_xyz.tools", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert [param["name"] for param in json.loads(done.stdout)] == ["add"]
    done = tooluse_command("check", "cwd_tools_xyz.tools", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        "tooluse check: 0 errors, 0 warnings in 1 tool from 1 module\n",
        "",
    )


def test_check_prints_each_finding_once_and_nothing_on_stderr(tmp_path: Path) -> None:
    # Decorating this tool warns (its name is an error); check reports it, once, on stdout.
    write(tmp_path, {"warned.py": LOOSE_BAD_NAME})
    done = tooluse_command("check", "warned.py", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout == snapshot("""\
warned.py: look up(key) (function lookup at warned.py:4): warning: has no description; document it in the docstring's Args section [no-description]
warned.py: look up (function lookup at warned.py:4): error: the tool name 'look up' does not match ^[a-zA-Z0-9_-]{1,64}$; fix: use 1 to 64 letters, digits, '_' or '-' (name_override='...') [tool-name]
tooluse check: 1 error, 1 warning in 1 tool from 1 file
""")
    done = tooluse_command("check", "--json", "warned.py", "missing.py", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, "")
    document = json.loads(done.stdout)
    assert (document["errors"], document["warnings"], len(document["unusable"])) == (1, 1, 1)


def test_a_package_named_as_a_module_is_checked_with_all_its_modules(tmp_path: Path) -> None:
    never = "raise SystemExit('__main__ should not be imported')\n"
    write(
        tmp_path,
        {
            "src/pkg_walked/__init__.py": DOCUMENTED,
            "src/pkg_walked/__main__.py": never,
            "src/pkg_walked/sub/__init__.py": "",
            "src/pkg_walked/sub/deep.py": ONE_OF_EACH,
        },
    )
    on_path = {"PYTHONPATH": str(tmp_path / "src")}  # as an installed package is found
    done = tooluse_command("check", "pkg_walked", cwd=tmp_path, env=on_path)
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout == snapshot("""\
pkg_walked.sub.deep: lookup: error: the docstring describes 'limt', which is not a parameter: its description is dropped; fix the name in the docstring [unknown-doc-param]
pkg_walked.sub.deep: lookup(limit): warning: has no description; document it in the docstring's Args section [no-description]
tooluse check: 1 error, 1 warning in 2 tools from 3 modules
""")
    # A subpackage from the current directory; and the package's folder: the same files.
    done = tooluse_command("check", "pkg_walked.sub", cwd=tmp_path / "src")
    assert done.stdout.splitlines()[-1] == (
        "tooluse check: 1 error, 1 warning in 1 tool from 2 modules"
    )
    done = tooluse_command("check", "src/pkg_walked", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout.splitlines()[-1] == (
        "tooluse check: 1 error, 1 warning in 2 tools from 3 files"
    )


def test_a_package_folder_can_be_named_as_the_package(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg_folder/__init__.py": "from .tools import add as good\n",
            "pkg_folder/tools.py": DOCUMENTED,
            "plain/tools.py": DOCUMENTED,
        },
    )
    done = tooluse_command("schema", "pkg_folder", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert [param["name"] for param in json.loads(done.stdout)] == ["add"]
    done = tooluse_command("schema", "pkg_folder:good", "--api", "chat", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert [param["function"]["name"] for param in json.loads(done.stdout)] == ["add"]
    done = tooluse_command("check", "pkg_folder:good", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        "tooluse check: 0 errors, 0 warnings in 1 tool from 1 package\n",
        "",
    )
    done = tooluse_command("schema", "plain", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "tooluse: error: plain: is a folder without __init__.py, so no package; "
        "name a .py file in it, or a module\n"
    )


def docs_codes() -> set[str]:
    """The finding codes docs/strict-mode.md's table of `tooluse check` findings names."""
    table = (ROOT / "docs" / "strict-mode.md").read_text().split("## `tooluse check`")[1]
    return set(re.findall(r"\(`([a-z-]+)`\) \| (?:error|warning) \|", table))


def test_a_tool_that_fails_to_build_is_coded_once_as_the_docs_code_it(tmp_path: Path) -> None:
    hand_built = """
        from tooluse import FunctionTool

        async def invoke(ctx, arguments):
            return arguments

        SCHEMA = {"type": "object", "properties": {"x": {"type": "strin"}}}
        echo = FunctionTool("bad name", "Echo.", SCHEMA, invoke)
    """
    decorated = LOOSE_BAD_NAME.replace("strict_mode=False, ", "")
    write(tmp_path, {"hand_built.py": hand_built, "decorated.py": decorated})
    done = tooluse_command("check", "hand_built.py", "decorated.py", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout == snapshot("""\
hand_built.py: bad name: error: the tool name 'bad name' does not match ^[a-zA-Z0-9_-]{1,64}$; fix: use 1 to 64 letters, digits, '_' or '-' (name_override='...') [tool-name]
hand_built.py: bad name: error: parameter 'x' (at properties.x): type 'strin' is not a JSON schema type (strict-mode rule 'type'); fix: use one of array, boolean, integer, null, number, object, string [definition]
decorated.py: lookup: error: the tool name 'look up' does not match ^[a-zA-Z0-9_-]{1,64}$; fix: use 1 to 64 letters, digits, '_' or '-' (name_override='...') [tool-name]
tooluse check: 3 errors, 0 warnings in 0 tools from 2 files
""")
    for line in done.stdout.splitlines()[:-1]:
        [code] = re.findall(r"\[([a-z-]+)\]", line)
        assert line.endswith(f" [{code}]")
        assert code in docs_codes()


def test_a_closed_stdout_ends_the_command_quietly(tmp_path: Path) -> None:
    many = """
        from tooluse import FunctionTool

        async def invoke(ctx, arguments):
            return arguments

        for i in range(200):  # about 2 MB of JSON: more than a pipe holds
            globals()[f"tool_{i}"] = FunctionTool(
                f"tool_{i}", "x" * 10_000, {"type": "object", "properties": {}}, invoke
            )
    """
    write(tmp_path, {"many.py": many})
    # As `tooluse schema many.py | head -1` does: read one line, then close the pipe.
    with subprocess.Popen(
        [str(SCRIPT), "schema", "many.py"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    ) as process:
        assert process.stdout is not None
        assert process.stderr is not None
        first = process.stdout.readline()
        process.stdout.close()
        assert (first, process.stderr.read(), process.wait()) == ("[\n", "", 141)


def test_the_count_names_files_and_modules_as_they_were_named(tmp_path: Path) -> None:
    done = tooluse_command("check", "no_such_module_xyz", cwd=tmp_path)
    assert done.stdout.splitlines()[-1] == (
        "tooluse check: 0 errors, 0 warnings in 0 tools from 0 files; cannot check 1 module"
    )
    write(tmp_path, {"tools.py": DOCUMENTED})
    done = tooluse_command(
        "check", "tools.py", "textwrap", "no_such_module_xyz", "a.py", cwd=tmp_path
    )
    assert done.stdout.splitlines()[-1] == (
        "tooluse check: 0 errors, 0 warnings in 1 tool from 1 file and 1 module; "
        "cannot check 1 file and 1 module"
    )


def test_a_renamed_tools_findings_name_its_function_and_line(tmp_path: Path) -> None:
    renamed = '''
        from tooluse import FunctionTool, function_tool

        @function_tool(name_override="lookup")
        def search(q: str) -> str:
            """Search."""
            return q

        async def invoke(ctx, arguments):
            return arguments

        SCHEMA = {"type": "object", "properties": {}}
        echo = FunctionTool("echo it", "Echo.", SCHEMA, invoke, strict_json_schema=False)
    '''
    write(tmp_path, {"renamed.py": renamed})
    done = tooluse_command("check", "renamed.py", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout == snapshot("""\
renamed.py: lookup(q) (function search at renamed.py:4): warning: has no description; document it in the docstring's Args section [no-description]
renamed.py: echo it: error: the tool name 'echo it' does not match ^[a-zA-Z0-9_-]{1,64}$; fix: use 1 to 64 letters, digits, '_' or '-' (name_override='...') [tool-name]
tooluse check: 1 error, 1 warning in 2 tools from 1 file
""")
    done = tooluse_command("check", "--json", "renamed.py", cwd=tmp_path)
    places = [
        (row["function"], row["file"], row["line"]) for row in json.loads(done.stdout)["findings"]
    ]
    assert places == [("search", "renamed.py", 4), (None, None, None)]
