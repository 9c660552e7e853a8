"""The numbered pages (figures/publish/contents.py) where a reader sees them: the {{ contents }}
construct (the home page's "where to start": each page's number, title and reading time) and the
number before each numbered page's title in Material's navigation ("1 · ..."), in both languages.

The nav's number goes through the hook Material's templates give a nav title written as HTML
(`nav_item.typeset.title`, partials/nav-item.html, set by its typeset plugin, which this site does
not use): the page's own title, its <title> and its citation stay as they are.
"""

from __future__ import annotations

import posixpath
import re

from ..publish.contents import NumberedPage

MINUTES = {"zh": "约 {} 分钟", "en": "about {} min"}
NOTE = {"zh": "阅读时间只是按每页的篇幅粗略估算的，中英文页面内容相同，估出的时间也相同。看图、动手改代码的时间另算。",
        "en": "Reading times are rough estimates from each page's length; the Chinese and English pages say the "
              "same things and get the same time. Looking at the figures and trying the code take longer."}


def contents_markdown(pages: list[NumberedPage], lang: str, here: str) -> str:
    """The numbered pages as a list, each linked from the page `here` (its nav entry), with its
    number and reading time; then how the times were counted."""
    base = posixpath.dirname(here)
    items = [f"- {p.number} · [{p.titles[lang]}]({posixpath.relpath(p.page, base or '.')}) · "
             f"{MINUTES[lang].format(p.minutes[lang])}" for p in pages]
    return "\n".join(items) + "\n\n" + NOTE[lang] + "\n{: .mha-contents-note }"


class NavTitle:
    """A nav entry's title as Material prints it (nav_item.typeset.title): its number, then the
    page's title as the page has it when the nav is written."""

    def __init__(self, page, number: int):
        self.page, self.number = page, number

    @property
    def title(self) -> str:
        return f'<span class="mha-nav-number">{self.number} ·</span> {self.page.title}'


LANG_SUFFIX = re.compile(r"\.[a-z]{2}(?:_[A-Z]{2})?\.md$")


def number_the_nav(nav, pages: list[NumberedPage]) -> None:
    """Give each numbered page of `nav` (MkDocs' Navigation) its number before its title."""
    numbers = {p.page: p.number for p in pages}
    for page in nav.pages:
        number = numbers.get(LANG_SUFFIX.sub(".md", page.file.src_uri))
        if number is not None:
            page.typeset = NavTitle(page, number)
