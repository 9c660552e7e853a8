"""A page's constructs, expanded for the page's language at build time. What each construct is and
means is the construct language's (figures/text/constructs.py); this module finds them in a page,
in order, and hands each to the module that makes its HTML: figure_block.py (a figure), gallery.py
(the gallery), tables.py (tables and references). Numbers and screen/print words are expanded last.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..text.constructs import (FIGURE, GALLERY, LEFTOVER, REFERENCES, TABLE, MarkupError, expand_media, expand_values,
                               outside_code, replace_outside_code)
from .figure_block import figure_html
from .gallery import gallery_markdown
from .tables import references_markdown, table_markdown


def expand(text: str, lang: str, url: Callable[[str], str], where: str, numbers: dict | None = None,
           page: str | None = None, show_failures: bool = False, page_url: str | None = None,
           size: Callable[[str], tuple[int, int] | None] | None = None) -> tuple[str, list[str]]:
    """Expand every construct of a page. Returns the new Markdown and the figure ids in order.

    numbers: the site's figure numbers (numbering.figure_numbers) and page: this page's nav entry.
    Without them (a text on its own) a figure is numbered by its place in the text.
    show_failures, size: as in figure_html. page_url: this page's full URL, for each figure's "copy link".
    """
    placed: list[str] = []

    def one_figure(m: re.Match) -> str:
        opts = dict(o.split("=", 1) for o in m["opts"].split())
        unknown = set(opts) - {"start"}
        if unknown:
            raise MarkupError(f"{where}: figure {m['id']!r} has unknown option(s) {sorted(unknown)}")
        if m["id"] in placed:
            raise MarkupError(f"{where}: figure {m['id']!r} is placed twice; its anchor must be unique")
        placed.append(m["id"])
        if numbers is None:
            number, home = str(len(placed)), None
        elif m["id"] in numbers:
            home = numbers[m["id"]]
            number = home.number
        else:
            raise MarkupError(f"{where}: figure {m['id']!r} has no site-wide number; is the page in the nav?")
        return "\n" + figure_html(m["id"], lang, number, url, opts.get("start"), where, home, page, show_failures,
                                  page_url, size) + "\n"

    text = replace_outside_code(FIGURE, one_figure, text)
    text = replace_outside_code(GALLERY, lambda m: gallery_markdown(lang, url, numbers or {}, page or "", where, show_failures, size),
                text)
    text = replace_outside_code(REFERENCES, lambda m: references_markdown(), text)
    text = replace_outside_code(TABLE, lambda m: table_markdown(m["name"], lang, where), text)
    text = expand_media(text)
    text = expand_values(text, where)
    leftover = outside_code(LEFTOVER, text)
    if leftover:  # a typo, or a block construct written inside a paragraph
        raise MarkupError(f"{where}: unknown or misplaced construct {leftover[0].group(0)!r}; "
                          "use figure, table, gallery or references on a line of their own, or value")
    return text, placed
