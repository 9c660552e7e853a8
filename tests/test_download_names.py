"""Every file a reader can download is saved under a name of its own: across the figures of a page,
the frames of a figure and the two languages, no download's name is another file's, so that a
lecturer's downloads folder never has one overwrite another (issue: figures 3.1-3.3 all saved as
q4-it.*, in both languages)."""

import re
from collections import defaultdict

from bs4 import BeautifulSoup

from figures.engine import registry
from figures.kit.words import LANGS
from figures.site import figure_block


def _placed(fig_id: str, lang: str) -> BeautifulSoup:
    html = figure_block.figure_html(fig_id, lang, 1, lambda path: f"../{lang}/figures/{path}", where="page.md")
    return BeautifulSoup(html, "html.parser")


def test_no_two_files_share_a_download_name():
    files = defaultdict(set)  # the name a download is saved under -> the files saved under it
    for lang in LANGS:
        for fig_id in registry.ORDER:
            block = _placed(fig_id, lang)
            for a in block.select("a[download]"):
                assert a["download"], (fig_id, lang, a)  # a name is given, not left to the URL
                files[a["download"]].add(a["href"])
            for frame in block.select(".mha-frame"):  # what the slider script gives the links
                for attr, href in frame.attrs.items():
                    if (m := re.fullmatch(r"data-(\w+)", attr)) and f"data-{m[1]}-name" in frame.attrs:
                        files[frame[f"data-{m[1]}-name"]].add(href)
    shared = {name: hrefs for name, hrefs in files.items() if len(hrefs) > 1}
    assert shared == {}
    assert len(files) > len(registry.ORDER) * len(LANGS) * 3


def test_a_name_says_figure_frame_and_language():
    block = _placed("blend-rows", "en")
    names = [a["download"] for a in block.select("a.mha-dl")]
    assert names and all(n.startswith("blend-rows-") and ".en." in n for n in names)
