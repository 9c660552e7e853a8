"""The hand-written pages: twins in structure, and no number typed by hand."""

import re
from pathlib import Path

import pytest

from figures import registry
from figures.site.markup import FIGURE
from prose_rules import prose

DOCS = Path(__file__).resolve().parents[1] / "docs"
ZH_PAGES = sorted(DOCS.rglob("*.zh.md"))

@pytest.mark.parametrize("page", sorted(DOCS.rglob("*.md")), ids=lambda p: p.name)
def test_no_number_is_typed_by_hand(page):
    for n, line in enumerate(prose(page.read_text(encoding="utf-8")).splitlines(), 1):
        assert not re.search(r"\d", line), f"{page.name}: a number typed by hand: {line.strip()[:120]}"


def _structure(page: Path):
    text = page.read_text(encoding="utf-8")
    return (re.findall(r"^#{1,6} .*\{#([^}]+)\}\s*$", text, re.M),
            [m["id"] for m in FIGURE.finditer(text)])


@pytest.mark.parametrize("page", ZH_PAGES, ids=lambda p: p.name)
def test_twins_have_the_same_headings_and_figures_in_the_same_order(page):
    twin = page.with_name(page.name.replace(".zh.md", ".en.md"))
    assert twin.exists()
    assert _structure(page) == _structure(twin)


@pytest.mark.parametrize("page", ZH_PAGES, ids=lambda p: p.name)
def test_placed_figures_are_registered(page):
    for fig_id in _structure(page)[1]:
        registry.get(fig_id)


def test_chinese_paragraphs_are_not_hard_wrapped():
    """A line break inside Chinese prose shows as a stray space in the browser."""
    for page in ZH_PAGES:
        lines = page.read_text(encoding="utf-8").splitlines()
        for a, b in zip(lines, lines[1:]):
            if re.search(r"[\u4e00-\u9fff，。；：]$", a) and re.match(r"[\u4e00-\u9fff]", b):
                raise AssertionError(f"{page.name}: a paragraph is wrapped after: {a[-30:]}")
