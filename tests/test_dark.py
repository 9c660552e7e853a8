"""The dark variant of every frame (figures/engine/dark.py): the light frame's drawing, every colour moved to
the slate scheme, and the page shows it in the slate scheme, following Material's toggle."""

import re

import pytest

from figures.engine import dark

COLOUR = re.compile(rb"#[0-9a-f]{6}\b")
IMAGE = re.compile(rb"data:image/png;base64,[A-Za-z0-9+/=\s]+")
PAIRS = (("svg", "dark.svg"), ("narrow.svg", "narrow.dark.svg"))


def _shape(svg: bytes) -> bytes:
    return COLOUR.sub(b"#", IMAGE.sub(b"image", svg))


def test_every_dark_frame_is_its_light_frame_with_other_colours(checked_frames):
    for (frame, lang), c in checked_frames.items():
        for light, dark_kind in PAIRS:
            a, b = c.files[light], c.files[dark_kind]
            assert _shape(a) == _shape(b), f"{frame.path(dark_kind)} ({lang}) is not {frame.path(light)} recoloured"
            assert b"#ffffff" not in b and a != b, frame.path(dark_kind)


def test_every_colour_text_is_written_in_reads_as_well_on_slate(checked_frames):
    """Every colour of the light frames that reads as text on white (4.5:1, WCAG) reads as text on
    the slate background too; what sits behind (grid lines, pale fills, the query's box) stays
    near the background, as it stayed near white."""
    used = {m.decode() for c in checked_frames.values() for m in COLOUR.findall(c.files["svg"])}
    ink = [c for c in sorted(used) if dark.contrast(c, "#ffffff") >= dark.TEXT_CONTRAST]
    assert len(ink) > 5
    weak = [(c, dark.colour(c), round(dark.contrast(dark.colour(c), dark.SLATE), 2)) for c in ink
            if dark.contrast(dark.colour(c), dark.SLATE) < dark.TEXT_CONTRAST]
    assert weak == []
    behind = [c for c in sorted(used) if dark.contrast(c, "#ffffff") < 1.3]
    assert behind and all(dark.contrast(dark.colour(c), dark.SLATE) < 1.6 for c in behind), behind


def test_text_on_a_grey_cell_keeps_its_contrast():
    """A cell shaded grey with ink written on it (what-a-head-reads): turned over together."""
    for cell in ("#bdbdbd", "#d9d9d9", "#969696"):
        before = dark.contrast(cell, "#222222")
        after = dark.contrast(dark.colour(cell), dark.colour("#222222"))
        assert after >= min(before, dark.TEXT_CONTRAST) * 0.9, (cell, before, after)


def test_the_images_inside_a_frame_are_recoloured_too(checked_frames):
    for (frame, lang), c in checked_frames.items():
        if b"data:image/png" in c.files["svg"]:
            assert IMAGE.findall(c.files["svg"]) != IMAGE.findall(c.files["dark.svg"]), frame.path()
            break
    else:
        pytest.fail("no figure has an image inside")


def test_materials_toggle_switches_every_figure_between_its_light_and_dark_drawing(browser, served):
    page = browser.new_page(viewport={"width": 1280, "height": 900}, color_scheme="light")
    page.goto(served + "en/one-head-blends/", wait_until="networkidle")

    visible = """[...document.querySelectorAll('#fig-blend-rows .mha-frame.is-current img')]
        .filter(i => i.getClientRects().length)"""

    def shown(ending: str):
        """The files the shown frame's visible images show, once each has picked one ending in
        `ending` (a busy machine may take a moment after a scroll or a toggle), or as they are
        after 10 s."""
        try:
            page.wait_for_function(f"() => {visible}.every(i => i.currentSrc.endsWith({ending!r}))", timeout=10000)
        except Exception:
            pass  # the assertion below says what is shown instead
        return [p.rsplit("/", 1)[-1] for p in page.evaluate(
            f"() => {visible}.map(i => i.currentSrc && new URL(i.currentSrc).pathname)") if p is not None]

    page.locator("#fig-blend-rows").scroll_into_view_if_needed()
    page.wait_for_load_state("networkidle")
    assert shown("/q4-it.svg") == ["q4-it.svg"]
    page.locator("label.md-header__button[for^='__palette']:visible").first.click()
    page.wait_for_load_state("networkidle")
    assert shown("/q4-it.dark.svg") == ["q4-it.dark.svg"]
    page.close()
