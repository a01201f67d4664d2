"""The docs site's layout: pages open with prose, code stays within the page, one signature.

What only a browser shows is set in `mkdocs.yml` and `docs/stylesheets/extra.css`; these
tests hold those settings. `.ci/run` checks the built site for `function_tool`'s one
signature.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(DOCS).as_posix())
def test_every_page_opens_with_a_sentence(page: Path) -> None:
    lines = [line for line in page.read_text().splitlines() if line.strip()]
    body = [line for line in lines if not line.startswith("#")]
    assert body, f"{page.name} has nothing under its title"
    assert not body[0].lstrip().startswith(("```", ":::", "|", "-")), (
        f"{page.name} opens with {body[0][:30]!r}: say what the page is about first"
    )


def test_code_blocks_wrap_within_the_page() -> None:
    config = (ROOT / "mkdocs.yml").read_text()
    sheets = re.findall(r"^extra_css:\n((?:  - .+\n)+)", config, re.MULTILINE)
    assert sheets == ["  - stylesheets/extra.css\n"]
    css = (DOCS / "stylesheets" / "extra.css").read_text()
    rule = re.search(r"\.md-typeset pre > code \{([^}]*)\}", css)
    assert rule is not None
    assert "white-space: pre-wrap;" in rule[1]


def test_the_reference_shows_one_signature_per_function() -> None:
    # function_tool has two typing overloads; the reference shows its one real signature.
    assert "show_overloads: false" in (ROOT / "mkdocs.yml").read_text()
