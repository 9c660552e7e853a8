"""A page's constructs, expanded for the page's language at build time. What each construct is and
means is the construct language's (figures/text/constructs.py); this module finds them in a page,
in order, and hands each to the module that makes its HTML: figure_block.py (a figure), gallery.py
(the gallery), tables.py (tables and references). Numbers and screen/print words are expanded last.
Inside code (fenced blocks, indented blocks, `code spans`) nothing is expanded. An error names the
page's file and line; a code fence never closed is one.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..text.constructs import (CONTENTS, FIGURE, GALLERY, LEFTOVER, REFERENCES, TABLE, VALUE, Located, MarkupError,
                               expand_media, expand_values)
from ..text.markdown_code import outside_code, unclosed_fence
from . import later
from .contents import contents_markdown
from .figure_block import figure_html
from .gallery import gallery_markdown
from .tables import references_markdown, table_markdown
from ..engine import registry
from ..publish import expansions
from ..publish.expansions import PAGES


def expand(text: str, lang: str, url: Callable[[str], str], where: str, numbers: dict | None = None,
           page: str | None = None, show_failures: bool = False,
           size: Callable[[str], tuple[int, int] | None] | None = None, first_line: int = 1,
           pages: list | None = None) -> tuple[str, list[str]]:
    """Expand every construct of a page. Returns the new Markdown and the figure ids in order.

    where: the page's file, as errors name it with the line ("docs/x.en.md:42: ..."), text starting
    on its line `first_line`.
    numbers: the site's figure numbers (numbering.figure_numbers) and page: this page's nav entry.
    Without them (a text on its own) a figure is numbered by its place in the text.
    show_failures, size: as in figure_html.
    pages: the site's numbered pages (publish/contents.numbered_pages), for {{ contents }}.
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
                                  size) + "\n"

    source = source.replace(FIGURE, one_figure)
    source = source.replace(GALLERY, lambda m, at: gallery_markdown(lang, url, numbers or {}, page or "", at,
                                                                     show_failures, size))
    source = source.replace(REFERENCES, lambda m, at: references_markdown())
    source = source.replace(CONTENTS, lambda m, at: _contents(pages, lang, page, at))
    source = source.replace(TABLE, lambda m, at: table_markdown(m["name"], lang, at))
    waiting = later.waiting_values() if show_failures else frozenset()
    if waiting:  # mkdocs serve, page 4's model still training: those numbers are marks until it is done
        source = source.replace(VALUE, lambda m, at: later.pending_value(m["name"], lang) if m["name"] in waiting else m[0])
    source = expand_values(expand_media(source))
    leftover = outside_code(LEFTOVER, source.text)
    if leftover:  # a typo, or a block construct written inside a paragraph
        raise MarkupError(f"{source.where(leftover[0].start())}: unknown or misplaced construct "
                          f"{leftover[0].group(0)!r}; use figure, table, gallery, contents or references on a line of "
                          "their own, or value")
    return source.text, placed


def _contents(pages: list | None, lang: str, page: str | None, at: str) -> str:
    if pages is None or page is None:
        raise MarkupError(f"{at}: {{{{ contents }}}} lists the site's numbered pages: it needs a page of the site")
    return contents_markdown(pages, lang, page)


def kept_expansion(page: tuple, make: Callable[[], tuple[str, list[str]]]) -> tuple[str, list[str]]:
    """make() (an expand() of a page), kept in the figure cache's pages/ (publish/expansions.py) under
    a digest of `page` (the page's Markdown and every other argument expand() is given, as text) and
    of the code, of the figures' own modules only those the page places (the gallery: all): a build
    in which neither the page nor that code changed reads it. An expansion holding an error card
    (a figure that failed under `mkdocs serve`, perhaps only for want of time) is not kept."""
    named = registry.ORDER if GALLERY.search(page[0]) else sorted({m["id"] for m in FIGURE.finditer(page[0])})
    text, placed = expansions.kept(PAGES, page, make, "an expanded page", figures=tuple(named),
                                   keep=lambda value: 'class="mha-figure-error' not in value[0]
                                   and later.PENDING_CLASS not in value[0])
    return text, list(placed)
