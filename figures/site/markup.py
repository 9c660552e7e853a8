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

Inside code (fenced blocks, indented blocks, `code spans`: figures/text/constructs.py) nothing is
expanded: that is how a page writes a construct, or a literal {{, as it is. An error names the
page's file and line; a code fence never closed is one.

Each construct's HTML is made by a module of its own: figure_block.py (a figure), gallery.py (the
gallery), tables.py (tables and references); this one finds the constructs in a page, in order.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..text.constructs import (FIGURE, GALLERY, LEFTOVER, REFERENCES, TABLE, Located, MarkupError, expand_media,
                               expand_values, outside_code, unclosed_fence)
from .figure_block import figure_html
from .gallery import gallery_markdown
from .tables import references_markdown, table_markdown


def expand(text: str, lang: str, url: Callable[[str], str], where: str, numbers: dict | None = None,
           page: str | None = None, show_failures: bool = False, page_url: str | None = None,
           size: Callable[[str], tuple[int, int] | None] | None = None, first_line: int = 1) -> tuple[str, list[str]]:
    """Expand every construct of a page. Returns the new Markdown and the figure ids in order.

    where: the page's file, as errors name it with the line ("docs/x.en.md:42: ..."), text starting
    on its line `first_line`.
    numbers: the site's figure numbers (numbering.figure_numbers) and page: this page's nav entry.
    Without them (a text on its own) a figure is numbered by its place in the text.
    show_failures, size: as in figure_html. page_url: this page's full URL, for each figure's "copy link".
    """
    placed: list[str] = []
    source = Located(text, where, first_line=first_line)
    fence = unclosed_fence(text)
    if fence is not None:  # Markdown would make the rest of the page code, and the cite section after it
        opening = text[fence:].partition("\n")[0].strip()
        raise MarkupError(f"{source.where(fence)}: the code fence {opening!r} opened here is never closed; "
                          "close it with a line of the same fence")

    def one_figure(m: re.Match, at: str) -> str:
        opts = dict(o.split("=", 1) for o in m["opts"].split())
        unknown = set(opts) - {"start"}
        if unknown:
            raise MarkupError(f"{at}: figure {m['id']!r} has unknown option(s) {sorted(unknown)}")
        if m["id"] in placed:
            raise MarkupError(f"{at}: figure {m['id']!r} is placed twice; its anchor must be unique")
        placed.append(m["id"])
        if numbers is None:
            number, home = str(len(placed)), None
        elif m["id"] in numbers:
            home = numbers[m["id"]]
            number = home.number
        else:
            raise MarkupError(f"{at}: figure {m['id']!r} has no site-wide number; is the page in the nav?")
        return "\n" + figure_html(m["id"], lang, number, url, opts.get("start"), at, home, page, show_failures,
                                  page_url, size) + "\n"

    source = source.replace(FIGURE, one_figure)
    source = source.replace(GALLERY, lambda m, at: gallery_markdown(lang, url, numbers or {}, page or "", at,
                                                                     show_failures, size))
    source = source.replace(REFERENCES, lambda m, at: references_markdown())
    source = source.replace(TABLE, lambda m, at: table_markdown(m["name"], lang, at))
    source = expand_values(expand_media(source))
    leftover = outside_code(LEFTOVER, source.text)
    if leftover:  # a typo, or a block construct written inside a paragraph
        raise MarkupError(f"{source.where(leftover[0].start())}: unknown or misplaced construct "
                          f"{leftover[0].group(0)!r}; use figure, table, gallery or references on a line of "
                          "their own, or value")
    return source.text, placed
