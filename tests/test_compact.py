"""The site's SVGs made lighter (figures/publish/bundles.py, compact): the same drawing to a hundredth
of a point, every text and the dark look's stylesheet as they were."""

import re

from figures.publish import bundles

NUMBER = re.compile(rb"-?\d+(?:\.\d+)?")


def _texts(svg: bytes) -> list[bytes]:
    """Everything but the path data and the whitespace between elements."""
    return re.sub(rb">\s+<", b"><", re.sub(rb'(<path\b[^>]*?\sd=")[^"]*"', rb'\1"', svg)).split(b"><")


def test_a_compact_svg_is_the_same_drawing_to_a_hundredth_of_a_point(checked_frames):
    saved = 0
    for (frame, lang), c in list(checked_frames.items())[::7]:  # every seventh frame: all kinds of figure
        svg = c.files["svg"]
        small = bundles.compact(svg)
        saved += len(svg) - len(small)
        assert _texts(small) == _texts(svg), frame.path()
        before, after = (re.findall(rb'<path\b[^>]*?\sd="([^"]*)"', s) for s in (svg, small))
        assert len(before) == len(after), frame.path()
        for a, b in zip(before, after):
            assert re.sub(rb"[\d.-]+|\s+", b"", a) == re.sub(rb"[\d.-]+|\s+", b"", b)  # the same commands
            x, y = (list(map(float, NUMBER.findall(d))) for d in (a, b))
            assert len(x) == len(y) and all(abs(p - q) <= 0.005 + 1e-9 for p, q in zip(x, y)), frame.path()
            assert b"\n" not in b and not re.search(rb"\d\.\d{3}", b)
        assert not re.search(rb">\n +<", small)
    assert saved > 0


def test_a_title_that_holds_decimals_keeps_them():
    svg = (b'<svg>\n <title>w = 0.125 d="1.23456"</title>\n <g>\n  <path d="M 0.123456 1.5 \nL 2 2.004999 \nz\n"/>\n'
           b' </g>\n</svg>\n')
    assert bundles.compact(svg) == (b'<svg>\n<title>w = 0.125 d="1.23456"</title>\n<g>\n<path d="M 0.12 1.5 L 2 2 z "/>\n'
                                    b'</g>\n</svg>\n')
