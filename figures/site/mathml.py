"""Formulas rendered to MathML at build time: the reader's browser needs no script and no CDN.

pymdownx.arithmatex (generic mode) finds the math in the Markdown and leaves it as
<span class="arithmatex">\\(...\\)</span> or <div class="arithmatex">\\[...\\]</div>;
this module swaps each for MathML that browsers draw natively.
"""

from __future__ import annotations

import html
import re

from latex2mathml.converter import convert

MATH = re.compile(
    r'<(?P<tag>span|div) class="arithmatex">\s*(?:\\\((?P<inline>.*?)\\\)|\\\[(?P<block>.*?)\\\])\s*</(?P=tag)>',
    re.S,
)


def to_mathml(page_html: str, where: str = "") -> str:
    def one(m: re.Match) -> str:
        block = m["block"] is not None
        tex = html.unescape(m["block"] if block else m["inline"]).strip()
        try:
            mathml = convert(tex, display="block" if block else "inline")
        except Exception as e:  # latex2mathml raises several kinds; name the formula
            raise ValueError(f"{where}: cannot render the formula {tex!r}: {e}") from e
        return f'<div class="mha-math">{mathml}</div>' if block else mathml

    return MATH.sub(one, page_html)


INLINE_TEX = re.compile(r"\\\((.*?)\\\)")


def toc_title(title: str) -> str:
    """A heading's title as the table of contents prints it (plain text: no MathML there): each
    inline formula without its delimiters, `\\(h\\)` as `h`."""
    return INLINE_TEX.sub(lambda m: html.unescape(m[1]).strip(), title)


def plain_toc(toc) -> None:
    """Every title in a page's table of contents (mkdocs' TableOfContents) through toc_title."""
    for item in toc:
        item.title = toc_title(item.title)
        plain_toc(item.children)
