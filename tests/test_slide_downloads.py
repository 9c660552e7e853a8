"""A lecturer's downloads of the frame shown, in a real browser: the PNG wide enough for a
full-width 1080p slide at 2x, drawn by the page's script from the frame's SVG, light or dark, with
the attribution the build stamps into a PNG, read from the SVG's metadata; the dark SVG stamped like every download; and
every frame in one zip per format, which the page packs from the frames' files."""

import html
import io
import re
import zipfile
from urllib.parse import urljoin, urlsplit

import pytest
from PIL import Image

from figures.__main__ import main as cli
from figures.engine import dark
from figures.engine.render import frames
from figures.publish import attribution, bundles, numbering, stamp

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
    shown_svg = shown.get_attribute("data-svg")
    frame = frames(figure.get_attribute("data-figure"))[int(shown.get_attribute("data-index"))]
    files = {fmt: _download(page, figure.locator(f'.mha-downloads a[data-fmt="{fmt}"]'))
             for fmt in ("png", "darkPng", "darkSvg")}
    page.close()
    assert errors == []
    lang = "en" if path.startswith("en/") else "zh"
    # what the build stamps into a PNG of this frame (the site keeps none: the page draws them)
    a = attribution.attribution(frame, lang, numbering.site_numbers().get(frame.fig_id))
    blank = io.BytesIO()
    Image.new("RGB", (1, 1)).save(blank, format="png")
    want = Image.open(io.BytesIO(stamp.stamp(blank.getvalue(), "png", a)))
    want.load()
    svg_file = site / urlsplit(urljoin(served + path, shown_svg)).path.lstrip("/")
    width, height = bundles.svg_size(svg_file.read_bytes()[:2048])
    light, night = (Image.open(io.BytesIO(files[f][1])) for f in ("png", "darkPng"))
    for image in (light, night):
        image.load()
        assert image.size[0] == SLIDE_PX and abs(image.size[1] / SLIDE_PX - height / width) < 0.01
        assert image.text == want.text and image.text["Title"]  # the build's attribution, whole
        assert {image.text[k].lang for k in image.text} == {lang}
    corner = lambda image: "#%02x%02x%02x" % image.convert("RGB").getpixel((2, 2))  # noqa: E731
    assert corner(light) == "#ffffff" and corner(night) == dark.SLATE
    assert files["png"][0] == name and re.fullmatch(r"[\w.-]+\.(zh|en)\.png", name)
    assert name.split(".")[-2] == ("en" if path.startswith("en/") else "zh")
    assert files["darkPng"][0] == name.removesuffix(".png") + ".dark.png"
    assert files["darkSvg"][0] == name.removesuffix(".png") + ".dark.svg"
    svg = files["darkSvg"][1].decode()
    assert "<title>" + html.escape(a.title) in svg and dark.SLATE in svg and "#ffffff" not in svg
    # the page's SVG of the frame, its dark look made plain: dark.literal to the byte, which is
    # dark.svg of the drawing, stamped (tests/test_dark.py)
    assert files["darkSvg"][1] == dark.literal(svg_file.read_bytes())


def test_a_dark_download_of_a_frame_with_images_inside_is_the_plain_dark_svg(browser, served, site):
    """The images inside a frame (projection-columns draws its matrices so) come in their dark
    twins in the dark SVG the page's script makes: dark.literal's bytes."""
    page = browser.new_page(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    page.goto(served + "en/slicing-the-width/", wait_until="networkidle")
    figure = page.locator("#fig-projection-columns")
    link = figure.locator('.mha-downloads a[data-fmt="darkSvg"]')
    href = link.get_attribute("href")
    assert href.endswith("#dark")
    _, data = _download(page, link)
    page.close()
    light = (site / urlsplit(urljoin(served + "en/slicing-the-width/", href)).path.lstrip("/")).read_bytes()
    assert b"<image " in light and data == dark.literal(light) != light


@pytest.mark.parametrize("path", ["one-head-blends/", "en/one-head-blends/"])
def test_every_frame_comes_as_one_zip_per_format_packed_by_the_page(browser, served, site, path, tmp_path):
    """The site keeps no zip of all frames: the page's script packs it from the frames' own files.
    Each zip holds what the CLI's zip of that figure holds (bundles.zip_members, bundles.zip_frames):
    the attribution first, then every frame's stamped file as the site serves it, in frame order,
    under its path, dated as the CLI dates them; it is saved under the name the page gives it.
    PNGs (no file on the site) are drawn from the frames' SVGs, slide-wide, stamped as the CLI's."""
    page = browser.new_page(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(served + path, wait_until="networkidle")
    figure = page.locator("figure.mha-figure:has(.mha-controls)").first
    fig_id = figure.get_attribute("data-figure")
    lang = "en" if path.startswith("en/") else "zh"
    base = site / ("en" if lang == "en" else "") / "figures"
    assert not list(base.glob("*.zip"))  # nothing of the kind is on the site
    assert cli(["--out", str(tmp_path), "--only", fig_id, "--format", "svg,pdf,png"]) == 0
    links = figure.locator(".mha-downloads a.mha-zip")
    assert links.count() == 3
    for k in range(3):
        link = links.nth(k)
        fmt = link.get_attribute("data-zip")
        saved, data = _download(page, link)
        assert saved == bundles.download_name(fig_id, lang, fmt, every_frame=True, number=saved.split("-")[1])
        assert re.fullmatch(rf"fig-[\d.]+-{fig_id}-frames\.{lang}\.{fmt}\.zip", saved)
        with zipfile.ZipFile(io.BytesIO(data)) as packed, zipfile.ZipFile(tmp_path / lang / bundles.zip_path(fig_id, fmt)) as made:
            assert packed.testzip() is None  # every member's CRC holds
            assert packed.namelist() == made.namelist() == bundles.zip_members(fig_id, fmt)
            assert all(i.date_time == bundles.ZIP_TIME for i in packed.infolist())
            for name in packed.namelist():
                if fmt == "png" and name != bundles.ATTRIBUTION:  # drawn by the page, SLIDE_PX wide
                    image, cli_made = (Image.open(io.BytesIO(z.read(name))) for z in (packed, made))
                    image.load()
                    cli_made.load()
                    assert image.size[0] == SLIDE_PX and image.text == cli_made.text, name
                    continue
                assert packed.read(name) == made.read(name), (fmt, name)
                if name != bundles.ATTRIBUTION:
                    assert packed.read(name) == (base / name).read_bytes(), (fmt, name)
    page.close()
    assert errors == []
