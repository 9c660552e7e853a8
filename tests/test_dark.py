"""The dark variant of every frame (figures/engine/dark.py): the light frame's drawing, every colour moved to
the slate scheme, and the page shows it in the slate scheme, following Material's toggle. The site
keeps one file of each frame for both looks (dark.both): its address + #dark shows the dark one."""

import io
import re

import pytest
from PIL import Image

from figures.engine import dark
from figures.kit import style
from figures.publish import bundles

COLOUR = re.compile(rb"#[0-9a-f]{6}\b")
IMAGE = re.compile(rb"data:image/png;base64,[A-Za-z0-9+/=\s]+")
LOOKS = ("svg", bundles.NARROW)  # the page's SVGs of a frame, each shown light and dark
# WCAG 2's contrast for text (1.4.3, level AA), written here as a number: held to the module's own
# constant (dark.TEXT_CONTRAST), a lowered constant would lower the test's bar with it
WCAG_TEXT = 4.5


def _shape(svg: bytes) -> bytes:
    return COLOUR.sub(b"#", IMAGE.sub(b"image", svg))


def test_every_dark_frame_is_its_light_frame_with_other_colours(checked_frames):
    for (frame, lang), c in checked_frames.items():
        for look in LOOKS:
            a = c.files[look]
            b = dark.svg(a)
            assert _shape(a) == _shape(b), f"{frame.path(look)} ({lang}): its dark look is not it recoloured"
            assert b"#ffffff" not in b and a != b, frame.path(look)


def _light_of(both: bytes) -> bytes:
    """both()'s file without what it added: its stylesheet, the root's id and the images' twins."""
    both = re.sub(rb'<style id="mha-dark">.*?</style>', b"", both, count=1, flags=re.S)
    both = re.sub(rb'<image class="mha-dark-only" display="none" [^>]*?/>', b"", both)
    return both.replace(b'<svg id="dark" ', b"<svg ", 1)


def test_one_file_holds_both_looks_and_gives_back_the_plain_dark_one(checked_frames):
    """Every SVG the page shows, of every frame and language: both() adds the dark look to the light
    drawing and changes nothing of it, and literal() gives back dark.svg's plain dark SVG to the
    byte (what the page's script offers as the dark download; the browser test holds the script to
    the same bytes). Every colour the frame draws gets a rule and a dark value; images get twins."""
    twinned = 0
    for (frame, lang), c in checked_frames.items():
        for look in LOOKS:
            light = c.files[look]
            both = dark.both(light)
            assert _light_of(both) == light, f"{frame.path(look)} ({lang}): the light drawing changed"
            assert dark.literal(both) == dark.svg(light), f"{frame.path(look)} ({lang})"
            sheet = re.search(rb'<style id="mha-dark">(.*?)</style>', both)[1].decode()
            for colour in {m.decode() for m in COLOUR.findall(IMAGE.sub(b"", light))}:
                assert f"--c{colour[1:]}:{dark.colour(colour)};" in sheet, (frame.path(look), colour)
            twins = both.count(b'class="mha-dark-only"')
            assert twins == light.count(b"<image "), frame.path(look)
            twinned += twins
    assert twinned  # some frame has an image inside (projection-columns)


@pytest.mark.parametrize("svg, named", [
    (b'<rect stop-color="#123456"/>', "#123456"),  # a colour no rule reaches
    (b'<rect style="fill: #ABCDEF"/>', "#ABCDEF"),  # matplotlib writes lower case: a rule would miss it
])
def test_a_colour_the_stylesheet_could_not_reach_is_an_error_that_names_it(svg, named):
    light = (b'<?xml version="1.0"?>\n<svg width="1pt" height="1pt"><defs><style type="text/css">*{}</style></defs>'
             + svg + b"</svg>")
    with pytest.raises(dark.DarkError, match=re.escape(named)):
        dark.both(light)


def test_every_colour_text_is_written_in_reads_as_well_on_slate(checked_frames):
    """Every colour of the light frames that reads as text on white (4.5:1, WCAG) reads as text on
    the slate background too; what sits behind (grid lines, pale fills, the query's box) stays
    near the background, as it stayed near white."""
    used = {m.decode() for c in checked_frames.values() for m in COLOUR.findall(c.files["svg"])}
    ink = [c for c in sorted(used) if dark.contrast(c, "#ffffff") >= WCAG_TEXT]
    assert len(ink) >= 5  # five in the frames the fast loop checks (one a figure)
    weak = [(c, dark.colour(c), round(dark.contrast(dark.colour(c), dark.SLATE), 2)) for c in ink
            if dark.contrast(dark.colour(c), dark.SLATE) < WCAG_TEXT]
    assert weak == []
    behind = [c for c in sorted(used) if dark.contrast(c, "#ffffff") < 1.3]
    assert behind and all(dark.contrast(dark.colour(c), dark.SLATE) < 1.6 for c in behind), behind


def test_text_on_a_grey_cell_keeps_its_contrast():
    """A cell shaded grey with ink written on it (what-a-head-reads): turned over together."""
    for cell in ("#bdbdbd", "#d9d9d9", "#969696"):
        before = dark.contrast(cell, "#222222")
        after = dark.contrast(dark.colour(cell), dark.colour("#222222"))
        assert after >= min(before, WCAG_TEXT) * 0.9, (cell, before, after)


def test_the_contrast_ratio_is_wcags():
    assert dark.contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert dark.contrast("#1e2129", "#1e2129") == pytest.approx(1.0)
    # the lightest grey that reads as text on white, and the next one, which does not
    assert dark.contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.005)
    assert dark.contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.005)


def test_every_colour_of_the_palette_reads_as_text_on_slate():
    """The heads' colours, the slices', the ink and the muted grey, moved to the dark scheme: each
    at least 4.5:1 against the slate background (several are not before: the position head's
    #0072B2 is 3.1:1 on slate)."""
    palette = sorted({c.lower() for c in (*style.HEAD_COLOURS.values(), *style.SLICE_COLOURS, style.INK, style.MUTED)})
    assert len(palette) >= 8
    weak = {c: (dark.colour(c), round(dark.contrast(dark.colour(c), dark.SLATE), 2)) for c in palette
            if dark.contrast(dark.colour(c), dark.SLATE) < WCAG_TEXT}
    assert weak == {}


def test_the_images_inside_a_frame_are_recoloured_too(checked_frames):
    for (frame, lang), c in checked_frames.items():
        if b"data:image/png" in c.files["svg"]:
            assert IMAGE.findall(c.files["svg"]) != IMAGE.findall(dark.svg(c.files["svg"])), frame.path()
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
            page.wait_for_function(f"() => {visible}.every(i => i.currentSrc.includes({ending!r}))", timeout=10000)
        except Exception:
            pass  # the assertion below says what is shown instead
        # the look: every address the picture may pick ends in #dark, or none does (a file and its
        # dark look share one download, so currentSrc may name the one loaded first)
        return [p.rsplit("/", 1)[-1] for p in page.evaluate(
            f"""() => {visible}.map(i => i.currentSrc && new URL(i.currentSrc).pathname
                + ([...i.closest('picture').querySelectorAll('source, img')]
                   .every(e => (e.getAttribute('srcset') || e.getAttribute('src') || '').endsWith('#dark')) ? '#dark' : ''))""")
            if p is not None]

    def corner() -> str:
        """The colour the reader sees in the shown frame's corner: the drawing's background."""
        image = Image.open(io.BytesIO(page.locator("#fig-blend-rows .mha-frame.is-current img:visible").screenshot()))
        return "#%02x%02x%02x" % image.convert("RGB").getpixel((3, 3))

    page.locator("#fig-blend-rows").scroll_into_view_if_needed()
    page.wait_for_load_state("networkidle")
    assert shown("/q4-it.svg") == ["q4-it.svg"] and corner() == "#ffffff"
    page.locator("label.md-header__button[for^='__palette']:visible").first.click()
    page.wait_for_load_state("networkidle")
    assert shown("/q4-it.svg") == ["q4-it.svg#dark"] and corner() == dark.SLATE  # the same file, its dark look
    page.close()


# a frame of each kind of thing the dark look must reach: glyphs and markers drawn through <use>
# (blend-rows), hatching in a <pattern> (causal-mask), images inside the SVG (projection-columns)
SHOWN_DARK = (("blend-rows", 0, "svg"), ("causal-mask", 5, "svg"), ("projection-columns", 1, bundles.NARROW))


def test_the_dark_look_of_one_file_is_the_plain_dark_svg_on_screen(browser, checked_frames):
    """What a reader sees: Chromium draws both()'s file at #dark, as an <img> as on the page, pixel
    for pixel as it draws the plain dark SVG (and without #dark as the light one), in the same place."""
    from figures.engine.render import frames
    by_key = {(f.fig_id, f.path(), lang): c for (f, lang), c in checked_frames.items()}
    page = browser.new_page(viewport={"width": 700, "height": 900})
    files = {}
    page.route("http://frames.test/**", lambda route: route.fulfill(
        body=files[route.request.url.split("/")[-1].split("#")[0]], content_type="image/svg+xml"))

    def drawn(src: str) -> bytes:
        page.set_content(f'<body style="margin:0"><img src="http://frames.test/{src}"></body>')
        page.wait_for_function("() => document.images[0].complete && document.images[0].naturalWidth > 0")
        return page.screenshot()

    for fig_id, k, look in SHOWN_DARK:
        light = by_key[(fig_id, frames(fig_id)[k].path(), "en")].files[look]
        name = f"{fig_id}-{k}-{look}"  # an address of its own: the browser keeps an image by its address
        files.update({f"{name}.both.svg": dark.both(light), f"{name}.dark.svg": dark.svg(light), f"{name}.svg": light})
        assert drawn(f"{name}.both.svg#dark") == drawn(f"{name}.dark.svg"), (fig_id, k, look)
        assert drawn(f"{name}.both.svg") == drawn(f"{name}.svg") != drawn(f"{name}.dark.svg"), (fig_id, k, look)
    page.close()
