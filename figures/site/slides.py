"""The links to the slide decks (figures/publish/decks.py): a "Slides" section at the foot of each
page that explains figures, for its own deck, and one on the gallery for every page's.

A deck is linked only when the build wrote it (a build without downloads, or a page whose frame
failed under `mkdocs serve`, has none), with its size and a download name that says the page,
the language and the scheme (deck_files.download_name).
"""

from __future__ import annotations

import html
from collections.abc import Callable

from ..engine.render import frames
from ..publish import deck_files, decks
from .offline_reading import size_text

GALLERY = "gallery.md"
WORDS = {
    "zh": {"heading": "幻灯片", "gallery_heading": "各页的幻灯片",
           "this": "本页讲解的 {figures} 张图也做成了 16:9 的 PDF 幻灯片（共 {frames} 帧，每帧一张），可以直接放进课件：",
           "every": "每一页讲解的图都做成了 16:9 的 PDF 幻灯片，一帧一张：",
           "about": "每张幻灯片的页脚是署名和许可，图注放在这张幻灯片的 PDF 注释里，可作讲稿。",
           "light": "浅色背景", "dark": "深色背景", "sep": " · ", "item": "[{title}]({home})（第 {page} 页）："},
    "en": {"heading": "Slides", "gallery_heading": "Slides for each page",
           "this": "The {figures} figures this page explains also come as a 16:9 PDF slide deck, "
                   "one slide for each of their {frames} frames, ready for a lecture:",
           "every": "Each page's figures also come as a 16:9 PDF slide deck, one slide per frame:",
           "about": "Every slide carries the credit line and licence at its foot; the figure's caption is in the "
                    "slide's PDF note, as speaker text.",
           "light": "light background", "dark": "dark background", "sep": " · ", "item": "[{title}]({home}) (page {page}): "},
}


def _links(home: str, lang: str, page: int, written: Callable[[str], tuple[str, int] | None]) -> str | None:
    """'<a …>light background</a> (2.1 MB) · <a …>dark background</a> (…)' for a page's decks (links
    to files the build generated, outside docs/, are HTML: MkDocs checks Markdown links against
    docs/); None if the build wrote none."""
    w, found = WORDS[lang], []
    for scheme in decks.SCHEMES:
        file = written(deck_files.path(home, scheme))
        if file is not None:
            href, size = file
            found.append(f'<a href="{html.escape(href)}" download="{deck_files.download_name(home, lang, scheme, page)}">'
                         f"{w[scheme]}</a>{'（' if lang == 'zh' else ' ('}{size_text(size)}{'）' if lang == 'zh' else ')'}")
    return w["sep"].join(found) or None


def section(nav_entry: str, lang: str, numbers: dict, written: Callable[[str], tuple[str, int] | None]) -> str:
    """The page's "Slides" section (Markdown, {#slides}), or "" when it has no deck to link.
    written(path below figures/) is (the link from this page, its size in bytes), or None."""
    w = WORDS[lang]
    homes: dict[str, list] = {}
    for n in numbers.values():
        homes.setdefault(n.home, []).append(n)
    if nav_entry == GALLERY:
        items = []
        for home, placed in sorted(homes.items(), key=lambda kv: kv[1][0].page):
            links = _links(home, lang, placed[0].page, written)
            if links:
                items.append("- " + w["item"].format(title=placed[0].titles[lang], home=home, page=placed[0].page) + links)
        if not items:
            return ""
        return _screen_only(f"## {w['gallery_heading']} {{#slides}}\n\n{w['every']}\n\n" + "\n".join(items)
                            + f"\n\n{w['about']}")
    placed = homes.get(nav_entry)
    links = placed and _links(nav_entry, lang, placed[0].page, written)
    if not links:
        return ""
    count = sum(len(frames(fig_id)) for fig_id, n in numbers.items() if n.home == nav_entry)
    return _screen_only(f"## {w['heading']} {{#slides}}\n\n" + w["this"].format(figures=len(placed), frames=count)
                        + f" {links}{'。' if lang == 'zh' else '.'}\n\n{w['about']}")


def _screen_only(markdown: str) -> str:
    """The section in a block that print leaves out (mha-print.css: .mha-screen-only), as it leaves
    out every download: a handout offers no files."""
    return f'\n\n<div class="mha-slides mha-screen-only" markdown="block">\n\n{markdown}\n\n</div>\n'
