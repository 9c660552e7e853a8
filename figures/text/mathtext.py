"""A caption's inline maths as matplotlib's mathtext sets it: what a slide's heading shows
(figures/publish/decks.py), where the page sets its maths as MathML and a speaker note as plain
text (maths.py)."""

from __future__ import annotations

import functools
import re

import matplotlib.font_manager
import matplotlib.ft2font
import matplotlib.mathtext

from .constructs import expand_media, plain, unmarked

_MATHS = re.compile(r"\$([^$]+)\$")


def slide_text(markdown_text: str) -> str:
    """A caption as a slide shows it: its print wording, no Markdown marks, links as their words,
    and its maths as matplotlib's mathtext sets it (\\text{} as \\mathrm{}); a piece of maths that
    mathtext cannot set is written as plain text (constructs.plain): one it cannot parse, and one
    with a character its font lacks ($m_\\text{旧}$), which mathtext would draw as an empty box."""
    text = unmarked(expand_media(markdown_text, only="print"))

    def maths(m: re.Match) -> str:
        tex = re.sub(r"\\text\{", r"\\mathrm{", m[1])
        if any(ord(c) not in _maths_font_characters() for c in tex):
            return plain(m[0])
        try:
            _PARSER.parse(f"${tex}$")
        except ValueError:
            return plain(m[0])
        return f"${tex}$"

    return _MATHS.sub(maths, text)


_PARSER = matplotlib.mathtext.MathTextParser("path")


@functools.cache
def _maths_font_characters() -> frozenset[int]:
    """The characters the figures' mathtext font (style.py: DejaVu Sans) has a glyph for."""
    path = matplotlib.font_manager.findfont(matplotlib.font_manager.FontProperties(family="DejaVu Sans"))
    return frozenset(matplotlib.ft2font.FT2Font(path).get_charmap())
