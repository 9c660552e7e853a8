"""The home page's start (figures/publish/contents.py, figures/site/contents.py): the numbered pages
with their reading times, and the nav's numbers, which are the numbers the pages' figures carry."""

import re
from pathlib import Path
from urllib.parse import urlparse

import pytest

from built_pages import parsed
from figures.publish import contents, numbering
from figures.text import reading

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
LANGS = ("zh", "en")


# reading times --------------------------------------------------------------------------------
def test_chinese_is_read_by_characters_and_english_by_words_at_the_stated_rates():
    han, words = reading.HAN_PER_MINUTE, reading.WORDS_PER_MINUTE
    assert reading.minutes("多" * han * 3) == 3
    assert reading.minutes("word " * words * 2) == 2
    # both scripts on one page (code on a Chinese page): each at its own rate
    assert reading.minutes("多" * han * 2 + " word" * words * 3) == 5
    assert reading.minutes("") == 1  # about a minute at least
    assert reading.counts("「注意力」，attention’s weights, d_model.") == (3, 3)


def test_what_a_reader_does_not_read_is_not_counted():
    page = ("# 标题 {#a-very-long-heading-id-that-no-one-reads}\n\n"
            "读[术语](glossary.md#a-long-anchor-that-no-one-reads)。\n{: .some-class }\n\n"
            '<div class="many words in an attribute"></div>\n')
    assert reading.counts(reading.readable(page, lambda fig_id: "")) == (5, 0)


def test_a_figure_counts_its_caption_a_number_and_a_formula_one_word_each():
    caption = "Two heads {{ value toy.h }} and $h \\times d_k = d_\\text{model}$ over {{ screen \"drag it\" print \"the frames\" }}."
    page = "Text.\n\n{{ figure peak-dip }}\n\nMore $$\\sum_i a_i b_i$$ text `code span`.\n"
    text = reading.readable(page, lambda fig_id: caption if fig_id == "peak-dip" else "")
    # Text / Two heads n and x over drag it / More x text code span
    assert reading.counts(text) == (0, 14)
    assert "{{" not in text and "\\times" not in text


# numbered pages -------------------------------------------------------------------------------
def _docs(tmp_path, pages: dict[str, list[str]]) -> Path:
    for stem, ids in pages.items():
        for lang in LANGS:
            figures = "\n\n".join(f"{{{{ figure {i} }}}}" for i in ids)
            (tmp_path / f"{stem}.{lang}.md").write_text(f"# {stem} {lang} {{#{stem}}}\n\nWords here.\n\n{figures}\n",
                                                        encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("order", [["a", "b", "c", "d"], ["a", "new", "b", "c", "d"]])
def test_a_page_carries_the_number_its_figures_carry_and_a_new_page_moves_the_ones_after(tmp_path, order):
    """The nav's numbers are numbering's: a page added before others moves their figures' numbers and
    their page numbers alike. The pages after the last one that explains a figure carry none."""
    figures = {"index": ["peak-dip"], "a": ["width-slices", "peak-dip"], "b": ["blend-rows"], "c": [],
               "new": ["four-heads"], "d": ["head-planes"], "glossary": [], "gallery": []}
    nav = ["index.md", *(f"{p}.md" for p in order), "glossary.md", "gallery.md"]
    docs = _docs(tmp_path, {p.removesuffix(".md"): figures[p.removesuffix(".md")] for p in nav})
    numbers = numbering.figure_numbers(docs, nav, list(LANGS))
    pages = contents.numbered_pages(docs, nav, list(LANGS), numbers)
    assert [p.page for p in pages] == [f"{p}.md" for p in order]  # c has no figure, but d after it has
    assert [p.number for p in pages] == list(range(1, len(order) + 1))
    for n in numbers.values():
        assert {p.page: p.number for p in pages}[n.home] == n.page == int(n.number.split(".")[0])
    assert pages[0].titles == {"zh": "a zh", "en": "a en"}


def test_the_site_numbers_the_pages_whose_figures_it_numbers():
    config = numbering.mkdocs_config()
    numbers = numbering.site_numbers()
    pages = contents.numbered_pages(DOCS, config["nav"], list(LANGS), numbers)
    homes = {n.home: n.page for n in numbers.values()}
    assert {p.page: p.number for p in pages if p.page in homes} == homes
    assert pages[0].page == numbering.nav_pages(config["nav"])[1] and pages[0].number == 1


# the built site -------------------------------------------------------------------------------
def _built(page: str, lang: str) -> str:
    rel = "index.html" if page == "index.md" else f"{page.removesuffix('.md')}/index.html"
    return rel if lang == "zh" else f"en/{rel}"


def _target(site: Path, rel: str, href: str) -> str:
    """The page a link on the page `rel` leads to, as a path below the site."""
    path = ((site / rel).parent / urlparse(href).path).resolve()
    path = path / "index.html" if path.is_dir() else path
    return path.relative_to(site.resolve()).as_posix()


def _nav_numbers(site: Path, rel: str) -> dict[str, str]:
    """The primary nav of a built page: each entry's page and the number shown before its title."""
    found = {}
    for a in parsed(site / rel).select("nav.md-nav--primary a.md-nav__link[href]"):
        if urlparse(a["href"]).fragment:  # the page's own table of contents, in the nav on a phone
            continue
        number = a.select_one(".mha-nav-number")
        found[_target(site, rel, a["href"])] = number.get_text() if number else None
    return found


def _own_figure_numbers(site: Path, rel: str) -> list[str]:
    """The numbers of the figures a built page explains (a reused figure's number links elsewhere)."""
    return [num.get_text().split()[-1] for num in parsed(site / rel).select("figure.mha-figure .mha-fig-num")
            if not urlparse(num["href"]).path]


@pytest.mark.parametrize("lang", LANGS)
def test_the_nav_shows_each_page_s_number_and_its_figures_carry_it(site, lang):
    nav = numbering.nav_pages(numbering.mkdocs_config()["nav"])
    for page in nav:  # every page's nav, the same numbers
        shown = _nav_numbers(site, _built(page, lang))
        assert set(shown) == {_built(p, lang) for p in nav}
        numbered = [rel for rel in shown if shown[rel]]
        assert [shown[rel] for rel in numbered] == [f"{k} ·" for k in range(1, len(numbered) + 1)]
        for rel, number in shown.items():
            own = _own_figure_numbers(site, rel)
            if number:  # "Figure 4.6" is on page 4
                assert all(n.split(".")[0] == number.removesuffix(" ·") for n in own), (rel, number, own)
            else:  # no number, no figure of its own: but the home page's (page 0)
                assert not own or rel == _built("index.md", lang), (rel, own)
        assert _own_figure_numbers(site, numbered[-1])  # the numbers run to the last page with figures


@pytest.mark.parametrize("lang", LANGS)
def test_the_home_page_lists_the_numbered_pages_with_their_reading_times(site, lang):
    rel = _built("index.md", lang)
    home = parsed(site / rel)
    items = home.select_one("article h2#start").find_next("ul").select("li")
    shown = _nav_numbers(site, rel)
    assert [_target(site, rel, li.a["href"]) for li in items] == [r for r in shown if shown[r]]
    for li in items:
        target = _target(site, rel, li.a["href"])
        number, _, minutes = (part.strip() for part in li.get_text().split("·"))
        assert f"{number} ·" == shown[target]
        assert li.a.get_text() == parsed(site / target).select_one("article h1").get_text().strip("¶ ")
        # the English twin's count, in both languages: the twins say the same things
        source = (DOCS / (target.removeprefix("en/").removesuffix("/index.html") + ".en.md")).read_text(encoding="utf-8")
        expected = reading.minutes(source, lambda fig_id: contents.caption(fig_id, "en"))
        assert re.fullmatch(r"约 (\d+) 分钟" if lang == "zh" else r"about (\d+) min", minutes)[1] == str(expected)
