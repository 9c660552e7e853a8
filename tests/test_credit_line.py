"""The credit line under each figure (attribution.credit_line, placed by figure_block.credit_html):
title, author, source and licence, as Creative Commons asks of a reuse, with the address of the
figure on the page that explains it, in the page's language."""

from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup

from figures.publish import attribution, numbering
from figures.publish.identity import IDENTITY

HOME = numbering.FigureNumber("3.2", "heads-side-by-side.md", 3, {"zh": "并排", "en": "Side by side"})


def test_the_credit_names_figure_site_authors_licence_and_the_figures_address():
    site, authors = IDENTITY.site_url, ", ".join(IDENTITY.authors)
    assert attribution.credit_line("head-planes", "zh", HOME) == (
        f"图 3.2，出自《{IDENTITY.title['zh']}》（{authors}），CC BY 4.0 许可，{site}heads-side-by-side/#fig-head-planes")
    assert attribution.credit_line("head-planes", "en", HOME) == (
        f"Figure 3.2 from “{IDENTITY.title['en']}” by {authors}, CC BY 4.0, {site}en/heads-side-by-side/#fig-head-planes")
    assert attribution.credit_line("x", "en", None).startswith("Figure (unnumbered) from ")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_figure_on_a_page_carries_its_credit_line(site, lang):
    root = site if lang == "zh" else site / "en"
    seen = 0
    for page in sorted(root.glob("*/index.html")):
        if page.parent.name in ("en", "gallery"):
            continue
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for figure in soup.select("figure.mha-figure"):
            fig_id = figure["id"].removeprefix("fig-")
            [credit] = figure.select(".mha-credit-text")
            number = re.search(r"\d+\.\d+", figure.select_one("figcaption").get_text())[0]
            assert credit.get_text().startswith(("图 " if lang == "zh" else "Figure ") + number), credit
            assert credit.get_text().endswith(f"#fig-{fig_id}") and "CC BY 4.0" in credit.get_text()
            seen += 1
    assert seen > 30
