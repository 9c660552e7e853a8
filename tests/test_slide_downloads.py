"""A lecturer's downloads of the frame shown, in a real browser: the PNG wide enough for a
full-width 1080p slide at 2x, drawn by the page's script from the frame's SVG, light or dark, with
the attribution the build stamped into its own PNG; the dark SVG stamped like every download."""

import html
import io
import re
from urllib.parse import urljoin, urlsplit

import pytest
from PIL import Image

from figures.engine import dark

SLIDE_PX = 3840  # 1920 px of a 1080p slide, twice over


def _download(page, link) -> tuple[str, bytes]:
    with page.expect_download() as info:
        link.click()
    d = info.value
    return d.suggested_filename, open(d.path(), "rb").read()


@pytest.mark.parametrize("path", ["heads-side-by-side/", "en/heads-side-by-side/"])
def test_the_shown_frame_downloads_slide_wide_light_and_dark(browser, served, site, path):
    page = browser.new_page(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(served + path, wait_until="networkidle")
    figure = page.locator("figure.mha-figure:has(.mha-controls)").first
    figure.locator(".mha-next").click()  # not the opening frame: the links follow the slider
    shown = figure.locator(".mha-frame.is-current")
    assert shown.get_attribute("data-index") != figure.locator(".mha-frames").get_attribute("data-start")
    name = shown.get_attribute("data-png-name")
    stamped = Image.open(site / urlsplit(urljoin(page.url, shown.get_attribute("data-png"))).path.lstrip("/"))
    stamped.load()
    files = {fmt: _download(page, figure.locator(f'.mha-downloads a[data-fmt="{fmt}"]'))
             for fmt in ("png", "darkPng", "darkSvg")}
    page.close()
    assert errors == []
    light, night = (Image.open(io.BytesIO(files[f][1])) for f in ("png", "darkPng"))
    for image in (light, night):
        image.load()
        assert image.size[0] == SLIDE_PX and abs(image.size[1] / SLIDE_PX - stamped.size[1] / stamped.size[0]) < 0.01
        assert image.text == stamped.text and image.text["Title"]  # the build's attribution, whole
    corner = lambda image: "#%02x%02x%02x" % image.convert("RGB").getpixel((2, 2))  # noqa: E731
    assert corner(light) == "#ffffff" and corner(night) == dark.SLATE
    assert files["png"][0] == name and re.fullmatch(r"[\w.-]+\.(zh|en)\.png", name)
    assert name.split(".")[-2] == ("en" if path.startswith("en/") else "zh")
    assert files["darkPng"][0] == name.removesuffix(".png") + ".dark.png"
    assert files["darkSvg"][0] == name.removesuffix(".png") + ".dark.svg"
    svg = files["darkSvg"][1].decode()
    assert "<title>" + html.escape(stamped.text["Title"]) in svg and dark.SLATE in svg and "#ffffff" not in svg
