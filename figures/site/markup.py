"""A page's constructs, expanded for the page's language at build time (the language itself:
figures/text/constructs.py):

    {{ figure ID }}            on a line of its own: the figure, its frames, number and caption; the
                               number is site-wide (figures/publish/numbering.py) and, on a page that
                               reuses the figure, links back to the page that explains it
    {{ figure ID start=VALUE }} the same, opening on another frame (VALUE: a control value, or its file name, e.g. h2)
    {{ value NAME }}           a number computed by mha_ref (mha_ref.quantities), e.g.
    {{ value NAME .2f }}       with a Python format spec
    {{ value NAME .2f up }}    rounded up (or `down`) at the spec's precision, exactly: next to a bound
                               word ("at most", "不低于", ...) the rounding must keep the bound true
                               (figures/text/bounds.py); with no bound word next to it, refused
    {{ gallery }}              on a line of its own: every registered figure, in number order, as a
                               card: its start frame, number, id, caption, the page that explains
                               it, its downloads
    {{ references }}           on a line of its own: every cited work (mha_ref.models.REFERENCES),
                               each with the anchor #KEY that pages link to
    {{ screen "TEXT" print "TEXT" }}  inline: words that only make sense on screen ("drag the slider")
                               and what print says instead (what the frames show); both are in the
                               page, CSS shows one (docs/assets/mha-print.css)
    {{ table NAME }}           on a line of its own: a table of published data from mha_ref.models
                               (published-models, head-count), with its source linked, or toy-head-roles
                               (the running example's heads measured as Voita et al. do, mha_ref.roles),
                               or the reference page's notation, shapes and costs (cheatsheet.py)

Inside fenced code blocks (``` or ~~~) and `code spans` nothing is expanded: that is how a page
writes a construct, or a literal {{, as it is.

Each construct's HTML is made by a module of its own: figure_block.py (a figure), gallery.py (the
gallery), tables.py (tables and references); this one finds the constructs in a page, in order.
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
