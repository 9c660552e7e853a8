"""Every file a reader can download is saved under a name of its own: across the figures of a page,
the frames of a figure and the two languages, no download's name is another file's, so that a
lecturer's downloads folder never has one overwrite another (issue: figures 3.1-3.3 all saved as
q4-it.*, in both languages)."""

import re
from collections import defaultdict

import pytest
from bs4 import BeautifulSoup

from figures.engine import registry
from figures.kit.words import LANGS
from figures.site import figure_block
from frame_checks import needs_training


def _placed(fig_id: str, lang: str, number: str = "1") -> BeautifulSoup:
    html = figure_block.figure_html(fig_id, lang, number, lambda path: f"../{lang}/figures/{path}", where="page.md")
    return BeautifulSoup(html, "html.parser")


# every figure, and (the fast loop) every figure but those of page 4's trained model, whose data tables
# train it: the names those figures' downloads take among the others are checked by the whole suite
@pytest.mark.parametrize("trained", [False, pytest.param(True, marks=pytest.mark.trained)], ids=["untrained", "all"])
def test_no_two_files_share_a_download_name(trained):
    files = defaultdict(set)  # the name a download is saved under -> the files saved under it
    for lang in LANGS:
        for fig_id in (f for f in registry.ORDER if trained or not needs_training(f)):
            block = _placed(fig_id, lang)
            for a in block.select("a[download]"):
                assert a["download"], (fig_id, lang, a)  # a name is given, not left to the URL
                # a PNG the page's script draws from an SVG (no PNG file is on the site)
                drawn = a.get("data-draw-href")
                files[a["download"]].add(f"{drawn} as PNG" if drawn else a["href"])
            for a in block.select("a.mha-zip"):  # every frame in one zip, which the page's script packs
                row = a.find_parent(class_="mha-dl-every")
                files[a["data-download"]].add(f"{a['data-zip']} of {row['data-base']} {row['data-frames']}")
            for frame in block.select(".mha-frame"):  # what the slider script gives the links
                for attr, name in frame.attrs.items():
                    if m := re.fullmatch(r"data-([\w-]+)-name", attr):
                        if m[1].endswith("png"):  # drawn from the SVG of its look
                            files[name].add(f"{frame.get('data-' + m[1].removesuffix('png') + 'svg')} as PNG")
                        else:
                            files[name].add(frame.get(f"data-{m[1]}"))
    shared = {name: hrefs for name, hrefs in files.items() if len(hrefs) > 1}
    assert shared == {}
    assert len(files) > len(registry.ORDER) * len(LANGS) * 5  # svg, pdf, png, dark svg, dark png


def test_a_name_says_figure_number_id_frame_and_language():
    block = _placed("blend-rows", "en", "3.2")
    names = [a["download"] for a in block.select("a[download]")]  # this frame's, the CSV
    names += [a["data-download"] for a in block.select("a.mha-zip")]  # every frame's zips, packed by the script
    names += [v for k, v in block.select_one(".mha-frame").attrs.items() if k.endswith("-name")]  # the slider's
    assert len(names) > 8 and all(n.startswith("fig-3.2-blend-rows-") or n == "fig-3.2-blend-rows.en.csv"
                                  for n in names), names
    assert all(".en." in n for n in names)
    svg = block.select_one('a.mha-dl[data-fmt="svg"]')
    frame = svg["href"].rsplit("/", 1)[1].removesuffix(".svg")  # the shown frame's file on the site
    assert svg["download"] == f"fig-3.2-blend-rows-{frame}.en.svg"
    # the URL keeps the id alone: a number changes when a figure is added before it, an id never
    assert all("3.2" not in a["href"] for a in block.select("a[download], a.mha-zip"))


def test_a_dark_download_says_so_and_sits_beside_the_light_one():
    block = _placed("kv-heads", "zh")
    links = {a["data-fmt"]: a for a in block.select("a.mha-dl")}
    assert links["darkSvg"]["download"] == links["svg"]["download"].removesuffix(".svg") + ".dark.svg"
    assert links["darkPng"]["download"] == links["png"]["download"].removesuffix(".png") + ".dark.png"
    # the page's SVG of the frame, in the look the page shows in the dark scheme (dark.both)
    assert links["darkSvg"]["href"] == links["svg"]["href"] + "#dark"


def test_what_the_script_makes_brings_its_own_separator():
    """The stylesheet hides the dark downloads and the zips of all frames where the script cannot
    make them (no script, a page opened from disk): each of these parts of the row carries the
    separator before it, so that the row reads with one separator between two parts whether they
    are shown or not."""
    row = _placed("blend-rows", "en").select_one(".mha-downloads")
    made = row.select(".mha-dl-dark, .mha-dl-every")
    assert len(made) == 2 and all(m.select("a") for m in made)
    assert all([c.get("class") for c in m.find_all(recursive=False)][0] == ["mha-dl-sep"] for m in made)
    shown = " ".join(row.get_text().split())
    for m in made:
        m.decompose()
    hidden = " ".join(row.get_text().split())
    assert "Copy link" in hidden and "SVG" in hidden
    for text in (shown, hidden):
        assert "| |" not in text and not text.startswith("|") and not text.endswith("|"), text
