"""Figure text large enough to read where the page shows it: at least 11 CSS px on a desktop, 10 on
a 390 px phone (which shows each figure's narrow drawing), 7 pt in small multiples (no script,
print). The size of a frame's smallest text comes from matplotlib's own text artists, as the frame
was drawn for the site (tests/frame_checks.py); the width the page gives the figure, from the
browser. Sub- and superscripts inside mathtext are set at 0.7 of their text's size and not
counted on their own."""

import pytest

from figures.kit.words import LANGS
from figures.kit.style import NARROW_WIDTH, SMALLEST_PT, WIDTH
from side_by_side import SideBySide

DESKTOP_PX, PHONE_PX, MULTIPLE_PT = 11, 10, 7
PHONE_COLUMN = 358  # CSS px a 390 px phone gives a figure (checked in the browser below)
CSS_PX_PER_IN = 96


def shown_px(pt: float, figure_in: float, shown_width_px: float) -> float:
    """CSS px of `pt`-point text in a figure `figure_in` inches wide, shown `shown_width_px` wide."""
    return pt / 72 * shown_width_px / figure_in


def smallest_by_file(checked_frames) -> dict[str, tuple[float, float, str]]:
    """(pt, figure width in inches, text) of each file's smallest text, by its path below the
    site's root: figures/<id>/<slug>.svg, en/figures/..."""
    out = {}
    for (frame, lang), c in checked_frames.items():
        root = "" if lang == LANGS[0] else f"{lang}/"
        wide, thin = c.smallest
        for kind, smallest in (("svg", wide), ("narrow.svg", thin)):
            out[root + "figures/" + frame.path(kind)] = smallest
    return out


@pytest.mark.parametrize("lang", LANGS)
def test_every_frame_reads_on_a_desktop_and_on_a_phone(checked_frames, lang):
    small = []
    for (frame, lang_), c in checked_frames.items():
        if lang_ != lang:
            continue
        assert c.files is not None, c.error
        (wide_pt, wide_in, wide_text), (thin_pt, thin_in, thin_text) = c.smallest
        assert (wide_in, thin_in) == (WIDTH, NARROW_WIDTH), frame
        for pt, text in ((wide_pt, wide_text), (thin_pt, thin_text)):
            if pt < SMALLEST_PT:
                small.append(f"{frame.path()}: {text!r} at {pt} pt, under style.SMALLEST_PT")
        desktop = shown_px(wide_pt, wide_in, wide_in * CSS_PX_PER_IN)  # at its own size: the column is wider
        phone = shown_px(thin_pt, thin_in, PHONE_COLUMN)
        if desktop < DESKTOP_PX:
            small.append(f"{frame.path()} desktop: {wide_text!r} {desktop:.1f} px")
        if phone < PHONE_PX:
            small.append(f"{frame.path()} phone: {thin_text!r} {phone:.1f} px")
    assert small == [], "\n".join(small[:20])


PAGES = ["one-head-blends/", "slicing-the-width/", "en/heads-side-by-side/", "en/what-trained-heads-do/",
         "concatenate-then-mix/", "en/what-it-costs/", "the-code/", "en/reference/", "gallery/"]
SHOWN_IMG = "i => i.getClientRects().length && getComputedStyle(i.closest('.mha-frame') || i).visibility !== 'hidden'"
# each image brought into view, and a shown one given up to five seconds to pick its file (a busy
# machine, tabs side by side, or the service worker keeping the page's frames for offline once the
# page is idle, can take longer than the 30 ms between two images)
SCROLL_THROUGH = f"""async () => {{ const shown = {SHOWN_IMG};
    for (const i of document.querySelectorAll('.md-content picture img')) {{
        i.scrollIntoView(); await new Promise(r => setTimeout(r, 30));
        for (let t = 0; t < 200 && shown(i) && !i.currentSrc; t++) await new Promise(r => setTimeout(r, 25)); }} }}"""
SHOWN = f"""() => [...document.querySelectorAll('.md-content picture img')].filter({SHOWN_IMG})
    .map(i => [new URL(i.currentSrc).pathname
               // the look: every address its picture may pick ends in #dark, or none does (a file and its
               // dark look share one download, so currentSrc may name the one loaded first)
               + ([...i.closest('picture').querySelectorAll('source, img')]
                  .every(e => (e.getAttribute('srcset') || e.getAttribute('src') || '').endsWith('#dark')) ? '#dark' : ''),
               i.getBoundingClientRect().width])"""


CONFIGS = [(1280, "light"), (390, "light"), (390, "dark")]


@pytest.fixture(scope="module")
def shown_on_pages(browser, served):
    """For each configuration, [(page, image file, width shown in CSS px)] of every figure image
    shown on PAGES: a tab per configuration, the tabs going through the pages side by side."""
    tabs = SideBySide(browser, {(w, s): {"viewport": {"width": w, "height": 900}, "color_scheme": s} for w, s in CONFIGS})
    shown = {config: [] for config in CONFIGS}
    for path in PAGES:
        tabs.goto(served + path, wait_until="networkidle")
        tabs.evaluate(SCROLL_THROUGH)  # a lazy image loads when it comes near the viewport
        for tab in tabs.tabs.values():
            tab.wait_for_load_state("networkidle")
        for config, images in tabs.evaluate(SHOWN).items():
            shown[config] += [(path, src, width) for src, width in images]
    tabs.close()
    return shown


@pytest.mark.parametrize("width, scheme", CONFIGS)
def test_the_page_shows_each_figure_in_the_drawing_that_reads_at_its_width(shown_on_pages, checked_frames, width, scheme):
    """At 390 px the narrow drawing, at 1280 the wide one at its own size; the scheme's colours."""
    smallest = smallest_by_file(checked_frames)
    small, seen = [], 0
    for path, src, shown in shown_on_pages[width, scheme]:
        file, look = src.lstrip("/").partition("#")[::2]  # the dark look is the file's own, at #dark
        assert file in smallest, (path, file)
        assert (look == "dark") == (scheme == "dark"), (path, src)
        pt, figure_in, text = smallest[file]
        least = MULTIPLE_PT / 72 * CSS_PX_PER_IN if path == "gallery/" else DESKTOP_PX if width > 600 else PHONE_PX
        seen += 1
        if shown_px(pt, figure_in, shown) < least:
            small.append(f"{path} {file}: {text!r} {shown_px(pt, figure_in, shown):.1f} px, shown {shown:.0f} px wide")
    assert seen > len(PAGES) and small == [], "\n".join(small[:20])
