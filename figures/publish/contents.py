"""The site's numbered pages: the number each carries in the nav and on the home page, its title in
each language, and about how long it takes to read (figures/text/reading.py).

A page's number is the one its figures carry ("Figure 4.6" is on page 4): numbering.py counts the
content pages in nav order, and this module takes that count as it is. The numbered pages run from
the first content page to the last page that explains a figure; the pages after it (glossary,
gallery, references, what changed) gather what the numbered ones teach and carry no number.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from ..engine import registry
from ..text import reading
from .numbering import FRONT, TITLE, FigureNumber, _source, nav_pages


@dataclass(frozen=True)
class NumberedPage:
    page: str                 # its nav entry, "one-head-blends.md"
    number: int               # the number its figures carry: 1, 2, ...
    titles: dict[str, str]    # its title (first heading) in each language
    minutes: dict[str, int]   # about how long it takes to read, the same in each language (minutes_of)


def page_numbers(nav: list, numbers: dict[str, FigureNumber]) -> dict[str, int]:
    """The nav entries that carry a number, with it: numbering's count of the content pages, from
    the first up to the last page that is some figure's home."""
    content = [p for p in nav_pages(nav) if p != FRONT]
    last = max((n.page for n in numbers.values()), default=0)
    return {page: k for k, page in enumerate(content[:last], 1)}


def caption(fig_id: str, lang: str) -> str:
    """A figure's caption in `lang`, as its module writes it (constructs unexpanded); "" for a figure
    that fails to import: that failure is the figure's card where it is drawn (under `mkdocs serve`)
    or stops the build there, naming it (gen_figures.py), not a failure of the reading times."""
    try:
        mod = registry.get(fig_id)
    except registry.FigureError:
        return ""
    return mod.CAPTION_ZH if lang == "zh" else mod.CAPTION_EN


def minutes_of(docs_dir: Path, page: str) -> int:
    """About how long a page takes to read, counted on its English twin and shown in both languages:
    the twins say the same things, so a reader of either gets the same estimate (reading.py says why
    one count, not one rate per language)."""
    text = _source(docs_dir, page, "en")
    captions = tuple((fig_id, caption(fig_id, "en")) for fig_id in sorted(set(FIGURE_ID.findall(text)) & set(registry.ORDER)))
    return _minutes(text, captions)


FIGURE_ID = re.compile(r"\{\{\s*figure\s+([^\s}]+)")  # every figure a text names (a superset of those it places)


@functools.lru_cache(maxsize=64)
def _minutes(text: str, captions: tuple[tuple[str, str], ...]) -> int:
    """reading.minutes of a text and its figures' captions, counted once per process: a build counts
    each page for every language it builds, and `mkdocs serve` again on every rebuild."""
    return reading.minutes(text, dict(captions).__getitem__)


def numbered_pages(docs_dir: Path, nav: list, langs: list[str], numbers: dict[str, FigureNumber]) -> list[NumberedPage]:
    """Every numbered page in nav order, with its titles and reading times in every language."""
    found = []
    for page, number in page_numbers(nav, numbers).items():
        sources = {lang: _source(docs_dir, page, lang) for lang in langs}
        found.append(NumberedPage(
            page, number, {lang: TITLE.search(text)["title"] for lang, text in sources.items()},
            dict.fromkeys(sources, minutes_of(docs_dir, page))))
    return found
