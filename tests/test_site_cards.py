"""Error cards (figures/site/cards.py) for a hand-made FigureError: what `mkdocs serve` shows in
place of a broken figure. test_serve_errors.py checks that a served site shows them."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from figures.engine.registry import FigureError
from figures.site import cards

SVG = "{http://www.w3.org/2000/svg}"
TRACE = "\n".join([
    "Traceback (most recent call last):",
    '  File "figures/render.py", line 80, in _drawn',
    "    fig = mod.draw(lang, frame.value)",
    "",
    '  File "figures/blend_slider.py", line 41, in draw',
    "    weights = toy.blend(value)",
    '  File "mha_ref/toy.py", line 12, in blend',
    "    return attention(q, k)",
    '  File "mha_ref/attention.py", line 30, in attention',
    "    check(q)",
    '  File "mha_ref/checks.py", line 5, in check',
    '    raise ValueError("bad <q> & \'k\'")',
    "ValueError: bad <q> & 'k'",
    "   ",
])
LAST_8 = [line for line in TRACE.splitlines() if line.strip()][-8:]


@pytest.fixture
def error():
    return FigureError("blend-slider", "zh", "blend-0.50", "ValueError: bad <q> & 'k' (checks.py, line 5)",
                       TRACE)


HEADLINE = ("figure 'blend-slider' (zh, frame blend-0.50) failed to draw: "
            "ValueError: bad <q> & 'k' (checks.py, line 5)")


def rows(svg: bytes) -> list[str]:
    root = ET.fromstring(svg)
    return [t.text or "" for t in root.iter(f"{SVG}text")]


def test_the_headline_names_figure_language_frame_and_error(error):
    assert error.headline == HEADLINE and len(HEADLINE) <= cards.WIDTH  # one row on the card
    assert cards.lines(error) == [HEADLINE, "", *LAST_8]
    assert LAST_8[0] == "    weights = toy.blend(value)" and LAST_8[-1] == "ValueError: bad <q> & 'k'"


@pytest.mark.parametrize("lang, slug, stage, says", [
    (None, None, "import", "figure 'x' (every language, every frame) failed to import: E"),
    ("en", None, "draw", "figure 'x' (en, its one frame) failed to draw: E"),
    ("en", "h4", "draw", "figure 'x' (en, frame h4) failed to draw: E"),
])
def test_the_headline_says_which_frames(lang, slug, stage, says):
    e = FigureError("x", lang, slug, "E", "", stage)
    assert e.headline == says
    assert cards.lines(e) == [says, ""]  # no trace: the headline alone
    assert rows(cards.svg(e)) == [says, ""]


def test_the_svg_card_is_well_formed_names_everything_and_ends_with_the_trace(error):
    data = cards.svg(error)
    root = ET.fromstring(data)
    assert root.tag == f"{SVG}svg"
    assert root.find(f"{SVG}title").text == HEADLINE
    assert list(root)[0].tag == f"{SVG}title"  # first: what a screen reader says of the image
    assert rows(data) == [HEADLINE, "", *LAST_8]
    for needle in ("blend-slider", "zh", "blend-0.50", "ValueError: bad <q> & 'k'", "checks.py, line 5"):
        assert needle in root.find(f"{SVG}title").text
    # leading spaces of the trace survive (xml:space="preserve")
    g = root.find(f"{SVG}g")
    assert g.get("{http://www.w3.org/XML/1998/namespace}space") == "preserve"
    assert rows(data)[2] == "    weights = toy.blend(value)"


def test_the_svg_card_escapes_the_error_text(error):
    text = cards.svg(error).decode()
    assert "bad <q>" not in text and "& 'k'" not in text
    assert "bad &lt;q&gt; &amp; &#x27;k&#x27;" in text


def test_the_svg_card_is_sized_for_its_rows_with_its_size_first(error):
    root = ET.fromstring(cards.svg(error))
    n = 2 + len(LAST_8)
    width, height = 12 + 7 * 110 + 12, 24 + 16 * n
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == (str(width), str(height),
                                                                             f"0 0 {width} {height}")
    ys = [int(t.get("y")) for t in root.iter(f"{SVG}text")]
    assert ys == [24 + 16 * i for i in range(n)] and max(ys) <= height
    from figures.publish.bundles import svg_size  # the page reads a card's size as it reads a frame's
    assert svg_size(cards.svg(error)[:2048]) == (width, height)


def test_a_long_line_is_wrapped_at_110_characters_and_indented():
    message = "ValueError: " + " ".join(f"word{i:03d}" for i in range(40))  # 12 + 40*8 - 1 = 331 characters
    e = FigureError("x", "en", None, message, "")
    out = rows(cards.svg(e))
    head = e.headline
    assert len(head) > 2 * 110
    wrapped = out[:-1]
    assert out[-1] == "" and len(wrapped) == 4
    assert all(len(r) <= 110 for r in wrapped)
    assert all(r.startswith("    ") and not r.startswith("     ") for r in wrapped[1:])
    assert " ".join(r.strip() for r in wrapped) == head  # nothing lost


def test_the_html_card_sits_at_the_figures_anchor_and_escapes_the_error(error):
    html = cards.figure_html(error)
    assert "bad <q>" not in html and "bad &lt;q&gt; &amp; &#x27;k&#x27;" in html
    root = ET.fromstring(html)
    assert root.tag == "div" and root.get("id") == "fig-blend-slider" and root.get("data-figure") == "blend-slider"
    assert root.get("class").split() == ["mha-figure-error", "admonition", "failure"]
    (pre,) = list(root)
    assert pre.tag == "pre" and pre.text == "\n".join([HEADLINE, "", *LAST_8])
