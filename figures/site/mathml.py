"""Formulas rendered to MathML at build time: the reader's browser needs no script and no CDN.

pymdownx.arithmatex (generic mode) finds the math in the Markdown and leaves it as
<span class="arithmatex">\\(...\\)</span> or <div class="arithmatex">\\[...\\]</div>;
this module swaps each for MathML that browsers draw natively.
"""

from __future__ import annotations

import html
import re
import unicodedata

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
TEXT = re.compile(r"\\(?:text|mathrm)\{([^}]*)\}")
COMMAND = re.compile(r"\\([a-zA-Z]+)")


def _greek(m: re.Match) -> str:
    """`\\alpha` as α, `\\Delta` as Δ; any other command is left as typed."""
    case = "CAPITAL" if m[1][0].isupper() else "SMALL"
    name = m[1].upper().replace("LAMBDA", "LAMDA")  # as Unicode spells it
    try:
        return unicodedata.lookup(f"GREEK {case} LETTER {name}")
    except KeyError:
        return m[0]


def toc_title(title: str) -> str:
    """A heading's title as the table of contents prints it (plain text: no MathML there): each
    inline formula without its delimiters, `\\(h\\)` as `h`, `\\(d_\\text{model}\\)` as `d_model`,
    `\\(\\alpha\\)` as `α`. The title stays HTML (Material prints it as such), so `&lt;` stays escaped."""
    def plain(m: re.Match) -> str:
        return COMMAND.sub(_greek, TEXT.sub(r"\1", m[1].strip()))
    return INLINE_TEX.sub(plain, title)


def plain_toc(toc) -> None:
    """Every title in a page's table of contents (mkdocs' TableOfContents) through toc_title."""
    for item in toc:
        item.title = toc_title(item.title)
        plain_toc(item.children)
