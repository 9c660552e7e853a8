"""The frame slider in a real browser: headless Chromium runs the site's own JavaScript.

Skipped where no Chromium is installed (it is a system package: `apt-get install chromium`), except
under CI, where that fails (conftest's `chromium`).
"""

import re
import subprocess
import tempfile

import pytest
from bs4 import BeautifulSoup


def _dom(chromium: str, url: str, *extra: str) -> BeautifulSoup:
    with tempfile.TemporaryDirectory() as profile:
        run = subprocess.run(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
             *extra, "--dump-dom", url], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    return BeautifulSoup(run.stdout, "html.parser")


@pytest.fixture(scope="module")
def loaded(served, chromium):
    """A page's DOM after the site's JavaScript ran; Chromium loads each page once per module."""
    pages = {}

    def load(path: str) -> BeautifulSoup:
        if path not in pages:
            pages[path] = _dom(chromium, served + path)
        return pages[path]
    return load


@pytest.mark.parametrize("path, label", [("one-head-blends/", "查询 token"), ("en/one-head-blends/", "query token")])
def test_slider_is_built_labelled_and_opens_on_the_start_frame(loaded, path, label):
    dom = loaded(path)
    boxes = dom.select(".mha-frames")
    stepped = [b for b in boxes if len(b.select(":scope > .mha-frame")) > 1]
    assert stepped, "the page has figures with frames"
    for box in stepped:
        frames = box.select(":scope > .mha-frame")
        start = int(box["data-start"])
        assert "mha-js" in box["class"]
        row = box.find_previous_sibling("div", class_="mha-controls")
        slider = row.select_one("input[type=range]")
        assert int(slider["max"]) == len(frames) - 1
        assert row.select_one("label").get_text() == box["data-label-control"]
        assert slider["aria-valuetext"] == frames[start]["data-value"]
        assert [i for i, f in enumerate(frames) if "is-current" in f.get("class", [])] == [start]
    blend_rows = dom.select_one("#fig-blend-rows .mha-frames")
    assert blend_rows["data-label-control"] == label
    assert blend_rows.select(".mha-frame")[int(blend_rows["data-start"])]["data-value"].endswith("it")


def test_a_figure_without_frames_gets_no_controls(loaded):
    dom = loaded("one-head-blends/")
    figure = dom.select_one("#fig-peak-dip")
    assert figure.select_one(".mha-controls") is None
    assert "mha-js" not in figure.select_one(".mha-frames")["class"]


def test_the_download_links_follow_the_frame_shown(browser, served):
    """The "this frame" links point at the frame the slider shows (a PNG the page draws, at the SVG it is
    drawn from), and save it under its own name."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(served + "en/one-head-blends/", wait_until="networkidle")
    slider = page.locator("#fig-blend-rows input[type=range]")
    links = """() => [...document.querySelectorAll('#fig-blend-rows a.mha-dl')].map(a => {
        const frame = document.querySelector('#fig-blend-rows .mha-frame.is-current');
        // a PNG the page draws (data-draw) links the frame's SVG it is drawn from until it is clicked
        return [a.getAttribute('href'), a.download, frame.dataset[a.dataset.fmt] || frame.dataset[a.dataset.draw],
                frame.dataset[a.dataset.fmt + 'Name']];
    })"""
    seen = []
    for key in ("Home", "ArrowRight"):
        slider.focus()
        page.keyboard.press(key)
        got = page.evaluate(links)
        assert got and all(href == want_href and name == want_name and re.match(r"fig-\d+(\.\d+)*-blend-rows-", name) and ".en." in name
                           for href, name, want_href, want_name in got), got
        seen.append(got)
    assert seen[0] != seen[1]  # another frame, other files, other names
    page.close()
